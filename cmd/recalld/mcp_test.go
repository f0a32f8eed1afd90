package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/internal/mcpapi/mcpapitest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// mcpToolNames are the tools every MCP server lists.
var mcpToolNames = []string{"get_profile", "lexical_search", "memory_add", "memory_delete", "memory_list", "memory_update", "messages_list", "neighbors", "recall", "search_events", "search_profiles", "semantic_search"}

// asUser adds the trust headers of one caller to every request of an MCP client.
type asUser struct {
	user, key string
	rt        http.RoundTripper
}

func (a asUser) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if a.user != "" {
		req.Header.Set(httpapi.HeaderUser, a.user)
	}
	if a.key != "" {
		req.Header.Set("Authorization", "Bearer "+a.key)
	}
	return a.rt.RoundTrip(req)
}

// mcpConnect connects the SDK's client to ts's /mcp as user (with key, if
// any). Every HTTP response it receives is checked against openapi.yaml.
func mcpConnect(t *testing.T, ts *testServer, user, key string) (*mcp.ClientSession, error) {
	t.Helper()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   ts.base + "/mcp",
		HTTPClient: &http.Client{Transport: asUser{user: user, key: key, rt: ts.hc.Transport}},
		MaxRetries: -1,
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "recalld-test", Version: "1"}, nil).Connect(t.Context(), tr, nil)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { cs.Close() })
	return cs, nil
}

