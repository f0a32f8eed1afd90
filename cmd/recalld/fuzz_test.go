package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/httpapi"
)

// fuzzRoutes are the routes FuzzHTTPDecoders drives: every route that
// decodes a body, query parameters or a path id. {id} is the fuzzed path
// argument, escaped. DELETE /users/me would only empty the store.
var fuzzRoutes = []struct{ method, path string }{
	{"POST", "/messages"}, {"GET", "/messages"}, {"DELETE", "/messages/{id}"}, {"GET", "/messages/{id}/neighbors"},
	{"POST", "/search/lexical"}, {"POST", "/search/semantic"}, {"POST", "/recall"}, {"POST", "/turns/end"},
	{"GET", "/jobs"}, {"POST", "/events/search"}, {"POST", "/context"},
	{"GET", "/profiles/user/{id}"}, {"GET", "/profiles/group/{id}/revisions"}, {"POST", "/profiles/user/{id}/restore"},
	{"POST", "/profiles/search"}, {"GET", "/memos"}, {"POST", "/memories"}, {"GET", "/memories"},
	{"GET", "/memories/{id}"}, {"PATCH", "/memories/{id}"}, {"DELETE", "/memories/{id}"}, {"POST", "/mcp"},
}

// FuzzHTTPDecoders sends arbitrary bodies, query strings and path ids to
// every decoding route of a real server on loopback (with its historian,
// which processes the fuzzed turns). No request may end in a 5xx (a panic
// is one, through the recover middleware) or take longer than the request
// timeout; every non-2xx answer is the JSON error body with a code; every
// 2xx body is empty or JSON.
func FuzzHTTPDecoders(f *testing.F) {
	route := func(method, path string) uint8 {
		for i, r := range fuzzRoutes {
			if r.method == method && r.path == path {
				return uint8(i)
			}
		}
		panic(path)
	}
	at := `"2026-03-01T12:00:00+08:00"`
	for _, s := range []struct {
		method, path, id, query, body string
	}{
		{"POST", "/messages", "", "", `{"messages":[{"id":"m1","role":"user","content":"我不吃辣，一点都不行","conversation_id":"c1","created_at":` + at + `}]}`},
		{"POST", "/messages", "", "", `{"messages":[{"role":"assistant","content":"spicy noodles","created_at":` + at + `,"meta":{"platform":"qq"}}]}`},
		{"POST", "/messages", "", "", `{"messages":[{"id":"m2","role":"user","content":"ok","created_at":"2026-13-01T00:00:00Z","user_id":"x"}]}`},
		{"POST", "/messages", "", "", `{"messages":[]}`},
		{"POST", "/messages", "", "", `{"messages":null} {}`},
		{"GET", "/messages", "", "page_size=2&role=user&since=2026-01-01T00:00:00Z", ""},
		{"GET", "/messages", "", "cursor=%00%ff&page_size=-1", ""},
		{"DELETE", "/messages/{id}", "m1/x y", "", ""},
		{"GET", "/messages/{id}/neighbors", "m1", "before=50&after=51", ""},
		{"POST", "/search/lexical", "", "", `{"query_text":"\"不吃辣\" OR user_id:x","match":"any","contextual":true,"filter":{"role":"user","since":` + at + `},"page_size":5}`},
		{"POST", "/search/lexical", "", "", `{"query_text":"辣","cursor":"eDI6MTAwMDAw"}`},
		{"POST", "/search/semantic", "", "", `{"query_text":"spicy food","top_k":3,"min_score":0.1}`},
		{"POST", "/search/semantic", "", "", `{"query_embedding":[1,2,3],"top_k":101}`},
		{"POST", "/recall", "", "", `{"question":"你记得我有什么饮食偏好吗？","context":{"now":` + at + `,"role_pref":"user","time_range":{"since":"2026-01-01T00:00:00Z"}},"options":{"max_rounds":2,"budget_ms":500,"trace":true}}`},
		{"POST", "/turns/end", "", "", `{"request_id":"t1","memo":"聊了周末计划","observations":["我明天要去杭州出差","I like oolong tea"],"sender_id":"10001","sender_name":"小王","request_type":"private","timestamp":` + at + `}`},
		{"POST", "/turns/end", "", "", `{"observations":["小王住在北京"],"group_id":"g1","sender_id":"1","recent_messages":[{"text":"hi","time":"12:00"}],"force":true}`},
		{"GET", "/jobs", "", "state=failed&limit=500", ""},
		{"POST", "/events/search", "", "", `{"query":"杭州出差","group_id":"g1","request_type":"group","top_k":5,"time_from":"2026-03-31T00:00:00Z","time_to":"2026-03-01T00:00:00Z","deep":true}`},
		{"POST", "/context", "", "", `{"message":"<msg><content>你还记得我吃不吃辣吗</content></msg>","sender_id":"10001","sender_name":"小王","request_type":"private","at_bot":true}`},
		{"GET", "/profiles/user/{id}", "10001", "", ""},
		{"GET", "/profiles/group/{id}/revisions", "g1", "", ""},
		{"POST", "/profiles/user/{id}/restore", "10001", "", `{"revision":1}`},
		{"POST", "/profiles/search", "", "", `{"query":"谁在杭州","entity_type":"user","top_k":5}`},
		{"GET", "/memos", "", "group_id=g1&limit=10&request_type=group", ""},
		{"POST", "/memories", "", "", `{"id":"lang","content":"以后用英文回复","tags":["style"],"group_id":"g1"}`},
		{"GET", "/memories", "", "group_id=g1&exact=true", ""},
		{"GET", "/memories/{id}", "lang", "", ""},
		{"PATCH", "/memories/{id}", "lang", "", `{"content":"Reply in English","tags":null}`},
		{"DELETE", "/memories/{id}", "lang", "", ""},
		{"POST", "/mcp", "", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"recall","arguments":{"question":"我有什么忌口吗？"}}}`},
		{"POST", "/mcp", "", "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lexical_search","arguments":{"query_text":"辣","user_id":"x"}}}`},
		{"POST", "/mcp", "", "", `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`},
		{"POST", "/mcp", "", "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
		{"POST", "/mcp", "", "", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`},
		{"POST", "/search/lexical", "", "", `{"query_text":`},
		{"POST", "/search/lexical", "", "", strings.Repeat("[", 20000)},
		{"POST", "/recall", "", "", `{"question":"x","unknown":1}`},
		{"POST", "/context", "", "", `"just a string"`},
	} {
		f.Add(route(s.method, s.path), s.id, s.query, []byte(s.body))
	}
	logs := &syncBuffer{}
	ts := startServerWith(f, func(a *app) { a.stderr = logs }, withEnv(fastQueue,
		"RECALLD_REQUEST_TIMEOUT", "5s"))
	hc := &http.Client{Timeout: 20 * time.Second}
	f.Fuzz(func(t *testing.T, r uint8, id, query string, body []byte) {
		rt := fuzzRoutes[int(r)%len(fuzzRoutes)]
		path := strings.ReplaceAll(rt.path, "{id}", url.PathEscape(id))
		if strings.Contains(rt.path, "{id}") && id == "" {
			return // another route
		}
		vals, err := url.ParseQuery(query)
		if err != nil {
			return // net/http, not recalld, refuses a malformed request line
		}
		u := ts.base + path
		if len(vals) > 0 {
			u += "?" + vals.Encode()
		}
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(t.Context(), rt.method, u, rd)
		if err != nil {
			return
		}
		req.Header.Set(httpapi.HeaderUser, "qq:fuzz")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if rt.path == "/mcp" {
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
		logStart := logs.Len()
		start := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", rt.method, u, err)
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s %s: read: %v", rt.method, u, err)
		}
		took := time.Since(start)
		if resp.StatusCode >= 500 {
			log := logs.since(logStart)
			t.Fatalf("%s %s %q: %d %s after %s\nserver log:\n%s", rt.method, u, body, resp.StatusCode, out, took, log)
		}
		if resp.StatusCode >= 300 {
			var e httpapi.ErrorBody
			if err := json.Unmarshal(out, &e); err != nil || e.Error.Code == "" {
				t.Fatalf("%s %s %q: %d without the JSON error body: %q", rt.method, u, body, resp.StatusCode, out)
			}
			return
		}
		if len(bytes.TrimSpace(out)) > 0 && !json.Valid(out) {
			t.Fatalf("%s %s %q: %d with a body that is not JSON: %q", rt.method, u, body, resp.StatusCode, out)
		}
	})
}

// Len returns how many bytes were written so far.
func (b *syncBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Len()
}

// since returns what was written after the first n bytes.
func (b *syncBuffer) since(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.Buffer.String()
	if n > len(s) {
		return ""
	}
	return s[n:]
}
