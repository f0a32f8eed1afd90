package mcpapi

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// MemoryAdded is the result of memory_add.
type MemoryAdded struct {
	Memory storage.Memory `json:"memory"`
	// Created is false when the id named a memory with the same content (a replayed add).
	Created bool `json:"created"`
}

// MemoryDeleted is the result of memory_delete.
type MemoryDeleted struct {
	Deleted string `json:"deleted"`
}

// memoryTools are the pinned-memory tools (memory_*): the MCP side of /memories.
func (m *Tools) memoryTools() []toolSpec {
	return []toolSpec{
		newTool(m, "memory_add", "Pin a high-value long-term fact about the user (an allergy, a standing instruction), injected into every turn; "+
			"optionally for one group chat only. Give an id to make retries safe. The user may keep at most a hundred.",
			&mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: new(false)}, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.MemoryAddParams) (MemoryAdded, error) {
				mem, created, err := q.MemoryAdd(ctx, in)
				return MemoryAdded{Memory: mem, Created: created}, err
			}),
		newTool(m, "memory_list", "List the user's pinned memories, oldest first: all of them, or those that apply in one group chat.",
			&mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.MemoryListParams) (queryapi.MemoryList, error) {
				return q.MemoryList(ctx, in)
			}),
		newTool(m, "memory_update", "Change a pinned memory's text, group or tags; fields left out stay as they are.",
			&mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(true), OpenWorldHint: new(false)}, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.MemoryUpdateParams) (storage.Memory, error) {
				return q.MemoryUpdate(ctx, in)
			}),
		newTool(m, "memory_delete", "Unpin a memory that no longer holds.",
			&mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)}, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.MemoryRef) (MemoryDeleted, error) {
				if err := q.MemoryDelete(ctx, in); err != nil {
					return MemoryDeleted{}, err
				}
				return MemoryDeleted{Deleted: in.ID}, nil
			}),
	}
}
