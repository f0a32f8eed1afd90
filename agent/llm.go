package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/recalld/recalld/queryapi"
)

// WithLLM lets a language model drive the loop through native tool calls.
// The offline brain stays the fallback for any model failure (down, HTTP
// 429/5xx, timeout, an answer that is not the skill's JSON), which the
// response notes in limits.notes. modelName is reported as
// "llm:<modelName>". A nil model leaves the agent offline.
func WithLLM(model llms.Model, modelName string) Option {
	return func(a *Agent) {
		if model != nil {
			a.llm = newLLMBrain(model, modelName)
		}
	}
}

// DefaultOpenAIBaseURL is the endpoint NewOpenAIModel uses when given none.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// placeholderToken is sent when no API key is given: langchaingo refuses an
// empty one, and local servers ignore it.
const placeholderToken = "recalld-no-key"

// NewOpenAIModel returns a chat model for any OpenAI-compatible endpoint:
// OpenAI, vLLM with a tool parser, llama-server --jinja, Ollama's /v1
// (langchaingo's llms/ollama sends no tools). baseURL is the API root, such
// as "http://127.0.0.1:11434/v1". Every setting is explicit, so no
// OPENAI_* environment variable changes it; httpClient may be nil.
func NewOpenAIModel(baseURL, token, model string, httpClient *http.Client) (llms.Model, error) {
	if strings.TrimSpace(model) == "" {
		return nil, errors.New("agent: llm model is required")
	}
	if baseURL == "" {
		baseURL = DefaultOpenAIBaseURL
	}
	if token == "" {
		token = placeholderToken
	}
	opts := []openai.Option{
		openai.WithBaseURL(strings.TrimRight(baseURL, "/")),
		openai.WithToken(token),
		openai.WithModel(model),
		openai.WithOrganization(""),
	}
	if httpClient != nil {
		opts = append(opts, openai.WithHTTPClient(httpClient))
	}
	m, err := openai.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("agent: llm %q: %w", model, err)
	}
	return m, nil
}

// llmBrain lets a model run the loop with native tool calls. It holds no
// per-recall state, so one brain serves concurrent recalls. The tools it
// offers have no user parameter: the run's tools are bound already.
type llmBrain struct {
	model     llms.Model
	modelName string
	tools     []llms.Tool
}

var _ brain = (*llmBrain)(nil)

// The four tools, as the model knows them.
const (
	toolList     = "messages_list"
	toolLexical  = "lexical_search"
	toolSemantic = "semantic_search"
	toolNeigh    = "neighbors"
)

func newLLMBrain(model llms.Model, name string) *llmBrain {
	tool := func(name, desc string, params any) llms.Tool {
		return llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: name, Description: desc, Parameters: queryapi.Schema(params)}}
	}
	return &llmBrain{model: model, modelName: name, tools: []llms.Tool{
		tool(toolList, "List the user's messages in time order, optionally within a time window, for one role or conversation. Use it for schedules and \"what did we talk about this week\".", &queryapi.ListParams{}),
		tool(toolLexical, "BM25 search over words and \"quoted phrases\" in the user's messages. Use it for exact phrases, names, places, dishes, projects.", &queryapi.LexicalParams{}),
		tool(toolSemantic, "Find the user's messages closest in meaning to query_text. Use it when the question paraphrases.", &queryapi.SemanticParams{}),
		tool(toolNeigh, "Fetch the messages around one message of the user in its conversation, to check its context before trusting it.", &queryapi.NeighborsParams{}),
	}}
}

func (b *llmBrain) name() string { return "llm:" + b.modelName }

// errNoAnswer is a model that never produced a usable final answer.
var errNoAnswer = errors.New("agent: the model gave no usable answer")

// Messages the loop adds to the conversation.
const (
	askForJSON  = `Answer now with only the JSON object described under "Answer format", nothing else.`
	toolsClosed = `The search budget is spent: no more tool calls. ` + askForJSON
)

// llmRun is the state of one recall driven by the model.
type llmRun struct {
	*llmBrain
	r        *run
	searches int // search calls that reached a tool
	userOnly int // ...of which filtered to role=user
	rejected int // calls the model must fix: unknown tool, malformed or invalid arguments
}