func mustMCPConnect(t *testing.T, ts *testServer, user, key string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcpConnect(t, ts, user, key)
	if err != nil {
		t.Fatalf("connect as %q: %v", user, err)
	}
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// seedRecall stores the recall fixture: qq:10001's food constraints and a
// look-alike message of qq:2.
func seedRecall(ts *testServer) {
	ts.as("qq:10001").Do("POST", "/messages", map[string]any{"messages": []map[string]any{
		msgJSON("d1", "user", "我不吃辣，一点都不行", 0),
		msgJSON("d2", "assistant", "好的，记住了。", 1),
		msgJSON("d3", "user", "我对花生过敏", 2),
		msgJSON("d4", "user", "今天堵车了", 3),
	}}, 200, nil)
	ts.as("qq:2").Do("POST", "/messages", map[string]any{"messages": []map[string]any{
		msgJSON("x1", "user", "我超级喜欢吃辣", 0),
		msgJSON("d1", "user", "qq:2 的 d1：我对海鲜过敏", 1),
	}}, 200, nil)
	ts.waitIndexed()
}

func TestMCPHTTP(t *testing.T) {
	ts := startServer(t, nil)
	seedRecall(ts)
	cs := mustMCPConnect(t, ts, "qq:10001", "")

	init := cs.InitializeResult()
	if init.ServerInfo.Name != "recalld" || !strings.Contains(init.Instructions, "recall") {
		t.Fatalf("initialize: %+v", init)
	}
	tools := toolNames(t, cs)
	if diff := cmp.Diff(mcpToolNames, keys(tools)); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	for name, tool := range tools {
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(schema), `"user_id"`) || !strings.Contains(string(schema), `"additionalProperties":false`) {
			t.Errorf("%s: input schema names a user or accepts anything: %s", name, schema)
		}
		if tool.OutputSchema == nil || tool.Description == "" || tool.Annotations == nil {
			t.Errorf("%s: missing output schema, description or annotations", name)
		}
		if writes := strings.HasPrefix(name, "memory_") && name != "memory_list"; tool.Annotations.ReadOnlyHint == writes {
			t.Errorf("%s: readOnlyHint %v", name, tool.Annotations.ReadOnlyHint)
		}
	}
	if req := tools["recall"].InputSchema.(map[string]any)["required"]; fmt.Sprint(req) != "[question]" {
		t.Fatalf("recall requires %v", req)
	}

	var resp agent.Response
	mcpapitest.CallTool(t, cs, "recall", map[string]any{"question": "我有什么忌口吗？", "options": map[string]any{"trace": true}}, &resp)
	var cited []string
	for _, e := range resp.Evidence {
		cited = append(cited, e.MessageID)
		if e.MessageID == "x1" || strings.Contains(e.Content, "qq:2") {
			t.Fatalf("cited another user's message: %+v", e)
		}
	}
	if !slices.Contains(cited, "d1") || !slices.Contains(cited, "d3") || resp.Limits.Brain != "offline" || len(resp.Trace) == 0 {
		t.Fatalf("recall: cited %v, limits %+v", cited, resp.Limits)
	}
	mcpapitest.CallTool(t, cs, "recall", map[string]any{"question": "What is my dog's name?"}, &resp)
	if resp.Limits.StopReason != agent.StopNoEvidence || len(resp.Evidence) != 0 {
		t.Fatalf("absent: %+v", resp)
	}

	var page queryapi.Page
	mcpapitest.CallTool(t, cs, "messages_list", map[string]any{"page_size": 3}, &page)
	if diff := cmp.Diff([]string{"d1", "d2", "d3"}, ids(page)); diff != "" || page.NextCursor == "" || page.Considered != 4 {
		t.Fatalf("messages_list (-want +got):\n%s cursor %q considered %d", diff, page.NextCursor, page.Considered)
	}
	mcpapitest.CallTool(t, cs, "messages_list", map[string]any{"page_size": 3, "cursor": page.NextCursor}, &page)
	if diff := cmp.Diff([]string{"d4"}, ids(page)); diff != "" {
		t.Fatalf("messages_list page 2 (-want +got):\n%s", diff)
	}
	mcpapitest.CallTool(t, cs, "lexical_search", map[string]any{"query_text": `"不吃辣"`, "filter": map[string]any{"role": "user"}}, &page)
	if diff := cmp.Diff([]string{"d1"}, ids(page)); diff != "" {
		t.Fatalf("lexical_search (-want +got):\n%s", diff)
	}
	mcpapitest.CallTool(t, cs, "semantic_search", map[string]any{"query_text": "花生过敏", "top_k": 1}, &page)
	if diff := cmp.Diff([]string{"d3"}, ids(page)); diff != "" {
		t.Fatalf("semantic_search (-want +got):\n%s", diff)
	}
	var nb queryapi.NeighborsResult
	mcpapitest.CallTool(t, cs, "neighbors", map[string]any{"message_id": "d2", "before": 1, "after": 1}, &nb)
	if nb.Anchor.MessageID != "d2" || len(nb.Before) != 1 || nb.Before[0].MessageID != "d1" || len(nb.After) != 1 || nb.After[0].MessageID != "d3" {
		t.Fatalf("neighbors = %+v", nb)
	}

	// Bad input is a tool error naming the problem; the session goes on.
	tests := []struct {
		name string
		tool string
		args any
		want string
	}{
		{"recall without question", "recall", map[string]any{}, "question"},
		{"blank question", "recall", map[string]any{"question": "   "}, "invalid_argument: question is required"},
		{"a user argument", "recall", map[string]any{"question": "x", "user_id": "qq:2"}, "user_id"},
		{"bad now", "recall", map[string]any{"question": "x", "context": map[string]any{"now": "tomorrow"}}, "invalid_argument: context.now"},
		{"rounds over cap", "recall", map[string]any{"question": "x", "options": map[string]any{"max_rounds": 100}}, "max_rounds"},
		{"wrong type", "lexical_search", map[string]any{"query_text": 42}, "query_text"},
		{"unknown role", "lexical_search", map[string]any{"query_text": "辣", "filter": map[string]any{"role": "bot"}}, "role"},
		{"both query kinds", "semantic_search", map[string]any{"query_text": "x", "query_embedding": []float32{1}}, "invalid_argument: give exactly one"},
		{"reversed window", "messages_list", map[string]any{"since": "2026-03-02T00:00:00Z", "until": "2026-03-01T00:00:00Z"}, "invalid_argument"},
		{"bad cursor", "messages_list", map[string]any{"cursor": "garbage"}, "invalid_argument"},
		{"missing message", "neighbors", map[string]any{"message_id": "nope"}, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if msg := mcpapitest.ToolError(t, cs, tt.tool, tt.args); !strings.Contains(msg, tt.want) {
				t.Fatalf("error %q, want it to mention %q", msg, tt.want)
			}
		})
	}
	if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_everything", Arguments: map[string]any{}}); err == nil {
		t.Fatal("an unknown tool was called")
	}
}

