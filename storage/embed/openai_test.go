package embed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeEmbeddings is a local server speaking the OpenAI embeddings protocol:
// each text becomes a vector of dim numbers derived from its length, so the
// client's batching and ordering can be checked.
type fakeEmbeddings struct {
	mu       sync.Mutex
	dim      int
	requests [][]string // the inputs of every request
	auth     []string
	models   []string
	status   int           // non-zero: answer every request with this status
	garbage  bool          // answer with malformed JSON
	delay    time.Duration // sleep before answering
	wrongDim bool          // answer vectors one element short
}

func (f *fakeEmbeddings) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/embeddings" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req.Input)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.models = append(f.models, req.Model)
	status, garbage, delay, dim := f.status, f.garbage, f.delay, f.dim
	if f.wrongDim {
		dim--
	}
	f.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
	}
	if status != 0 {
		w.WriteHeader(status)
		w.Write([]byte(`{"error":{"message":"scripted failure","type":"server_error"}}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if garbage {
		w.Write([]byte(`{"object":"list","data":[{"embedding":`))
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(req.Input))
	for i, text := range req.Input {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(len([]rune(text)) + j) // not normalised: the client must do it
		}
		data[i] = item{Object: "embedding", Index: i, Embedding: v}
	}
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1},
	})
}

func newFake(t *testing.T, dim int) (*fakeEmbeddings, *httptest.Server) {
	t.Helper()
	f := &fakeEmbeddings{dim: dim}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func TestOpenAIProbeNameAndBatching(t *testing.T) {
	f, srv := newFake(t, 8)
	e, err := NewOpenAI(t.Context(), OpenAIConfig{BaseURL: srv.URL, Model: "nomic-embed-text", BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 8 || e.Name() != "openai:nomic-embed-text:8" {
		t.Fatalf("dim %d name %q", e.Dim(), e.Name())
	}
	texts := []string{"a", "bb", "   ", "dddd", "eeeee"}
	vs, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	// One probe, then 4 non-blank texts in batches of 2.
	if len(f.requests) != 3 || len(f.requests[1]) != 2 || len(f.requests[2]) != 2 {
		t.Fatalf("requests = %v", f.requests)
	}
	for i, v := range vs {
		if len(v) != 8 {
			t.Fatalf("vector %d has %d dims", i, len(v))
		}
		var norm float64
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if texts[i] == "   " {
			if norm != 0 {
				t.Fatalf("blank text got a non-zero vector")
			}
			continue
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Fatalf("vector %d not normalised: %v", i, norm)
		}
	}
	// Order is kept: vector i was made from text i (its first element grows with the length).
	if !(vs[0][0] < vs[1][0] || vs[1][0] < vs[3][0]) {
		t.Fatalf("vectors out of order: %v %v %v", vs[0][0], vs[1][0], vs[3][0])
	}
	for _, a := range f.auth {
		if !strings.HasPrefix(a, "Bearer ") || a == "Bearer " {
			t.Fatalf("authorization header %q: want a placeholder token", a)
		}
	}
	for _, m := range f.models {
		if m != "nomic-embed-text" {
			t.Fatalf("model sent %q", m)
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	tests := []struct {
		name   string
		script func(*fakeEmbeddings)
		ctx    func() (context.Context, context.CancelFunc)
		check  func(error) bool
	}{
		{"server error", func(f *fakeEmbeddings) { f.status = 500 }, nil, nil},
		{"rate limited", func(f *fakeEmbeddings) { f.status = 429 }, nil, nil},
		{"malformed JSON", func(f *fakeEmbeddings) { f.garbage = true }, nil, nil},
		{"wrong dimension", func(f *fakeEmbeddings) { f.wrongDim = true }, nil, nil},
		{"timeout", func(f *fakeEmbeddings) { f.delay = 2 * time.Second }, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFake(t, 4)
			e, err := NewOpenAI(t.Context(), OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 4, Token: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			f.mu.Lock()
			tt.script(f)
			f.mu.Unlock()
			ctx := t.Context()
			if tt.ctx != nil {
				c, cancel := tt.ctx()
				defer cancel()
				ctx = c
			}
			_, err = e.Embed(ctx, []string{"hello"})
			if err == nil {
				t.Fatal("no error")
			}
			if tt.check != nil && !tt.check(err) {
				t.Fatalf("err = %v", err)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.auth) > 0 && f.auth[0] != "Bearer sk-test" {
				t.Fatalf("token sent as %q", f.auth[0])
			}
		})
	}
}

func TestOpenAIConfigErrors(t *testing.T) {
	if _, err := NewOpenAI(t.Context(), OpenAIConfig{BaseURL: "http://127.0.0.1:1"}); err == nil {
		t.Fatal("missing model accepted")
	}
	if _, err := NewOpenAI(t.Context(), OpenAIConfig{BaseURL: "http://127.0.0.1:1", Model: "m", Dim: -1}); err == nil {
		t.Fatal("negative dim accepted")
	}
	// Probing an unreachable server fails instead of guessing a dimension.
	if _, err := NewOpenAI(t.Context(), OpenAIConfig{BaseURL: "http://127.0.0.1:1", Model: "m", Timeout: time.Second}); err == nil {
		t.Fatal("probe of an unreachable server succeeded")
	}
	f, srv := newFake(t, 4)
	e, err := NewOpenAI(t.Context(), OpenAIConfig{BaseURL: srv.URL, Model: "m", Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := e.Embed(t.Context(), nil)
	if err != nil || len(vs) != 0 || len(f.requests) != 0 {
		t.Fatalf("empty input: %v %v, %d requests", vs, err, len(f.requests))
	}
}
