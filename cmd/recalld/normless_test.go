package main

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
)

// TestNormlessTextsOverHTTP: a message, an observation (an event the
// historian writes) and a pinned memory whose text the hashing embedder
// finds no feature in ("ok", "!!!", a lone emoji...) are stored without a
// vector, and that user's semantic search, recall, /events/search and
// /context keep answering 200, for ordinary questions and for questions
// made of such text alone.
func TestNormlessTextsOverHTTP(t *testing.T) {
	ts := startServer(t, fastQueue)
	texts := []string{"ok", "哈", "?", "👍", "...", "the", "!!!"}
	now := time.Now().UTC().Truncate(time.Second)
	users := make([]*client, len(texts))
	for i, text := range texts {
		u := ts.as("qq:" + strconv.Itoa(100+i))
		users[i] = u
		// Without a sender name, which would be embedded with the text.
		msgs := []map[string]any{msgJSON("z1", "user", text, 0), msgJSON("z2", "assistant", text, 1),
			msgJSON("m1", "user", "I parked the car on level three", 2)}
		for _, m := range msgs {
			delete(m, "sender_name")
		}
		u.Do("POST", "/messages", map[string]any{"messages": msgs}, http.StatusOK, nil)
		u.endTurnAt("t1", "", "10001", "小王", now.Add(-time.Hour), text, "小王 parked the car on level three")
		u.endTurnAt("t2", "", "10001", "小王", now.Add(-time.Minute), text)
		u.Do("POST", "/memories", map[string]any{"id": "pin", "content": text}, http.StatusCreated, nil)
	}
	ts.waitIndexed()
	if h := ts.health(); h.Unvectored != 0 {
		t.Fatalf("healthz counts %d messages waiting for vectors", h.Unvectored)
	}
	// The client's helpers fail the test they were made with: no subtests.
	for i, text := range texts {
		u := users[i]
		for _, q := range []string{"where is the car parked", text} {
			var p queryapi.Page
			u.Do("POST", "/search/semantic", map[string]any{"query_text": q}, http.StatusOK, &p)
			if q != text && (len(p.Hits) != 1 || p.Hits[0].MessageID != "m1") {
				t.Errorf("semantic search %q: %v, want m1", q, ids(p))
			}
			u.Do("POST", "/recall", map[string]any{"question": q}, http.StatusOK, nil)
			var ev httpapi.SearchEventsResponse
			u.Do("POST", "/events/search", map[string]any{"query": q}, http.StatusOK, &ev)
			var c queryapi.ContextResult
			u.Do("POST", "/context", map[string]any{"message": q, "sender_id": "10001", "request_type": "private"}, http.StatusOK, &c)
			if len(c.Memories) != 1 {
				t.Errorf("context %q: pinned memories %+v", q, c.Memories)
			}
		}
	}
}
