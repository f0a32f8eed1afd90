package ingest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/invopop/jsonschema"
	jsv "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tmc/langchaingo/llms"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/recalld/recalld/storage"
)

// DefaultRewriteMaxRetry is how many times the LLM historian asks again for
// the rewrites its gate rejects, unless configured.
const DefaultRewriteMaxRetry = 2

// rewriteTool is the one tool the model answers through.
const rewriteTool = "record_rewrites"

// malformedRetries is how many times an unusable reply (no tool call,
// arguments that are not JSON or break the schema, the wrong observations)
// is asked again before the job falls back to the rules.
const malformedRetries = 1

// Limits of what the prompt carries of a turn.
const (
	promptRecent  = 20  // the last recent messages
	promptLineMax = 240 // characters of each
)

//go:embed historian.md
var historianPrompt string

// LLMHistorianConfig tunes the LLM historian.
type LLMHistorianConfig struct {
	// HistorianConfig is shared with the rule path, which rewrites what
	// the model could not.
	HistorianConfig
	// ModelName names the model in logs and errors.
	ModelName string
	// RewriteMaxRetry is how many times the observations the gate rejects
	// (relative words left, ids not in the source) go back to the model,
	// naming what is wrong (0: never; see DefaultRewriteMaxRetry).
	RewriteMaxRetry int
	// CallTimeout bounds each model call (default 60 s). Keep the calls of
	// a job (at most 2 + RewriteMaxRetry) inside the queue's stale timeout.
	CallTimeout time.Duration
	Logger      *slog.Logger
}

// LLMHistorian is the Processor that has a language model rewrite
// observations: one chat call per job, answered through a tool call whose
// arguments are checked against the tool's JSON schema. Its output passes
// the same gate as the offline historian (zh and en word lists, id drift);
// rejected rewrites go back to the model naming the offending words, up to
// RewriteMaxRetry times, and are then stored with is_absolute false and a
// warning. Output it cannot use (no tool call, bad JSON, schema violations,
// the wrong observations) is asked for once more, then the offline
// historian's rules rewrite the job, with a warning on its events. A model
// that cannot be reached fails the attempt, so the queue retries the job
// with backoff; on the job's last attempt the rules rewrite it instead, so
// no job ends failed because the model is down.
type LLMHistorian struct {
	model  llms.Model
	rules  *Historian
	cfg    LLMHistorianConfig
	tool   llms.Tool
	schema *jsv.Schema
	prompt *template.Template
	log    *slog.Logger
}

var _ Processor = (*LLMHistorian)(nil)

// rewriteArgs are the arguments of the rewrite tool.
type rewriteArgs struct {
	Rewrites []rewriteItem `json:"rewrites" jsonschema:"minItems=1,description=One entry for each observation asked for."`
}

type rewriteItem struct {
	Index     int      `json:"index" jsonschema:"minimum=0,description=The observation's index as given."`
	Text      string   `json:"text" jsonschema:"minLength=1,maxLength=8192,description=The observation in absolute form: names with ids instead of pronouns; absolute dates instead of relative times; the place instead of here/there when known."`
	EntityIDs []string `json:"entity_ids" jsonschema:"description=Every id written into text (empty if none). Only ids that appear in the material."`
}

// NewLLMHistorian returns the historian that rewrites with model.
func NewLLMHistorian(model llms.Model, cfg LLMHistorianConfig) *LLMHistorian {
	rules := NewHistorian(cfg.HistorianConfig)
	cfg.HistorianConfig = rules.cfg
	cfg.RewriteMaxRetry = max(cfg.RewriteMaxRetry, 0)
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = time.Minute
	}
	if cfg.ModelName == "" {
		cfg.ModelName = "llm"
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	params, schema := rewriteSchema()
	return &LLMHistorian{
		model: model,
		rules: rules,
		cfg:   cfg,
		tool: llms.Tool{Type: "function", Function: &llms.FunctionDefinition{
			Name:        rewriteTool,
			Description: "Record the observations rewritten to absolute form, one entry per observation asked for.",
			Parameters:  params,
		}},
		schema: schema,
		prompt: template.Must(template.New("historian").Parse(historianPrompt)),
		log:    log.With("component", "historian", "model", cfg.ModelName),
	}
}

