package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/queryapi"
)

// timeWindow is the part of the history a recall searches.
type timeWindow struct {
	since, until time.Time
	explicit     bool // given by the caller, never widened
	// told, when set, is where the span asked about ends: a message from
	// then on is in the window only when it tells of an earlier day, not
	// of its own (tellsOfItsDay).
	told time.Time
}

// tellsOfItsDay reports whether a message tells of the day it was sent
// or the next ("今天跑东莞", "明天去龙华", "tonight") without naming an
// earlier one (上周, last week).
func tellsOfItsDay(content string) bool {
	lower := strings.ToLower(content)
	return itsDay.MatchString(lower) && !lastWeekRE.MatchString(lower)
}

var itsDay = regexp.MustCompile(zhForms(`今天|今晚|今早|今儿|明天|明早|明晚|后天|\b(?:today|tonight|tomorrow|this morning|this evening|this afternoon)\b`))

func (w timeWindow) filter(role string) queryapi.Filter {
	f := queryapi.Filter{}
	if role != "" && role != "any" {
		f.Role = role
	}
	if !w.since.IsZero() {
		f.Since = w.since.Format(time.RFC3339Nano)
	}
	if !w.until.IsZero() {
		f.Until = w.until.Format(time.RFC3339Nano)
	}
	return f
}

// candidate is a message a tool returned during the run.
type candidate struct {
	ev      queryapi.Evidence
	score   float64 // best fused score seen
	rank    float64 // score relative to the best plus term overlap, set by best
	round   int     // first round that found it
	support float64 // absolute support, set by best (run.support)
	context []queryapi.Evidence
	// asked is the turn before the candidate when that is another
	// speaker's question: the candidate answers it (offlineRun.replies).
	asked *queryapi.Evidence
	// noted is the assistant's turn after the user's candidate when it
	// takes the candidate down ("记下了：…"): it restates it
	// (offlineRun.replies).
	noted *queryapi.Evidence
	// via is the hit that gave a name this candidate speaks of
	// (offlineRun.bridge): it bears the question out as that hit does.
	via   *candidate
	flags contextFlags
	// text holds what synthesis reads of the content more than once (its
	// topic, its key terms), computed on first use: superseding compares
	// every pair of statements.
	text *textFacts
}

// textFacts are the content's topic (topicOf), key terms (keyTerms with
// the filler lexicon) and key terms without the revision words.
type textFacts struct {
	topic                   string
	terms, termsNoRevisions []string
	noRevisionsDone         bool
}

// draft is what a brain concludes; finish verifies it.
type draft struct {
	view       MemoryView
	answer     string
	cited      []string // evidence ids in citation order
	conflicts  []Conflict
	stopReason string
}

// run is the state of one recall: the bound tools, the budget and everything
// the tools returned.
type run struct {
	tools    *queryapi.Tools
	skill    *Skill
	question string
	now      time.Time
	// asOf bounds the history the run reads: nothing said at or after it
	// (zero: no bound). A caller that gives context.now asks as of then,
	// and what was said later had not been said (asOfSlack).
	asOf      time.Time
	window    timeWindow
	rolePref  string
	role      string // the role filter in force ("" = any)
	maxRounds int
	budget    time.Duration
	started   time.Time
	trace     bool

	mu sync.Mutex // guards toolsCalled, considered, steps, notes and prior for parallel tool calls
	// prior is the turn before a message in its conversation, as the
	// neighbours the run fetched showed it (turnBefore).
	prior map[string]queryapi.Evidence
	// next is the turn after a message in its conversation, likewise.
	next        map[string]queryapi.Evidence
	rounds      int
	toolsCalled int
	considered  int
	seen        map[string]*candidate
	// people are the user's messages, from all time, that mention the
	// people of the relation the question asks about (offlineRun.learnPeople):
	// the names they give ("女儿朵朵四岁") hold outside the question's window.
	people     []queryapi.Evidence
	peopleRead bool
	sims       map[string]float64 // best raw cosine similarity to the question, per message (guarded by mu)
	gloss      map[string]float64 // raw similarity to the question's meaning in the other language (guarded by mu)
	glossTop   float64            // the best of gloss, and its message (run.glossed)
	glossTopID string
	dict       *bilingual.Dict    // nil: no dictionary (namesAfter knows fewer names)
	idf        map[string]float64 // the offline brain's idf of the question's terms over seen (relevance.idf)
	idfSeen    int                // len(seen) when idf was computed
	steps      []TraceStep
	notes      []string
	timings    Timings // observe, synthesize and tools as they happen; the rest in finish
}

