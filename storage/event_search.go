package storage

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// EventQuery is a search over one user's events. GroupID, SenderID and the
// time window are hard filters, applied inside SQLite, the vec0 partition
// and the Bleve query alike.
type EventQuery struct {
	// Text is searched lexically (BM25, any word) and by meaning.
	Text string
	// GroupID keeps only the events of this group chat.
	GroupID string
	// SenderID keeps only the events whose turn this sender spoke.
	SenderID string
	// From and To bound the event's timestamp, both inclusive, to the
	// second (events are indexed by timestamp_epoch). Zero means open.
	From, To time.Time
	// Size is how many candidates each ranking contributes.
	Size int
}

// EventHit is a candidate event of a search.
type EventHit struct {
	Event
	// Similarity is the cosine similarity of the event's vector to the
	// query (1 - cosine distance); a candidate found only lexically gets it
	// from its stored vector. 0 when the event has no vector.
	Similarity float64
	// Lexical is the BM25 score, 0 when the words did not match.
	Lexical float64
	// LexicalRank and SemanticRank are the 1-based positions in each
	// ranking, 0 when absent from it.
	LexicalRank, SemanticRank int
}

// EventResult is the candidates of an event search, in no particular order.
type EventResult struct {
	Hits []EventHit
	// Semantic is false when the vector index could not be searched (the
	// embedder changed and `recalld reindex` has not run): Similarity is 0.
	Semantic bool
	// Considered is how many of the user's events the filters admit.
	Considered int
}