// rewriteSchema reflects rewriteArgs into the tool's parameters and the
// compiled schema its arguments are checked against. The types are fixed,
// so an error is a programming error.
func rewriteSchema() (map[string]any, *jsv.Schema) {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	b, err := json.Marshal(r.Reflect(&rewriteArgs{}))
	if err != nil {
		panic(fmt.Sprintf("ingest: rewrite schema: %v", err))
	}
	var params map[string]any
	if err := json.Unmarshal(b, &params); err != nil {
		panic(fmt.Sprintf("ingest: rewrite schema: %v", err))
	}
	delete(params, "$schema") // means nothing to a model; the compiler defaults to the same draft
	delete(params, "$id")
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		panic(fmt.Sprintf("ingest: rewrite schema: %v", err))
	}
	c := jsv.NewCompiler()
	if err := c.AddResource("rewrites.json", doc); err != nil {
		panic(fmt.Sprintf("ingest: rewrite schema: %v", err))
	}
	return params, c.MustCompile("rewrites.json")
}

// Process rewrites the job's observations with the model. The rest of the
// result is the offline historian's.
func (h *LLMHistorian) Process(ctx context.Context, job Job) (Result, error) {
	if len(job.Turn.Observations) == 0 {
		return h.rules.Process(ctx, job)
	}
	evs, err := h.events(ctx, job)
	if err != nil {
		return Result{}, err
	}
	// The profiles follow the model's rewrites, not the rules' first draft.
	return Result{Events: evs, Profiles: ProfileMerges(job.Turn, evs, h.cfg.Kinds)}, nil
}

// rewriting is the state of one job's rewrite.
type rewriting struct {
	job      Job
	mat      material
	msgs     []llms.MessageContent
	got      []*rewriteItem // the model's latest usable rewrite of each observation
	verdicts []verdict
	asked    []int // how many times each observation went to the model
}

// events returns the events of job's observations: the model's rewrites
// where it gave usable ones, the rules' elsewhere.
func (h *LLMHistorian) events(ctx context.Context, job Job) ([]storage.Event, error) {
	n := len(job.Turn.Observations)
	rw := &rewriting{job: job, mat: materialOf(job.Turn), got: make([]*rewriteItem, n),
		verdicts: make([]verdict, n), asked: make([]int, n)}
	system, err := h.systemPrompt(job.Turn)
	if err != nil {
		return nil, err
	}
	rw.msgs = []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, system),
		llms.TextParts(llms.ChatMessageTypeHuman, observationList(job.Turn.Observations)),
	}
	log := h.log.With("job", job.ID)
	todo := make([]int, n)
	for i := range todo {
		todo[i] = i
	}
	malformed, retries := 0, 0
	for {
		for _, i := range todo {
			rw.asked[i]++
		}
		resp, err := h.call(ctx, rw.msgs)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !job.Final {
				return nil, fmt.Errorf("historian model %s: %w", h.cfg.ModelName, err)
			}
			log.Warn("historian model unreachable on the job's last attempt; the rules rewrite it", "err", err)
			return h.merge(rw, fmt.Sprintf("the model was unreachable (%s)", clip(err.Error(), 200))), nil
		}
		calls, items, perr := h.parse(resp, todo, n)
		if perr != nil {
			malformed++
			if malformed > malformedRetries {
				log.Warn("historian model output unusable; the rules rewrite the rest", "err", perr)
				return h.merge(rw, fmt.Sprintf("the model's output was unusable (%s)", clip(perr.Error(), 200))), nil
			}
			log.Info("historian model output unusable; asking again", "err", perr)
			rw.msgs = append(rw.msgs, correction(resp, calls, perr, todo)...)
			continue
		}
		for _, it := range items {
			rw.got[it.Index] = &it
			ids := append(slices.Clone(it.EntityIDs), textIDs(it.Text)...)
			rw.verdicts[it.Index] = verdict{leftovers: gate(it.Text), drift: rw.mat.drift(ids)}
		}
		todo = todo[:0:0]
		for i, v := range rw.verdicts {
			if v.retry(job.Turn.Force) {
				todo = append(todo, i)
			}
		}
		if len(todo) == 0 || retries >= h.cfg.RewriteMaxRetry {
			if len(todo) > 0 {
				log.Info("historian gate still rejects rewrites after the retries", "observations", todo, "retries", retries)
			}
			return h.merge(rw, ""), nil
		}
		retries++
		rw.msgs = append(rw.msgs, feedback(calls, rw.verdicts, todo, job.Turn.Force)...)
	}
}

