package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
)

// waitIndexed polls /healthz until the outbox is empty.
func (ts *testServer) waitIndexed() {
	ts.t.Helper()
	for range 600 {
		var h httpapi.HealthResponse
		ts.as("").Do("GET", "/healthz", nil, 200, &h)
		if h.Pending == 0 {
			return
		}
		sleep()
	}
	ts.t.Fatal("outbox did not drain")
}

func ids(p queryapi.Page) []string {
	out := make([]string, 0, len(p.Hits))
	for _, h := range p.Hits {
		out = append(out, h.MessageID)
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func TestEndToEnd(t *testing.T) {
	ts := startServer(t, nil)
	u := ts.as("qq:10001")
	var ack httpapi.PostMessagesResponse
	u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{
		msgJSON("z1", "user", "我不吃辣，一点都不行", 0),
		msgJSON("z2", "assistant", "好的，我记住了：你不吃辣。", 1),
		msgJSON("z3", "user", "我最喜欢的饮料是乌龙茶", 2),
		msgJSON("e1", "user", "We decided to ship project Atlas in March", 3),
		msgJSON("e2", "user", "I really love spicy noodles", 4),
		{"role": "user", "content": "no id given", "created_at": "2026-03-01T21:00:00+08:00", "meta": map[string]any{"platform": "qq"}},
	}}, 200, &ack)
	if ack.Inserted != 6 || ack.Duplicates != 0 || len(ack.IDs) != 6 || ack.IDs[5] == "" {
		t.Fatalf("ack = %+v", ack)
	}
	generated := ack.IDs[5]
	// Re-sending is a no-op; the same id with other content is a conflict.
	u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("z1", "user", "我不吃辣，一点都不行", 0)}}, 200, &ack)
	if ack.Inserted != 0 || ack.Duplicates != 1 {
		t.Fatalf("resend ack = %+v", ack)
	}
	u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("z1", "user", "changed", 0)}}, 409, nil)
	ts.waitIndexed()

	var page queryapi.Page
	u.Do("GET", "/messages"+q("page_size", "4"), nil, 200, &page)
	if diff := cmp.Diff([]string{"z1", "z2", "z3", "e1"}, ids(page)); diff != "" || page.NextCursor == "" || page.Considered != 6 {
		t.Fatalf("list (-want +got):\n%s cursor=%q considered=%d", diff, page.NextCursor, page.Considered)
	}
	u.Do("GET", "/messages"+q("page_size", "4", "cursor", page.NextCursor), nil, 200, &page)
	if diff := cmp.Diff([]string{"e2", generated}, ids(page)); diff != "" {
		t.Fatalf("page 2 (-want +got):\n%s", diff)
	}
	u.Do("GET", "/messages"+q("role", "assistant"), nil, 200, &page)
	if diff := cmp.Diff([]string{"z2"}, ids(page)); diff != "" {
		t.Fatalf("role filter (-want +got):\n%s", diff)
	}

	tests := []struct {
		name string
		path string
		body any
		want []string
	}{
		{"phrase", "/search/lexical", queryapi.LexicalParams{QueryText: `"不吃辣"`}, []string{"z1", "z2"}},
		{"single char", "/search/lexical", queryapi.LexicalParams{QueryText: "辣"}, []string{"z1", "z2"}},
		{"role filter", "/search/lexical", queryapi.LexicalParams{QueryText: "辣", Filter: queryapi.Filter{Role: "user"}}, []string{"z1"}},
		{"english stemmed", "/search/lexical", queryapi.LexicalParams{QueryText: "Atlas shipping"}, []string{"e1"}},
		{"injection is text", "/search/lexical", queryapi.LexicalParams{QueryText: `user_id:qq\:2 OR *`}, []string{}},
		{"paraphrase", "/search/semantic", queryapi.SemanticParams{QueryText: "spices", TopK: 1}, []string{"e2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p queryapi.Page
			u.Do("POST", tt.path, tt.body, 200, &p)
			if diff := cmp.Diff(sorted(tt.want), sorted(ids(p))); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}

	var nb queryapi.NeighborsResult
	u.Do("GET", "/messages/z2/neighbors"+q("before", "1", "after", "1"), nil, 200, &nb)
	if nb.Anchor.MessageID != "z2" || len(nb.Before) != 1 || nb.Before[0].MessageID != "z1" || len(nb.After) != 1 || nb.After[0].MessageID != "z3" {
		t.Fatalf("neighbors = %+v", nb)
	}

	var del httpapi.DeleteResponse
	u.Do("DELETE", "/messages/z3", nil, 200, &del)
	u.Do("DELETE", "/messages/z3", nil, 404, nil)
	u.Do("GET", "/messages/z3/neighbors", nil, 404, nil)
	u.Do("DELETE", "/users/me", nil, 200, &del)
	if del.Deleted != 5 {
		t.Fatalf("forgot %d messages, want 5", del.Deleted)
	}
	u.Do("GET", "/messages", nil, 200, &page)
	if len(page.Hits) != 0 {
		t.Fatalf("after forgetting: %v", ids(page))
	}
	ts.waitIndexed()
	u.Do("POST", "/search/lexical", queryapi.LexicalParams{QueryText: "辣"}, 200, &page)
	if len(page.Hits) != 0 {
		t.Fatalf("lexical after forgetting: %v", ids(page))
	}

	var h httpapi.HealthResponse
	ts.as("").Do("GET", "/healthz", nil, 200, &h)
	if h.Status != "ok" || h.Embedder == "" || h.Dim == 0 || h.Auth {
		t.Fatalf("healthz = %+v", h)
	}
	ts.as("").Do("GET", "/readyz", nil, 200, nil)
}

// TestIsolation gives ≥ 20 users confusable content (the same words, the
// same message ids) and checks that no route ever returns another user's
// message, through every page of every cursor.
func TestIsolation(t *testing.T) {
	ts := startServer(t, nil)
	rng := rand.New(rand.NewPCG(7, 11))
	const users = 24
	phrases := []string{"我不吃辣", "project Atlas ships in March", "乌龙茶", "I love spicy noodles", "周五开会", "my cat is called Miso"}
	owner := map[string]string{} // content → user
	for i := range users {
		user := fmt.Sprintf("qq:%d", 1000+i)
		var msgs []map[string]any
		for j := range 30 {
			p := phrases[rng.IntN(len(phrases))]
			content := fmt.Sprintf("%s [%s #%d]", p, user, j)
			owner[content] = user
			m := msgJSON(fmt.Sprintf("m%02d", j), []string{"user", "assistant"}[j%2], content, j)
			m["conversation_id"] = fmt.Sprintf("c%d", j%3)
			msgs = append(msgs, m)
		}
		ts.as(user).Do("POST", "/messages", map[string]any{"messages": msgs}, 200, nil)
	}
	ts.waitIndexed()
	check := func(user string, hits []queryapi.Evidence, where string) {
		t.Helper()
		for _, h := range hits {
			if owner[h.Content] != user {
				t.Fatalf("%s: user %s got a message of %s: %q", where, user, owner[h.Content], h.Content)
			}
		}
	}
	for i := range users {
		user := fmt.Sprintf("qq:%d", 1000+i)
		c := ts.as(user)
		// Every page of the listing.
		cursor, n := "", 0
		for {
			var p queryapi.Page
			c.Do("GET", "/messages"+q("page_size", "7", "cursor", cursor), nil, 200, &p)
			check(user, p.Hits, "list")
			n += len(p.Hits)
			if p.NextCursor == "" {
				break
			}
			cursor = p.NextCursor
		}
		if n != 30 {
			t.Fatalf("%s listed %d messages, want 30", user, n)
		}
		for _, ph := range phrases {
			cursor = ""
			for {
				var p queryapi.Page
				c.Do("POST", "/search/lexical", queryapi.LexicalParams{QueryText: ph, Match: "any", PageSize: 5, Cursor: cursor}, 200, &p)
				check(user, p.Hits, "lexical")
				if p.NextCursor == "" {
					break
				}
				cursor = p.NextCursor
			}
			var p queryapi.Page
			c.Do("POST", "/search/semantic", queryapi.SemanticParams{QueryText: ph, TopK: 100}, 200, &p)
			check(user, p.Hits, "semantic")
			if len(p.Hits) == 0 {
				t.Fatalf("%s: semantic found nothing for %q", user, ph)
			}
		}
		var nb queryapi.NeighborsResult
		c.Do("GET", "/messages/m15/neighbors"+q("before", "50", "after", "50"), nil, 200, &nb)
		check(user, append(append([]queryapi.Evidence{nb.Anchor}, nb.Before...), nb.After...), "neighbors")
	}
	// Deleting one user's copy of a shared id leaves the others alone.
	ts.as("qq:1000").Do("DELETE", "/messages/m00", nil, 200, nil)
	ts.as("qq:1001").Do("GET", "/messages/m00/neighbors", nil, 200, nil)
	ts.as("qq:1000").Do("DELETE", "/users/me", nil, 200, nil)
	var p queryapi.Page
	ts.as("qq:1001").Do("GET", "/messages", nil, 200, &p)
	if p.Considered != 30 {
		t.Fatalf("forgetting qq:1000 changed qq:1001: %d messages", p.Considered)
	}
}

func TestRecallRoute(t *testing.T) {
	ts := startServer(t, nil)
	u := ts.as("qq:10001")
	msgs := []map[string]any{
		msgJSON("d1", "user", "我不吃辣，一点都不行", 0),
		msgJSON("d2", "assistant", "好的，记住了。", 1),
		msgJSON("d3", "user", "我对花生过敏", 2),
		msgJSON("d4", "user", "今天堵车了", 3),
	}
	u.Do("POST", "/messages", map[string]any{"messages": msgs}, 200, nil)
	ts.as("qq:2").Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("x1", "user", "我超级喜欢吃辣", 0)}}, 200, nil)
	ts.waitIndexed()

	var resp struct {
		MemoryView map[string][]struct {
			EvidenceIDs []string `json:"evidence_ids"`
		} `json:"memory_view"`
		Evidence []struct {
			MessageID string `json:"message_id"`
			Content   string `json:"content"`
		} `json:"evidence"`
		Limits struct {
			StopReason string `json:"stop_reason"`
			Brain      string `json:"brain"`
		} `json:"limits"`
		Trace []any `json:"trace"`
	}
	u.Do("POST", "/recall", map[string]any{"question": "我有什么忌口吗？", "options": map[string]any{"trace": true}}, 200, &resp)
	var cited []string
	for _, e := range resp.Evidence {
		cited = append(cited, e.MessageID)
		if e.MessageID == "x1" {
			t.Fatal("cited another user's message")
		}
	}
	if !slices.Contains(cited, "d1") || !slices.Contains(cited, "d3") || resp.Limits.Brain != "offline" || len(resp.Trace) == 0 {
		t.Fatalf("recall: cited %v, limits %+v", cited, resp.Limits)
	}
	u.Do("POST", "/recall", map[string]any{"question": "What is my dog's name?"}, 200, &resp)
	if resp.Limits.StopReason != "no_evidence" || len(resp.Evidence) != 0 {
		t.Fatalf("absent: %+v", resp)
	}
	for _, bad := range []struct {
		body   any
		status int
	}{
		{map[string]any{}, 422},
		{map[string]any{"question": "x", "user_id": "qq:2"}, 400},
		{map[string]any{"question": "x", "context": map[string]any{"now": "tomorrow"}}, 422},
		{map[string]any{"question": "x", "options": map[string]any{"max_rounds": 100}}, 422},
	} {
		if status, body := u.Raw("POST", "/recall", bad.body); status != bad.status {
			t.Fatalf("%v: status %d, want %d: %s", bad.body, status, bad.status, body)
		}
	}
}

