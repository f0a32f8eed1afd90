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

	"golang.org/x/sync/errgroup"

	"github.com/recalld/recalld/storage"
)

// This file holds all ranking fusion: the messages' hybrid ranking
// (Hybrid), the events' (fuseEvents, SearchEvents) and the profiles'
// reciprocal rank fusion (fuseProfiles, RRF). They share one vocabulary:
//
//   - a ranking is one search's hits, best first, with its own score scale;
//   - MinMax normalises a score over its ranking's range to [0, 1];
//   - a weight is a ranking's share of the fused score (weighted sum of
//     normalised scores, Fusion.Add);
//   - RRF is the rank-based alternative: 1 / (k + rank + 1) per ranking;
//   - a boost adds to a fused score (NeighborShare of a top hit's score).

// MinMax is v min-max normalised over the range [lo, hi] of its ranking:
// (v − lo) / (hi − lo), or 1 when the ranking's scores are all equal.
func MinMax(v, lo, hi float64) float64 {
	if hi > lo {
		return (v - lo) / (hi - lo)
	}
	return 1
}

// RRFK is the usual rank offset of reciprocal rank fusion.
const RRFK = 60

// RRF is the reciprocal-rank share of the hit at rank (0 for the best) of
// one ranking: 1 / (k + rank + 1). A fused score is the sum over rankings.
func RRF(k, rank int) float64 { return 1 / float64(k+rank+1) }

// fuseProfiles fuses the profiles' lexical and semantic rankings by
// reciprocal rank: a profile's score is the sum of RRF(RRFK, rank) over the
// rankings that hold it. Best first; ties go to the smaller
// entity_type/entity_id, so the order is total.
func fuseProfiles(r storage.ProfileRankings) []storage.ProfileHit {
	byKey := make(map[string]int)
	hits := make([]storage.ProfileHit, 0, len(r.Lexical)+len(r.Semantic))
	for _, ranking := range [][]storage.RankedProfile{r.Lexical, r.Semantic} {
		for _, rp := range ranking {
			key := rp.EntityType + "/" + rp.EntityID
			i, ok := byKey[key]
			if !ok {
				i = len(hits)
				byKey[key] = i
				hits = append(hits, storage.ProfileHit{Profile: rp.Profile})
			}
			hits[i].Score += RRF(RRFK, rp.Rank)
		}
	}
	slices.SortStableFunc(hits, func(a, b storage.ProfileHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.EntityType+"/"+a.EntityID, b.EntityType+"/"+b.EntityID)
	})
	return hits
}

// NeighborShare is the part of Weights.Neighbor a turn d turns away from
// a top hit receives: 1/√d, so the adjacent turns get most and a wide span
// still reaches an answer a few turns later.
func NeighborShare(d int) float64 { return 1 / math.Sqrt(float64(d)) }

// Weighted is a ranking of messages with its share in a fusion.
type Weighted struct {
	Hits   []Evidence
	Weight float64
}

// Fuse combines rankings by weighted min-max score fusion (Fusion.Add) and
// returns the messages best first (Fusion.Ranked).
func Fuse(rankings ...Weighted) []Evidence {
	f := NewFusion()
	for _, r := range rankings {
		f.Add(r.Hits, r.Weight)
	}
	return f.Ranked()
}

// Fusion accumulates weighted, normalised scores by message id.
type Fusion struct {
	byID map[string]*Evidence
}

// NewFusion returns an empty fusion.
func NewFusion() *Fusion { return &Fusion{byID: make(map[string]*Evidence)} }

// Add min-max normalises hits' scores and adds weight times each to the
// fused score of its message. A ranking whose scores are all equal gives
// every hit the full weight.
func (f *Fusion) Add(hits []Evidence, weight float64) {
	if len(hits) == 0 {
		return
	}
	lo, hi := hits[0].Score, hits[0].Score
	for _, h := range hits {
		lo, hi = min(lo, h.Score), max(hi, h.Score)
	}
	for _, h := range hits {
		f.Boost(h, weight*MinMax(h.Score, lo, hi))
	}
}

// Boost adds score to m's fused score, adding m if it is new.
func (f *Fusion) Boost(m Evidence, score float64) {
	e, ok := f.byID[m.MessageID]
	if !ok {
		c := m
		c.Score = 0
		e = &c
		f.byID[m.MessageID] = e
	}
	e.Score += score
}

