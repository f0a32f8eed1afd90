package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/embed/embedtest"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
)

// remoteEmbedder is the environment of a server whose embedder is srv.
func remoteEmbedder(srv *embedtest.Server) map[string]string {
	return map[string]string{
		"RECALLD_EMBEDDER":       "openai",
		"RECALLD_EMBEDDER_URL":   srv.URL,
		"RECALLD_EMBEDDER_MODEL": "test-embed",
		"RECALLD_EMBEDDER_RETRY": "100ms",
	}
}

// waitFor polls cond until it holds, failing the test after a deadline.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (ts *testServer) health() httpapi.HealthResponse {
	ts.t.Helper()
	var h httpapi.HealthResponse
	ts.as("").Do("GET", "/healthz", nil, 200, &h)
	return h
}

func hasWarning(h httpapi.HealthResponse, part string) bool {
	return slices.ContainsFunc(h.Warnings, func(w string) bool { return strings.Contains(w, part) })
}

// errorCode returns the code of an error body.
func errorCode(t testing.TB, body []byte) string {
	t.Helper()
	var e httpapi.ErrorBody
	if err := jsonUnmarshal(body, &e); err != nil {
		t.Fatalf("not an error body: %s", body)
	}
	return e.Error.Code
}

var degradeMsgs = map[string]any{"messages": []map[string]any{
	msgJSON("g1", "user", "I parked the car on level three of the airport garage", 0),
	msgJSON("g2", "assistant", "Noted: level three of the airport garage", 1),
	msgJSON("g3", "user", "My sister's birthday is on the twelfth of June", 2),
}}

// TestEmbedderDownAtRuntime: with the embedder failing, messages are stored
// and found by words, semantic search answers 503 semantic_unavailable,
// /recall answers from lexical search and says so, /healthz shows the
// degradation; once the embedder answers, the vectors catch up.
func TestEmbedderDownAtRuntime(t *testing.T) {
	srv := embedtest.New(t, 64)
	ts := startServer(t, remoteEmbedder(srv))
	u := ts.as("qq:1")
	if h := ts.health(); h.Status != "ok" || h.Semantic != "ok" || h.Embedder != "openai:test-embed:64" {
		t.Fatalf("health before the outage = %+v", h)
	}

	srv.SetFailing(true)
	u.Do("POST", "/messages", degradeMsgs, 200, nil)
	waitFor(t, "lexical search finds the messages", func() bool {
		var p queryapi.Page
		u.Do("POST", "/search/lexical", queryapi.LexicalParams{QueryText: "airport garage"}, 200, &p)
		return len(p.Hits) == 2
	})
	status, body := u.Raw("POST", "/search/semantic", queryapi.SemanticParams{QueryText: "where is my car"})
	if status != http.StatusServiceUnavailable || errorCode(t, body) != httpapi.CodeSemanticUnavailable {
		t.Fatalf("semantic search with the embedder down: %d %s", status, body)
	}
	if strings.Contains(string(body), srv.URL) {
		t.Fatalf("the error shows the embedder's address: %s", body)
	}
	var resp agent.Response
	u.Do("POST", "/recall", map[string]any{"question": "Where did I park the car?"}, 200, &resp)
	if !slices.Contains(resp.Limits.Notes, "semantic search unavailable (the embedder does not answer): searched by words only") {
		t.Fatalf("recall notes %q do not say semantic search was skipped", resp.Limits.Notes)
	}
	if !slices.ContainsFunc(resp.Evidence, func(e agent.EvidenceRef) bool { return e.MessageID == "g1" }) {
		t.Fatalf("recall without semantic search did not cite g1: %+v", resp.Evidence)
	}
	waitFor(t, "/healthz shows the embedder down", func() bool {
		h := ts.health()
		return h.Status == "degraded" && h.Semantic == "unavailable" && h.Unvectored == 3 && hasWarning(h, "semantic_unavailable")
	})

	srv.SetFailing(false)
	waitFor(t, "the vectors catch up", func() bool {
		h := ts.health()
		return h.Status == "ok" && h.Semantic == "ok" && h.Unvectored == 0 && len(h.Warnings) == 0
	})
	var p queryapi.Page
	u.Do("POST", "/search/semantic", queryapi.SemanticParams{QueryText: "sister birthday June", TopK: 1}, 200, &p)
	if got := ids(p); len(got) != 1 || got[0] != "g3" {
		t.Fatalf("semantic search after recovery = %v, want g3", got)
	}
}