// TestRecallWithBrokenLLM configures a language model whose server fails:
// /healthz names it, and /recall still answers, offline, saying why.
func TestRecallWithBrokenLLM(t *testing.T) {
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
	}))
	defer llm.Close()
	ts := startServer(t, map[string]string{"RECALLD_LLM_URL": llm.URL, "RECALLD_LLM_MODEL": "tiny"})
	var h httpapi.HealthResponse
	ts.as("").Do("GET", "/healthz", nil, 200, &h)
	if h.Brain != "llm:tiny" {
		t.Fatalf("brain %q", h.Brain)
	}
	u := ts.as("qq:1")
	u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("m1", "user", "我对花生过敏", 0)}}, 200, nil)
	ts.waitIndexed()
	var resp struct {
		Evidence []struct {
			MessageID string `json:"message_id"`
		} `json:"evidence"`
		Limits struct {
			Brain string   `json:"brain"`
			Notes []string `json:"notes"`
		} `json:"limits"`
	}
	u.Do("POST", "/recall", map[string]any{"question": "我有什么过敏吗？", "options": map[string]any{"budget_ms": 2000}}, 200, &resp)
	if resp.Limits.Brain != "offline" || len(resp.Evidence) == 0 || !strings.Contains(strings.Join(resp.Limits.Notes, " "), "language model failed") {
		t.Fatalf("recall with a failing model: %+v", resp)
	}
}