// recall runs the tool loop: each round the model either calls tools, whose
// results go back as tool messages, or answers. When the rounds or the tool
// calls are spent the tools close and the model must answer; an answer that
// is not the skill's JSON gets one retry. Any model failure is an error,
// and Agent.Recall then answers offline.
func (b *llmBrain) recall(ctx context.Context, r *run) (draft, error) {
	lr := &llmRun{llmBrain: b, r: r}
	if r.rolePref == "user" {
		r.role = "user"
	}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, b.systemPrompt(r)),
		llms.TextParts(llms.ChatMessageTypeHuman, r.question),
	}
	r.step("observe", "", map[string]any{"model": b.modelName}, 0, "the model plans the searches")
	closed, forced, retried := false, false, false
	for {
		opts := []llms.CallOption{llms.WithTools(b.tools), llms.WithTemperature(0)}
		if closed {
			opts = append(opts, llms.WithToolChoice("none"))
		}
		resp, err := b.model.GenerateContent(ctx, msgs, opts...)
		if err != nil {
			return draft{}, fmt.Errorf("llm round %d: %w", r.rounds+1, err)
		}
		if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
			return draft{}, fmt.Errorf("llm round %d: %w: no choices", r.rounds+1, errNoAnswer)
		}
		ch := resp.Choices[0]

		if len(ch.ToolCalls) > 0 && !closed {
			r.rounds++
			fresh, err := lr.callTools(ctx, &msgs, ch)
			if err != nil {
				return draft{}, err
			}
			r.step("reflect", "", nil, fresh, fmt.Sprintf("round %d: %d tool calls, %d new messages", r.rounds, len(ch.ToolCalls), fresh))
			if r.rounds >= r.maxRounds || lr.toolsSpent() {
				closed, forced = true, true
				r.note("the model used up its search budget and was asked to answer")
				msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, toolsClosed))
			}
			continue
		}

		d, perr := parseAnswer(ch.Content)
		if perr == nil {
			return lr.finish(d, forced), nil
		}
		if retried {
			return draft{}, fmt.Errorf("llm final answer: %w: %v", errNoAnswer, perr)
		}
		retried = true
		r.step("reflect", "", nil, 0, "the answer was not the skill's JSON; asked again")
		if len(ch.ToolCalls) == 0 && strings.TrimSpace(ch.Content) != "" {
			msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeAI, ch.Content))
		}
		ask := askForJSON
		if closed {
			ask = toolsClosed
		}
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, ask))
	}
}

// finish completes the model's answer into the draft for the verifier.
func (lr *llmRun) finish(d draft, forced bool) draft {
	r := lr.r
	if d.stopReason == "" {
		d.stopReason = StopEnough
		if forced {
			d.stopReason = StopBudget
		}
	}
	if r.role == "" && lr.searches > 0 && lr.userOnly == lr.searches {
		r.role = "user"
	}
	if lr.rejected > 0 {
		r.note("%d tool calls of the model were rejected (unknown tool, malformed or invalid arguments)", lr.rejected)
	}
	r.step("reflect", "", nil, len(d.cited), "the model answered: "+d.stopReason)
	return d
}

func (lr *llmRun) toolsSpent() bool { return lr.r.callsLeft() <= 0 }

// callTools runs the tool calls of one model turn and appends the turn and
// one tool message per call to msgs. It returns how many messages were new
// to the run; an error is a spent time budget or a broken store.
func (lr *llmRun) callTools(ctx context.Context, msgs *[]llms.MessageContent, ch *llms.ContentChoice) (int, error) {
	turn := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	if ch.Content != "" {
		turn.Parts = append(turn.Parts, llms.TextContent{Text: ch.Content})
	}
	calls := make([]llms.ToolCall, len(ch.ToolCalls))
	for i, tc := range ch.ToolCalls {
		// Some local servers leave out the id or type; the reply must match.
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d_%d", lr.r.rounds, i)
		}
		if tc.Type == "" {
			tc.Type = "function"
		}
		if tc.FunctionCall == nil {
			tc.FunctionCall = &llms.FunctionCall{}
		}
		calls[i] = tc
		turn.Parts = append(turn.Parts, tc)
	}
	*msgs = append(*msgs, turn)
	fresh := 0
	for _, tc := range calls {
		out, n, err := lr.exec(ctx, tc.FunctionCall.Name, tc.FunctionCall.Arguments)
		if err != nil {
			return fresh, fmt.Errorf("llm tool %s: %w", tc.FunctionCall.Name, err)
		}
		fresh += n
		*msgs = append(*msgs, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: out},
		}})
	}
	return fresh, nil
}

