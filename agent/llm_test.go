package agent_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recalld/recalld/agent"
)

// step is one scripted reply of the fake chat server.
type step struct {
	status  int               // non-zero: an HTTP error
	delay   time.Duration     // sleep first
	tool    string            // a tool call…
	args    string            // …with these raw arguments
	content string            // or a final message
	check   func(req chatReq) // inspects the request
}

type chatReq struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}

// fakeChat speaks the OpenAI chat-completions protocol, replying from a script.
func fakeChat(t *testing.T, script []step) (*httptest.Server, *int) {
	t.Helper()
	var mu sync.Mutex
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var req chatReq
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		i := calls
		calls++
		mu.Unlock()
		if i >= len(script) {
			http.Error(w, `{"error":{"message":"script exhausted"}}`, 500)
			return
		}
		s := script[i]
		if s.check != nil {
			s.check(req)
		}
		if s.delay > 0 {
			select {
			case <-time.After(s.delay):
			case <-r.Context().Done():
				return
			}
		}
		if s.status != 0 {
			w.WriteHeader(s.status)
			w.Write([]byte(`{"error":{"message":"scripted","type":"rate_limit"}}`))
			return
		}
		msg := map[string]any{"role": "assistant", "content": s.content}
		finish := "stop"
		if s.tool != "" {
			msg["content"] = ""
			msg["tool_calls"] = []map[string]any{{"id": fmt.Sprintf("call_%d", i), "type": "function",
				"function": map[string]any{"name": s.tool, "arguments": s.args}}}
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func llmAgent(t *testing.T, url string) *agent.Agent {
	t.Helper()
	svc, _ := loadScenarios(t)
	m, err := agent.NewOpenAIModel(url, "", "fake-model", nil)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(svc, mustSkill(t), agent.WithLLM(m, "fake-model"))
}

func finalJSON(section, id, statement, status, stop string) string {
	return fmt.Sprintf(`{"memory_view":{"preferences":[],"profile":[],"constraints":[],%q:[{"statement":%q,"evidence_ids":[%q],"status":%q}]},"answer":"ok","conflicts":[],"stop_reason":%q}`,
		section, statement, id, status, stop)
}

func cited(r *agent.Response) []string {
	var out []string
	for _, e := range r.Evidence {
		out = append(out, e.MessageID)
	}
	return out
}

func TestLLMBrainToolLoop(t *testing.T) {
	var sawTools []string
	srv, calls := fakeChat(t, []step{
		{tool: "lexical_search", args: `{"query_text":"\"不吃辣\"","filter":{"role":"user"}}`, check: func(r chatReq) {
			for _, tl := range r.Tools {
				sawTools = append(sawTools, tl.Function.Name)
				props, _ := tl.Function.Parameters["properties"].(map[string]any)
				for p := range props {
					if strings.Contains(p, "user") {
						t.Errorf("tool %s offers a user parameter %q", tl.Function.Name, p)
					}
				}
				if _, ok := tl.Function.Parameters["$schema"]; ok {
					t.Errorf("tool %s schema keeps $schema", tl.Function.Name)
				}
			}
		}},
		// Arguments double-encoded as a JSON string, as some servers send them.
		{tool: "neighbors", args: `"{\"message_id\":\"d1\",\"before\":1,\"after\":1}"`},
		{content: "Here you go:\n```json\n" + finalJSON("constraints", "d1", "不吃辣", "changed", "enough_evidence") + "\n```"},
	})
	a := llmAgent(t, srv.URL)
	resp, err := a.Recall(t.Context(), "qq:10001", agent.Request{Question: "我是不是说过不吃辣？", Options: agent.Options{Trace: true}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Limits.Brain != "llm:fake-model" || *calls != 3 {
		t.Fatalf("brain %s after %d calls; notes %v", resp.Limits.Brain, *calls, resp.Limits.Notes)
	}
	if !slices.Contains(cited(resp), "d1") || len(resp.MemoryView.Constraints) != 1 || resp.MemoryView.Constraints[0].Status != "changed" {
		t.Fatalf("view %+v, cited %v", resp.MemoryView, cited(resp))
	}
	if resp.Limits.ToolsCalled != 2 || resp.Limits.StopReason != "enough_evidence" {
		t.Fatalf("limits %+v", resp.Limits)
	}
	if diff := slices.Compare(sawTools, []string{"messages_list", "lexical_search", "semantic_search", "neighbors"}); diff != 0 {
		t.Fatalf("tools offered %v", sawTools)
	}
}

func TestLLMBrainVerifierAndIsolation(t *testing.T) {
	srv, _ := fakeChat(t, []step{
		{tool: "lexical_search", args: `{not json`},
		// x1 belongs to qq:20002: not found for qq:10001.
		{tool: "neighbors", args: `{"message_id":"x1"}`},
		{tool: "semantic_search", args: `{"query_text":"辣","user_id":"qq:20002"}`},
		// Cites another user's message and one no tool returned.
		{content: finalJSON("preferences", "x1", "喜欢吃辣", "current", "enough_evidence")},
	})
	a := llmAgent(t, srv.URL)
	resp, err := a.Recall(t.Context(), "qq:10001", agent.Request{Question: "我喜欢吃辣吗？"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Evidence) != 0 || resp.Limits.StopReason != "no_evidence" || len(resp.MemoryView.Preferences) != 0 {
		t.Fatalf("unverified citation kept: %+v", resp)
	}
	notes := strings.Join(resp.Limits.Notes, "\n")
	for _, want := range []string{"dropped citation", "tool call of the model failed"} {
		if !strings.Contains(notes, want) {
			t.Fatalf("notes %q lack %q", notes, want)
		}
	}
	if resp.Limits.Brain != "llm:fake-model" {
		t.Fatalf("brain %s", resp.Limits.Brain)
	}
}

func TestLLMBrainFallsBack(t *testing.T) {
	tests := []struct {
		name   string
		script []step
		budget int
	}{
		{"rate limited", []step{{status: 429}, {status: 429}, {status: 429}, {status: 429}}, 0},
		{"server error", []step{{status: 500}, {status: 500}, {status: 500}, {status: 500}}, 0},
		{"timeout", []step{{delay: 3 * time.Second, content: "{}"}}, 400},
		{"garbage answer", []step{{content: "I think you like tea."}, {content: "really, tea"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := fakeChat(t, tt.script)
			a := llmAgent(t, srv.URL)
			resp, err := a.Recall(t.Context(), "qq:10001", agent.Request{Question: "我有什么忌口吗？",
				Context: agent.RequestContext{Now: "2026-11-22T12:00:00+08:00"}, Options: agent.Options{BudgetMS: tt.budget}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Limits.Brain != "offline" || !strings.Contains(strings.Join(resp.Limits.Notes, " "), "language model failed") {
				t.Fatalf("brain %s notes %v", resp.Limits.Brain, resp.Limits.Notes)
			}
			if !slices.Contains(cited(resp), "d3") {
				t.Fatalf("offline fallback cited %v", cited(resp))
			}
		})
	}
}
