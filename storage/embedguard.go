package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
)

// defaultEmbedderRetry is how long the embedder's circuit stays open.
const defaultEmbedderRetry = 30 * time.Second

// embedderTrip is how many calls in a row must fail to open the circuit.
const embedderTrip = 3

// errCallerGone marks an embedder call cut off by its caller's context: it
// says nothing about the embedder's health.
var errCallerGone = errors.New("storage: embedder call cancelled by its caller")

// embedGuard keeps a failing embedder from stalling the store: a circuit
// breaker (gobreaker) around every embedder call. While it is open the
// indexer writes lexical documents only (the messages keep indexed = 0 and
// the vector catch-up embeds them later) and semantic search fails fast with
// ErrSemanticUnavailable; after EmbedderRetry one call probes the embedder.
type embedGuard struct {
	cb *gobreaker.TwoStepCircuitBreaker[struct{}]

	mu      sync.Mutex
	lastErr string // the last call's failure; "" after a success
}

func (g *embedGuard) init(s *Store) {
	retry := s.cfg.EmbedderRetry
	if retry <= 0 {
		retry = defaultEmbedderRetry
	}
	g.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        "embedder",
		MaxRequests: 1,
		Timeout:     retry,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= embedderTrip },
		IsExcluded:  func(err error) bool { return errors.Is(err, errCallerGone) },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			switch to {
			case gobreaker.StateOpen:
				s.log.Warn("embedder unavailable: indexing lexical-only and semantic search off until it answers",
					"embedder", s.EmbedderName(), "err", g.lastError(), "retry_in", retry)
			case gobreaker.StateHalfOpen:
				s.log.Debug("probing the embedder", "embedder", s.EmbedderName())
			case gobreaker.StateClosed:
				g.mu.Lock()
				g.lastErr = ""
				g.mu.Unlock()
				s.log.Info("embedder answers again; catching up vectors", "embedder", s.EmbedderName(), "was", from.String())
				s.kick()
			}
		},
	})
}

// healthy reports whether the circuit is closed and the last call succeeded.
func (g *embedGuard) healthy() bool {
	return g.cb.State() == gobreaker.StateClosed && g.lastError() == ""
}

// open reports whether calls are refused now (open, not yet half-open).
func (g *embedGuard) open() bool { return g.cb.State() == gobreaker.StateOpen }

func (g *embedGuard) lastError() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lastErr
}

// embed embeds texts through the circuit breaker and checks the result. Any
// failure of the embedder (error, wrong count or dimension, circuit open)
// wraps ErrSemanticUnavailable; a cancelled ctx returns ctx's error.
func (s *Store) embed(ctx context.Context, texts []string) ([][]float32, error) {
	g := &s.embGuard
	done, err := g.cb.Allow()
	if err != nil {
		msg := g.lastError()
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("%w: embedder %s: %s", ErrSemanticUnavailable, s.EmbedderName(), msg)
	}
	start := time.Now()
	vecs, err := s.emb.Embed(ctx, texts)
	if err == nil {
		err = s.checkVectors(vecs, len(texts))
	}
	s.cfg.Observer.Embedded(len(texts), time.Since(start), err)
	if err != nil && ctx.Err() != nil {
		done(errCallerGone)
		return nil, ctx.Err()
	}
	g.mu.Lock()
	if err != nil {
		g.lastErr = err.Error()
	} else {
		g.lastErr = ""
	}
	g.mu.Unlock()
	done(err)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSemanticUnavailable, err)
	}
	return vecs, nil
}

func (s *Store) checkVectors(vecs [][]float32, n int) error {
	if len(vecs) != n {
		return fmt.Errorf("storage: embedder returned %d vectors for %d texts", len(vecs), n)
	}
	for _, v := range vecs {
		if len(v) != s.emb.Dim() {
			return fmt.Errorf("storage: embedder returned dim %d, want %d", len(v), s.emb.Dim())
		}
	}
	return nil
}