// TestRawHTTP sends malformed requests over raw TCP. Whatever reaches a
// handler answers the JSON error body; the rest net/http answers itself, in
// plain text, before any handler runs (the README lists those cases).
func TestRawHTTP(t *testing.T) {
	ts := startServer(t, nil)
	addr := strings.TrimPrefix(ts.base, "http://")
	const user = "X-Recall-User: qq:1\r\n"
	tests := []struct {
		name   string
		req    string
		status int
		json   bool // the JSON error body; false: net/http's own answer
	}{
		// Seen by a handler.
		{"options star", "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", 404, true},
		{"asterisk get", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", 404, true},
		{"connect", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 404, true},
		{"bad chunk length", "POST /messages HTTP/1.1\r\nHost: x\r\n" + user + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, true},
		{"body cut short", "POST /messages HTTP/1.1\r\nHost: x\r\n" + user + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{", 400, true},
		// Answered by net/http before any handler.
		{"bad request line", "GARBAGE\r\n\r\n", 400, false},
		{"bad method", "G(ET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 400, false},
		{"http version", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505, false},
		{"missing host", "GET /healthz HTTP/1.1\r\n\r\n", 400, false},
		{"bad host", "GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n", 400, false},
		{"bad header name", "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", 400, false},
		{"headers too large", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<21) + "\r\n\r\n", 431, false},
		{"bad escape in path", "GET /messages/%zz/neighbors HTTP/1.1\r\nHost: x\r\n" + user + "\r\n", 400, false},
		{"bad content-length", "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, false},
		{"transfer-encoding", "POST /messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, false},
		{"expect", "POST /messages HTTP/1.1\r\nHost: x\r\nExpect: later\r\nContent-Length: 0\r\n\r\n", 417, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second))
			// The server may answer (and close) before it has read all of a
			// large request; the answer is what counts. The request ends
			// with the write side (a body cut short ends there).
			go func() {
				if _, err := conn.Write([]byte(tt.req)); err == nil {
					conn.(*net.TCPConn).CloseWrite()
				}
			}()
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e httpapi.ErrorBody
			isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") &&
				jsonUnmarshal(body, &e) == nil && e.Error.Code != "" && e.Error.Message != ""
			if resp.StatusCode != tt.status || isJSON != tt.json {
				t.Fatalf("%d %q %s, want %d (JSON %v)", resp.StatusCode, resp.Header.Get("Content-Type"), body, tt.status, tt.json)
			}
		})
	}
}
