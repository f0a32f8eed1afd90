package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/internal/mcpapi"
	"github.com/recalld/recalld/internal/mcpapi/mcpapitest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// TestMCPMemories drives the pinned memories through the MCP tools: the
// same objects as /memories, bound to the connection's user.
func TestMCPMemories(t *testing.T) {
	ts := startServer(t, nil)
	a := mustMCPConnect(t, ts, "qq:1", "")
	b := mustMCPConnect(t, ts, "qq:2", "")

	var added mcpapi.MemoryAdded
	mcpapitest.CallTool(t, a, "memory_add", map[string]any{"id": "allergy", "content": "对花生过敏", "tags": []string{"health"}}, &added)
	if !added.Created || added.Memory.ID != "allergy" || added.Memory.UserID != "qq:1" {
		t.Fatalf("add: %+v", added)
	}
	mcpapitest.CallTool(t, a, "memory_add", map[string]any{"id": "allergy", "content": "对花生过敏", "tags": []string{"health"}}, &added)
	if added.Created {
		t.Fatal("a replayed add created a second memory")
	}
	mcpapitest.CallTool(t, a, "memory_add", map[string]any{"content": "在群里叫他老王", "group_id": "g1"}, &added)
	scoped := added.Memory.ID

	var list queryapi.MemoryList
	mcpapitest.CallTool(t, a, "memory_list", map[string]any{}, &list)
	if got := memoryIDs(list.Memories); !cmp.Equal(got, []string{"allergy", scoped}) || list.Max == 0 {
		t.Fatalf("list: %v max %d", got, list.Max)
	}
	mcpapitest.CallTool(t, a, "memory_list", map[string]any{"group_id": "g2"}, &list)
	if got := memoryIDs(list.Memories); !cmp.Equal(got, []string{"allergy"}) {
		t.Fatalf("list in g2: %v", got)
	}
	// The HTTP route sees the same memory.
	var viaHTTP storage.Memory
	ts.as("qq:1").Do("GET", "/memories/allergy", nil, 200, &viaHTTP)
	if viaHTTP.Content != "对花生过敏" {
		t.Fatalf("GET /memories/allergy: %+v", viaHTTP)
	}

	var updated storage.Memory
	mcpapitest.CallTool(t, a, "memory_update", map[string]any{"id": "allergy", "content": "对花生和芒果过敏"}, &updated)
	if updated.Content != "对花生和芒果过敏" || !cmp.Equal(updated.Tags, []string{"health"}) {
		t.Fatalf("update: %+v", updated)
	}

	// Another user reaches none of it, whatever the id.
	mcpapitest.CallTool(t, b, "memory_list", map[string]any{}, &list)
	if len(list.Memories) != 0 {
		t.Fatalf("qq:2 lists %v", memoryIDs(list.Memories))
	}
	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"memory_update", map[string]any{"id": "allergy", "content": "hijacked"}},
		{"memory_delete", map[string]any{"id": "allergy"}},
	} {
		if msg := mcpapitest.ToolError(t, b, tt.tool, tt.args); !strings.Contains(msg, "not_found") {
			t.Fatalf("%s as qq:2: %s", tt.tool, msg)
		}
	}
	// qq:2 may use the same id for its own memory.
	mcpapitest.CallTool(t, b, "memory_add", map[string]any{"id": "allergy", "content": "对虾过敏"}, &added)
	if !added.Created || added.Memory.UserID != "qq:2" {
		t.Fatalf("qq:2 add: %+v", added)
	}

	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"same id other content", "memory_add", map[string]any{"id": "allergy", "content": "不过敏"}, "conflict"},
		{"blank content", "memory_add", map[string]any{"content": "   "}, "invalid_argument"},
		{"missing content", "memory_add", map[string]any{"id": "x"}, "content"},
		{"bad id", "memory_add", map[string]any{"id": "a b", "content": "x"}, "id"},
		{"a user argument", "memory_add", map[string]any{"content": "x", "user_id": "qq:2"}, "user_id"},
		{"nothing to update", "memory_update", map[string]any{"id": "allergy"}, "invalid_argument: nothing to update"},
		{"missing", "memory_delete", map[string]any{"id": "nope"}, "not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if msg := mcpapitest.ToolError(t, a, tt.tool, tt.args); !strings.Contains(msg, tt.want) {
				t.Fatalf("error %q, want it to mention %q", msg, tt.want)
			}
		})
	}

	var del mcpapi.MemoryDeleted
	mcpapitest.CallTool(t, a, "memory_delete", map[string]any{"id": "allergy"}, &del)
	if del.Deleted != "allergy" {
		t.Fatalf("delete: %+v", del)
	}
	ts.as("qq:1").Do("GET", "/memories/allergy", nil, 404, nil)
	ts.as("qq:2").Do("GET", "/memories/allergy", nil, 200, &viaHTTP)
}

func memoryIDs(ms []storage.Memory) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}