// call is one model call with the rewrite tool required.
func (h *LLMHistorian) call(ctx context.Context, msgs []llms.MessageContent) (*llms.ContentResponse, error) {
	cctx, cancel := context.WithTimeout(ctx, h.cfg.CallTimeout)
	defer cancel()
	// "required" rather than the tool by name: local servers (llama-server,
	// older vLLM) accept only none, auto and required.
	return h.model.GenerateContent(cctx, msgs, llms.WithTools([]llms.Tool{h.tool}),
		llms.WithToolChoice("required"), llms.WithTemperature(0))
}

// merge makes the job's events: the model's rewrites, judged by the gate,
// and the rules' rewrite of each observation the model gave none for, with
// why in its warning.
func (h *LLMHistorian) merge(rw *rewriting, why string) []storage.Event {
	force := rw.job.Turn.Force
	var rules []storage.Event
	evs := make([]storage.Event, 0, len(rw.got))
	for i, it := range rw.got {
		if it == nil {
			if rules == nil {
				rules = h.rules.Events(rw.job)
			}
			e := rules[i]
			e.Warning = strings.Join(slices.DeleteFunc([]string{why + "; rewritten by rules", e.Warning}, func(s string) bool { return s == "" }), "; ")
			evs = append(evs, e)
			continue
		}
		e := h.rules.event(rw.job, i, it.Text, rw.verdicts[i])
		if rw.verdicts[i].retry(force) && rw.asked[i] > 1 {
			e.Warning += fmt.Sprintf(" (after %d tries)", rw.asked[i])
		}
		evs = append(evs, e)
	}
	return evs
}

// parse reads the model's rewrites of the observations in todo (of n) from resp.
// It returns the tool calls it read (to answer them) and an error saying
// what makes the reply unusable.
func (h *LLMHistorian) parse(resp *llms.ContentResponse, todo []int, n int) ([]llms.ToolCall, []rewriteItem, error) {
	if resp == nil || len(resp.Choices) == 0 || resp.Choices[0] == nil {
		return nil, nil, errors.New("no reply")
	}
	ch := resp.Choices[0]
	if len(ch.ToolCalls) == 0 {
		return nil, nil, fmt.Errorf("no call of %s", rewriteTool)
	}
	calls := make([]llms.ToolCall, len(ch.ToolCalls))
	var items []rewriteItem
	var errs []error
	for i, tc := range ch.ToolCalls {
		// Some local servers leave out the id or type; the reply must match.
		if tc.ID == "" {
			tc.ID = fmt.Sprintf("call_%d", i)
		}
		if tc.Type == "" {
			tc.Type = "function"
		}
		if tc.FunctionCall == nil {
			tc.FunctionCall = &llms.FunctionCall{}
		}
		calls[i] = tc
		if tc.FunctionCall.Name != rewriteTool {
			errs = append(errs, fmt.Errorf("call of unknown tool %q; the tool is %s", tc.FunctionCall.Name, rewriteTool))
			continue
		}
		args, err := h.decode(tc.FunctionCall.Arguments)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		items = append(items, args.Rewrites...)
	}
	if len(errs) > 0 {
		return calls, nil, errors.Join(errs...)
	}
	// Every observation asked for, once; one the model was not asked for
	// again (it resent them all) is ignored.
	var got []int
	kept := items[:0:0]
	for _, it := range items {
		got = append(got, it.Index)
		if it.Index >= 0 && it.Index < n && !slices.Contains(todo, it.Index) {
			continue
		}
		if strings.TrimSpace(it.Text) == "" {
			return calls, nil, fmt.Errorf("observation %d: empty text", it.Index)
		}
		it.Text = strings.TrimSpace(it.Text)
		kept = append(kept, it)
	}
	indexes := make([]int, len(kept))
	for i, it := range kept {
		indexes[i] = it.Index
	}
	if !slices.Equal(slices.Sorted(slices.Values(indexes)), todo) {
		return calls, nil, fmt.Errorf("want one entry for each of the observations %v, got the indexes %v", todo, got)
	}
	return calls, kept, nil
}

