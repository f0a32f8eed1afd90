// Package mcpapi serves the memory tools over MCP: the tool specs, the
// servers bound to one user, and the stdio and streamable HTTP transports.
// `recalld mcp` serves the tools on stdio for one user fixed at start;
// POST /mcp serves them over streamable HTTP to whoever the request
// authenticates as. Either way the server is built for one user and every
// tool closes over it: no tool argument names a user.
package mcpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/breaker"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
)

// instructions tells a connecting client what the server is for.
const instructions = `recalld is the long-term memory of a chat bot for one user (the user of this connection; tools never take a user id).
Use recall for questions about the user's past (preferences, facts, plans, what was said when): it searches and answers with evidence that quotes the original messages.
The message tools (messages_list, lexical_search, semantic_search, neighbors) return raw messages for a closer look.
search_events searches the events the historian wrote from the bot's observations: absolute statements (names with ids, dates) with their times.
Profiles (get_profile, search_profiles) are what the memory knows about a person or a group chat the user's bot met: name, tags, traits and a summary.
Pinned memories (memory_add, memory_list, memory_update, memory_delete) are a few high-value facts about the user, always injected into the bot's context: pin only what must never be forgotten.`

// Config is what the MCP tools run on.
type Config struct {
	Tools *queryapi.Service
	Agent *agent.Agent
	// Events is the [cognitive.query] configuration in force.
	Events func() queryapi.EventSearchConfig
	// Gate, if set, is the store's circuit breaker: every tool call asks it
	// first and reports its outcome, as the HTTP routes do.
	Gate ingest.Gate
	Log  *slog.Logger
	// Timeout bounds one tool call (0: none).
	Timeout time.Duration
	Version string
}

// Tools builds MCP servers bound to one user over the query tools and
// the recall agent; one serves every request.
type Tools struct {
	Config
	// cache keeps reflected and resolved schemas across the servers built.
	cache *mcp.SchemaCache
	specs []toolSpec

	// bound keeps the servers of recent /mcp users: building one costs
	// about a millisecond (the SDK re-encodes every tool's schema), more
	// than a lexical search. It is emptied when full.
	mu    sync.Mutex
	bound map[string]*mcp.Server
}

// maxBoundServers bounds Tools.bound.
const maxBoundServers = 1024

// toolSpec is one tool: its description and how to add it to a server
// bound to a user.
type toolSpec struct {
	tool *mcp.Tool
	add  func(s *mcp.Server, t *mcp.Tool, q *queryapi.Tools)
}

// New builds the tool specs once; servers are built per user from them.
func New(c Config) *Tools {
	c.Log = c.Log.With("component", "mcp")
	m := &Tools{Config: c, cache: mcp.NewSchemaCache(), bound: map[string]*mcp.Server{}}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}
	m.specs = []toolSpec{
		newTool(m, "recall", "Answer a question about the user's past with an evidence-backed memory view: "+
			"preferences, profile facts and constraints, each citing the original messages, plus the evidence verbatim, "+
			"conflicts it settled (a changed preference: the newer wins) and the limits of what it searched. "+
			"An empty view with limits.stop_reason no_evidence means nothing supports an answer.",
			readOnly, recallOutputSchema(),
			func(ctx context.Context, q *queryapi.Tools, in agent.Request) (*agent.Response, error) {
				return m.Agent.RecallBound(ctx, q, in)
			}),
		newTool(m, "messages_list", "List the user's messages in time order, optionally within a time window, for one role or conversation. Page with next_cursor.",
			readOnly, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.ListParams) (queryapi.Page, error) {
				return q.MessagesList(ctx, in)
			}),
		newTool(m, "lexical_search", "BM25 search over words and \"quoted phrases\" in the user's messages: exact names, places, dishes, projects. Page with next_cursor.",
			readOnly, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.LexicalParams) (queryapi.Page, error) {
				return q.LexicalSearch(ctx, in)
			}),
		newTool(m, "semantic_search", "Find the user's messages closest in meaning to query_text, for paraphrased questions.",
			readOnly, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.SemanticParams) (queryapi.Page, error) {
				return q.SemanticSearch(ctx, in)
			}),
		newTool(m, "neighbors", "Fetch the messages around one of the user's messages in its conversation, to read a hit in context.",
			readOnly, nil,
			func(ctx context.Context, q *queryapi.Tools, in queryapi.NeighborsParams) (queryapi.NeighborsResult, error) {
				return q.Neighbors(ctx, in)
			}),
	}
	m.specs = append(m.specs, m.eventTools()...)
	m.specs = append(m.specs, m.profileTools()...)
	m.specs = append(m.specs, m.memoryTools()...)
	return m
}