// TestMCPIsolation: a client bound to one user never reaches another
// user's messages through any tool, whatever the arguments say, even with
// the same message ids and the same words.
func TestMCPIsolation(t *testing.T) {
	ts := startServer(t, nil)
	const users = 3
	phrases := []string{"我不吃辣", "project Atlas ships in March", "my cat is called Miso"}
	owner := map[string]string{}
	for i := range users {
		user := fmt.Sprintf("qq:%d", 500+i)
		var msgs []map[string]any
		for j, p := range phrases {
			content := fmt.Sprintf("%s [%s]", p, user)
			owner[content] = user
			msgs = append(msgs, msgJSON(fmt.Sprintf("m%d", j), "user", content, j))
		}
		// A message only this user has.
		only := fmt.Sprintf("secret of %s: 我对花生过敏", user)
		owner[only] = user
		msgs = append(msgs, msgJSON("only-"+user, "user", only, 10))
		ts.as(user).Do("POST", "/messages", map[string]any{"messages": msgs}, 200, nil)
	}
	ts.waitIndexed()
	for i := range users {
		user := fmt.Sprintf("qq:%d", 500+i)
		cs := mustMCPConnect(t, ts, user, "")
		check := func(where string, hits ...queryapi.Evidence) {
			t.Helper()
			for _, h := range hits {
				if owner[h.Content] != user {
					t.Fatalf("%s: %s got %q of %s", where, user, h.Content, owner[h.Content])
				}
			}
		}
		var page queryapi.Page
		mcpapitest.CallTool(t, cs, "messages_list", map[string]any{"page_size": 200}, &page)
		check("messages_list", page.Hits...)
		if len(page.Hits) != len(phrases)+1 {
			t.Fatalf("%s lists %d messages", user, len(page.Hits))
		}
		for _, q := range append(phrases, "secret 花生过敏") {
			mcpapitest.CallTool(t, cs, "lexical_search", map[string]any{"query_text": q, "match": "any", "page_size": 200}, &page)
			check("lexical_search", page.Hits...)
			mcpapitest.CallTool(t, cs, "semantic_search", map[string]any{"query_text": q, "top_k": 100}, &page)
			check("semantic_search", page.Hits...)
			var resp agent.Response
			mcpapitest.CallTool(t, cs, "recall", map[string]any{"question": q}, &resp)
			for _, e := range resp.Evidence {
				if owner[e.Content] != user {
					t.Fatalf("recall: %s got %q of %s", user, e.Content, owner[e.Content])
				}
			}
		}
		var nb queryapi.NeighborsResult
		mcpapitest.CallTool(t, cs, "neighbors", map[string]any{"message_id": "m1", "before": 50, "after": 50}, &nb)
		check("neighbors", append(append([]queryapi.Evidence{nb.Anchor}, nb.Before...), nb.After...)...)
		for j := range users {
			if other := fmt.Sprintf("qq:%d", 500+j); other != user {
				if msg := mcpapitest.ToolError(t, cs, "neighbors", map[string]any{"message_id": "only-" + other}); !strings.Contains(msg, "not_found") {
					t.Fatalf("neighbors of %s's message as %s: %s", other, user, msg)
				}
			}
		}
	}
}