// decode checks raw tool arguments against the schema and decodes them.
func (h *LLMHistorian) decode(raw string) (rewriteArgs, error) {
	var args rewriteArgs
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, `"`) {
		// Some servers send the arguments as a JSON string of JSON.
		var inner string
		if err := json.Unmarshal([]byte(raw), &inner); err == nil {
			raw = strings.TrimSpace(inner)
		}
	}
	inst, err := jsv.UnmarshalJSON(strings.NewReader(raw))
	if err != nil {
		return args, fmt.Errorf("arguments are not JSON: %v", err)
	}
	if err := h.schema.Validate(inst); err != nil {
		var ve *jsv.ValidationError
		if errors.As(err, &ve) {
			return args, fmt.Errorf("arguments do not match the schema: %s", strings.Join(leafErrors(ve), "; "))
		}
		return args, fmt.Errorf("arguments do not match the schema: %v", err)
	}
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		return args, fmt.Errorf("arguments: %v", err)
	}
	return args, nil
}

// leafErrors are the innermost causes of a schema validation error, each
// with where it is, as a model can act on them.
func leafErrors(ve *jsv.ValidationError) []string {
	if len(ve.Causes) == 0 {
		return []string{fmt.Sprintf("at /%s: %s", strings.Join(ve.InstanceLocation, "/"), ve.ErrorKind.LocalizedString(message.NewPrinter(language.English)))}
	}
	var out []string
	for _, c := range ve.Causes {
		out = append(out, leafErrors(c)...)
	}
	return out
}

// assistantTurn replays the model's tool calls, which the answers to them must follow.
func assistantTurn(calls []llms.ToolCall) llms.MessageContent {
	turn := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, tc := range calls {
		turn.Parts = append(turn.Parts, tc)
	}
	return turn
}

func toolAnswers(calls []llms.ToolCall, content string) []llms.MessageContent {
	out := []llms.MessageContent{assistantTurn(calls)}
	for _, tc := range calls {
		out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
			llms.ToolCallResponse{ToolCallID: tc.ID, Name: tc.FunctionCall.Name, Content: content},
		}})
	}
	return out
}

