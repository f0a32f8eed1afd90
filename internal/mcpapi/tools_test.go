package mcpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/breaker"
	"github.com/recalld/recalld/internal/breaker/breakertest"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/internal/mcpapi/mcpapitest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/skills"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// TestMCPBoundServers: /mcp reuses the server of a user and never hands one
// user's server to another; the cache stays bounded.
func TestMCPBoundServers(t *testing.T) {
	store, ag := openStore(t)
	m := New(Config{Tools: queryapi.New(store), Agent: ag, Events: queryapi.DefaultEventSearchConfig, Log: slog.New(slog.DiscardHandler), Version: "test"})
	a1, _ := m.serverFor("qq:1")
	a2, _ := m.serverFor("qq:1")
	b, _ := m.serverFor("qq:2")
	if a1 == nil || a1 != a2 || b == a1 {
		t.Fatalf("servers: %p %p %p", a1, a2, b)
	}
	if _, err := m.serverFor(" "); err == nil {
		t.Fatal("bound a blank user")
	}
	for i := range maxBoundServers + 1 {
		if _, err := m.serverFor(fmt.Sprintf("u%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(m.bound); n > maxBoundServers {
		t.Fatalf("%d servers kept", n)
	}
}

// TestMCPStoreGate: every tool call goes through the store's circuit
// breaker, which sees store failures and refuses calls while open; the
// client sees store_unavailable, and internal errors only as "internal".
// The client talks to the server in memory.
func TestMCPStoreGate(t *testing.T) {
	store, ag := openStore(t)
	gate := &breakertest.Gate{}
	m := New(Config{Tools: queryapi.New(store), Agent: ag, Events: queryapi.DefaultEventSearchConfig, Gate: gate, Log: slog.New(slog.DiscardHandler), Version: "test"})
	cs := connect(t, m, "qq:1")

	var page queryapi.Page
	mcpapitest.CallTool(t, cs, "messages_list", map[string]any{}, &page)
	if msg := mcpapitest.ToolError(t, cs, "neighbors", map[string]any{"message_id": "nope"}); !strings.Contains(msg, "not_found") {
		t.Fatalf("neighbors: %s", msg)
	}
	gate.Refuse(true)
	if msg := mcpapitest.ToolError(t, cs, "messages_list", map[string]any{}); !strings.HasPrefix(msg, httpapi.CodeStoreUnavailable+":") {
		t.Fatalf("refused call: %s", msg)
	}
	gate.Refuse(false)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if msg := mcpapitest.ToolError(t, cs, "messages_list", map[string]any{}); msg != "internal: internal error" {
		t.Fatalf("store failure shown as %q", msg)
	}
	if _, outcomes := gate.Counts(); len(outcomes) != 3 || outcomes[0] != nil || !errors.Is(outcomes[1], storage.ErrNotFound) || !breaker.StoreFailure(outcomes[2]) {
		t.Fatalf("outcomes %v", outcomes)
	}
}

// BenchmarkMCPServer is the cost /mcp pays per request to build the server
// bound to the caller (schemas come from the shared cache).
func BenchmarkMCPServer(b *testing.B) {
	store, ag := openStore(b)
	m := New(Config{Tools: queryapi.New(store), Agent: ag, Events: queryapi.DefaultEventSearchConfig, Log: slog.New(slog.DiscardHandler), Version: "test"})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Server("qq:1"); err != nil {
			b.Fatal(err)
		}
	}
}

// openStore opens a store in a temporary directory, closed at the end of
// the test, and the recall agent over it.
func openStore(tb testing.TB) (*storage.Store, *agent.Agent) {
	tb.Helper()
	store := storagetest.Open(tb, storage.Config{NoIndexer: true})
	skill, err := agent.LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		tb.Fatal(err)
	}
	return store, agent.New(queryapi.New(store), skill)
}

// connect returns a client session of m's server bound to user, in memory;
// both ends close when the test ends.
func connect(t *testing.T, m *Tools, user string) *mcp.ClientSession {
	t.Helper()
	srv, err := m.Server(user)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "recalld-test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPBadArguments: a tool's arguments get the checks a route's body
// gets: text that is not valid Unicode (which JSON decoding would store as
// U+FFFD) is an invalid_argument tool error, explicit zeros under a minimum
// are tool errors (the SDK's schema check), and nothing is stored.
func TestMCPBadArguments(t *testing.T) {
	store, ag := openStore(t)
	m := New(Config{Tools: queryapi.New(store), Agent: ag, Events: queryapi.DefaultEventSearchConfig, Log: slog.New(slog.DiscardHandler), Version: "test"})
	cs := connect(t, m, "qq:1")
	for _, tc := range []struct {
		tool string
		args json.RawMessage
	}{
		{"memory_add", json.RawMessage(`{"content":"半个字符 \ud800 在这里"}`)},
		{"memory_add", json.RawMessage(`{"content":"a \udc00 b"}`)},
		{"lexical_search", json.RawMessage(`{"query_text":"noodles","page_size":0}`)},
		{"semantic_search", json.RawMessage(`{"query_text":"noodles","top_k":0}`)},
		{"messages_list", json.RawMessage(`{"page_size":0}`)},
	} {
		msg := mcpapitest.ToolError(t, cs, tc.tool, tc.args)
		if tc.tool == "memory_add" && !strings.HasPrefix(msg, httpapi.CodeInvalid+":") {
			t.Errorf("%s %s: %q, want %s", tc.tool, tc.args, msg, httpapi.CodeInvalid)
		}
	}
	var list struct {
		Memories []json.RawMessage `json:"memories"`
	}
	mcpapitest.CallTool(t, cs, "memory_list", map[string]any{}, &list)
	if len(list.Memories) != 0 {
		t.Errorf("%d memories stored from refused calls", len(list.Memories))
	}
}