// since returns the milliseconds from start to now.
func since(start time.Time) float64 { return float64(time.Since(start).Microseconds()) / 1000 }

// toolTime adds the time of one tool call; parallel calls add up.
func (r *run) toolTime(start time.Time) {
	d := since(start)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.timings.Tools += d
}

func (r *run) step(phase, tool string, args any, hits int, decision string) {
	if !r.trace {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, TraceStep{Round: r.rounds, Phase: phase, Tool: tool, Arguments: args, Hits: hits, Decision: decision})
}

func (r *run) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Contains(r.notes, n) {
		r.notes = append(r.notes, n)
	}
}

// noteLexicalOnly is the note of an answer searched without semantic search.
const noteLexicalOnly = "semantic search unavailable (the embedder does not answer): searched by words only"

// errToolBudget stops a brain that has used up its tool calls.
var errToolBudget = errors.New("agent: tool call budget spent")

// callsLeft is how many tool calls the run may still make.
func (r *run) callsLeft() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skill.Params.Limits.MaxToolCalls - r.toolsCalled
}

func (r *run) callBudget() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.toolsCalled >= r.skill.Params.Limits.MaxToolCalls {
		return errToolBudget
	}
	r.toolsCalled++
	return nil
}

func (r *run) list(ctx context.Context, p queryapi.ListParams) (queryapi.Page, error) {
	if err := r.callBudget(); err != nil {
		return queryapi.Page{}, err
	}
	start := time.Now()
	page, err := r.tools.MessagesList(ctx, p)
	r.toolTime(start)
	page.Hits = r.before(page.Hits)
	if err == nil {
		r.sawConsidered(page.Considered)
	}
	r.step("decide", "messages_list", p, len(page.Hits), "")
	return page, err
}

func (r *run) lexical(ctx context.Context, p queryapi.LexicalParams) (queryapi.Page, error) {
	if err := r.callBudget(); err != nil {
		return queryapi.Page{}, err
	}
	start := time.Now()
	page, err := r.tools.LexicalSearch(ctx, p)
	r.toolTime(start)
	page.Hits = r.before(page.Hits)
	var decision string
	if err == nil {
		r.sawConsidered(page.Considered)
		// How the store searched the text (a long query cut short) is a
		// limit of the answer when the text is the user's own words; of a
		// search the brain wrote (a topic's many words, the question's
		// senses in the other language) it is the brain's, kept in the
		// trace.
		if len(page.Notes) > 0 && !r.questionsWords(p.QueryText) {
			decision = strings.Join(page.Notes, "; ")
		} else {
			for _, n := range page.Notes {
				r.note("%s", n)
			}
		}
	}
	r.step("decide", "lexical_search", p, len(page.Hits), decision)
	return page, err
}

// questionsWords reports whether every word of a query is in the
// question (KeywordQuery of it, or a part of it after a preamble).
func (r *run) questionsWords(query string) bool {
	q := strings.ToLower(r.question)
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if !strings.Contains(q, w) {
			return false
		}
	}
	return true
}

func (r *run) semantic(ctx context.Context, p queryapi.SemanticParams) (queryapi.Page, error) {
	if err := r.callBudget(); err != nil {
		return queryapi.Page{}, err
	}
	start := time.Now()
	page, err := r.tools.SemanticSearch(ctx, p)
	r.toolTime(start)
	page.Hits = r.before(page.Hits)
	if err == nil {
		r.sawConsidered(page.Considered)
	}
	if errors.Is(err, queryapi.ErrSemanticUnavailable) {
		r.note(noteLexicalOnly)
	}
	r.step("decide", "semantic_search", p, len(page.Hits), "")
	return page, err
}

