package queryapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/recalld/recalld/storage"
)

// Modes of an event search. They differ in the half-life of the time decay
// and the default top_k.
const (
	// ModeTool is search_events as a bot or model calls it (half_life_tool, tool_default_top_k).
	ModeTool = "tool"
	// ModeAuto is the context injected every turn (half_life_auto, auto_top_k).
	ModeAuto = "auto"
)

// EventSearchConfig holds the knobs of [cognitive.query]. Callers pass it by
// value on every call, so a reloaded configuration takes effect on the next
// search.
type EventSearchConfig struct {
	AutoTopK        int           // top_k of ModeAuto
	ToolDefaultTopK int           // top_k of ModeTool when the caller gives none
	HalfLifeAuto    time.Duration // time decay of ModeAuto
	HalfLifeTool    time.Duration // time decay of ModeTool
	// Boost is how much the time decay can add: final = sim × (1 + Boost × decay).
	Boost float64
	// MinSimilarity is the similarity below which an event gets no boost.
	MinSimilarity float64
	// CandidateMultiplier: each ranking contributes top_k × it candidates.
	CandidateMultiplier int
}

// DefaultEventSearchConfig returns the defaults of [cognitive.query].
func DefaultEventSearchConfig() EventSearchConfig {
	return EventSearchConfig{
		AutoTopK: 3, ToolDefaultTopK: 12,
		HalfLifeAuto: 14 * 24 * time.Hour, HalfLifeTool: 60 * 24 * time.Hour,
		Boost: 0.2, MinSimilarity: 0.35, CandidateMultiplier: 3,
	}
}

// MaxCandidateMultiplier bounds EventSearchConfig.CandidateMultiplier.
const MaxCandidateMultiplier = 20

// Validate reports the first knob out of range.
func (c EventSearchConfig) Validate() error {
	var errs []error
	if c.AutoTopK < 1 || c.AutoTopK > MaxTopK || c.ToolDefaultTopK < 1 || c.ToolDefaultTopK > MaxTopK {
		errs = append(errs, fmt.Errorf("auto_top_k and tool_default_top_k must be in 1..%d", MaxTopK))
	}
	if c.HalfLifeAuto <= 0 || c.HalfLifeTool <= 0 {
		errs = append(errs, errors.New("half-lives must be positive"))
	}
	if c.Boost < 0 || math.IsNaN(c.Boost) || math.IsInf(c.Boost, 0) {
		errs = append(errs, errors.New("time_decay_boost must be a non-negative number"))
	}
	if !(c.MinSimilarity >= 0 && c.MinSimilarity <= 1) {
		errs = append(errs, errors.New("time_decay_min_similarity must be in 0..1"))
	}
	if c.CandidateMultiplier < 1 || c.CandidateMultiplier > MaxCandidateMultiplier {
		errs = append(errs, fmt.Errorf("rerank_candidate_multiplier must be in 1..%d", MaxCandidateMultiplier))
	}
	return errors.Join(errs...)
}

// SearchEventsParams are the parameters of search_events. The user (and the
// group the caller speaks in) are bound to the Tools; the targets only narrow.
type SearchEventsParams struct {
	Query string `json:"query" jsonschema:"required,description=what to look for in the remembered events"`
	// TargetUserID keeps the events of turns this person (sender_id) spoke.
	TargetUserID string `json:"target_user_id,omitempty" jsonschema:"description=only events of turns this sender (sender_id) spoke"`
	// TargetGroupID keeps the events of one group chat; inside a group it
	// may only name that group.
	TargetGroupID string `json:"target_group_id,omitempty" jsonschema:"description=only events of this group chat"`
	TopK          int    `json:"top_k,omitempty" jsonschema:"minimum=1,maximum=100,description=how many events (default tool_default_top_k)"`
	TimeFrom      string `json:"time_from,omitempty" jsonschema:"format=date-time,description=only events at or after this time (RFC 3339)"`
	TimeTo        string `json:"time_to,omitempty" jsonschema:"format=date-time,description=only events at or before this time (RFC 3339)"`
	// Deep asks for the recall agent's evidence from the messages as well.
	// SearchEvents itself searches events only; the caller that holds the
	// agent runs it (the agent-backed backend).
	Deep bool `json:"deep,omitempty" jsonschema:"description=also run the recall agent over the messages and return its evidence"`
}

// EventOptions are the settings of one event search that are not the
// caller's arguments.
type EventOptions struct {
	// Mode is ModeTool (the default when empty) or ModeAuto.
	Mode   string
	Config EventSearchConfig
}

