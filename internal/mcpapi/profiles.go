package mcpapi

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// profileTools are get_profile and search_profiles: the MCP side of /profiles.
func (m *Tools) profileTools() []toolSpec {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	return []toolSpec{
		newTool(m, "get_profile", "Get the profile of a person (entity_type user, entity_id their sender id) or a group chat (group, its id): "+
			"name, tags, traits by category and a summary of long-lived facts, newest facts winning.",
			readOnly, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.ProfileParams) (storage.Profile, error) {
				return q.GetProfile(ctx, in)
			}),
		newTool(m, "search_profiles", "Find the profiles of people or group chats matching a description (words or meaning), best first.",
			readOnly, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.ProfileSearchParams) (queryapi.ProfilePage, error) {
				return q.SearchProfiles(ctx, in)
			}),
	}
}