func TestMCPHTTPAuth(t *testing.T) {
	const (
		keyA   = "key-for-bot-a-0123456789"
		keyAll = "key-for-operator-0123456789"
	)
	ts := startServer(t, map[string]string{"RECALLD_API_KEYS": keyA + "=qq:," + keyAll})
	ts.as("qq:1").withKey(keyA).Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("a1", "user", "我对花生过敏", 0)}}, 200, nil)
	ts.as("tg:1").withKey(keyAll).Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("b1", "user", "I am allergic to peanuts", 0)}}, 200, nil)
	ts.waitIndexed()

	for _, tt := range []struct {
		name, user, key, want string
	}{
		{"no key", "qq:1", "", "Unauthorized"},
		{"unknown key", "qq:1", "not-a-key-0123456789", "Unauthorized"},
		{"prefix denied", "tg:1", keyA, "Forbidden"},
		{"no user", "", keyA, "Bad Request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mcpConnect(t, ts, tt.user, tt.key)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("connect: %v, want %s", err, tt.want)
			}
		})
	}
	var page queryapi.Page
	mcpapitest.CallTool(t, mustMCPConnect(t, ts, "qq:1", keyA), "messages_list", map[string]any{}, &page)
	if diff := cmp.Diff([]string{"a1"}, ids(page)); diff != "" {
		t.Fatalf("qq:1 (-want +got):\n%s", diff)
	}
	mcpapitest.CallTool(t, mustMCPConnect(t, ts, "tg:1", keyAll), "messages_list", map[string]any{}, &page)
	if diff := cmp.Diff([]string{"b1"}, ids(page)); diff != "" {
		t.Fatalf("tg:1 (-want +got):\n%s", diff)
	}
}

