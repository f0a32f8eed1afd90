package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
)

func TestBadInput(t *testing.T) {
	ts := newServer(t, nil, "-body-limit", "200000")
	u := ts.As("qq:1")
	good := msgJSON("m1", "user", "hello", 0)
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range good {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return map[string]any{"messages": []map[string]any{m}}
	}
	big := strings.Repeat("x", 250000)
	many := make([]map[string]any, 1001)
	for i := range many {
		many[i] = map[string]any{"role": "user", "content": "x", "created_at": "2026-03-01T12:00:00Z"}
	}
	tests := []badRequest{
		{"malformed json", "POST", "/messages", `{"messages": [`, nil, 400, httpapi.CodeBadRequest},
		{"not an object", "POST", "/messages", `[1,2]`, nil, 400, httpapi.CodeBadRequest},
		{"trailing data", "POST", "/messages", `{"messages":[]} {}`, nil, 400, httpapi.CodeBadRequest},
		{"empty body", "POST", "/messages", ``, nil, 400, httpapi.CodeBadRequest},
		{"unknown field", "POST", "/messages", map[string]any{"msgs": []any{good}}, nil, 400, httpapi.CodeBadRequest},
		{"wrong type", "POST", "/messages", with("content", 42), nil, 400, httpapi.CodeBadRequest},
		{"missing messages", "POST", "/messages", map[string]any{}, nil, 422, httpapi.CodeInvalid},
		{"empty batch", "POST", "/messages", map[string]any{"messages": []any{}}, nil, 422, httpapi.CodeInvalid},
		{"missing created_at", "POST", "/messages", with("created_at", nil), nil, 422, httpapi.CodeInvalid},
		{"bad created_at", "POST", "/messages", with("created_at", "yesterday"), nil, 422, httpapi.CodeInvalid},
		{"unknown role", "POST", "/messages", with("role", "bot"), nil, 422, httpapi.CodeInvalid},
		{"meta not object", "POST", "/messages", with("meta", []int{1}), nil, 422, httpapi.CodeInvalid},
		{"control char id", "POST", "/messages", with("id", "a\x00b"), nil, 422, httpapi.CodeInvalid},
		{"other user's message", "POST", "/messages", with("user_id", "qq:2"), nil, 403, httpapi.CodeForbidden},
		{"batch over cap", "POST", "/messages", map[string]any{"messages": many}, nil, 422, httpapi.CodeInvalid},
		{"content over cap", "POST", "/messages", with("content", big[:70000]), nil, 422, httpapi.CodeInvalid},
		{"oversize body", "POST", "/messages", with("content", big), nil, 413, httpapi.CodeTooLarge},
		{"not json", "POST", "/messages", `messages=1`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, httpapi.CodeUnsupportedMedia},
		{"missing user", "POST", "/messages", map[string]any{"messages": []any{good}}, []string{httpapi.HeaderUser, ""}, 400, httpapi.CodeBadRequest},
		{"page_size over cap", "GET", "/messages" + q("page_size", "201"), nil, nil, 422, httpapi.CodeInvalid},
		{"page_size not int", "GET", "/messages" + q("page_size", "ten"), nil, nil, 400, httpapi.CodeBadRequest},
		{"unknown param", "GET", "/messages" + q("limit", "5"), nil, nil, 400, httpapi.CodeBadRequest},
		{"bad since", "GET", "/messages" + q("since", "last week"), nil, nil, 422, httpapi.CodeInvalid},
		{"bad cursor", "GET", "/messages" + q("cursor", "!!"), nil, nil, 422, httpapi.CodeInvalid},
		{"bad role", "GET", "/messages" + q("role", "admin"), nil, nil, 422, httpapi.CodeInvalid},
		{"empty query", "POST", "/search/lexical", queryapi.LexicalParams{QueryText: "  "}, nil, 422, httpapi.CodeInvalid},
		{"bad match", "POST", "/search/lexical", queryapi.LexicalParams{QueryText: "a", Match: "some"}, nil, 422, httpapi.CodeInvalid},
		{"lexical bad cursor", "POST", "/search/lexical", queryapi.LexicalParams{QueryText: "a", Cursor: "zz"}, nil, 422, httpapi.CodeInvalid},
		{"semantic both", "POST", "/search/semantic", map[string]any{"query_text": "a", "query_embedding": []float32{1}}, nil, 422, httpapi.CodeInvalid},
		{"semantic wrong dim", "POST", "/search/semantic", map[string]any{"query_embedding": []float32{1, 2}}, nil, 422, httpapi.CodeInvalid},
		{"top_k over cap", "POST", "/search/semantic", queryapi.SemanticParams{QueryText: "a", TopK: 101}, nil, 422, httpapi.CodeInvalid},
		{"lexical query param", "POST", "/search/lexical" + q("top_k", "5"), queryapi.LexicalParams{QueryText: "a"}, nil, 400, httpapi.CodeBadRequest},
		{"semantic query param", "POST", "/search/semantic" + q("user_id", "qq:2"), queryapi.SemanticParams{QueryText: "a"}, nil, 400, httpapi.CodeBadRequest},
		{"neighbors over cap", "GET", "/messages/m1/neighbors" + q("before", "51"), nil, nil, 422, httpapi.CodeInvalid},
		{"neighbors missing", "GET", "/messages/nope/neighbors", nil, nil, 404, httpapi.CodeNotFound},
		{"delete missing", "DELETE", "/messages/nope", nil, nil, 404, httpapi.CodeNotFound},
		{"no route", "GET", "/nope", nil, nil, 404, httpapi.CodeNotFound},
		{"wrong method", "PUT", "/messages", nil, nil, 405, httpapi.CodeMethodNotAllowed},
		// Text is stored verbatim: what encoding/json would turn into U+FFFD is refused.
		{"content not utf-8", "POST", "/messages", "{\"messages\":[{\"role\":\"user\",\"content\":\"bad \xff byte\",\"created_at\":\"2026-03-01T12:00:00Z\"}]}", nil, 422, httpapi.CodeInvalid},
		{"content lone surrogate", "POST", "/messages", `{"messages":[{"role":"user","content":"half \ud83d pair","created_at":"2026-03-01T12:00:00Z"}]}`, nil, 422, httpapi.CodeInvalid},
		{"content lone low surrogate", "POST", "/messages", `{"messages":[{"role":"user","content":"\ude00","created_at":"2026-03-01T12:00:00Z"}]}`, nil, 422, httpapi.CodeInvalid},
		{"observation not utf-8", "POST", "/turns/end", "{\"memo\":\"m\",\"observations\":[\"went to \xe5\x8c\"]}", nil, 422, httpapi.CodeInvalid},
		{"memory not utf-8", "POST", "/memories", "{\"content\":\"allergic to \xc0\xaf\"}", nil, 422, httpapi.CodeInvalid},
		{"recall not utf-8", "POST", "/recall", "{\"question\":\"\xff?\"}", nil, 422, httpapi.CodeInvalid},
		{"empty content", "POST", "/messages", with("content", ""), nil, 422, httpapi.CodeInvalid},
		{"blank content", "POST", "/messages", with("content", " \n\t　"), nil, 422, httpapi.CodeInvalid},
		{"blank memory", "POST", "/memories", map[string]any{"content": "  "}, nil, 422, httpapi.CodeInvalid},
		// An explicit 0 is below the minimum, not the default.
		{"page_size 0", "GET", "/messages" + q("page_size", "0"), nil, nil, 422, httpapi.CodeInvalid},
		{"lexical page_size 0", "POST", "/search/lexical", map[string]any{"query_text": "a", "page_size": 0}, nil, 422, httpapi.CodeInvalid},
		{"semantic top_k 0", "POST", "/search/semantic", map[string]any{"query_text": "a", "top_k": 0}, nil, 422, httpapi.CodeInvalid},
		{"events top_k 0", "POST", "/events/search", map[string]any{"query": "a", "top_k": 0}, nil, 422, httpapi.CodeInvalid},
		{"profiles top_k 0", "POST", "/profiles/search", map[string]any{"query": "a", "top_k": 0}, nil, 422, httpapi.CodeInvalid},
		{"recall max_rounds 0", "POST", "/recall", map[string]any{"question": "a", "options": map[string]any{"max_rounds": 0}}, nil, 422, httpapi.CodeInvalid},
		{"recent message without text", "POST", "/turns/end", map[string]any{"memo": "m", "recent_messages": []any{map[string]any{}}}, nil, 422, httpapi.CodeInvalid},
		{"recent message null text", "POST", "/turns/end", map[string]any{"memo": "m", "recent_messages": []any{map[string]any{"sender_id": "qq:1", "text": nil}}}, nil, 422, httpapi.CodeInvalid},
		// null decodes into nothing at all: refused like any non-object.
		{"null turn", "POST", "/turns/end", `null`, nil, 400, httpapi.CodeBadRequest},
		{"null context", "POST", "/context", ` null `, nil, 400, httpapi.CodeBadRequest},
		{"null memory", "POST", "/memories", `null`, nil, 400, httpapi.CodeBadRequest},
		{"string body", "POST", "/recall", `"question"`, nil, 400, httpapi.CodeBadRequest},
	}
	expectErrors(t, u, tests)
	// Nothing of the rejected requests was stored.
	var page queryapi.Page
	u.Do("GET", "/messages", nil, 200, &page)
	if len(page.Hits) != 0 {
		t.Fatalf("rejected input stored: %v", queryapitest.IDs(page.Hits))
	}
	var jobs httpapi.JobsResponse
	u.Do("GET", "/jobs", nil, 200, &jobs)
	var mems queryapi.MemoryList
	u.Do("GET", "/memories", nil, 200, &mems)
	if len(jobs.Jobs) != 0 || len(mems.Memories) != 0 {
		t.Fatalf("rejected input stored: %d jobs, %d memories", len(jobs.Jobs), len(mems.Memories))
	}
	// The service still works, and valid text is kept as sent (a surrogate
	// pair is one character, an empty recent message text is allowed).
	u.Do("POST", "/messages", map[string]any{"messages": []any{good}}, 200, nil)
	u.Do("POST", "/messages", `{"messages":[{"id":"emoji","role":"user","content":"ok \ud83d\ude00 \\ud800","created_at":"2026-03-01T12:00:00Z"}]}`, 200, nil)
	u.Do("GET", "/messages", nil, 200, &page)
	if len(page.Hits) != 2 || page.Hits[1].Content != `ok 😀 \ud800` {
		t.Fatalf("stored %+v", page.Hits)
	}
	u.Do("POST", "/turns/end", map[string]any{"memo": "m", "recent_messages": []any{map[string]any{"text": ""}}}, 202, nil)
	u.Do("GET", "/messages"+q("page_size", ""), nil, 200, nil)
}