// TestEmbedderUnreachableAtStart: serve starts when the embedder does not
// answer its dimension probe: lexical-only on a new store; with the
// dimension the store recorded otherwise, recovering when the embedder does.
func TestEmbedderUnreachableAtStart(t *testing.T) {
	srv := embedtest.New(t, 64)
	srv.SetFailing(true)

	t.Run("new store: lexical-only", func(t *testing.T) {
		ts := startServer(t, remoteEmbedder(srv))
		h := ts.health()
		if h.Status != "degraded" || h.Embedder != "none" || h.Semantic != "off" || !hasWarning(h, "did not answer at start") {
			t.Fatalf("health = %+v", h)
		}
		u := ts.as("qq:2")
		u.Do("POST", "/messages", degradeMsgs, 200, nil)
		ts.waitIndexed()
		var p queryapi.Page
		u.Do("POST", "/search/lexical", queryapi.LexicalParams{QueryText: "birthday"}, 200, &p)
		if got := ids(p); len(got) != 1 || got[0] != "g3" {
			t.Fatalf("lexical = %v", got)
		}
		status, body := u.Raw("POST", "/search/semantic", queryapi.SemanticParams{QueryText: "birthday"})
		if status != http.StatusServiceUnavailable || errorCode(t, body) != httpapi.CodeSemanticUnavailable {
			t.Fatalf("semantic search: %d %s", status, body)
		}
	})

	t.Run("recorded dimension: recovers", func(t *testing.T) {
		dir := t.TempDir()
		srv.SetFailing(false)
		first := startServer(t, remoteEmbedder(srv), "-data", dir)
		first.as("qq:3").Do("POST", "/messages", degradeMsgs, 200, nil)
		first.waitIndexed()
		first.stop()

		srv.SetFailing(true)
		ts := startServer(t, remoteEmbedder(srv), "-data", dir)
		h := ts.health()
		if h.Status != "degraded" || h.Embedder != "openai:test-embed:64" || !hasWarning(h, "did not answer at start") {
			t.Fatalf("health = %+v", h)
		}
		u := ts.as("qq:3")
		u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{
			msgJSON("g4", "user", "The wifi password is on the fridge", 3)}}, 200, nil)
		status, body := u.Raw("POST", "/search/semantic", queryapi.SemanticParams{QueryText: "wifi password"})
		if status != http.StatusServiceUnavailable || errorCode(t, body) != httpapi.CodeSemanticUnavailable {
			t.Fatalf("semantic search with the embedder down: %d %s", status, body)
		}
		srv.SetFailing(false)
		waitFor(t, "semantic search finds the message stored during the outage", func() bool {
			var p queryapi.Page
			status, body := u.Raw("POST", "/search/semantic", queryapi.SemanticParams{QueryText: "wifi password fridge", TopK: 1})
			return status == 200 && jsonUnmarshal(body, &p) == nil && len(p.Hits) == 1 && p.Hits[0].MessageID == "g4"
		})
		if h := ts.health(); h.Semantic != "ok" || h.Unvectored != 0 {
			t.Fatalf("health after recovery = %+v", h)
		}
	})

	t.Run("recorded another model: refuses", func(t *testing.T) {
		dir := t.TempDir()
		first := startServer(t, nil, "-data", dir) // the hashing embedder
		first.stop()
		a := &app{getenv: func(k string) string { return remoteEmbedder(srv)[k] }, stdout: &syncBuffer{}, stderr: &syncBuffer{}}
		err := a.run(t.Context(), []string{"serve", "-addr", "127.0.0.1:0", "-data", dir})
		if err == nil || !strings.Contains(err.Error(), "another embedder") {
			t.Fatalf("serve over another embedder's vectors with the embedder down: %v", err)
		}
	})
}
