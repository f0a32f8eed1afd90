package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/internal/wordfreq"
	"github.com/recalld/recalld/internal/wordnet"
	"github.com/recalld/recalld/queryapi"
)

// Request is a recall question. The user is not part of it: Recall takes
// the user from the trusted request context.
type Request struct {
	Question string         `json:"question" jsonschema:"minLength=1,maxLength=1000,description=the question about the user's past (preferences or facts or plans or what was said when)"`
	Context  RequestContext `json:"context,omitempty"`
	Options  Options        `json:"options,omitempty"`
}

// RequestContext narrows and anchors the question.
type RequestContext struct {
	TimeRange *TimeRange `json:"time_range,omitempty" jsonschema:"description=search only messages inside this window"`
	// RolePref is "user" (only the user's own words) or "any".
	RolePref string `json:"role_pref,omitempty" jsonschema:"enum=user,enum=any,description=user: only the user's own words count; any (default): the assistant's too"`
	// Now is when the question is asked (RFC 3339): the clock for relative
	// times, and the end of the history read (run.asOf). Empty means the
	// time of the call, with no bound.
	Now string `json:"now,omitempty" jsonschema:"format=date-time,description=when the question is asked: the clock for relative times such as last week and the end of the history read (RFC 3339); default: the time of the call"`
}

// TimeRange is a window of RFC 3339 times; Since inclusive, Until exclusive.
type TimeRange struct {
	Since string `json:"since,omitempty" jsonschema:"format=date-time,description=at or after this time (RFC 3339)"`
	Until string `json:"until,omitempty" jsonschema:"format=date-time,description=before this time (RFC 3339)"`
}

// Options bound the work of one recall.
type Options struct {
	MaxRounds int  `json:"max_rounds,omitempty" jsonschema:"minimum=1,maximum=20,description=search rounds at most (default from the skill)"`
	BudgetMS  int  `json:"budget_ms,omitempty" jsonschema:"minimum=10,maximum=120000,description=time budget in milliseconds (default from the skill)"`
	Trace     bool `json:"trace,omitempty" jsonschema:"description=include the agent's steps"`
}

// Response is the evidence-backed memory view.
type Response struct {
	MemoryView MemoryView    `json:"memory_view"`
	Answer     string        `json:"answer"`
	Evidence   []EvidenceRef `json:"evidence"`
	Conflicts  []Conflict    `json:"conflicts"`
	Limits     Limits        `json:"limits"`
	Timings    Timings       `json:"timings"`
	Trace      []TraceStep   `json:"trace,omitempty"`
}

// Timings tell where the time of a recall went, in milliseconds. Search is
// the brain's loop (tool calls, and the model's turns for the LLM brain);
// Tools sums the time inside tool calls, so parallel calls can make it
// exceed Search. A recall the LLM brain handed to the offline one reports
// the offline run, with Total from the start of the request.
type Timings struct {
	Observe    float64 `json:"observe_ms"`
	Search     float64 `json:"search_ms"`
	Tools      float64 `json:"tools_ms"`
	Synthesize float64 `json:"synthesize_ms"`
	Verify     float64 `json:"verify_ms"`
	Total      float64 `json:"total_ms"`
}

// MemoryView groups what the evidence supports.
type MemoryView struct {
	Preferences []Item `json:"preferences"`
	Profile     []Item `json:"profile"`
	Constraints []Item `json:"constraints"`
}

// Item is one conclusion with the messages that support it.
type Item struct {
	Statement   string   `json:"statement"`
	EvidenceIDs []string `json:"evidence_ids"`
	// Status is current, changed (superseded by a later statement) or uncertain.
	Status string `json:"status"`
	// AsOf is the time of the newest supporting message.
	AsOf time.Time `json:"as_of"`
}

// Item statuses.
const (
	StatusCurrent   = "current"
	StatusChanged   = "changed"
	StatusUncertain = "uncertain"
)

// EvidenceRef is a cited message, verbatim (possibly cut, never rewritten).
type EvidenceRef struct {
	MessageID      string        `json:"message_id"`
	Role           string        `json:"role"`
	Content        string        `json:"content"`
	Cut            bool          `json:"cut,omitempty"`
	CreatedAt      time.Time     `json:"created_at"`
	ConversationID string        `json:"conversation_id"`
	SenderName     string        `json:"sender_name,omitempty"`
	Context        []EvidenceRef `json:"context,omitempty"`
}

// Conflict records two sides that disagree and how they were settled.
type Conflict struct {
	Topic      string   `json:"topic"`
	Kept       []string `json:"kept"`
	Superseded []string `json:"superseded"`
	// Reason is time_change, context, source or unresolved.
	Reason string `json:"reason"`
}

