// Package llmtest is a local OpenAI-compatible chat server for tests: it
// answers POST /chat/completions from a script of replies (text, tool calls
// or HTTP errors) and keeps the requests it read, so that the real
// langchaingo client runs against it on loopback.
package llmtest

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
)

// Reply is one scripted reply of the server: an HTTP error, tool calls, or
// a final message.
type Reply struct {
	Status  int           // non-zero: reply with this HTTP status and an OpenAI error body
	Delay   time.Duration // wait first (or until the client gives up)
	Calls   []Call
	Content string
}

// Call is one tool call of a reply.
type Call struct{ Name, Args string }

// ToolCall is a reply calling one tool with args (raw JSON text, sent as is).
func ToolCall(name, args string) Reply { return Reply{Calls: []Call{{name, args}}} }

// Say is a reply with text only.
func Say(content string) Reply { return Reply{Content: content} }

// Request is what the server read from one chat-completions request.
type Request struct {
	Model       string   `json:"model"`
	Temperature *float64 `json:"temperature"`
	ToolChoice  any      `json:"tool_choice"`
	Messages    []struct {
		Role       string `json:"role"`
		Content    any    `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	// Auth is the Authorization header.
	Auth string `json:"-"`
}

// Text flattens a message content (a string or a list of parts).
func Text(content any) string {
	switch c := content.(type) {
	case string:
		return c
	case []any:
		var sb strings.Builder
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				s, _ := m["text"].(string)
				sb.WriteString(s)
			}
		}
		return sb.String()
	}
	return ""
}

// Server is a local chat-completions server replying from a script. A
// request beyond the script fails the test.
type Server struct {
	*httptest.Server
	t      testing.TB
	script []Reply

	mu   sync.Mutex
	reqs []Request
}

// New starts a server answering with script, in order, and closes it when
// the test ends. Its URL is the API root to give the client.
func New(t testing.TB, script ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/chat/completions" {
		s.t.Errorf("llmtest: %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
		return
	}
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.t.Errorf("llmtest: request: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Auth = r.Header.Get("Authorization")
	s.mu.Lock()
	i := len(s.reqs)
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if i >= len(s.script) {
		s.t.Errorf("llmtest: request %d beyond the script", i+1)
		http.Error(w, `{"error":{"message":"script exhausted"}}`, http.StatusInternalServerError)
		return
	}
	rep := s.script[i]
	if rep.Delay > 0 {
		select {
		case <-time.After(rep.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if rep.Status != 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		fmt.Fprintf(w, `{"error":{"message":"scripted %d","type":"scripted"}}`, rep.Status)
		return
	}
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	finish := "stop"
	if len(rep.Calls) > 0 {
		var tcs []map[string]any
		for j, c := range rep.Calls {
			tcs = append(tcs, map[string]any{"id": fmt.Sprintf("call_%d_%d", i, j), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Args}})
		}
		msg["content"], msg["tool_calls"], finish = nil, tcs, "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
}

// Requests returns the requests read so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

// ToolResults returns what the model was told for each tool call, in
// order, as the last request carried the whole conversation.
func (s *Server) ToolResults() []string {
	reqs := s.Requests()
	if len(reqs) == 0 {
		return nil
	}
	var out []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			out = append(out, Text(m.Content))
		}
	}
	return out
}
