package storage_test

import (
	"errors"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/embed"
	"github.com/recalld/recalld/internal/embed/embedtest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// openRemote opens a store in dir whose embedder is the local server srv.
func openRemote(tb testing.TB, dir string, srv *embedtest.Server, noIndexer bool) *storage.Store {
	tb.Helper()
	e, err := embed.NewOpenAI(tb.Context(), embed.OpenAIConfig{BaseURL: srv.URL, Model: "test-embed", Dim: srv.Dim(), Timeout: 5 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	return storagetest.Open(tb, storage.Config{Dir: dir, Embedder: e, NoIndexer: noIndexer, EmbedderRetry: 100 * time.Millisecond})
}

// eventually polls cond until it holds or the deadline passes.
func eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var outageMsgs = []storage.Message{
	msg("m1", "user", "I parked the car on level three of the airport garage", 0),
	msg("m2", "assistant", "Noted: level three, airport garage", 1),
	msg("m3", "user", "My sister's birthday is on the twelfth of June", 2),
}

func TestEmbedderOutageKeepsLexicalAndCatchesUp(t *testing.T) {
	srv := embedtest.New(t, 64)
	s := openRemote(t, t.TempDir(), srv, true)
	ctx := t.Context()

	srv.SetFailing(true)
	mustInsert(t, s, "u1", outageMsgs...)
	err := s.Drain(ctx, nil)
	if !errors.Is(err, storage.ErrSemanticUnavailable) {
		t.Fatalf("Drain with the embedder down: got %v, want ErrSemanticUnavailable", err)
	}
	// Nothing lost, the lexical index complete.
	if n, err := s.Count(ctx, "u1", storage.Filter{}); err != nil || n != 3 {
		t.Fatalf("Count = %d, %v; want 3", n, err)
	}
	hits, _, err := s.LexicalSearch(ctx, "u1", storage.LexicalQuery{Text: "airport garage", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(hits); len(got) != 2 {
		t.Fatalf("lexical hits while the embedder is down = %v, want m1 and m2", got)
	}
	// Trip the circuit: the third failure in a row opens it.
	if _, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "where is the car", TopK: 3}); !errors.Is(err, storage.ErrSemanticUnavailable) {
		t.Fatalf("semantic search with the embedder down: got %v, want ErrSemanticUnavailable", err)
	}
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Semantic != storage.SemanticUnavailable || st.Unvectored != 3 || st.Pending != 0 || st.EmbedderError == "" {
		t.Fatalf("status while down = %+v, want semantic unavailable, 3 unvectored, nothing pending, an error", st)
	}
	// Open circuit: calls fail fast without reaching the embedder.
	before, start := srv.Requests(), time.Now()
	for range 20 {
		if _, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "car", TopK: 3}); !errors.Is(err, storage.ErrSemanticUnavailable) {
			t.Fatalf("semantic search with the circuit open: got %v", err)
		}
	}
	if err := s.Drain(ctx, nil); !errors.Is(err, storage.ErrSemanticUnavailable) {
		t.Fatalf("Drain with the circuit open: got %v", err)
	}
	// At most one probe per retry period (100 ms) gets through.
	if d, limit := srv.Requests()-before, int64(time.Since(start)/(100*time.Millisecond))+1; d > limit {
		t.Fatalf("%d embedder requests while the circuit was open, want at most %d", d, limit)
	}
	// A query with its own vector needs no embedder.
	if _, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Vector: make([]float32, 64), TopK: 3}); err != nil {
		t.Fatalf("semantic search by vector with the embedder down: %v", err)
	}

	// Recovery: after the retry period one call probes, then the vectors catch up.
	srv.SetFailing(false)
	eventually(t, "Drain succeeds after the embedder recovers", func() bool { return s.Drain(ctx, nil) == nil })
	st, err = s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Semantic != storage.SemanticOK || st.Unvectored != 0 || st.EmbedderError != "" {
		t.Fatalf("status after recovery = %+v", st)
	}
	sem, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "airport garage level three", TopK: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitIDs(sem); len(got) != 1 || got[0] == "m3" {
		t.Fatalf("semantic hits after catch-up = %v, want the garage message", got)
	}
}

