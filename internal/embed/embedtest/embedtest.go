// Package embedtest runs a local OpenAI-compatible embeddings server for
// tests (POST /embeddings on loopback). Its vectors come from the built-in
// hashing embedder, so similar texts get similar vectors, and it can be made
// to fail and recover, to test how recalld degrades when its embedder is down.
package embedtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/recalld/recalld/internal/embed"
)

// Server is a local embeddings endpoint. Use URL as the embedder's base URL.
type Server struct {
	URL string

	dim      int
	hashing  *embed.Hashing
	failing  atomic.Bool
	requests atomic.Int64
	failures atomic.Int64
}

// New starts a server answering vectors of dimension dim (64..8192); it
// closes when tb ends.
func New(tb testing.TB, dim int) *Server {
	tb.Helper()
	s := &Server{dim: dim, hashing: embed.NewHashing(dim)}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// Dim is the length of the vectors the server returns.
func (s *Server) Dim() int { return s.dim }

// SetFailing makes every following request fail with 503 (true) or succeed (false).
func (s *Server) SetFailing(fail bool) { s.failing.Store(fail) }

// Requests counts the requests received, failed ones included.
func (s *Server) Requests() int64 { return s.requests.Load() }

// Failures counts the requests answered with an error.
func (s *Server) Failures() int64 { return s.failures.Load() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/embeddings" {
		s.failures.Add(1)
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if s.failing.Load() {
		s.failures.Add(1)
		http.Error(w, `{"error":{"message":"model is loading","type":"server_error"}}`, http.StatusServiceUnavailable)
		return
	}
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		s.failures.Add(1)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	vecs, err := s.hashing.Embed(r.Context(), req.Input)
	if err != nil {
		s.failures.Add(1)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(vecs))
	for i, v := range vecs {
		data[i] = item{Object: "embedding", Index: i, Embedding: v}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"model":  req.Model,
		"data":   data,
		"usage":  map[string]int{"prompt_tokens": len(req.Input), "total_tokens": len(req.Input)},
	})
}
