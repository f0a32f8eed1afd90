package mcpapi

import (
	"context"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
)

// eventTools is search_events: the MCP side of POST /events/search, over
// the connection's user (targets only narrow it).
func (m *Tools) eventTools() []toolSpec {
	out, err := jsonschema.ForType(reflect.TypeFor[httpapi.SearchEventsResponse](), &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[agent.Response](): recallOutputSchema()},
	})
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of search_events: %v", err))
	}
	return []toolSpec{
		newTool(m, "search_events", "Search the events remembered from the bot's observations (absolute statements: names with ids, dates), "+
			"by words and meaning with recent events first among equals; time_from/time_to are hard limits. "+
			"deep also runs the recall agent over the raw messages and returns its evidence-backed answer.",
			&mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}, out,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.SearchEventsParams) (httpapi.SearchEventsResponse, error) {
				return httpapi.SearchEvents(ctx, m.Agent, q, in, m.Events())
			}),
	}
}