// scale multiplies the fused score of message id by factor.
func (f *Fusion) scale(id string, factor float64) { f.byID[id].Score *= factor }

// Ranked returns the messages by fused score, best first; ties go to the
// earlier message, then the smaller id, so the order is total.
func (f *Fusion) Ranked() []Evidence {
	out := make([]Evidence, 0, len(f.byID))
	for _, e := range f.byID {
		out = append(out, *e)
	}
	slices.SortFunc(out, func(a, b Evidence) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.MessageID, b.MessageID)
	})
	return out
}

// Fusion weights of the two event rankings (min-max normalised each).
const (
	eventLexicalWeight  = 0.5
	eventSemanticWeight = 0.5
)

// fuseEvents ranks the candidates by the weighted sum of their min-max
// normalised lexical and semantic scores, best first; ties go to the newer event.
func fuseEvents(hits []storage.EventHit) []rankedEvent {
	norm := func(get func(storage.EventHit) (float64, bool)) func(storage.EventHit) float64 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, h := range hits {
			if v, ok := get(h); ok {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		return func(h storage.EventHit) float64 {
			if v, ok := get(h); ok {
				return MinMax(v, lo, hi)
			}
			return 0
		}
	}
	lex := norm(func(h storage.EventHit) (float64, bool) { return h.Lexical, h.LexicalRank > 0 })
	// A candidate only the words found has its similarity from its stored
	// vector, so it takes part in the semantic share too.
	sem := norm(func(h storage.EventHit) (float64, bool) { return h.Similarity, h.SemanticRank > 0 || h.Similarity != 0 })
	out := make([]rankedEvent, len(hits))
	for i, h := range hits {
		out[i] = rankedEvent{hit: h, fused: eventLexicalWeight*lex(h) + eventSemanticWeight*sem(h)}
	}
	slices.SortStableFunc(out, func(a, b rankedEvent) int {
		if c := cmp.Compare(b.fused, a.fused); c != 0 {
			return c
		}
		if c := b.hit.Timestamp.Compare(a.hit.Timestamp); c != 0 {
			return c
		}
		return strings.Compare(a.hit.ID, b.hit.ID)
	})
	return out
}

// Weights are the shares of the rankings Hybrid fuses. Each ranking's scores
// are min-max normalised to [0, 1] over its own candidates before weighting,
// so the weights compare rankings, not score scales.
type Weights struct {
	// Contextual is BM25 over each message together with the turn before it
	// (lexical_search with contextual set). It applies to a dialogue of
	// named speakers (Dialogue); elsewhere its weight goes to plain BM25.
	Contextual float64 `json:"contextual"`
	// Lexical is BM25 over the message alone.
	Lexical float64 `json:"lexical"`
	// Semantic is the cosine similarity of the store's embedder.
	Semantic float64 `json:"semantic"`
	// Neighbor is the share of a top hit's fused score that each turn
	// within HybridOptions.Span before and after it receives. Zero turns
	// neighbour expansion off.
	Neighbor float64 `json:"neighbor"`
	// Speaker multiplies the fused score of a message by 1 + Speaker when
	// the question names its sender ("What did Caroline research?"):
	// questions about a person are mostly answered by that person's own
	// turns. It applies to a dialogue of named speakers only (Dialogue).
	// Zero turns it off.
	Speaker float64 `json:"speaker"`
	// Date is the weight of one more ranking when the question names a
	// date or a month ("on 9 November, 2022", "2026年3月") and no time
	// filter is set: contextual BM25 inside that day or month, so that the
	// turns of that time come forward without hiding the rest. Zero turns
	// it off.
	Date float64 `json:"date"`
	// Answer multiplies the fused score of a message by 1 + Answer when it
	// gives the kind of answer the question asks for (Question.Answers):
	// a question asking when is mostly answered by a turn that names a
	// time. Zero turns it off.
	Answer float64 `json:"answer"`
	// Paraphrase is the weight of semantic similarity, in place of
	// Semantic, when the best lexical hit holds less than half of the
	// words of keywords in Latin letters: a question that shares few words
	// with its answer ("What race am I getting ready for?" against
	// "training for a half marathon") is ranked more by meaning. Zero
	// keeps Semantic for every question.
	Paraphrase float64 `json:"paraphrase"`
}

// DefaultWeights returns the weights Hybrid uses when none are given. They
// were chosen on LoCoMo conv0-4 as a whole, in coarse steps, from the region
// where recall@10 is flat, with the built-in hashing embedder:
//
//   - contextual BM25 alone beats plain BM25 (.685 against .626 recall@10)
//     and already scores each message's own words, so plain BM25 adds nothing
//     on top of it and is off by default;
//   - the hashing embedder is weaker than BM25 (.533) and mostly agrees with
//     it; a small share costs nothing on LoCoMo and keeps paraphrases and
//     character n-gram matches in play (give it more with a real embedding model);
//   - adding a share of each top hit's score to the turns on either side
//     is the largest gain after contextual indexing (+5 points recall@10):
//     answers sit next to the turns that match the question; four turns
//     each side of the best 20, with a share falling as 1/√distance, adds
//     1.3 points over two turns of the best 10;
//   - with the USE-Lite composite embedder the semantic ranking is
//     stronger (.609) but more of it does not help the fusion (.762–.764
//     with .3–.4);
//   - the speaker prior (questions naming a person are answered by that
//     person in 97% of LoCoMo's gold turns) adds 2 points recall@10 and
//     6 points recall@1; 1 and 2 differ by .003 recall@10 (2 higher, but
//     recall@5 .005 lower); the date ranking adds 1.2 points (91 questions
//     name a date or month);
//   - giving semantic similarity .5 instead of .2 when the best lexical
//     hit holds less than half of an English question's keywords
//     (Paraphrase; chosen with USE-Lite + bge-small-zh on the tune halves
//     of LoCoMo and the own suites) leaves recall@10 as it was (.804 →
//     .802) and lifts LoCoMo's recall@3 a little (.628 → .633);
//   - doubling the score of a turn that gives the kind of answer the
//     question asks for (Answer: a time for "when", a span for "how
//     long") lifts LoCoMo's recall@3 .624 → .641 on the tune half and
//     .641 → .661 on the report half (2 measured the same on the tune
//     half and lower on the own suites' report half, .5 less).
func DefaultWeights() Weights {
	return Weights{Contextual: 0.8, Lexical: 0, Semantic: 0.2, Neighbor: 0.4, Speaker: 2, Date: 1, Paraphrase: 0.5, Answer: 1}
}

// Defaults of HybridOptions.
const (
	DefaultHybridLimit      = 25
	DefaultHybridCandidates = 100
	DefaultHybridExpand     = 20
	DefaultHybridSpan       = 4
)

// HybridOptions tune Hybrid. The zero value selects the defaults.
type HybridOptions struct {
	// Limit is how many messages Hybrid returns (default 25).
	Limit int
	// Candidates is how many hits each ranking contributes (default 100,
	// at most MaxTopK).
	Candidates int
	// Expand is how many of the best fused hits share their score with
	// their neighbours (default 20); no effect when Weights.Neighbor is 0.
	Expand int
	// Span is how many turns on each side of such a hit receive a share
	// (default 4, at most MaxNeighbors).
	Span int
	// Weights of the rankings; the zero value means DefaultWeights.
	Weights Weights
	// Filter narrows every ranking; neighbours outside it are skipped.
	Filter Filter
	// Similarities, when set, receives the semantic ranking's hits with
	// their raw cosine similarity in Score, before any normalisation: an
	// absolute measure a caller can calibrate, where the fused score only
	// says how a hit compares with the others.
	Similarities func(hits []Evidence)
	// Contextual, when set, receives the contextual BM25 ranking's hits
	// (each turn matched together with the turn before it) and the plain
	// BM25 ranking's, best first, whatever weight fusion gave them: a turn
	// that ranks higher there than on its own words may answer a question
	// asked the turn before.
	Contextual func(contextual, plain []Evidence)
}

func (o HybridOptions) withDefaults() HybridOptions {
	if o.Limit <= 0 {
		o.Limit = DefaultHybridLimit
	}
	if o.Candidates <= 0 {
		o.Candidates = DefaultHybridCandidates
	}
	o.Candidates = min(o.Candidates, MaxTopK)
	if o.Expand <= 0 {
		o.Expand = DefaultHybridExpand
	}
	if o.Span <= 0 {
		o.Span = DefaultHybridSpan
	}
	o.Span = min(o.Span, MaxNeighbors)
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights()
	}
	return o
}

