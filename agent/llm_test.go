package agent_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/llmtest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// The fake chat server is internal/llmtest; these names keep the tests short.
type (
	turn     = llmtest.Reply
	toolCall = llmtest.Call
	fakeLLM  = llmtest.Server
)

func call(name, args string) turn { return llmtest.ToolCall(name, args) }
func say(content string) turn     { return llmtest.Say(content) }
func text(content any) string     { return llmtest.Text(content) }

func newFakeLLM(t *testing.T, script ...turn) *fakeLLM { return llmtest.New(t, script...) }

const fakeModel = "fake-model"

func llmAgent(t *testing.T, url string) *agent.Agent {
	t.Helper()
	svc, _ := loadScenarios(t)
	m, err := agent.NewOpenAIModel(url, "", fakeModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(svc, mustSkill(t), agent.WithLLM(m, fakeModel))
}

// item is one view item of a scripted final answer.
type item struct {
	section, statement string
	ids                []string
	status             string
}

// answerJSON is a final answer in the skill's "Answer format".
func answerJSON(stop string, items ...item) string {
	view := map[string][]map[string]any{"preferences": {}, "profile": {}, "constraints": {}}
	for _, it := range items {
		view[it.section] = append(view[it.section], map[string]any{"statement": it.statement, "evidence_ids": it.ids, "status": it.status})
	}
	b, _ := json.Marshal(map[string]any{"memory_view": view, "answer": "ok", "conflicts": []any{}, "stop_reason": stop})
	return string(b)
}

func citedIDs(r *agent.Response) []string {
	out := []string{}
	for _, e := range r.Evidence {
		out = append(out, e.MessageID)
	}
	return out
}

func statuses(r *agent.Response) map[string]string {
	out := map[string]string{}
	for _, it := range allItems(r.MemoryView) {
		for _, id := range it.EvidenceIDs {
			out[id] = it.Status
		}
	}
	return out
}

func notes(r *agent.Response) string { return strings.Join(r.Limits.Notes, "\n") }

// want is what a recall through the LLM brain must return.
type want struct {
	cited    []string
	statuses map[string]string
	stop     string
	brain    string
	notes    []string // substrings of limits.notes
}

func check(t *testing.T, resp *agent.Response, w want) {
	t.Helper()
	if diff := cmp.Diff(w.cited, citedIDs(resp)); diff != "" {
		t.Errorf("cited (-want +got):\n%s", diff)
	}
	if w.statuses == nil {
		w.statuses = map[string]string{}
	}
	if diff := cmp.Diff(w.statuses, statuses(resp)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if resp.Limits.StopReason != w.stop {
		t.Errorf("stop_reason = %q, want %q", resp.Limits.StopReason, w.stop)
	}
	if resp.Limits.Brain != w.brain {
		t.Errorf("brain = %q, want %q", resp.Limits.Brain, w.brain)
	}
	for _, n := range w.notes {
		if !strings.Contains(notes(resp), n) {
			t.Errorf("notes %q lack %q", resp.Limits.Notes, n)
		}
	}
	if t.Failed() {
		b, _ := json.MarshalIndent(resp, "", "  ")
		t.Logf("response: %s", b)
	}
}

func TestLLMBrainToolLoop(t *testing.T) {
	f := newFakeLLM(t,
		call("lexical_search", `{"query_text":"\"不吃辣\"","filter":{"role":"user"}}`),
		// Arguments encoded twice, as a JSON string, as some servers send them.
		call("neighbors", `"{\"message_id\":\"d1\",\"before\":1,\"after\":2}"`),
		say(answerJSON("enough_evidence",
			item{"constraints", "不吃辣", []string{"d1"}, "changed"},
			item{"constraints", "对花生过敏", []string{"d3"}, "current"})),
	)
	a := llmAgent(t, f.URL)
	if got := a.Brain(); got != "llm:"+fakeModel {
		t.Fatalf("Brain() = %q", got)
	}
	resp, err := a.Recall(t.Context(), "qq:10001", agent.Request{Question: "我是不是说过不吃辣？",
		Context: agent.RequestContext{Now: "2026-11-22T12:00:00+08:00", RolePref: "user"}, Options: agent.Options{Trace: true}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, resp, want{cited: []string{"d1", "d3"}, statuses: map[string]string{"d1": "changed", "d3": "current"},
		stop: "enough_evidence", brain: "llm:" + fakeModel})
	if l := resp.Limits; l.ToolsCalled != 2 || l.Rounds != 2 || l.Role != "user" || l.MessagesConsidered == 0 {
		t.Errorf("limits = %+v", l)
	}
	if len(resp.Evidence) > 0 && len(resp.Evidence[0].Context) == 0 {
		t.Errorf("d1 lacks the neighbours the model fetched")
	}
	checkTrace(t, resp.Trace)
	var traced []string
	for _, s := range resp.Trace {
		if s.Tool != "" {
			traced = append(traced, s.Tool)
		}
	}
	if diff := cmp.Diff([]string{"lexical_search", "neighbors"}, traced); diff != "" {
		t.Errorf("traced tools (-want +got):\n%s", diff)
	}

	reqs := f.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	first := reqs[0]
	if first.Model != fakeModel || first.Temperature == nil || *first.Temperature != 0 || !strings.HasPrefix(first.Auth, "Bearer ") || first.Auth == "Bearer " {
		t.Errorf("request: model %q, temperature %v, auth %q", first.Model, first.Temperature, first.Auth)
	}
	sys := text(first.Messages[0].Content)
	for _, s := range []string{"# Recall with evidence", "Answer format", "2026-11-22T12:00:00+08:00", "role=user"} {
		if first.Messages[0].Role != "system" || !strings.Contains(sys, s) {
			t.Errorf("system prompt lacks %q", s)
		}
	}
	if first.Messages[1].Role != "user" || text(first.Messages[1].Content) != "我是不是说过不吃辣？" {
		t.Errorf("question message = %+v", first.Messages[1])
	}
	var offered []string
	for _, tl := range first.Tools {
		offered = append(offered, tl.Function.Name)
		if tl.Type != "function" || tl.Function.Parameters["type"] != "object" {
			t.Errorf("tool %s: type %q, parameters %v", tl.Function.Name, tl.Type, tl.Function.Parameters)
		}
		for _, k := range []string{"$schema", "$id"} {
			if _, ok := tl.Function.Parameters[k]; ok {
				t.Errorf("tool %s keeps %s", tl.Function.Name, k)
			}
		}
		props, _ := tl.Function.Parameters["properties"].(map[string]any)
		for p := range props {
			if strings.Contains(p, "user") {
				t.Errorf("tool %s offers a user parameter %q", tl.Function.Name, p)
			}
		}
	}
	if diff := cmp.Diff([]string{"messages_list", "lexical_search", "semantic_search", "neighbors"}, offered); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	lex := first.Tools[1].Function.Parameters
	if _, ok := lex["properties"].(map[string]any)["filter"].(map[string]any)["properties"]; !ok || fmt.Sprint(lex["required"]) != "[query_text]" {
		t.Errorf("lexical_search schema = %v", lex)
	}

	// The second request carries the first call and its result, under its id.
	second := reqs[1].Messages
	if len(second) != 4 || second[2].Role != "assistant" || len(second[2].ToolCalls) != 1 ||
		second[3].Role != "tool" || second[3].ToolCallID != second[2].ToolCalls[0].ID || second[2].ToolCalls[0].Type != "function" {
		t.Fatalf("second request messages = %+v", second)
	}
	results := f.ToolResults()
	if len(results) != 2 || !strings.Contains(results[0], `"message_id":"d1"`) || strings.Contains(results[0], `"role":"assistant"`) ||
		!strings.Contains(results[1], `"anchor":true`) || !strings.Contains(results[1], `"message_id":"d3"`) {
		t.Errorf("tool results = %q", results)
	}
}

func TestLLMBrainAnswerFormats(t *testing.T) {
	final := answerJSON("enough_evidence", item{"constraints", "对花生过敏", []string{"d3"}, "current"})
	tests := []struct {
		name    string
		answers []turn
	}{
		{"bare", []turn{say(final)}},
		{"json fence", []turn{say("好的，结论如下：\n```json\n" + final + "\n```\n以上。")}},
		{"plain fence", []turn{say("```\n" + final + "\n```")}},
		{"prose around", []turn{say("Here is the {answer} you asked for: " + final + " Hope it helps.")}},
		{"think block", []turn{say("<think>maybe {\"answer\": 1}? no</think>\n" + final)}},
		{"single id", []turn{say(strings.Replace(final, `["d3"]`, `"d3"`, 1))}},
		{"retry after prose", []turn{say("你对花生过敏。"), say(final)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, append([]turn{call("lexical_search", `{"query_text":"花生"}`)}, tt.answers...)...)
			resp, err := llmAgent(t, f.URL).Recall(t.Context(), "qq:10001", agent.Request{Question: "我对什么过敏？"})
			if err != nil {
				t.Fatal(err)
			}
			check(t, resp, want{cited: []string{"d3"}, statuses: map[string]string{"d3": "current"},
				stop: "enough_evidence", brain: "llm:" + fakeModel})
			if reqs := f.Requests(); len(tt.answers) > 1 {
				last := reqs[len(reqs)-1].Messages
				if !strings.Contains(text(last[len(last)-1].Content), "Answer format") {
					t.Errorf("retry did not ask for the JSON: %+v", last[len(last)-1])
				}
			}
		})
	}
}

func TestLLMBrainMalformedToolCalls(t *testing.T) {
	f := newFakeLLM(t,
		call("lexical_search", `{not json`),
		call("lexical_search", `{"query_text": 5}`),
		call("semantic_search", `{"query_text":"辣","user_id":"qq:20002"}`),
		call("messages_list", `["since"]`),
		call("delete_user", `{}`),
		call("lexical_search", `{"query_text":"花生","filter":{"role":"robot"}}`),
		say(answerJSON("no_evidence")),
	)
	resp, err := llmAgent(t, f.URL).Recall(t.Context(), "qq:10001", agent.Request{Question: "我喜欢吃辣吗？",
		Options: agent.Options{MaxRounds: 10}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, resp, want{cited: []string{}, stop: "no_evidence", brain: "llm:" + fakeModel,
		notes: []string{"6 tool calls of the model were rejected"}})
	if resp.Limits.ToolsCalled != 6 || resp.Limits.Rounds != 6 {
		t.Errorf("limits = %+v", resp.Limits)
	}
	results := f.ToolResults()
	if len(results) != 6 {
		t.Fatalf("%d tool results, want 6: %q", len(results), results)
	}
	for i, want := range []string{"must be a JSON object", "query_text", `unknown field \"user_id\"`, "must be a JSON object", `unknown tool \"delete_user\"`, "role"} {
		if !strings.HasPrefix(results[i], `{"error":`) || !strings.Contains(results[i], want) {
			t.Errorf("result %d = %s, want an error mentioning %s", i, results[i], want)
		}
	}
}

func TestLLMBrainUnreturnedCitation(t *testing.T) {
	f := newFakeLLM(t,
		call("lexical_search", `{"query_text":"花生"}`),
		// d5 is the user's, but no tool returned it; m404 does not exist.
		say(answerJSON("enough_evidence",
			item{"constraints", "对花生过敏", []string{"d3", "m404"}, "current"},
			item{"profile", "在杭州做前端", []string{"d5"}, "current"})),
	)
	resp, err := llmAgent(t, f.URL).Recall(t.Context(), "qq:10001", agent.Request{Question: "你记得我什么？"})
	if err != nil {
		t.Fatal(err)
	}
	check(t, resp, want{cited: []string{"d3"}, statuses: map[string]string{"d3": "current"}, stop: "enough_evidence",
		brain: "llm:" + fakeModel, notes: []string{`dropped citation "m404"`, `dropped citation "d5"`, "dropped an item without valid evidence"}})
	if len(resp.MemoryView.Profile) != 0 {
		t.Errorf("profile = %+v", resp.MemoryView.Profile)
	}
}

// TestLLMBrainIsolation: whatever the model asks for, the tools bound to
// qq:10001 never show it qq:20002's messages, and citing them fails.
func TestLLMBrainIsolation(t *testing.T) {
	f := newFakeLLM(t,
		call("neighbors", `{"message_id":"x1","before":5,"after":5}`),
		call("lexical_search", `{"query_text":"无辣不欢"}`),
		turn{Calls: []toolCall{{Name: "semantic_search", Args: `{"query_text":"超级喜欢吃辣"}`}, {Name: "messages_list", Args: `{"page_size":200}`}}},
		say(answerJSON("enough_evidence", item{"preferences", "喜欢吃辣", []string{"x1"}, "current"})),
	)
	resp, err := llmAgent(t, f.URL).Recall(t.Context(), "qq:10001", agent.Request{Question: "我喜欢吃辣吗？"})
	if err != nil {
		t.Fatal(err)
	}
	check(t, resp, want{cited: []string{}, stop: "no_evidence", brain: "llm:" + fakeModel, notes: []string{`dropped citation "x1"`}})
	results := f.ToolResults()
	if len(results) != 4 || results[0] != `{"error":"not found: no message with that id"}` {
		t.Fatalf("tool results = %q", results)
	}
	for i, r := range results {
		for _, other := range []string{"无辣不欢", "cat allergy", `"x1"`, `"x2"`} {
			if strings.Contains(r, other) {
				t.Errorf("tool result %d shows qq:20002's %s: %s", i, other, r)
			}
		}
	}
	if !strings.Contains(results[3], `"message_id":"d1"`) {
		t.Errorf("messages_list did not list the user's own messages: %s", results[3])
	}
}

// TestLLMBrainSemanticUnavailable: with the embedder down, the model's
// semantic_search is told to search by words, as the offline brain does;
// the model goes on and answers. It is not a failure of the model.
func TestLLMBrainSemanticUnavailable(t *testing.T) {
	s := storagetest.Open(t, storage.Config{LexicalOnly: true})
	if _, err := s.Insert(t.Context(), "qq:10001", []storage.Message{{ID: "d3", Role: "user", ConversationID: "c1",
		CreatedAt: time.Date(2026, 3, 2, 4, 1, 0, 0, time.UTC), Content: "另外我对花生过敏，千万别推荐带花生的菜"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	f := newFakeLLM(t,
		call("semantic_search", `{"query_text":"饮食上的禁忌"}`),
		call("lexical_search", `{"query_text":"过敏"}`),
		say(answerJSON("enough_evidence", item{"constraints", "对花生过敏", []string{"d3"}, "current"})),
	)
	m, err := agent.NewOpenAIModel(f.URL, "", fakeModel, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := agent.New(queryapi.New(s), mustSkill(t), agent.WithLLM(m, fakeModel)).Recall(t.Context(), "qq:10001",
		agent.Request{Question: "我有什么忌口？"})
	if err != nil {
		t.Fatal(err)
	}
	check(t, resp, want{cited: []string{"d3"}, statuses: map[string]string{"d3": "current"}, stop: "enough_evidence",
		brain: "llm:" + fakeModel, notes: []string{"semantic search unavailable"}})
	if results := f.ToolResults(); len(results) != 2 || !strings.Contains(results[0], `"error"`) || !strings.Contains(results[0], "lexical_search") {
		t.Errorf("tool results = %q", results)
	}
}

// TestLLMBrainCallerWindow: the caller's time window binds the model's
// searches, whatever filter it asks for.
func TestLLMBrainCallerWindow(t *testing.T) {
	f := newFakeLLM(t,
		call("lexical_search", `{"query_text":"辣","match":"any","filter":{"since":"2020-01-01T00:00:00Z"}}`),
		call("messages_list", `{"until":"2030-01-01T00:00:00Z"}`),
		say(answerJSON("enough_evidence", item{"preferences", "现在能吃辣", []string{"d9"}, "current"})),
	)
	resp, err := llmAgent(t, f.URL).Recall(t.Context(), "qq:10001", agent.Request{Question: "我能吃辣吗？",
		Context: agent.RequestContext{TimeRange: &agent.TimeRange{Since: "2026-10-01T00:00:00+08:00", Until: "2026-11-01T00:00:00+08:00"}}})
	if err != nil {
		t.Fatal(err)
	}
	check(t, resp, want{cited: []string{"d9"}, statuses: map[string]string{"d9": "current"}, stop: "enough_evidence", brain: "llm:" + fakeModel})
	results := f.ToolResults()
	if len(results) != 2 || !strings.Contains(results[0], `"d9"`) || !strings.Contains(results[1], `"d10"`) {
		t.Fatalf("tool results = %q", results)
	}
	for _, r := range results {
		for _, outside := range []string{`"d1"`, `"d11"`, `"p2"`} {
			if strings.Contains(r, outside) {
				t.Errorf("a message outside the caller's window reached the model: %s in %s", outside, r)
			}
		}
	}
	if resp.Limits.TimeRange.Since == "" || resp.Limits.TimeRange.Until == "" {
		t.Errorf("limits.time_range = %+v", resp.Limits.TimeRange)
	}
}

func TestLLMBrainBudget(t *testing.T) {
	t.Run("rounds", func(t *testing.T) {
		f := newFakeLLM(t,
			call("lexical_search", `{"query_text":"花生"}`),
			call("lexical_search", `{"query_text":"辣"}`),
			say(answerJSON("", item{"constraints", "对花生过敏", []string{"d3"}, "current"})),
		)
		resp, err := llmAgent(t, f.URL).Recall(t.Context(), "qq:10001", agent.Request{Question: "我有什么忌口？",
			Options: agent.Options{MaxRounds: 2}})
		if err != nil {
			t.Fatal(err)
		}
		check(t, resp, want{cited: []string{"d3"}, statuses: map[string]string{"d3": "current"}, stop: "budget",
			brain: "llm:" + fakeModel, notes: []string{"used up its search budget"}})
		reqs := f.Requests()
		last := reqs[len(reqs)-1]
		if resp.Limits.Rounds != 2 || last.ToolChoice != "none" || !strings.Contains(text(last.Messages[len(last.Messages)-1].Content), "no more tool calls") {
			t.Errorf("rounds %d, last request: tool_choice %v, %+v", resp.Limits.Rounds, last.ToolChoice, last.Messages[len(last.Messages)-1])
		}
	})
	t.Run("tool calls", func(t *testing.T) {
		many := turn{}
		for range 45 {
			many.Calls = append(many.Calls, toolCall{Name: "lexical_search", Args: `{"query_text":"花生"}`})
		}
		f := newFakeLLM(t, many, say(answerJSON("enough_evidence", item{"constraints", "对花生过敏", []string{"d3"}, "current"})))
		resp, err := llmAgent(t, f.URL).Recall(t.Context(), "qq:10001", agent.Request{Question: "我有什么忌口？"})
		if err != nil {
			t.Fatal(err)
		}
		check(t, resp, want{cited: []string{"d3"}, statuses: map[string]string{"d3": "current"}, stop: "enough_evidence", brain: "llm:" + fakeModel})
		results := f.ToolResults()
		if resp.Limits.ToolsCalled != 40 || len(results) != 45 || !strings.Contains(results[44], "budget spent") {
			t.Errorf("tools called %d, %d results, last %s", resp.Limits.ToolsCalled, len(results), results[len(results)-1])
		}
	})
}

// TestLLMBrainFallsBack: any model failure is answered by the offline
// brain, noted, with its own budget and tool calls.
func TestLLMBrainFallsBack(t *testing.T) {
	spend := turn{}
	for range 40 {
		spend.Calls = append(spend.Calls, toolCall{Name: "lexical_search", Args: `{"query_text":"辣"}`})
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name     string
		script   []turn
		url      string // instead of the fake server
		budgetMS int
		requests int
		minTools int    // limits.tools_called counts the model's calls too
		wantNote string // a note of the model's run, carried over
	}{
		{name: "rate limited", script: []turn{{Status: http.StatusTooManyRequests}}, requests: 1},
		{name: "server error", script: []turn{{Status: http.StatusBadGateway}}, requests: 1},
		{name: "server error after tools", script: []turn{call("lexical_search", `{"query_text":"辣"}`), {Status: 500}}, requests: 2},
		{name: "tools spent then 429", script: []turn{spend, {Status: 429}}, requests: 2, minTools: 41,
			wantNote: "before the model failed: the model used up its search budget"},
		{name: "connection refused", url: closed.URL},
		// The model hangs; the recall gives up at the budget, and the
		// fallback gets the same budget again. On a fresh store under
		// -race the offline recall takes 50 ms idle and 150 ms on a
		// loaded machine: 300 ms was too close.
		{name: "timeout", script: []turn{{Delay: time.Minute, Content: answerJSON("enough_evidence")}}, budgetMS: 1000, requests: 1},
		{name: "garbage twice", script: []turn{say("I think you like tea."), say("{really, tea}")}, requests: 2},
		{name: "empty object twice", script: []turn{say("{}"), say("```json\n{}\n```")}, requests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeLLM(t, tt.script...)
			url := f.URL
			if tt.url != "" {
				url = tt.url
			}
			a := llmAgent(t, url) // opening the store is not part of the recall's time
			start := time.Now()
			resp, err := a.Recall(t.Context(), "qq:10001", agent.Request{Question: "我有什么忌口吗？",
				Context: agent.RequestContext{Now: "2026-11-22T12:00:00+08:00"}, Options: agent.Options{BudgetMS: tt.budgetMS}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(citedIDs(resp), "d3") || resp.Limits.Brain != "offline" || resp.Limits.StopReason == "no_evidence" ||
				!strings.Contains(notes(resp), "the language model failed") || !strings.Contains(notes(resp), "answered by the offline brain") {
				t.Errorf("cited %v, limits %+v", citedIDs(resp), resp.Limits)
			}
			if !strings.Contains(notes(resp), tt.wantNote) {
				t.Errorf("notes %q lack %q", notes(resp), tt.wantNote)
			}
			if resp.Limits.ToolsCalled < tt.minTools {
				t.Errorf("tools_called = %d, want at least %d", resp.Limits.ToolsCalled, tt.minTools)
			}
			if n := len(f.Requests()); n != tt.requests {
				t.Errorf("%d model requests, want %d", n, tt.requests)
			}
			// It did not wait for the model: two budgets and the
			// verification at most, with room for a loaded machine.
			if took := time.Since(start); tt.budgetMS > 0 && took > 10*time.Second {
				t.Errorf("took %v with a %d ms budget", took, tt.budgetMS)
			}
		})
	}
}

func TestNewOpenAIModel(t *testing.T) {
	if _, err := agent.NewOpenAIModel("http://127.0.0.1:1/v1", "", "", nil); err == nil {
		t.Error("accepted an empty model name")
	}
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/wrong")
	t.Setenv("OPENAI_MODEL", "wrong-model")
	f := newFakeLLM(t, say(answerJSON("no_evidence")))
	m, err := agent.NewOpenAIModel(f.URL+"/", "sk-test", fakeModel, &http.Client{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := loadScenarios(t)
	resp, err := agent.New(svc, mustSkill(t), agent.WithLLM(m, fakeModel)).Recall(t.Context(), "qq:10001", agent.Request{Question: "我养的宠物叫什么？"})
	if err != nil {
		t.Fatal(err)
	}
	check(t, resp, want{cited: []string{}, stop: "no_evidence", brain: "llm:" + fakeModel})
	reqs := f.Requests()
	if len(reqs) != 1 || reqs[0].Model != fakeModel || reqs[0].Auth != "Bearer sk-test" {
		t.Errorf("requests = %+v", reqs)
	}
	if got := agent.New(svc, mustSkill(t), agent.WithLLM(nil, "none")).Brain(); got != "offline" {
		t.Errorf("WithLLM(nil) brain = %q", got)
	}
}
