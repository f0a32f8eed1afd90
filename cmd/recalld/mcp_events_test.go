package main

import (
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/internal/mcpapi/mcpapitest"
)

// TestMCPSearchEvents searches the historian's events through the MCP
// tool, bound to the connection's user, with the agent-backed deep search.
func TestMCPSearchEvents(t *testing.T) {
	ts := startServer(t, fastQueue)
	u := ts.as("qq:1")
	now := time.Now().UTC().Truncate(time.Second)
	day := 24 * time.Hour
	u.endTurnAt("p1", "", "10001", "小王", now.Add(-10*day), "我明天要去杭州出差")
	u.endTurnAt("g2a", "g2", "10003", "老李", now.Add(-1*day), "老李在成都吃了火锅")
	ts.as("qq:2").endTurnAt("x1", "g1", "20001", "Bob", now.Add(-1*day), "Bob 明天要去杭州出差")
	u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("m1", "user", "下周我要去杭州出差", 0)}}, 200, nil)
	ts.waitIndexed()

	cs := mustMCPConnect(t, ts, "qq:1", "")
	var r httpapi.SearchEventsResponse
	mcpapitest.CallTool(t, cs, "search_events", map[string]any{"query": "谁要去杭州出差"}, &r)
	if len(r.Events) == 0 || !strings.Contains(r.Events[0].Content, "杭州出差") || r.Deep != nil {
		t.Fatalf("search_events: %q", eventContents(r))
	}
	for _, e := range r.Events {
		if strings.Contains(e.Content, "Bob") {
			t.Fatalf("qq:1 got qq:2's event %q", e.Content)
		}
	}
	mcpapitest.CallTool(t, cs, "search_events", map[string]any{"query": "火锅 杭州出差", "target_group_id": "g2", "top_k": 20}, &r)
	for _, e := range r.Events {
		if e.GroupID != "g2" {
			t.Fatalf("target_group_id g2 returned %+v", e)
		}
	}
	mcpapitest.CallTool(t, cs, "search_events", map[string]any{"query": "去杭州出差", "deep": true}, &r)
	if r.Deep == nil || len(r.Deep.Evidence) == 0 || r.Deep.Evidence[0].MessageID != "m1" {
		t.Fatalf("deep: %+v", r.Deep)
	}

	bob := mustMCPConnect(t, ts, "qq:2", "")
	mcpapitest.CallTool(t, bob, "search_events", map[string]any{"query": "杭州出差 火锅", "top_k": 20}, &r)
	if len(r.Events) != 1 || !strings.Contains(r.Events[0].Content, "Bob") {
		t.Fatalf("qq:2 sees %q", eventContents(r))
	}

	for _, tt := range []struct {
		name, want string
		args       map[string]any
	}{
		{"missing query", "query", map[string]any{}},
		{"bad time", "time_from", map[string]any{"query": "x", "time_from": "yesterday"}},
		{"top_k over cap", "top_k", map[string]any{"query": "x", "top_k": 1000}},
		{"a user argument", "user_id", map[string]any{"query": "x", "user_id": "qq:2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if msg := mcpapitest.ToolError(t, cs, "search_events", tt.args); !strings.Contains(msg, tt.want) {
				t.Fatalf("error %q, want it to mention %q", msg, tt.want)
			}
		})
	}
}