// TestMCPTransportErrors: what the streamable transport refuses is answered
// with the JSON error body (the contract transport checks every one).
func TestMCPTransportErrors(t *testing.T) {
	ts := startServer(t, nil, "-body-limit", "4096")
	u := ts.as("qq:1")
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	both := []string{"Accept", "application/json, text/event-stream"}
	tests := []struct {
		name   string
		method string
		body   any
		hdr    []string
		status int
		code   string
	}{
		{"get stream", "GET", nil, []string{"Accept", "text/event-stream"}, 405, httpapi.CodeMethodNotAllowed},
		{"delete session", "DELETE", nil, nil, 405, httpapi.CodeMethodNotAllowed},
		{"accept json only", "POST", ping, []string{"Accept", "application/json"}, 400, httpapi.CodeBadRequest},
		{"not json", "POST", ping, append([]string{"Content-Type", "text/plain"}, both...), 415, httpapi.CodeUnsupportedMedia},
		{"malformed json-rpc", "POST", `{"jsonrpc":`, both, 400, httpapi.CodeBadRequest},
		{"oversize", "POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 5000) + `"}}`, both, 413, httpapi.CodeTooLarge},
		{"missing user", "POST", ping, append([]string{httpapi.HeaderUser, ""}, both...), 400, httpapi.CodeBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := u.Raw(tt.method, "/mcp", tt.body, tt.hdr...)
			var e httpapi.ErrorBody
			if status != tt.status || json.Unmarshal(body, &e) != nil || e.Error.Code != tt.code || e.Error.Message == "" {
				t.Fatalf("status %d body %s, want %d %s", status, body, tt.status, tt.code)
			}
		})
	}
	// A bare ping works without a session: the transport is stateless.
	status, body := u.Raw("POST", "/mcp", ping, both...)
	if status != 200 || !strings.Contains(string(body), `"result":{}`) {
		t.Fatalf("ping: %d %s", status, body)
	}
}

// TestMCPHostName: without API keys (loopback, X-Recall-User trusted) /mcp
// refuses a request for another host name, as a DNS-rebinding page would
// send; with keys, a reverse proxy's host name is fine.
func TestMCPHostName(t *testing.T) {
	const key = "key-for-bot-a-0123456789"
	post := func(ts *testServer, key string) (int, string) {
		req, err := http.NewRequest("POST", ts.base+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = "memory.example.com"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(httpapi.HeaderUser, "qq:1")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := ts.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := post(startServer(t, nil), ""); status != 403 || !strings.Contains(body, httpapi.CodeForbidden) {
		t.Fatalf("without keys: %d %s", status, body)
	}
	if status, body := post(startServer(t, map[string]string{"RECALLD_API_KEYS": key}), key); status != 200 {
		t.Fatalf("with keys: %d %s", status, body)
	}
}

// TestMCPStdio runs `recalld mcp` in-process on pipes and talks to it with
// the SDK's client.
func TestMCPStdio(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, "m.jsonl", strings.Join([]string{
		`{"id":"a1","user_id":"qq:1","role":"user","sender_name":"小王","content":"我对花生过敏","created_at":"2026-03-01T12:00:00+08:00"}`,
		`{"id":"a2","user_id":"qq:1","role":"user","sender_name":"小王","content":"今天天气不错","created_at":"2026-03-01T12:01:00+08:00"}`,
		`{"id":"b1","user_id":"qq:2","role":"user","content":"我对芒果过敏","created_at":"2026-03-01T12:00:00+08:00"}`,
	}, "\n"))
	if _, err := runCLI(t, "import", "-data", dir, file); err != nil {
		t.Fatal(err)
	}

	clientIn, serverOut := io.Pipe()
	serverIn, clientOut := io.Pipe()
	stderr := &syncBuffer{}
	a := &app{getenv: testEnv(map[string]string{"RECALLD_MCP_USER": "qq:1"}), stdin: serverIn, stdout: serverOut, stderr: stderr}
	done := make(chan error, 1)
	go func() {
		done <- a.run(context.Background(), []string{"mcp", "-data", dir, "-log-level", "warn"})
		serverOut.Close()
	}()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "recalld-test", Version: "1"}, nil).
		Connect(t.Context(), &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	if diff := cmp.Diff(mcpToolNames, keys(toolNames(t, cs))); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	var resp agent.Response
	mcpapitest.CallTool(t, cs, "recall", map[string]any{"question": "我有什么过敏吗？"}, &resp)
	var cited []string
	for _, e := range resp.Evidence {
		cited = append(cited, e.MessageID)
	}
	if !slices.Contains(cited, "a1") || slices.Contains(cited, "b1") {
		t.Fatalf("recall over stdio cited %v", cited)
	}
	if msg := mcpapitest.ToolError(t, cs, "recall", map[string]any{"question": ""}); !strings.Contains(msg, "question") {
		t.Fatalf("error %q", msg)
	}
	// Closing stdin ends the server cleanly.
	cs.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("mcp returned %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("mcp did not stop when stdin closed")
	}
}

// TestMCPStdioBinding: the stdio server's user is checked at start like a
// request's: required, well-formed, and allowed by the API key when keys are
// configured.
func TestMCPStdioBinding(t *testing.T) {
	const key = "key-for-bot-a-0123456789"
	keys := map[string]string{"RECALLD_API_KEYS": key + "=qq:"}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"no user", nil, nil, "needs -user"},
		{"control character", nil, []string{"-user", "qq:\x01"}, "printable"},
		{"keys but no key", keys, []string{"-user", "qq:1"}, "unknown API key"},
		{"wrong key", keys, []string{"-user", "qq:1", "-key", "not-a-key-0123456789"}, "unknown API key"},
		{"prefix denied", keys, []string{"-user", "tg:1", "-key", key}, "may not act for this user"},
		{"arguments", nil, []string{"-user", "qq:1", "extra"}, "no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &app{getenv: testEnv(tt.env), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
			err := a.run(t.Context(), append([]string{"mcp", "-data", t.TempDir()}, tt.args...))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
	// A data dir a running server holds is refused with a pointer to its /mcp.
	ts := startServer(t, nil)
	if _, err := runCLI(t, "mcp", "-data", ts.dataDir, "-user", "qq:1"); !errors.Is(err, storage.ErrLocked) || !strings.Contains(err.Error(), "POST /mcp") {
		t.Fatalf("mcp beside serve: %v", err)
	}
	// The right key for the user starts the server; empty stdin ends it.
	a := &app{getenv: testEnv(keys), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	if err := a.run(t.Context(), []string{"mcp", "-data", t.TempDir(), "-user", "qq:1", "-key", key}); err != nil {
		t.Fatal(err)
	}
}