// toolHit is a message as the model reads it.
type toolHit struct {
	ID     string `json:"message_id"`
	Role   string `json:"role"`
	At     string `json:"created_at"`
	Conv   string `json:"conversation_id,omitempty"`
	Sender string `json:"sender_name,omitempty"`
	Anchor bool   `json:"anchor,omitempty"`
	Text   string `json:"content"`
}

// toolResultChars cuts long messages in tool results; the evidence keeps
// the full text.
const toolResultChars = 300

func toToolHit(e queryapi.Evidence) toolHit {
	return toolHit{ID: e.MessageID, Role: e.Role, At: e.CreatedAt.Format(time.RFC3339), Conv: e.ConversationID,
		Sender: e.SenderName, Text: truncate(e.Content, toolResultChars)}
}

func toolError(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// exec runs one tool call through the run's counted, budgeted and traced
// tools and returns what the model reads: the hits as JSON, or an error it
// can correct. Every call, even a malformed one, counts against the tool
// budget. err is only for what the model cannot fix: the time budget or a
// broken store.
func (lr *llmRun) exec(ctx context.Context, name, raw string) (out string, fresh int, err error) {
	r := lr.r
	if err := ctx.Err(); err != nil {
		return "", 0, err
	}
	reject := func(reason string) (string, int, error) {
		lr.rejected++
		if err := r.callBudget(); err != nil {
			return toolError("tool call budget spent; answer now"), 0, nil
		}
		r.step("decide", name, truncate(raw, 200), 0, "rejected: "+reason)
		return toolError(reason), 0, nil
	}
	args, aerr := toolArgs(raw)
	if aerr != nil {
		return reject(fmt.Sprintf("arguments of %s: %v", name, aerr))
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
		hits   []queryapi.Evidence
		next   string
		anchor = -1
		nres   queryapi.NeighborsResult
		role   string // the role filter of a search
		terr   error
	)
	switch name {
	case toolList:
		var p queryapi.ListParams
		if err := decode(&p); err != nil {
			return reject(err.Error())
		}
		p.Since, p.Until, p.Role = lr.narrow(p.Since, p.Until, p.Role)
		role = p.Role
		var page queryapi.Page
		page, terr = r.list(ctx, p)
		hits, next = page.Hits, page.NextCursor
	case toolLexical:
		var p queryapi.LexicalParams
		if err := decode(&p); err != nil {
			return reject(err.Error())
		}
		p.Filter.Since, p.Filter.Until, p.Filter.Role = lr.narrow(p.Filter.Since, p.Filter.Until, p.Filter.Role)
		role = p.Filter.Role
		var page queryapi.Page
		page, terr = r.lexical(ctx, p)
		hits, next = page.Hits, page.NextCursor
	case toolSemantic:
		var p queryapi.SemanticParams
		if err := decode(&p); err != nil {
			return reject(err.Error())
		}
		p.Filter.Since, p.Filter.Until, p.Filter.Role = lr.narrow(p.Filter.Since, p.Filter.Until, p.Filter.Role)
		role = p.Filter.Role
		var page queryapi.Page
		page, terr = r.semantic(ctx, p)
		hits = page.Hits
	case toolNeigh:
		var p queryapi.NeighborsParams
		if err := decode(&p); err != nil {
			return reject(err.Error())
		}
		nres, terr = r.neighbors(ctx, p)
		if terr == nil {
			hits = append(append(append(hits, nres.Before...), nres.Anchor), nres.After...)
			anchor = len(nres.Before)
		}
	default:
		return reject(fmt.Sprintf("unknown tool %q; the tools are %s, %s, %s and %s", name, toolList, toolLexical, toolSemantic, toolNeigh))
	}

	switch {
	case terr == nil:
	case ctx.Err() != nil:
		return "", 0, ctx.Err()
	case errors.Is(terr, errToolBudget):
		return toolError("tool call budget spent; answer now"), 0, nil
	case errors.Is(terr, queryapi.ErrSemanticUnavailable):
		// The embedder is down, not the model: r.semantic noted it, and
		// words still search, as they do for the offline brain.
		return toolError("semantic search is unavailable now (the embedder does not answer); search by words with " + toolLexical), 0, nil
	case errors.Is(terr, queryapi.ErrNotFound):
		// Another user's message reads exactly like a missing one.
		return toolError("not found: no message with that id"), 0, nil
	case errors.Is(terr, queryapi.ErrInvalidQuery):
		lr.rejected++
		return toolError(terr.Error()), 0, nil
	default:
		return "", 0, terr
	}

	fresh = r.remember(hits)
	if anchor >= 0 {
		// The anchor may be new to the run: keep its context for the evidence.
		if c := r.seen[nres.Anchor.MessageID]; c != nil && c.context == nil {
			c.context = append(append([]queryapi.Evidence{}, nres.Before...), nres.After...)
		}
	}
	if name != toolNeigh {
		lr.searches++
		if role == "user" {
			lr.userOnly++
		}
	}
	res := struct {
		Hits       []toolHit `json:"hits"`
		NextCursor string    `json:"next_cursor,omitempty"`
	}{Hits: make([]toolHit, 0, len(hits)), NextCursor: next}
	for i, h := range hits {
		th := toToolHit(h)
		th.Anchor = i == anchor
		res.Hits = append(res.Hits, th)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return "", 0, err
	}
	return string(b), fresh, nil
}

// narrow keeps a search inside the caller's time window and role
// preference, whatever the model asked for.
func (lr *llmRun) narrow(since, until, role string) (string, string, string) {
	r := lr.r
	if r.window.explicit {
		since = clampTime(since, r.window.since, true)
		until = clampTime(until, r.window.until, false)
	}
	if r.rolePref == "user" {
		role = "user"
	}
	return since, until, role
}

// clampTime moves v inside bound: not before it when lower, not after it
// otherwise. An unparsable v is left for the tool to reject.
func clampTime(v string, bound time.Time, lower bool) string {
	if bound.IsZero() {
		return v
	}
	if v == "" {
		return bound.Format(time.RFC3339Nano)
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err == nil && (lower && t.Before(bound) || !lower && t.After(bound)) {
		return bound.Format(time.RFC3339Nano)
	}
	return v
}

func (b *llmBrain) systemPrompt(r *run) string {
	var sb strings.Builder
	sb.WriteString(strings.TrimSpace(r.skill.Body))
	sb.WriteString("\n\n## This question\n")
	fmt.Fprintf(&sb, "- Now is %s; resolve relative times (this week, 上次, 最近) from it.\n", r.now.Format(time.RFC3339))
	if r.window.explicit {
		fmt.Fprintf(&sb, "- The caller limits the search to %s (since, inclusive) … %s (until, exclusive); searches outside it are narrowed to it.\n",
			fmtTime(r.window.since), fmtTime(r.window.until))
	}
	switch r.rolePref {
	case "user":
		sb.WriteString("- Role preference: user. Only the user's own messages count; searches are filtered to role=user.\n")
	case "any":
		sb.WriteString("- Role preference: any. Messages of every role may count.\n")
	}
	fmt.Fprintf(&sb, "- At most %d rounds of tool calls and %d tool calls in all; then answer.\n", r.maxRounds, r.skill.Params.Limits.MaxToolCalls)
	sb.WriteString("- The tools already belong to this user; message ids are opaque: cite them exactly as the tools return them.\n")
	return sb.String()
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "(open)"
	}
	return t.Format(time.RFC3339)
}

// toolArgs accepts the arguments as a JSON object, or as a JSON string
// holding one (some servers encode them twice), and "" or null as {}.
func toolArgs(raw string) ([]byte, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" || raw == "null" {
		return []byte("{}"), nil
	}
	if strings.HasPrefix(raw, `"`) {
		var inner string
		if err := json.Unmarshal([]byte(raw), &inner); err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
		raw = strings.TrimSpace(inner)
	}
	if !strings.HasPrefix(raw, "{") || !json.Valid([]byte(raw)) {
		return nil, errors.New("must be a JSON object")
	}
	return []byte(raw), nil
}