func TestEmbedderOutageBackgroundIndexer(t *testing.T) {
	srv := embedtest.New(t, 64)
	s := openRemote(t, t.TempDir(), srv, false)
	ctx := t.Context()

	srv.SetFailing(true)
	mustInsert(t, s, "u1", outageMsgs...)
	// The indexer makes the messages searchable by words at once.
	eventually(t, "lexical search sees the messages", func() bool {
		hits, _, err := s.LexicalSearch(ctx, "u1", storage.LexicalQuery{Text: "birthday", Size: 5})
		return err == nil && len(hits) == 1
	})
	eventually(t, "status shows the embedder unavailable", func() bool {
		st, err := s.Status(ctx)
		return err == nil && st.Semantic == storage.SemanticUnavailable && st.Unvectored == 3
	})
	// No hot loop: with the circuit open the indexer probes at most once
	// per retry period (100 ms here), not once per tick or per batch.
	before, start := srv.Requests(), time.Now()
	time.Sleep(500 * time.Millisecond)
	if d, limit := srv.Requests()-before, int64(time.Since(start)/(100*time.Millisecond))+2; d > limit {
		t.Fatalf("%d embedder requests in %v with the circuit open, want at most %d", d, time.Since(start), limit)
	}

	srv.SetFailing(false)
	eventually(t, "the vectors catch up", func() bool {
		st, err := s.Status(ctx)
		return err == nil && st.Semantic == storage.SemanticOK && st.Unvectored == 0
	})
	hits, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "sister birthday June", TopK: 1})
	if err != nil || len(hits) != 1 || hits[0].ID != "m3" {
		t.Fatalf("semantic search after catch-up = %v, %v; want m3", hitIDs(hits), err)
	}
}

func TestLexicalOnlyStoreGetsVectorsLater(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	lex, err := storage.Open(ctx, storage.Config{Dir: dir, LexicalOnly: true, NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	mustInsert(t, lex, "u1", outageMsgs...)
	if err := lex.Drain(ctx, nil); err != nil {
		t.Fatalf("Drain of a lexical-only store: %v", err)
	}
	hits, _, err := lex.LexicalSearch(ctx, "u1", storage.LexicalQuery{Text: "garage", Size: 5})
	if err != nil || len(hits) != 2 {
		t.Fatalf("lexical search = %v, %v", hitIDs(hits), err)
	}
	if _, err := lex.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "car", TopK: 3}); !errors.Is(err, storage.ErrSemanticUnavailable) {
		t.Fatalf("semantic search of a lexical-only store: got %v", err)
	}
	st, err := lex.Status(ctx)
	if err != nil || st.Semantic != storage.SemanticOff || st.Embedder != "none" {
		t.Fatalf("status = %+v, %v", st, err)
	}
	if name, dim, err := lex.RecordedEmbedder(ctx); err != nil || name != "" || dim != 0 {
		t.Fatalf("RecordedEmbedder of a store without vectors = %q, %d, %v", name, dim, err)
	}
	if err := lex.Close(); err != nil {
		t.Fatal(err)
	}

	// The next start with a reachable embedder embeds what was stored.
	srv := embedtest.New(t, 64)
	s := openRemote(t, dir, srv, true)
	mustDrain(t, s)
	sem, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "sister birthday", TopK: 1})
	if err != nil || len(sem) != 1 || sem[0].ID != "m3" {
		t.Fatalf("semantic search after the embedder came = %v, %v", hitIDs(sem), err)
	}
	if name, dim, err := s.RecordedEmbedder(ctx); err != nil || name != "openai:test-embed:64" || dim != 64 {
		t.Fatalf("RecordedEmbedder = %q, %d, %v", name, dim, err)
	}
}