// EventEvidence is one remembered event, traceable to its id and job.
type EventEvidence struct {
	EventID        string    `json:"event_id"`
	JobID          string    `json:"job_id"`
	Content        string    `json:"content"`  // the absolute form
	Original       string    `json:"original"` // the observation as the bot wrote it
	GroupID        string    `json:"group_id,omitempty"`
	SenderID       string    `json:"sender_id,omitempty"`
	SenderName     string    `json:"sender_name,omitempty"`
	Perspective    string    `json:"perspective"`
	RequestType    string    `json:"request_type"`
	IsAbsolute     bool      `json:"is_absolute"`
	Warning        string    `json:"warning,omitempty"`
	TimestampUTC   time.Time `json:"timestamp_utc"`
	TimestampLocal time.Time `json:"timestamp_local"`
	SourceMessage  string    `json:"source_message,omitempty"`
	// Score is the final rank score: Similarity × (1 + boost × Decay) when
	// Similarity ≥ the minimum, else Similarity (or the fused lexical score
	// when the vector index is unavailable).
	Score float64 `json:"score"`
	// Similarity is clamp(1 − cosine distance, 0, 1).
	Similarity float64 `json:"similarity"`
	// Decay is 0.5^(age / half-life) at the time of the search.
	Decay float64 `json:"decay"`
	// Boosted tells whether the decay boost applied.
	Boosted bool `json:"boosted"`
	// LexicalScore is the BM25 score, 0 when no word matched.
	LexicalScore float64 `json:"lexical_score"`
}

// EventsResult is the answer of search_events.
type EventsResult struct {
	Events []EventEvidence `json:"events"`
	// Warnings say what was adjusted or degraded (reversed window swapped,
	// lexical-only search).
	Warnings []string `json:"warnings"`
	// Considered is how many of the user's events the filters admitted.
	Considered int    `json:"considered"`
	Mode       string `json:"mode"`
	// HalfLifeDays is the half-life of the decay used, in days.
	HalfLifeDays float64 `json:"half_life_days"`
	// Window is the time filter applied (after a swap), nil without one.
	Window *TimeWindow `json:"window,omitempty"`
}

// TimeWindow is an inclusive time filter; a zero end is open.
type TimeWindow struct {
	From time.Time `json:"from,omitzero"`
	To   time.Time `json:"to,omitzero"`
}

// SearchEvents searches the bound user's events (inside the bound group,
// if any) by hybrid recall, then reranks by time decay:
//
//  1. each ranking (BM25 over any of the words; cosine KNN) contributes
//     top_k × rerank_candidate_multiplier candidates inside the hard filters
//     (user, group, target sender, time window);
//  2. the candidates are fused by min-max normalised scores, equal weights,
//     and the best top_k × multiplier kept;
//  3. each gets sim = clamp(1 − distance, 0, 1) (from its stored vector if
//     only the words found it), decay = 0.5^(age / half_life) with the
//     mode's half-life, and final = sim × (1 + boost × decay) when
//     sim ≥ time_decay_min_similarity, else final = sim;
//  4. the top_k by final score are returned, ties to the better fused
//     score, then the newer event.
//
// A reversed window (time_from after time_to) is swapped with a warning.
// Without a usable vector index the ranking is lexical only, with a warning.
func (t *Tools) SearchEvents(ctx context.Context, p SearchEventsParams, o EventOptions) (EventsResult, error) {
	cfg := o.Config
	if err := cfg.Validate(); err != nil {
		return EventsResult{}, fmt.Errorf("queryapi: event search config: %w", err)
	}
	mode := cmp.Or(o.Mode, ModeTool)
	var halfLife time.Duration
	var k int
	switch mode {
	case ModeTool:
		halfLife, k = cfg.HalfLifeTool, cfg.ToolDefaultTopK
	case ModeAuto:
		halfLife, k = cfg.HalfLifeAuto, cfg.AutoTopK
	default:
		return EventsResult{}, invalid("mode must be %s or %s", ModeTool, ModeAuto)
	}
	res := EventsResult{Events: []EventEvidence{}, Warnings: []string{}, Mode: mode, HalfLifeDays: halfLife.Hours() / 24}
	q, err := t.eventQuery(p, &res)
	if err != nil {
		return EventsResult{}, err
	}
	if !q.From.IsZero() || !q.To.IsZero() {
		res.Window = &TimeWindow{From: q.From, To: q.To}
	}
	switch {
	case p.TopK < 0 || p.TopK > MaxTopK:
		return EventsResult{}, invalid("top_k must be between 1 and %d", MaxTopK)
	case p.TopK > 0:
		k = p.TopK
	}
	pool := k * cfg.CandidateMultiplier
	q.Size = pool
	found, err := t.store.SearchEvents(ctx, t.user, q)
	if err != nil {
		return EventsResult{}, mapErr(err)
	}
	res.Considered = found.Considered
	if !found.Semantic {
		res.Warnings = append(res.Warnings, "the vector index is unavailable (run `recalld reindex`): events are ranked by their words only, without time decay")
	}
	ranked := fuseEvents(found.Hits)
	ranked = ranked[:min(len(ranked), pool)]
	now := t.now()
	for i := range ranked {
		r := &ranked[i]
		r.sim = min(max(r.hit.Similarity, 0), 1)
		age := max(now.Sub(r.hit.Timestamp), 0)
		r.decay = math.Pow(0.5, float64(age)/float64(halfLife))
		r.final = r.sim
		if found.Semantic && r.sim >= cfg.MinSimilarity {
			r.final, r.boosted = r.sim*(1+cfg.Boost*r.decay), true
		}
		if !found.Semantic {
			r.final = r.fused
		}
	}
	slices.SortStableFunc(ranked, func(a, b rankedEvent) int {
		if c := cmp.Compare(b.final, a.final); c != 0 {
			return c
		}
		if c := cmp.Compare(b.fused, a.fused); c != 0 {
			return c
		}
		if c := b.hit.Timestamp.Compare(a.hit.Timestamp); c != 0 {
			return c
		}
		return strings.Compare(a.hit.ID, b.hit.ID)
	})
	for _, r := range ranked[:min(len(ranked), k)] {
		res.Events = append(res.Events, eventEvidenceOf(r))
	}
	return res, nil
}