func TestAuth(t *testing.T) {
	const (
		keyA   = "key-for-bot-a-0123456789"
		keyAll = "key-for-operator-0123456789"
	)
	ts := newServer(t, map[string]string{"RECALLD_API_KEYS": keyA + "=qq:," + keyAll})
	tests := []struct {
		name   string
		user   string
		key    string
		status int
		code   string
	}{
		{"no key", "qq:1", "", 401, httpapi.CodeUnauthorized},
		{"unknown key", "qq:1", "not-a-key-0123456789", 401, httpapi.CodeUnauthorized},
		{"prefix allowed", "qq:1", keyA, 200, ""},
		{"prefix denied", "tg:1", keyA, 403, httpapi.CodeForbidden},
		{"unrestricted", "tg:1", keyAll, 200, ""},
		{"no user", "", keyA, 400, httpapi.CodeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := ts.As(tt.user).WithKey(tt.key).Raw("GET", "/messages", nil)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			if tt.code != "" && !strings.Contains(string(body), `"code":"`+tt.code+`"`) {
				t.Fatalf("body %s, want code %s", body, tt.code)
			}
		})
	}
	// Probes need no key.
	var h httpapi.HealthResponse
	ts.As("").Do("GET", "/healthz", nil, 200, &h)
	if !h.Auth {
		t.Fatal("healthz says auth is off")
	}
	// A rejected key stores nothing.
	status, _ := ts.As("tg:1").WithKey(keyA).Raw("POST", "/messages", map[string]any{"messages": []any{msgJSON("x", "user", "secret", 0)}})
	if status != 403 {
		t.Fatalf("status %d", status)
	}
	var page queryapi.Page
	ts.As("tg:1").WithKey(keyAll).Do("GET", "/messages", nil, 200, &page)
	if len(page.Hits) != 0 {
		t.Fatal("forbidden write was stored")
	}
}

func TestPathIDEscaping(t *testing.T) {
	ts := newServer(t, nil)
	u := ts.As("qq:1")
	u.Do("POST", "/messages", map[string]any{"messages": []any{msgJSON("a/b c", "user", "slash id", 0)}}, 200, nil)
	var nb queryapi.NeighborsResult
	u.Do("GET", "/messages/"+url.PathEscape("a/b c")+"/neighbors", nil, 200, &nb)
	if nb.Anchor.MessageID != "a/b c" {
		t.Fatalf("anchor %q", nb.Anchor.MessageID)
	}
	u.Do("DELETE", "/messages/"+url.PathEscape("a/b c"), nil, http.StatusOK, nil)
}