// embedPending sets the vectors (and embedder terms) of docs and events in
// one embedder call, all or none.
func (s *Store) embedPending(ctx context.Context, docs []pendingDoc, evs []pendingEvent) error {
	texts := make([]string, 0, len(docs)+len(evs))
	for _, d := range docs {
		texts = append(texts, d.text)
	}
	for _, d := range evs {
		texts = append(texts, d.text)
	}
	vecs, err := s.embed(ctx, texts)
	if err != nil {
		return err
	}
	for i := range docs {
		docs[i].vec = vecs[i]
		if s.tw != nil {
			docs[i].terms = s.tw.Terms(docs[i].text)
		}
	}
	for i := range evs {
		evs[i].vec = vecs[len(docs)+i]
		if s.tw != nil {
			evs[i].terms = s.tw.Terms(evs[i].text)
		}
	}
	return nil
}

// catchUpVectors embeds one batch of messages and events that were indexed
// lexically while the embedder failed, and stores their vectors. It returns
// how many it took; 0 when none wait, the vectors are off, or the embedder
// is still unavailable (the next call after its retry period probes it).
func (s *Store) catchUpVectors(ctx context.Context) (int, error) {
	if !s.vecBehind.Load() || s.embGuard.open() {
		return 0, nil
	}
	s.idxMu.Lock() // guards vecOK too: Reindex sets it
	defer s.idxMu.Unlock()
	if !s.vecOK {
		return 0, nil
	}
	docs, err := s.unvectoredDocs(ctx)
	if err != nil {
		return 0, err
	}
	evs, err := s.unvectoredEvents(ctx, s.cfg.IndexBatch-len(docs))
	if err != nil {
		return 0, err
	}
	if len(docs)+len(evs) == 0 {
		s.vecBehind.Store(false)
		return 0, nil
	}
	if err := s.embedPending(ctx, docs, evs); err != nil {
		if errors.Is(err, ErrSemanticUnavailable) {
			return 0, nil
		}
		return 0, err
	}
	err = s.update(ctx, func(tx *sql.Tx) error {
		if err := s.indexVectors(ctx, tx, docs); err != nil {
			return err
		}
		return s.indexEventVectors(ctx, tx, evs)
	})
	if err != nil {
		return 0, fmt.Errorf("storage: vector backlog: %w", err)
	}
	s.log.Debug("vectors caught up", "messages", len(docs), "events", len(evs))
	return len(docs) + len(evs), nil
}

// unvectoredDocs reads a batch of the messages waiting for vectors.
func (s *Store) unvectoredDocs(ctx context.Context) ([]pendingDoc, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seq, user_id, role, conversation_id, group_id, created_ms, sender_name, content
		FROM messages WHERE indexed = 0 ORDER BY seq LIMIT ?`, s.cfg.IndexBatch)
	if err != nil {
		return nil, fmt.Errorf("storage: vector backlog: %w", err)
	}
	defer rows.Close()
	var docs []pendingDoc
	for rows.Next() {
		var (
			d               pendingDoc
			sender, content string
		)
		if err := rows.Scan(&d.seq, &d.user, &d.role, &d.conv, &d.group, &d.createdMS, &sender, &content); err != nil {
			return nil, fmt.Errorf("storage: vector backlog: %w", err)
		}
		d.text = embedText(sender, content)
		docs = append(docs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: vector backlog: %w", err)
	}
	return docs, nil
}

// unvectoredEvents reads up to limit of the events waiting for vectors.
func (s *Store) unvectoredEvents(ctx context.Context, limit int) ([]pendingEvent, error) {
	if limit <= 0 {
		return nil, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT seq, user_id, group_id, sender_id, timestamp_epoch, content
		FROM events WHERE indexed = 0 ORDER BY seq LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("storage: event vector backlog: %w", err)
	}
	defer rows.Close()
	var evs []pendingEvent
	for rows.Next() {
		var d pendingEvent
		if err := rows.Scan(&d.seq, &d.user, &d.group, &d.sender, &d.ts, &d.text); err != nil {
			return nil, fmt.Errorf("storage: event vector backlog: %w", err)
		}
		evs = append(evs, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: event vector backlog: %w", err)
	}
	return evs, nil
}