// eventQuery checks p against the tools' scope and returns the storage
// query; a reversed window is swapped with a warning in res.
func (t *Tools) eventQuery(p SearchEventsParams, res *EventsResult) (storage.EventQuery, error) {
	var q storage.EventQuery
	if strings.TrimSpace(p.Query) == "" {
		return q, invalid("query is required")
	}
	if err := checkText("query", p.Query); err != nil {
		return q, err
	}
	for _, f := range []struct{ name, v string }{{"target_user_id", p.TargetUserID}, {"target_group_id", p.TargetGroupID}} {
		if len(f.v) > storage.MaxIDLen || strings.TrimSpace(f.v) != f.v {
			return q, invalid("%s must be an id of at most %d bytes without surrounding spaces", f.name, storage.MaxIDLen)
		}
	}
	q.Text, q.SenderID, q.GroupID = p.Query, p.TargetUserID, p.TargetGroupID
	if t.group != "" {
		if p.TargetGroupID != "" && p.TargetGroupID != t.group {
			return q, errorf(ErrOutOfScope, "target_group_id %q is not the group of the conversation", p.TargetGroupID)
		}
		q.GroupID = t.group
	}
	var err error
	if q.From, err = parseTime("time_from", p.TimeFrom); err != nil {
		return q, err
	}
	if q.To, err = parseTime("time_to", p.TimeTo); err != nil {
		return q, err
	}
	if !q.From.IsZero() && !q.To.IsZero() && q.From.After(q.To) {
		q.From, q.To = q.To, q.From
		res.Warnings = append(res.Warnings, "time_from was after time_to; the two were swapped")
	}
	return q, nil
}

// rankedEvent is a candidate on its way through fusion and rerank.
type rankedEvent struct {
	hit     storage.EventHit
	fused   float64
	sim     float64
	decay   float64
	final   float64
	boosted bool
}

func eventEvidenceOf(r rankedEvent) EventEvidence {
	e := r.hit.Event
	return EventEvidence{
		EventID: e.ID, JobID: e.JobID, Content: e.Content, Original: e.Original,
		GroupID: e.GroupID, SenderID: e.SenderID, SenderName: e.SenderName,
		Perspective: e.Perspective, RequestType: e.RequestType, IsAbsolute: e.IsAbsolute, Warning: e.Warning,
		TimestampUTC: e.Timestamp, TimestampLocal: e.TimestampLocal, SourceMessage: e.SourceMessage,
		Score: r.final, Similarity: r.sim, Decay: r.decay, Boosted: r.boosted, LexicalScore: r.hit.Lexical,
	}
}