func (r *run) neighbors(ctx context.Context, p queryapi.NeighborsParams) (queryapi.NeighborsResult, error) {
	if err := r.callBudget(); err != nil {
		return queryapi.NeighborsResult{}, err
	}
	start := time.Now()
	res, err := r.tools.Neighbors(ctx, p)
	r.toolTime(start)
	res.After = r.before(res.After)
	r.step("decide", "neighbors", p, len(res.Before)+len(res.After), "")
	if err == nil {
		if c, ok := r.seen[res.Anchor.MessageID]; ok {
			c.context = append(slices.Clone(res.Before), res.After...)
		}
		r.learnOrder(append(append(slices.Clone(res.Before), res.Anchor), res.After...))
	}
	return res, err
}

// asOfSlack is how far past context.now a message may be dated and still
// be read: the question's own turn, on a clock a little ahead.
const asOfSlack = time.Minute

// before returns the hits or turns said before the run's asOf. The
// searches are not filtered by it: a filter changes how the store ranks
// (what is dropped here is rare: a history replayed with later turns).
func (r *run) before(turns []queryapi.Evidence) []queryapi.Evidence {
	if r.asOf.IsZero() {
		return turns
	}
	return slices.DeleteFunc(turns, func(e queryapi.Evidence) bool { return !e.CreatedAt.Before(r.asOf) })
}

// learnOrder records each turn's turn before from consecutive turns of one
// conversation, as neighbours returns them.
func (r *run) learnOrder(turns []queryapi.Evidence) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.prior == nil {
		r.prior = make(map[string]queryapi.Evidence)
		r.next = make(map[string]queryapi.Evidence)
	}
	for i := 1; i < len(turns); i++ {
		r.prior[turns[i].MessageID] = turns[i-1]
		r.next[turns[i-1].MessageID] = turns[i]
	}
}

// turnAfter returns the turn after message id, when a neighbours call of
// the run showed it.
func (r *run) turnAfter(id string) (queryapi.Evidence, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.next[id]
	return e, ok
}

// turnBefore returns the turn before message id, when a neighbours call
// of the run showed it.
func (r *run) turnBefore(id string) (queryapi.Evidence, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.prior[id]
	return e, ok
}

func (r *run) sawConsidered(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.considered = max(r.considered, n)
}

// remember records hits under their ids, keeping the best fused score.
func (r *run) remember(hits []queryapi.Evidence) (fresh int) {
	for _, h := range hits {
		if c, ok := r.seen[h.MessageID]; ok {
			c.score = max(c.score, h.Score)
			continue
		}
		r.seen[h.MessageID] = &candidate{ev: h, score: h.Score, round: r.rounds}
		fresh++
	}
	return fresh
}

// finish verifies the brain's draft d and builds the response. A brain may stop at
// the end of the time budget with what it found; verifying that must still
// finish, so it runs in its own window (verifyTimeout), detached from the
// budget: on a spent ctx every lookup would fail and every citation be
// dropped as "not a message of this user".
func (r *run) finish(ctx context.Context, d draft, brain string) (*Response, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), verifyTimeout)
	defer cancel()
	start := time.Now()
	verified, err := r.verify(ctx, d)
	if err != nil {
		return nil, err
	}
	t := r.timings
	t.Verify = since(start)
	t.Total = since(r.started)
	t.Search = max(0, t.Total-t.Observe-t.Synthesize-t.Verify)
	resp := &Response{
		MemoryView: verified.view,
		Answer:     verified.answer,
		Conflicts:  verified.conflicts,
		Evidence:   []EvidenceRef{},
		Limits: Limits{
			Role:               cmpOr(r.role, "any"),
			MessagesConsidered: r.considered,
			ToolsCalled:        r.toolsCalled,
			Rounds:             r.rounds,
			StopReason:         verified.stopReason,
			Brain:              brain,
			Notes:              r.notes,
		},
		Timings: t,
		Trace:   r.steps,
	}
	if !r.window.since.IsZero() {
		resp.Limits.TimeRange.Since = r.window.since.Format(time.RFC3339)
	}
	if !r.window.until.IsZero() {
		resp.Limits.TimeRange.Until = r.window.until.Format(time.RFC3339)
	}
	limit := r.skill.Params.Limits.EvidenceChars
	for _, id := range verified.cited {
		c := r.seen[id]
		ref := evidenceRef(c.ev, limit)
		for _, n := range c.context {
			ref.Context = append(ref.Context, evidenceRef(n, limit))
		}
		resp.Evidence = append(resp.Evidence, ref)
	}
	if resp.Conflicts == nil {
		resp.Conflicts = []Conflict{}
	}
	if resp.Limits.Notes == nil {
		resp.Limits.Notes = []string{}
	}
	for _, s := range []*[]Item{&resp.MemoryView.Preferences, &resp.MemoryView.Profile, &resp.MemoryView.Constraints} {
		if *s == nil {
			*s = []Item{}
		}
	}
	return resp, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// evidenceRef quotes a message verbatim, cut at limit runes (marked).
