package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// memoryAdded is the result of memory_add.
type memoryAdded struct {
	Memory storage.Memory `json:"memory"`
	// Created is false when the id named a memory with the same content (a replayed add).
	Created bool `json:"created"`
}

// memoryDeleted is the result of memory_delete.
type memoryDeleted struct {
	Deleted string `json:"deleted"`
}

// memoryTools are the pinned-memory tools (memory_*): the MCP side of /memories.
func (m *mcpTools) memoryTools() []mcpToolSpec {
	return []mcpToolSpec{
		mcpTool(m, "memory_add", "Pin a high-value long-term fact about the user (an allergy, a standing instruction), injected into every turn; "+
			"optionally for one group chat only. Give an id to make retries safe. The user may keep at most a hundred.",
			&mcp.ToolAnnotations{IdempotentHint: true, OpenWorldHint: new(false)}, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.MemoryAddParams) (memoryAdded, error) {
				mem, created, err := q.MemoryAdd(ctx, in)
				return memoryAdded{Memory: mem, Created: created}, err
			}),
		mcpTool(m, "memory_list", "List the user's pinned memories, oldest first: all of them, or those that apply in one group chat.",
			&mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.MemoryListParams) (queryapi.MemoryList, error) {
				return q.MemoryList(ctx, in)
			}),
		mcpTool(m, "memory_update", "Change a pinned memory's text, group or tags; fields left out stay as they are.",
			&mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: new(true), OpenWorldHint: new(false)}, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.MemoryUpdateParams) (storage.Memory, error) {
				return q.MemoryUpdate(ctx, in)
			}),
		mcpTool(m, "memory_delete", "Unpin a memory that no longer holds.",
			&mcp.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(false)}, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.MemoryRef) (memoryDeleted, error) {
				if err := q.MemoryDelete(ctx, in); err != nil {
					return memoryDeleted{}, err
				}
				return memoryDeleted{Deleted: in.ID}, nil
			}),
	}
}