func indexList(todo []int) string {
	s := make([]string, len(todo))
	for i, n := range todo {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// correction is what the conversation gets after an unusable reply.
func correction(resp *llms.ContentResponse, calls []llms.ToolCall, perr error, todo []int) []llms.MessageContent {
	ask := fmt.Sprintf("Your reply could not be used: %s. Call %s once, with exactly one entry for each of the observations %s, following its schema.",
		clip(perr.Error(), 600), rewriteTool, indexList(todo))
	if len(calls) > 0 {
		return toolAnswers(calls, ask)
	}
	var out []llms.MessageContent
	if resp != nil && len(resp.Choices) > 0 && resp.Choices[0] != nil && strings.TrimSpace(resp.Choices[0].Content) != "" {
		out = append(out, llms.TextParts(llms.ChatMessageTypeAI, resp.Choices[0].Content))
	}
	return append(out, llms.TextParts(llms.ChatMessageTypeHuman, ask))
}

// feedback answers the model's calls naming what the gate found in the
// observations of todo, and asks for those again.
func feedback(calls []llms.ToolCall, vs []verdict, todo []int, force bool) []llms.MessageContent {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Not accepted yet. Call %s again with only the observations %s, fixed:\n", rewriteTool, indexList(todo))
	for _, i := range todo {
		var why []string
		if len(vs[i].leftovers) > 0 && !force {
			why = append(why, fmt.Sprintf("relative words left: %s (replace each with the name and id, the absolute date or the place; keep one only if the material cannot resolve it)",
				strings.Join(vs[i].leftovers, ", ")))
		}
		if len(vs[i].drift) > 0 {
			why = append(why, fmt.Sprintf("ids that appear nowhere in the material: %s (use only ids from the material, or the name alone)",
				strings.Join(vs[i].drift, ", ")))
		}
		fmt.Fprintf(&sb, "%d: %s\n", i, strings.Join(why, "; "))
	}
	return toolAnswers(calls, sb.String())
}

// observationList is the human message: the observations with their indexes.
func observationList(obs []string) string {
	type entry struct {
		Index int    `json:"index"`
		Text  string `json:"text"`
	}
	es := make([]entry, len(obs))
	for i, o := range obs {
		es[i] = entry{i, o}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(es) // strings and ints only
	return "Rewrite these observations:\n" + b.String()
}

// systemPrompt is historian.md filled in with the turn.
func (h *LLMHistorian) systemPrompt(t TurnEnd) (string, error) {
	at := t.Timestamp.In(h.cfg.Location)
	ws := weekStart(at)
	name, offset := at.Zone()
	data := struct {
		Tool, Now, Weekday, Zone, WeekStart, WeekEnd, Chat, Sender, Source string
		Recent                                                             []string
	}{
		Tool:      rewriteTool,
		Now:       at.Format("2006-01-02 15:04"),
		Weekday:   at.Weekday().String() + ", " + zhWeekdayName[at.Weekday()],
		Zone:      fmt.Sprintf("%s (%s, UTC%s)", h.cfg.Location, name, utcOffset(offset)),
		WeekStart: ws.Format("2006-01-02"),
		WeekEnd:   day(ws, 6).Format("2006-01-02"),
		Chat:      "private chat",
		Sender:    person(t.SenderName, t.SenderID),
		Source:    truncate(t.SourceMessage, h.cfg.SourceMax),
	}
	if t.RequestType == RequestGroup {
		data.Chat = "group chat " + person(t.GroupName, t.GroupID)
	}
	recent := t.RecentMessages
	if len(recent) > promptRecent {
		recent = recent[len(recent)-promptRecent:]
	}
	for _, m := range recent {
		line := fmt.Sprintf("[%s] %s: %s", m.Time, person(m.SenderName, m.SenderID), m.Text)
		data.Recent = append(data.Recent, truncate(strings.Join(strings.Fields(line), " "), promptLineMax))
	}
	var b strings.Builder
	if err := h.prompt.Execute(&b, data); err != nil {
		return "", fmt.Errorf("historian prompt: %w", err)
	}
	return b.String(), nil
}

var zhWeekdayName = [...]string{"周日", "周一", "周二", "周三", "周四", "周五", "周六"}

func utcOffset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	return fmt.Sprintf("%s%02d:%02d", sign, sec/3600, sec%3600/60)
}

// person is "name (id id)", or whichever of the two is known.
func person(name, id string) string {
	switch {
	case name == "" && id == "":
		return "unknown"
	case id == "":
		return name
	case name == "":
		return "id " + id
	}
	return name + " (id " + id + ")"
}

// clip keeps the first max bytes of s, on a rune boundary.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return strings.ToValidUTF8(s[:max], "") + "…"
}