// Question is a natural-language question as Hybrid ranks for it. Reading
// it (keywords, dates, names) is the caller's: agent.ParseQuestion.
type Question struct {
	// Text is the whole question, searched semantically.
	Text string
	// Keywords is the text of the match-any lexical searches; "" skips them.
	Keywords string
	// Dates is the day or month the question names, nil when none.
	Dates *TimeWindow
	// Names reports whether the question names a sender (compared by
	// Weights.Speaker); nil when it names none.
	Names func(senderName string) bool
	// Answers reports whether a message's content gives the kind of
	// answer the question asks for by its question word (a time for
	// "when", a span for "how long"; compared by Weights.Answer); nil
	// when it asks for no such kind.
	Answers func(content string) bool
}

// Hybrid ranks the bound user's messages for a natural-language question by
// weighted score fusion: contextual BM25 and plain BM25 over the question's
// keywords (any of which may match), and semantic similarity of the whole
// question; when the question names a day or month and no time filter is
// set, contextual BM25 inside it too (Weights.Date). Each ranking's scores
// are min-max normalised over its own candidates, weighted and summed per
// message. Then each of the best opts.Expand messages adds Weights.Neighbor
// times its fused score, divided by √distance, to the opts.Span turns on
// either side of it in its conversation, since an answer often sits next to
// the turn that matches the question, and evidence that several turns
// support rises. Then messages that give the kind of answer the question
// asks for (Question.Answers) are multiplied by 1 + Weights.Answer, and
// last those whose sender the question names by 1 + Weights.Speaker. It
// returns at most opts.Limit messages, best first, with the fused score in
// Score; ties go to the earlier message.
// When semantic search is unavailable (ErrSemanticUnavailable) the
// lexical rankings are fused alone.
func Hybrid(ctx context.Context, tools Searcher, question Question, opts HybridOptions) ([]Evidence, error) {
	opts = opts.withDefaults()
	w := opts.Weights
	if strings.TrimSpace(question.Text) == "" {
		return nil, invalid("empty question")
	}
	keep, err := filterFunc(opts.Filter)
	if err != nil {
		return nil, err
	}
	// The rankings run in parallel; they are fused in a fixed order
	// afterwards, so the result does not depend on which finishes first.
	rankings := make([]struct {
		hits   []Evidence
		weight float64
	}, 4)
	g, gctx := errgroup.WithContext(ctx)
	kw := question.Keywords
	// lexical runs a match-any BM25 ranking of the keywords into slot i.
	lexical := func(i int, contextual bool, f Filter, weight float64) {
		g.Go(func() error {
			page, err := tools.LexicalSearch(gctx, LexicalParams{
				QueryText: kw, Match: "any", Contextual: contextual, Filter: f, PageSize: opts.Candidates,
			})
			if err != nil {
				return fmt.Errorf("hybrid lexical (contextual=%t, since %q): %w", contextual, f.Since, err)
			}
			rankings[i].hits, rankings[i].weight = page.Hits, weight
			return nil
		})
	}
	// plain is the weight of plain BM25 when the messages turn out not to
	// be a dialogue of named speakers and contextual BM25 gives way to it.
	plain := -1.0
	if kw != "" {
		if w.Contextual != 0 {
			lexical(0, true, opts.Filter, w.Contextual)
		}
		switch {
		case w.Lexical != 0:
			lexical(1, false, opts.Filter, w.Lexical)
		case w.Contextual != 0:
			lexical(1, false, opts.Filter, 0)
			plain = w.Contextual
		}
	}
	if w.Semantic != 0 {
		g.Go(func() error {
			page, err := tools.SemanticSearch(gctx, SemanticParams{
				QueryText: question.Text, Filter: opts.Filter, TopK: min(opts.Candidates, semanticCandidates),
			})
			if errors.Is(err, ErrSemanticUnavailable) {
				return nil // the embedder is down: fuse the lexical rankings alone
			}
			if err != nil {
				return fmt.Errorf("hybrid semantic: %w", err)
			}
			rankings[2].hits, rankings[2].weight = page.Hits, w.Semantic
			return nil
		})
	}
	if win := question.Dates; win != nil && w.Date != 0 && kw != "" &&
		opts.Filter.Since == "" && opts.Filter.Until == "" {
		f := opts.Filter
		f.Since, f.Until = win.From.Format(time.RFC3339Nano), win.To.Format(time.RFC3339Nano)
		lexical(3, true, f, w.Date)
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	if opts.Similarities != nil && len(rankings[2].hits) > 0 {
		opts.Similarities(slices.Clone(rankings[2].hits))
	}
	if opts.Contextual != nil && len(rankings[0].hits) > 0 {
		opts.Contextual(slices.Clone(rankings[0].hits), slices.Clone(rankings[1].hits))
	}
	// The priors shaped by dialogues of named people (LoCoMo) apply only
	// when the messages found are one: else contextual BM25's weight goes
	// to plain BM25 and the speaker prior is off.
	dialogue := Dialogue(tools.User(), rankings[0].hits, rankings[1].hits, rankings[2].hits)
	if !dialogue && plain >= 0 {
		rankings[0].weight, rankings[1].weight = 0, plain
	}
	// A question that shares few words with what answers it is ranked
	// more by meaning: when the best lexical hit holds less than half of
	// the keywords' words, semantic similarity weighs Weights.Paraphrase.
	// Not for Chinese keywords: they are one run of characters, filler and
	// all, so hardly any hit covers half of their bigrams, and there the
	// larger share let messages that share only 最近 with the question
	// (bge-small-zh or hashing alike) push out one found in English.
	if w.Paraphrase > 0 && rankings[2].weight > 0 && !hasHan(kw) {
		best := rankings[0].hits
		if rankings[0].weight == 0 || len(best) == 0 {
			best = rankings[1].hits
		}
		if len(best) == 0 || keywordCoverage(kw, best[0].Content) < paraphraseCoverage {
			rankings[2].weight = w.Paraphrase
		}
	}
	f := NewFusion()
	for _, r := range rankings {
		f.Add(r.hits, r.weight)
	}
	ranked := f.Ranked()
	if w.Neighbor != 0 && len(ranked) > 0 {
		// Every share is taken from the fused score before expansion and
		// added in rank order, so the result is the same however the
		// neighbour look-ups interleave.
		anchors := ranked[:min(opts.Expand, len(ranked))]
		around := make([][]Evidence, len(anchors))
		dists := make([][]int, len(anchors))
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(4)
		for i, e := range anchors {
			g.Go(func() error {
				nb, err := tools.Neighbors(gctx, NeighborsParams{MessageID: e.MessageID, Before: opts.Span, After: opts.Span})
				if err != nil {
					return fmt.Errorf("hybrid neighbours of %q: %w", e.MessageID, err)
				}
				around[i] = append(slices.Clone(nb.Before), nb.After...)
				dists[i] = make([]int, 0, len(around[i]))
				for j := range nb.Before {
					dists[i] = append(dists[i], len(nb.Before)-j)
				}
				for j := range nb.After {
					dists[i] = append(dists[i], j+1)
				}
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		for i, e := range anchors {
			for j, n := range around[i] {
				if keep(n) {
					f.Boost(n, w.Neighbor*e.Score*NeighborShare(dists[i][j]))
				}
			}
		}
		ranked = f.Ranked()
	}
	if w.Answer != 0 && question.Answers != nil {
		for _, e := range ranked {
			if question.Answers(e.Content) {
				f.scale(e.MessageID, 1+w.Answer)
			}
		}
		ranked = f.Ranked()
	}
	if w.Speaker != 0 && dialogue {
		named := namedSenders(question.Names, ranked)
		if len(named) > 0 {
			for _, e := range ranked {
				if named[e.SenderName] {
					f.scale(e.MessageID, 1+w.Speaker)
				}
			}
			ranked = f.Ranked()
		}
	}
	return ranked[:min(opts.Limit, len(ranked))], nil
}

// Dialogue reports whether hits look like a conversation between named
// people rather than a bot chat: two or more distinct sender names speak
// as users, no assistant speaks, and the memory's owner (user, the trusted
// user id) is not among the senders. A user's own chats, private or in a
// group with colleagues, are a bot's memory of that user whoever else
// speaks there; an archive of other people's talk (LoCoMo) is not. The
// speaker prior and contextual BM25 were chosen on such dialogues and rank
// below plain BM25 on a user's chat with a bot.
func Dialogue(user string, rankings ...[]Evidence) bool {
	owners := OwnerSenders(user)
	var first string
	several := false
	for _, hits := range rankings {
		for _, h := range hits {
			switch {
			case h.Role == "assistant":
				return false
			case h.Role != "user" || h.SenderName == "":
			case h.SenderID != "" && slices.Contains(owners, h.SenderID):
				return false
			case first == "":
				first = h.SenderName
			case h.SenderName != first:
				several = true
			}
		}
	}
	return several
}

// OwnerSenders are the sender ids that stand for the memory's owner: the
// user id itself and its part after the last ':' ("qq:123" → "123").
func OwnerSenders(user string) []string {
	out := []string{user}
	if i := strings.LastIndexByte(user, ':'); i >= 0 && i+1 < len(user) {
		out = append(out, user[i+1:])
	}
	return out
}

// Owners are OwnerSenders and the senders of the user's turns in the
// owner's private chats with the bot among hits: a conversation outside
// any group in which the assistant speaks has one other party, the owner,
// whatever id the platform gives them ("qq_88120357" for the memory of
// "sg_tanhuimin"), and that id is theirs in the groups too. Talk between
// named people without a bot (LoCoMo) gives none.
func Owners(user string, hits []Evidence) []string {
	out := OwnerSenders(user)
	bot := make(map[string]bool)
	for _, h := range hits {
		if h.Role == "assistant" && h.GroupID == "" {
			bot[h.ConversationID] = true
		}
	}
	for _, h := range hits {
		if h.Role == "user" && h.GroupID == "" && h.SenderID != "" && bot[h.ConversationID] && !slices.Contains(out, h.SenderID) {
			out = append(out, h.SenderID)
		}
	}
	return out
}

// namedSenders returns the sender names of hits that names reports the
// question names, as a set; nil when it names none of them.
func namedSenders(names func(string) bool, hits []Evidence) map[string]bool {
	if names == nil {
		return nil
	}
	var named map[string]bool
	seen := make(map[string]bool)
	for _, h := range hits {
		name := h.SenderName
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		if names(name) {
			if named == nil {
				named = make(map[string]bool)
			}
			named[name] = true
		}
	}
	return named
}

// semanticCandidates caps the semantic ranking's depth: its weight is small,
// min-max normalisation leaves deep hits near zero, and the binary-code
// search costs grow with k.
const semanticCandidates = 30

// Searcher is what Hybrid searches with: *Tools, or the offline
// brain's wrapper that counts and budgets each call.
type Searcher interface {
	// User is the bound user whose memory is searched.
	User() string
	LexicalSearch(context.Context, LexicalParams) (Page, error)
	SemanticSearch(context.Context, SemanticParams) (Page, error)
	Neighbors(context.Context, NeighborsParams) (NeighborsResult, error)
}

var _ Searcher = (*Tools)(nil)

// filterFunc reports whether a neighbour lies inside f; the neighbours tool
// takes no filter, so Hybrid applies it itself.
func filterFunc(f Filter) (func(Evidence) bool, error) {
	var since, until time.Time
	var err error
	if f.Since != "" {
		if since, err = time.Parse(time.RFC3339Nano, f.Since); err != nil {
			return nil, invalid("filter.since: %q is not an RFC 3339 time", f.Since)
		}
	}
	if f.Until != "" {
		if until, err = time.Parse(time.RFC3339Nano, f.Until); err != nil {
			return nil, invalid("filter.until: %q is not an RFC 3339 time", f.Until)
		}
	}
	return func(e Evidence) bool {
		switch {
		case f.Role != "" && e.Role != f.Role,
			f.ConversationID != "" && e.ConversationID != f.ConversationID,
			f.GroupID != "" && e.GroupID != f.GroupID,
			!since.IsZero() && e.CreatedAt.Before(since),
			!until.IsZero() && !e.CreatedAt.Before(until):
			return false
		}
		return true
	}, nil
}

// paraphraseCoverage is the share of the keywords' words below which the
// best lexical hit leaves a question to Weights.Paraphrase.
const paraphraseCoverage = 0.5

// keywordCoverage is the share of the words of keywords (three letters or
// more) that text holds, compared in lower case; 1 when keywords have none.
func keywordCoverage(keywords, text string) float64 {
	text = strings.ToLower(text)
	total, found := 0, 0
	for _, f := range strings.Fields(strings.ToLower(keywords)) {
		if len(f) <= 2 {
			continue
		}
		total++
		if strings.Contains(text, f) {
			found++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(found) / float64(total)
}