// newTool describes a tool whose arguments are In and whose result is Out.
// The input schema comes from In's json and jsonschema tags (queryapi.Schema,
// as for the agent's model), so the SDK refuses unknown or ill-typed
// arguments before fn runs; the output schema is Out's unless out is given.
// fn gets the query tools bound to the server's user; its errors become
// tool errors (toolError).
func newTool[In, Out any](m *Tools, name, desc string, ann *mcp.ToolAnnotations, out *jsonschema.Schema,
	fn func(ctx context.Context, q *queryapi.Tools, in In) (Out, error)) toolSpec {
	var zero In
	tool := &mcp.Tool{Name: name, Description: desc, Annotations: ann, InputSchema: mustSchema(queryapi.Schema(&zero))}
	if out != nil {
		tool.OutputSchema = out
	}
	return toolSpec{tool: tool, add: func(s *mcp.Server, t *mcp.Tool, q *queryapi.Tools) {
		mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			// The arguments get the checks a route's body gets
			// (decodeJSON): text stays verbatim, required fields and
			// minimums hold for explicit zeros.
			if args := req.Params.Arguments; len(args) > 0 {
				err := httpapi.CheckUnicode(args)
				if err == nil {
					err = httpapi.CheckPresence(args, reflect.ValueOf(&in), "")
				}
				if err != nil {
					var none Out
					return nil, none, m.toolError(name, err)
				}
			}
			if m.Timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, m.Timeout)
				defer cancel()
			}
			var res Out
			err := breaker.Do(m.Gate, func() (err error) {
				res, err = fn(ctx, q, in)
				return err
			})
			switch {
			case errors.Is(err, breaker.ErrRefused):
				return nil, res, errStoreRefused
			case err != nil:
				var none Out
				return nil, none, m.toolError(name, err)
			}
			return nil, res, nil
		})
	}}
}

// errStoreRefused is a tool call the store's circuit breaker did not let through.
var errStoreRefused = errors.New(httpapi.CodeStoreUnavailable + ": the store is failing; calls are refused until a probe succeeds, retry shortly")

// mustSchema converts a schema map to the SDK's type once, so that the
// SDK's cache finds it by pointer on every server built afterwards.
func mustSchema(m map[string]any) *jsonschema.Schema {
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema: %v", err)) // fixed types: a programming error
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		panic(fmt.Sprintf("mcp: schema: %v", err))
	}
	return &s
}

// recallOutputSchema is the schema of agent.Response. The SDK cannot infer
// it: EvidenceRef nests itself (context), described here one level deep,
// and TimeRange carries the input tags of queryapi.Schema's library.
func recallOutputSchema() *jsonschema.Schema {
	str := &jsonschema.Schema{Type: "string"}
	window := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"since": str, "until": str}}
	nested := &jsonschema.Schema{Types: []string{"null", "array"}, Items: &jsonschema.Schema{Type: "object"}}
	ref, err := jsonschema.ForType(reflect.TypeFor[agent.EvidenceRef](), &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[[]agent.EvidenceRef](): nested},
	})
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of agent.EvidenceRef: %v", err))
	}
	s, err := jsonschema.ForType(reflect.TypeFor[agent.Response](), &jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[agent.EvidenceRef](): ref, reflect.TypeFor[agent.TimeRange](): window},
	})
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of agent.Response: %v", err))
	}
	return s
}

// Server returns an MCP server whose tools act for user only.
func (m *Tools) Server(user string) (*mcp.Server, error) {
	q, err := m.Tools.Bind(user)
	if err != nil {
		return nil, err
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "recalld", Title: "recalld memory", Version: m.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		// The tool list never changes, and the server sends no log messages.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		SchemaCache:  m.cache,
	})
	for _, spec := range m.specs {
		spec.add(s, spec.tool, q)
	}
	return s, nil
}

// serverFor is Server(user), reused across requests of the same user.
func (m *Tools) serverFor(user string) (*mcp.Server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.bound[user]; ok {
		return s, nil
	}
	s, err := m.Server(user)
	if err != nil {
		return nil, err
	}
	if len(m.bound) >= maxBoundServers {
		clear(m.bound)
	}
	m.bound[user] = s
	return s, nil
}

// toolError is what the client sees of a failed tool call: the code and
// message of the HTTP error mapping (errors.go), internal errors logged
// and hidden.
func (m *Tools) toolError(tool string, err error) error {
	ae, internal := httpapi.ToError(err)
	if internal {
		m.Log.Error("tool failed", "tool", tool, "err", err)
	}
	return fmt.Errorf("%s: %s", ae.Code, ae.Message)
}

// HTTPHandler is the streamable HTTP transport for user, stateless: each
// request is answered by a server bound to user, so no MCP session
// outlives, or changes, the credentials of the request that carries it.
// Responses are JSON, not SSE. bodyLimit bounds a request's body; with
// checkHost a request for another host name than localhost is refused.
// The HTTP API mounts it at POST /mcp after authenticating the request.
func (m *Tools) HTTPHandler(user string, bodyLimit int64, checkHost bool) (http.Handler, error) {
	srv, err := m.serverFor(user)
	if err != nil {
		return nil, err
	}
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		Logger:                     m.Log,
		MaxRequestBodyBytes:        bodyLimit,
		DisableLocalhostProtection: !checkHost,
	}), nil
}

// ServeStdio serves the tools to one MCP client on in and out, for user,
// until the client closes in or ctx ends (both a nil error).
func (m *Tools) ServeStdio(ctx context.Context, user string, in io.Reader, out io.Writer) error {
	srv, err := m.Server(user)
	if err != nil {
		return err
	}
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil // stopped by a signal, or the client closed stdin
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
