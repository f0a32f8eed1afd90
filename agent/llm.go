package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/invopop/jsonschema"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/recalld/recalld/queryapi"
)

// WithLLM lets a language model drive the loop; the offline brain stays the
// fallback for any model failure. modelName is reported as "llm:<modelName>".
func WithLLM(model llms.Model, modelName string) Option {
	return func(a *Agent) { a.llm = newLLMBrain(model, modelName) }
}

// NewOpenAIModel returns a chat model for any OpenAI-compatible endpoint
// (OpenAI, vLLM with a tool parser, llama-server --jinja, Ollama's /v1).
// langchaingo refuses an empty token, so a placeholder is sent when none is
// given; local servers ignore it.
func NewOpenAIModel(baseURL, token, model string, hc *http.Client) (llms.Model, error) {
	if model == "" {
		return nil, errors.New("agent: llm model is required")
	}
	if token == "" {
		token = "recalld-no-key"
	}
	opts := []openai.Option{openai.WithBaseURL(baseURL), openai.WithToken(token), openai.WithModel(model), openai.WithOrganization("")}
	if hc != nil {
		opts = append(opts, openai.WithHTTPClient(hc))
	}
	m, err := openai.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("agent: llm %s: %w", model, err)
	}
	return m, nil
}

// llmBrain runs the tool loop with native tool calls. The tools it offers
// have no user parameter: the run's tools are bound already.
type llmBrain struct {
	model     llms.Model
	modelName string
	tools     []llms.Tool
}

func newLLMBrain(model llms.Model, name string) *llmBrain {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	schema := func(v any) map[string]any {
		b, err := json.Marshal(r.Reflect(v))
		if err != nil {
			panic(fmt.Sprintf("agent: tool schema: %v", err)) // static types: cannot fail
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			panic(fmt.Sprintf("agent: tool schema: %v", err))
		}
		delete(m, "$schema")
		delete(m, "$id")
		return m
	}
	tool := func(name, desc string, params any) llms.Tool {
		return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: name, Description: desc, Parameters: schema(params)}}
	}
	return &llmBrain{model: model, modelName: name, tools: []llms.Tool{
		tool("messages_list", "List the user's messages in time order, optionally within a time window, role or conversation.", &queryapi.ListParams{}),
		tool("lexical_search", "BM25 search over words and \"quoted phrases\" in the user's messages. Use for exact phrases, names, places, projects.", &queryapi.LexicalParams{}),
		tool("semantic_search", "Find the user's messages closest in meaning to query_text. Use for paraphrased questions.", &queryapi.SemanticParams{}),
		tool("neighbors", "Fetch the messages around one message in its conversation, to check its context.", &queryapi.NeighborsParams{}),
	}}
}

func (b *llmBrain) name() string { return "llm:" + b.modelName }

// errNoAnswer is a model that never produced a usable final answer.
var errNoAnswer = errors.New("agent: the model gave no usable answer")

func (b *llmBrain) recall(ctx context.Context, r *run) error {
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, b.systemPrompt(r)),
		llms.TextParts(llms.ChatMessageTypeHuman, r.question),
	}
	retried := false
	for r.rounds < r.maxRounds {
		r.rounds++
		resp, err := b.model.GenerateContent(ctx, msgs, llms.WithTools(b.tools), llms.WithTemperature(0))
		if err != nil {
			return fmt.Errorf("llm round %d: %w", r.rounds, err)
		}
		if len(resp.Choices) == 0 {
			return fmt.Errorf("llm round %d: %w", r.rounds, errNoAnswer)
		}
		ch := resp.Choices[0]
		if len(ch.ToolCalls) == 0 {
			d, err := parseAnswer(ch.Content)
			if err == nil {
				r.draft = d
				r.step("decide", "", nil, 0, "model answered")
				return nil
			}
			if retried {
				return fmt.Errorf("llm final answer: %w: %v", errNoAnswer, err)
			}
			retried = true
			msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeAI, ch.Content),
				llms.TextParts(llms.ChatMessageTypeHuman, "Answer with only the JSON object described under \"Answer format\", nothing else."))
			continue
		}
		call := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		if ch.Content != "" {
			call.Parts = append(call.Parts, llms.TextContent{Text: ch.Content})
		}
		for _, tc := range ch.ToolCalls {
			call.Parts = append(call.Parts, tc)
		}
		msgs = append(msgs, call)
		for _, tc := range ch.ToolCalls {
			if tc.FunctionCall == nil {
				continue
			}
			out := b.exec(ctx, r, tc.FunctionCall.Name, tc.FunctionCall.Arguments)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("llm tools: %w", ctx.Err())
			}
			msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: out},
			}})
		}
	}
	return fmt.Errorf("llm: %w within %d rounds", errNoAnswer, r.maxRounds)
}

func (b *llmBrain) systemPrompt(r *run) string {
	var sb strings.Builder
	sb.WriteString(r.skill.Body)
	sb.WriteString("\n\n## This question\n")
	fmt.Fprintf(&sb, "- Now: %s\n", r.now.Format(time.RFC3339))
	if !r.window.since.IsZero() || !r.window.until.IsZero() {
		fmt.Fprintf(&sb, "- Search only between %s and %s (the caller's window).\n", fmtDay(r.window.since), fmtDay(r.window.until))
	}
	if r.rolePref != "" {
		fmt.Fprintf(&sb, "- Role preference: %s.\n", r.rolePref)
	}
	fmt.Fprintf(&sb, "- At most %d rounds and %d tool calls.\n", r.maxRounds, r.skill.Params.Limits.MaxToolCalls)
	return sb.String()
}