func evidenceRef(e queryapi.Evidence, limit int) EvidenceRef {
	ref := EvidenceRef{MessageID: e.MessageID, Role: e.Role, Content: e.Content, CreatedAt: e.CreatedAt,
		ConversationID: e.ConversationID, SenderName: e.SenderName}
	if utf8.RuneCountInString(e.Content) > limit {
		ref.Content = string([]rune(e.Content)[:limit])
		ref.Cut = true
	}
	return ref
}

// verify is the evidence verifier both brains' answers pass through: every
// cited id must exist for this user with the text the run saw, every item
// needs at least one valid id. Anything failing is dropped and noted.
func (r *run) verify(ctx context.Context, d draft) (draft, error) {
	valid := map[string]bool{}
	check := func(id string) bool {
		if ok, done := valid[id]; done {
			return ok
		}
		c, seen := r.seen[id]
		ok := false
		if seen {
			res, err := r.tools.Neighbors(ctx, queryapi.NeighborsParams{MessageID: id})
			ok = err == nil && res.Anchor.Content == c.ev.Content
		}
		if !ok {
			r.note("dropped citation %q: not a message of this user that a tool returned", truncate(id, 40))
		}
		valid[id] = ok
		return ok
	}
	out := draft{answer: d.answer, stopReason: d.stopReason}
	cited := map[string]bool{}
	cite := func(id string) {
		if !cited[id] {
			cited[id] = true
			out.cited = append(out.cited, id)
		}
	}
	section := func(items []Item) []Item {
		var kept []Item
		for _, it := range items {
			var ids []string
			for _, id := range it.EvidenceIDs {
				if check(id) && !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 || strings.TrimSpace(it.Statement) == "" {
				r.note("dropped an item without valid evidence: %q", truncate(it.Statement, 60))
				continue
			}
			it.EvidenceIDs = ids
			switch it.Status {
			case StatusCurrent, StatusChanged, StatusUncertain:
			default:
				it.Status = StatusUncertain
			}
			var asOf time.Time
			for _, id := range ids {
				cite(id)
				if t := r.seen[id].ev.CreatedAt; t.After(asOf) {
					asOf = t
				}
			}
			it.AsOf = asOf
			kept = append(kept, it)
		}
		return kept
	}
	out.view.Preferences = section(d.view.Preferences)
	out.view.Profile = section(d.view.Profile)
	out.view.Constraints = section(d.view.Constraints)
	for _, c := range d.conflicts {
		var kept, sup []string
		for _, id := range c.Kept {
			if check(id) {
				kept = append(kept, id)
				cite(id)
			}
		}
		for _, id := range c.Superseded {
			if check(id) {
				sup = append(sup, id)
				cite(id)
			}
		}
		if len(kept)+len(sup) == 0 {
			continue
		}
		if kept == nil {
			kept = []string{}
		}
		if sup == nil {
			sup = []string{}
		}
		out.conflicts = append(out.conflicts, Conflict{Topic: c.Topic, Kept: kept, Superseded: sup, Reason: c.Reason})
	}
	// Other citations fill the evidence up to its limit; item and
	// conflict evidence is always kept.
	for _, id := range d.cited {
		if len(out.cited) >= r.skill.Params.Limits.MaxEvidence {
			break
		}
		if check(id) {
			cite(id)
		}
	}
	if len(out.cited) == 0 {
		out.stopReason = StopNoEvidence
		out.view = MemoryView{}
		if strings.TrimSpace(out.answer) == "" || d.stopReason != StopNoEvidence {
			out.answer = noEvidenceAnswer(r.question)
		}
	}
	return out, nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