// llmAnswer is the JSON object of SKILL.md's "Answer format".
type llmAnswer struct {
	MemoryView *struct {
		Preferences []llmItem `json:"preferences"`
		Profile     []llmItem `json:"profile"`
		Constraints []llmItem `json:"constraints"`
	} `json:"memory_view"`
	Answer    *string `json:"answer"`
	Conflicts []struct {
		Topic      string `json:"topic"`
		Kept       idList `json:"kept"`
		Superseded idList `json:"superseded"`
		Reason     string `json:"reason"`
	} `json:"conflicts"`
	StopReason *string `json:"stop_reason"`
}

type llmItem struct {
	Statement   string `json:"statement"`
	EvidenceIDs idList `json:"evidence_ids"`
	Status      string `json:"status"`
}

// idList reads message ids as strings or numbers, or one id alone: small
// models write ["12", 13] or "m4".
type idList []string

func (l *idList) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var one any
	if err := dec.Decode(&one); err != nil {
		return err
	}
	var raw []any
	switch v := one.(type) {
	case nil:
		return nil
	case []any:
		raw = v
	default:
		raw = []any{v}
	}
	for _, v := range raw {
		switch v := v.(type) {
		case string:
			if s := strings.TrimSpace(v); s != "" {
				*l = append(*l, s)
			}
		case json.Number:
			*l = append(*l, v.String())
		default:
			return fmt.Errorf("message id %v is not a string", v)
		}
	}
	return nil
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>.*?</think>`)
	jsonFence  = regexp.MustCompile("(?s)```[a-zA-Z]*\\s*\\n?(.*?)```")
)

// parseAnswer reads the model's final answer. A local model may wrap the
// JSON object in a ```json fence, in prose, or after a <think> block; the
// first object that looks like the answer format wins.
func parseAnswer(content string) (draft, error) {
	s := strings.TrimSpace(thinkBlock.ReplaceAllString(content, ""))
	if s == "" {
		return draft{}, errors.New("empty answer")
	}
	var candidates []string
	for _, m := range jsonFence.FindAllStringSubmatch(s, -1) {
		candidates = append(candidates, m[1])
	}
	candidates = append(candidates, s)
	var lastErr error = errors.New("no JSON object in the answer")
	for _, c := range candidates {
		for i := strings.IndexByte(c, '{'); i >= 0; {
			var raw json.RawMessage
			if err := json.NewDecoder(strings.NewReader(c[i:])).Decode(&raw); err == nil {
				var a llmAnswer
				if err := json.Unmarshal(raw, &a); err != nil {
					lastErr = fmt.Errorf("answer JSON: %v", err)
				} else if a.MemoryView != nil || a.Answer != nil || a.StopReason != nil {
					return a.draft(), nil
				}
			}
			j := strings.IndexByte(c[i+1:], '{')
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return draft{}, lastErr
}

// draft turns the answer into the run's draft: statuses and the stop reason
// normalised (an unknown stop reason is left empty for the loop to fill),
// every item's ids cited in order.
func (a llmAnswer) draft() draft {
	var d draft
	if a.Answer != nil {
		d.answer = strings.TrimSpace(*a.Answer)
	}
	if a.StopReason != nil {
		switch s := strings.ToLower(strings.TrimSpace(*a.StopReason)); s {
		case StopEnough, StopLowGain, StopNoise, StopBudget, StopNoEvidence:
			d.stopReason = s
		}
	}
	cited := map[string]bool{}
	items := func(in []llmItem) []Item {
		var out []Item
		for _, it := range in {
			out = append(out, Item{Statement: strings.TrimSpace(it.Statement), EvidenceIDs: it.EvidenceIDs,
				Status: strings.ToLower(strings.TrimSpace(it.Status))})
			for _, id := range it.EvidenceIDs {
				if !cited[id] {
					cited[id] = true
					d.cited = append(d.cited, id)
				}
			}
		}
		return out
	}
	if v := a.MemoryView; v != nil {
		d.view.Preferences = items(v.Preferences)
		d.view.Profile = items(v.Profile)
		d.view.Constraints = items(v.Constraints)
	}
	for _, c := range a.Conflicts {
		d.conflicts = append(d.conflicts, Conflict{Topic: c.Topic, Kept: c.Kept, Superseded: c.Superseded, Reason: c.Reason})
	}
	return d
}