// exec runs one tool call and returns what the model reads: hits as
// compact JSON, or an error text it can correct.
func (b *llmBrain) exec(ctx context.Context, r *run, name, raw string) string {
	args, err := toolArgs(raw)
	if err != nil {
		return "error: " + err.Error()
	}
	decode := func(dst any) error {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(dst); err != nil {
			return fmt.Errorf("arguments of %s: %v", name, err)
		}
		return nil
	}
	var (
		hits []queryapi.Evidence
		next string
	)
	switch name {
	case "messages_list":
		var p queryapi.ListParams
		if err = decode(&p); err == nil {
			var page queryapi.Page
			page, err = r.list(ctx, p)
			hits, next = page.Hits, page.NextCursor
		}
	case "lexical_search":
		var p queryapi.LexicalParams
		if err = decode(&p); err == nil {
			var page queryapi.Page
			page, err = r.lexical(ctx, p)
			hits, next = page.Hits, page.NextCursor
		}
	case "semantic_search":
		var p queryapi.SemanticParams
		if err = decode(&p); err == nil {
			var page queryapi.Page
			page, err = r.semantic(ctx, p)
			hits = page.Hits
		}
	case "neighbors":
		var p queryapi.NeighborsParams
		if err = decode(&p); err == nil {
			var res queryapi.NeighborsResult
			if res, err = r.neighbors(ctx, p); err == nil {
				hits = append(append(append([]queryapi.Evidence(nil), res.Before...), res.Anchor), res.After...)
			}
		}
	default:
		err = fmt.Errorf("unknown tool %q", name)
	}
	if err != nil {
		r.note("a tool call of the model failed: %s", truncate(err.Error(), 100))
		return "error: " + err.Error()
	}
	r.remember(hits)
	type hit struct {
		ID      string `json:"message_id"`
		Role    string `json:"role"`
		At      string `json:"created_at"`
		Sender  string `json:"sender_name,omitempty"`
		Content string `json:"content"`
	}
	out := struct {
		Hits       []hit  `json:"hits"`
		NextCursor string `json:"next_cursor,omitempty"`
	}{Hits: []hit{}, NextCursor: next}
	for _, h := range hits {
		out.Hits = append(out.Hits, hit{h.MessageID, h.Role, h.CreatedAt.Format(time.RFC3339), h.SenderName, truncate(h.Content, 300)})
	}
	b2, _ := json.Marshal(out)
	return string(b2)
}

// toolArgs accepts a JSON object, or a JSON string holding one (some
// servers double-encode), and "" as {}.
func toolArgs(raw string) ([]byte, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return []byte("{}"), nil
	}
	if strings.HasPrefix(raw, `"`) {
		var inner string
		if err := json.Unmarshal([]byte(raw), &inner); err != nil {
			return nil, fmt.Errorf("arguments are not JSON: %v", err)
		}
		raw = strings.TrimSpace(inner)
	}
	if !json.Valid([]byte(raw)) || !strings.HasPrefix(raw, "{") {
		return nil, errors.New("arguments must be a JSON object")
	}
	return []byte(raw), nil
}

// llmAnswer is the JSON object of SKILL.md's "Answer format".
type llmAnswer struct {
	MemoryView struct {
		Preferences []llmItem `json:"preferences"`
		Profile     []llmItem `json:"profile"`
		Constraints []llmItem `json:"constraints"`
	} `json:"memory_view"`
	Answer     string     `json:"answer"`
	Conflicts  []Conflict `json:"conflicts"`
	StopReason string     `json:"stop_reason"`
}

type llmItem struct {
	Statement   string   `json:"statement"`
	EvidenceIDs []string `json:"evidence_ids"`
	Status      string   `json:"status"`
}

// parseAnswer reads the final answer, recovering the JSON object from a
// ```json fence or surrounding prose.
func parseAnswer(content string) (draft, error) {
	s := strings.TrimSpace(content)
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		rest = strings.TrimPrefix(rest, "json")
		if j := strings.Index(rest, "```"); j >= 0 {
			s = rest[:j]
		}
	}
	i, j := strings.Index(s, "{"), strings.LastIndex(s, "}")
	if i < 0 || j < i {
		return draft{}, errors.New("no JSON object in the answer")
	}
	var a llmAnswer
	if err := json.Unmarshal([]byte(s[i:j+1]), &a); err != nil {
		return draft{}, fmt.Errorf("answer JSON: %v", err)
	}
	items := func(in []llmItem) []Item {
		var out []Item
		for _, it := range in {
			out = append(out, Item{Statement: it.Statement, EvidenceIDs: it.EvidenceIDs, Status: it.Status})
		}
		return out
	}
	d := draft{answer: a.Answer, conflicts: a.Conflicts, stopReason: a.StopReason}
	d.view.Preferences = items(a.MemoryView.Preferences)
	d.view.Profile = items(a.MemoryView.Profile)
	d.view.Constraints = items(a.MemoryView.Constraints)
	switch d.stopReason {
	case StopEnough, StopLowGain, StopNoise, StopBudget, StopNoEvidence:
	default:
		d.stopReason = StopEnough
	}
	return d, nil
}
