package main

import (
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/mcpapi/mcpapitest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// TestMCPProfiles reads the profiles the historian keeps through the MCP
// tools, bound to the connection's user.
func TestMCPProfiles(t *testing.T) {
	ts := startServer(t, fastQueue)
	u := ts.as("bot:1")
	endTurnHTTP(u, profileTurn("z1", "qq:1", "张三", "2026-03-04T06:30:00Z", "我住在北京，是一名程序员", "我喜欢吃火锅"))
	want := u.waitProfile("user", "qq:1", 1)
	// Another bot's memory holds a profile of the same person.
	other := ts.as("bot:2")
	endTurnHTTP(other, profileTurn("o1", "qq:1", "张三", "2026-03-04T06:30:00Z", "我住在广州"))
	other.waitProfile("user", "qq:1", 1)

	cs := mustMCPConnect(t, ts, "bot:1", "")
	var p storage.Profile
	mcpapitest.CallTool(t, cs, "get_profile", map[string]any{"entity_type": "user", "entity_id": "qq:1"}, &p)
	if p.Summary != want.Summary || p.UserID != "bot:1" || p.Revision != want.Revision {
		t.Fatalf("get_profile: %+v, want %+v", p, want)
	}
	var page queryapi.ProfilePage
	mcpapitest.CallTool(t, cs, "search_profiles", map[string]any{"query": "北京 程序员"}, &page)
	if len(page.Profiles) == 0 || page.Profiles[0].EntityID != "qq:1" {
		t.Fatalf("search_profiles: %+v", page)
	}
	for _, h := range page.Profiles {
		if h.UserID != "bot:1" || strings.Contains(h.Summary, "广州") {
			t.Fatalf("search_profiles returned another memory's profile: %+v", h)
		}
	}
	// bot:3 has no profiles at all.
	empty := mustMCPConnect(t, ts, "bot:3", "")
	if msg := mcpapitest.ToolError(t, empty, "get_profile", map[string]any{"entity_type": "user", "entity_id": "qq:1"}); !strings.Contains(msg, "not_found") {
		t.Fatalf("get_profile as bot:3: %s", msg)
	}
	mcpapitest.CallTool(t, empty, "search_profiles", map[string]any{"query": "北京 程序员"}, &page)
	if len(page.Profiles) != 0 {
		t.Fatalf("bot:3 found %+v", page.Profiles)
	}

	for _, tt := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"unknown entity type", "get_profile", map[string]any{"entity_type": "robot", "entity_id": "x"}, "entity_type"},
		{"missing id", "get_profile", map[string]any{"entity_type": "user"}, "entity_id"},
		{"blank query", "search_profiles", map[string]any{"query": " "}, "invalid_argument: query is required"},
		{"top_k over cap", "search_profiles", map[string]any{"query": "x", "top_k": 1000}, "top_k"},
		{"a user argument", "search_profiles", map[string]any{"query": "x", "user_id": "bot:2"}, "user_id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if msg := mcpapitest.ToolError(t, cs, tt.tool, tt.args); !strings.Contains(msg, tt.want) {
				t.Fatalf("error %q, want it to mention %q", msg, tt.want)
			}
		})
	}
}