// SearchEvents returns user's events inside q's filters that match q.Text
// lexically (the best q.Size by BM25) or by meaning (the q.Size nearest).
func (s *Store) SearchEvents(ctx context.Context, user string, q EventQuery) (_ EventResult, err error) {
	defer s.fault(&err)
	switch {
	case q.Size <= 0:
		return EventResult{}, errorf(ErrInvalid, "candidate count must be positive")
	case strings.TrimSpace(q.Text) == "":
		return EventResult{}, errorf(ErrInvalid, "empty query")
	case !q.From.IsZero() && !q.To.IsZero() && q.From.After(q.To):
		return EventResult{}, errorf(ErrInvalid, "time_from is after time_to")
	}
	res := EventResult{Semantic: s.vecOK}
	where, args := eventFilterSQL(user, q)
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE `+strings.Join(where, " AND "), args...).Scan(&res.Considered); err != nil {
		return res, fmt.Errorf("storage: count events: %w", err)
	}
	if res.Considered == 0 {
		return res, nil
	}
	lex, err := s.lexicalEvents(ctx, user, q)
	if err != nil {
		return res, err
	}
	var (
		sem []scoredSeq
		vec []float32
	)
	if s.vecOK {
		if vec, err = s.queryVector(ctx, eventCorpus, user, SemanticQuery{Text: q.Text}); err != nil {
			return res, err
		}
		if hasNorm(vec) {
			if sem, err = s.semanticEvents(ctx, user, q, vec); err != nil {
				return res, err
			}
		}
	}
	byseq := map[int64]*EventHit{}
	var order []int64
	get := func(seq int64) *EventHit {
		h, ok := byseq[seq]
		if !ok {
			h = &EventHit{}
			byseq[seq] = h
			order = append(order, seq)
		}
		return h
	}
	for i, sc := range sem {
		h := get(sc.seq)
		h.Similarity, h.SemanticRank = sc.score, i+1
	}
	var lexOnly []int64
	for i, sc := range lex {
		h := get(sc.seq)
		if h.SemanticRank == 0 {
			lexOnly = append(lexOnly, sc.seq)
		}
		h.Lexical, h.LexicalRank = sc.score, i+1
	}
	if hasNorm(vec) && len(lexOnly) > 0 {
		sims, err := s.rescore(ctx, eventCorpus, vec, lexOnly)
		if err != nil {
			return res, err
		}
		for _, sc := range sims {
			byseq[sc.seq].Similarity = sc.score
		}
	}
	evs, err := s.hydrateEvents(ctx, user, order)
	if err != nil {
		return res, err
	}
	res.Hits = make([]EventHit, 0, len(order))
	for _, seq := range order {
		e, ok := evs[seq] // deleted meanwhile
		if !ok {
			continue
		}
		h := byseq[seq]
		h.Event = e
		res.Hits = append(res.Hits, *h)
	}
	return res, nil
}

// eventFilterSQL is the WHERE clause of q's filters over the events table.
func eventFilterSQL(user string, q EventQuery) ([]string, []any) {
	where, args := []string{"user_id = ?"}, []any{user}
	if q.GroupID != "" {
		where, args = append(where, "group_id = ?"), append(args, q.GroupID)
	}
	if q.SenderID != "" {
		where, args = append(where, "sender_id = ?"), append(args, q.SenderID)
	}
	if !q.From.IsZero() {
		where, args = append(where, "timestamp_epoch >= ?"), append(args, q.From.Unix())
	}
	if !q.To.IsZero() {
		where, args = append(where, "timestamp_epoch <= ?"), append(args, q.To.Unix())
	}
	return where, args
}

// lexicalEvents ranks user's events by BM25 for any of q.Text's words.
func (s *Store) lexicalEvents(ctx context.Context, user string, q EventQuery) ([]scoredSeq, error) {
	term := func(field, v string) query.Query {
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		return t
	}
	must := []query.Query{term(fUser, user)}
	if q.GroupID != "" {
		must = append(must, term(fGroup, q.GroupID))
	}
	if q.SenderID != "" {
		must = append(must, term(fSender, q.SenderID))
	}
	if !q.From.IsZero() || !q.To.IsZero() {
		var lo, hi *float64
		if !q.From.IsZero() {
			v := float64(q.From.Unix())
			lo = &v
		}
		if !q.To.IsZero() {
			v := float64(q.To.Unix())
			hi = &v
		}
		incl := true
		r := bleve.NewNumericRangeInclusiveQuery(lo, hi, &incl, &incl)
		r.SetField(fTS)
		must = append(must, r)
	}
	var alts []query.Query
	for _, f := range []string{fTextCJK, fTextEN} {
		m := bleve.NewMatchQuery(q.Text)
		m.SetField(f)
		m.Analyzer = fieldAnalyzer[f]
		alts = append(alts, m)
	}
	bq := bleve.NewBooleanQuery()
	bq.AddMust(append(must, bleve.NewDisjunctionQuery(alts...))...)
	req := bleve.NewSearchRequestOptions(bq, q.Size, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := s.eindex.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("storage: lexical event search: %w", err)
	}
	out := make([]scoredSeq, 0, len(res.Hits))
	for _, h := range res.Hits {
		seq, err := strconv.ParseInt(h.ID, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("storage: lexical event id %q: %w", h.ID, err)
		}
		out = append(out, scoredSeq{seq: seq, score: h.Score})
	}
	return out, nil
}

// semanticEvents returns the q.Size events of user nearest to vec inside
// q's filters: exact KNN in the user's vec0 partition, or binary codes then
// exact rescoring above the coarse threshold, as for messages.
func (s *Store) semanticEvents(ctx context.Context, user string, q EventQuery, vec []float32) ([]scoredSeq, error) {
	var indexed int
	if err := s.r.QueryRowContext(ctx, `SELECT indexed FROM event_stats WHERE user_id = ?`, user).Scan(&indexed); err != nil || indexed == 0 {
		return nil, nil // no vectors for this user
	}
	where, args := []string{"user_id = ?"}, []any{user}
	if q.GroupID != "" {
		where, args = append(where, "group_id = ?"), append(args, q.GroupID)
	}
	if q.SenderID != "" {
		where, args = append(where, "sender_id = ?"), append(args, q.SenderID)
	}
	if !q.From.IsZero() {
		where, args = append(where, "ts >= ?"), append(args, q.From.Unix())
	}
	if !q.To.IsZero() {
		where, args = append(where, "ts <= ?"), append(args, q.To.Unix())
	}
	ec, err := s.tierOf(ctx, eventCorpus, user, indexed)
	if err != nil {
		return nil, err
	}
	if indexed > s.cfg.CoarseThreshold {
		return s.coarseKNN(ctx, ec, vec, coarseCandidates(q.Size), q.Size, where, args)
	}
	return s.exactKNN(ctx, ec, vec, q.Size, where, args)
}