// Limits state what the answer rests on.
type Limits struct {
	TimeRange          TimeRange `json:"time_range"`
	Role               string    `json:"role"`
	MessagesConsidered int       `json:"messages_considered"`
	ToolsCalled        int       `json:"tools_called"`
	Rounds             int       `json:"rounds"`
	StopReason         string    `json:"stop_reason"`
	Brain              string    `json:"brain"`
	Notes              []string  `json:"notes"`
}

// Stop reasons.
const (
	StopEnough     = "enough_evidence"
	StopLowGain    = "low_marginal_gain"
	StopNoise      = "noise"
	StopBudget     = "budget"
	StopNoEvidence = "no_evidence"
)

// TraceStep is one step of the loop, returned when Options.Trace is set.
// Each phase means one thing:
//   - observe: the brain reads the question (the first step, round 0);
//   - decide: a tool call the brain chose; Tool and Arguments are set, Hits
//     is what it returned, and Decision says why it was rejected, if it was,
//     or how the store searched a query the brain wrote (a long one cut);
//   - reflect: the brain judges what the search found: a round's tally, a
//     candidate set aside or ranked lower, the model's answer or a retry of it.
type TraceStep struct {
	Round     int    `json:"round"`
	Phase     string `json:"phase"` // observe, decide, reflect (see above)
	Tool      string `json:"tool,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Hits      int    `json:"hits"`
	Decision  string `json:"decision"`
}

// ErrInvalidRequest is a recall request that fails validation. It comes as
// an *InvalidRequestError.
var ErrInvalidRequest = errors.New("agent: invalid request")

// InvalidRequestError is an ErrInvalidRequest whose Msg, what is wrong with
// the request, a client may see (the HTTP and MCP layers read it with
// errors.As).
type InvalidRequestError struct{ Msg string }

// Error is ErrInvalidRequest's text, a colon and Msg.
func (e *InvalidRequestError) Error() string { return ErrInvalidRequest.Error() + ": " + e.Msg }

// Unwrap returns ErrInvalidRequest.
func (e *InvalidRequestError) Unwrap() error { return ErrInvalidRequest }

func invalidRequest(format string, args ...any) error {
	return &InvalidRequestError{Msg: fmt.Sprintf(format, args...)}
}

// MaxQuestionRunes bounds a question.
const MaxQuestionRunes = 1000

// brain decides what to search and what the evidence says. The offline
// brain follows the skill's rules; the LLM brain asks a model. recall
// returns the brain's draft, which run.finish verifies.
type brain interface {
	name() string
	recall(ctx context.Context, run *run) (draft, error)
}

// Agent answers recall questions over the user-bound query tools.
type Agent struct {
	tools   *queryapi.Service
	skill   *Skill
	llm     brain // nil: offline only
	offline *offlineBrain
	dict    *bilingual.Dict  // nil: words match in their own language only
	wordnet *wordnet.WordNet // nil: kinds of things from the skill's lexicons only
	freq    *wordfreq.Freq   // nil: how common a word is, from the user's messages only
	log     *slog.Logger
	now     func() time.Time
}

// Option configures an Agent.
type Option func(*Agent)

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option {
	return func(a *Agent) { a.log = l.With("component", "agent") }
}

// WithClock sets the clock used when a request gives no "now".
func WithClock(now func() time.Time) Option { return func(a *Agent) { a.now = now } }

// New returns an Agent over tools following skill, offline unless an LLM
// brain is added with WithLLM.
func New(tools *queryapi.Service, skill *Skill, opts ...Option) *Agent {
	a := &Agent{tools: tools, skill: skill, log: slog.New(slog.DiscardHandler), now: time.Now}
	for _, o := range opts {
		o(a)
	}
	if a.dict != nil {
		// The skill's Chinese words match as written in traditional
		// characters too.
		s := *skill
		s.Params = skill.Params.withForms(a.dict.Traditional)
		skill = &s
		a.skill = skill
	}
	a.offline = &offlineBrain{skill: skill, asking: askingWords(skill.Params), household: ofHousehold(skill.Params), timeWords: timeWords(skill.Params), dict: a.dict, wordnet: a.wordnet, freq: a.freq}
	return a
}

// Brain names the brain that answers by default: "offline" or "llm:<model>".
func (a *Agent) Brain() string {
	if a.llm != nil {
		return a.llm.name()
	}
	return a.offline.name()
}

// Recall answers req for user. The user comes from the trusted request
// context and binds every tool call; nothing in req can change it.
func (a *Agent) Recall(ctx context.Context, user string, req Request) (*Response, error) {
	tools, err := a.tools.Bind(user)
	if err != nil {
		return nil, &InvalidRequestError{Msg: err.Error()}
	}
	return a.RecallBound(ctx, tools, req)
}

// RecallBound answers req with tools already bound to the trusted user (the
// eval runner's entry); it is Recall without the binding step.
func (a *Agent) RecallBound(ctx context.Context, tools *queryapi.Tools, req Request) (*Response, error) {
	r, err := a.newRun(tools.ForOneRequest(), req)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, r.budget)
	defer cancel()
	if a.llm != nil {
		d, err := a.llm.recall(ctx, r)
		if err == nil {
			return r.finish(ctx, d, a.llm.name())
		}
		if ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) {
			return nil, ctx.Err()
		}
		a.log.Warn("llm brain failed; answering offline", "err", err)
		note := fmt.Sprintf("the language model failed (%s); answered by the offline brain", shortError(err))
		r2, err2 := a.newRun(r.tools, req)
		if err2 != nil {
			return nil, err2
		}
		r2.notes = append(r2.notes, note)
		// What the model's run noticed before it failed (an exhausted
		// search budget, an embedder down) is still worth knowing.
		for _, n := range r.notes {
			r2.notes = append(r2.notes, "before the model failed: "+n)
		}
		r2.started = r.started
		// The fallback gets its own budget and tool calls: the model may
		// have spent the first. limits.tools_called reports both.
		octx, ocancel := context.WithTimeout(context.WithoutCancel(ctx), r2.budget)
		defer ocancel()
		d, err = a.offline.recall(octx, r2)
		if err != nil {
			return nil, err
		}
		resp, err := r2.finish(octx, d, a.offline.name())
		if resp != nil {
			resp.Limits.ToolsCalled += r.toolsCalled
		}
		return resp, err
	}
	d, err := a.offline.recall(ctx, r)
	if err != nil {
		return nil, err
	}
	return r.finish(ctx, d, a.offline.name())
}

// verifyTimeout bounds the evidence check of an answer; it runs after the
// time budget, which the brain may have spent.
const verifyTimeout = 2 * time.Second

func shortError(err error) string { return truncate(err.Error(), 120) }

// newRun validates req and prepares the state of one recall.
func (a *Agent) newRun(tools *queryapi.Tools, req Request) (*run, error) {
	q := strings.TrimSpace(req.Question)
	switch {
	case q == "":
		return nil, invalidRequest("question is required")
	case !utf8.ValidString(q):
		return nil, invalidRequest("question is not valid UTF-8")
	case utf8.RuneCountInString(q) > MaxQuestionRunes:
		return nil, invalidRequest("question is longer than %d characters", MaxQuestionRunes)
	}
	var err error
	p := a.skill.Params
	now := a.now()
	var asOf time.Time
	if req.Context.Now != "" {
		if now, err = time.Parse(time.RFC3339Nano, req.Context.Now); err != nil {
			return nil, invalidRequest("context.now %q is not an RFC 3339 time", req.Context.Now)
		}
		asOf = now.Add(asOfSlack)
	}
	var window timeWindow
	if tr := req.Context.TimeRange; tr != nil {
		if window.since, err = parseOptTime("context.time_range.since", tr.Since); err != nil {
			return nil, err
		}
		if window.until, err = parseOptTime("context.time_range.until", tr.Until); err != nil {
			return nil, err
		}
		if !window.since.IsZero() && !window.until.IsZero() && !window.since.Before(window.until) {
			return nil, invalidRequest("context.time_range.since must be before until")
		}
		window.explicit = true
	}
	switch req.Context.RolePref {
	case "", "user", "any":
	default:
		return nil, invalidRequest("context.role_pref must be user or any")
	}
	maxRounds := p.Limits.MaxRounds
	if o := req.Options.MaxRounds; o != 0 {
		if o < 1 || o > 20 {
			return nil, invalidRequest("options.max_rounds must be between 1 and 20")
		}
		maxRounds = o
	}
	budget := time.Duration(p.Limits.BudgetMS) * time.Millisecond
	if o := req.Options.BudgetMS; o != 0 {
		if o < 10 || o > 120000 {
			return nil, invalidRequest("options.budget_ms must be between 10 and 120000")
		}
		budget = time.Duration(o) * time.Millisecond
	}
	return &run{
		tools: tools, skill: a.skill, question: q, now: now, asOf: asOf, window: window, rolePref: req.Context.RolePref,
		maxRounds: maxRounds, budget: budget, trace: req.Options.Trace, started: time.Now(),
		seen: map[string]*candidate{}, dict: a.dict,
	}, nil
}

func parseOptTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return t, invalidRequest("%s %q is not an RFC 3339 time", name, v)
	}
	return t, nil
}
