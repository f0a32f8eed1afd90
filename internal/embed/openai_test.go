package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fakeRequest is what fakeOpenAI saw of one request.
type fakeRequest struct {
	Auth  string
	Org   string // OpenAI-Organization header
	Model string
	Input []string
}

// fakeOpenAI is a local server speaking the OpenAI embeddings protocol
// (POST /embeddings). By default it answers every text with
// fakeOpenAIVector(text, dim); reply, if set, answers instead.
type fakeOpenAI struct {
	dim int

	mu    sync.Mutex
	reqs  []fakeRequest
	reply func(w http.ResponseWriter, r *http.Request, input []string)
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/embeddings" {
		http.Error(w, fmt.Sprintf("unexpected %s %s", r.Method, r.URL.Path), http.StatusNotFound)
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
	f.reqs = append(f.reqs, fakeRequest{Auth: r.Header.Get("Authorization"), Org: r.Header.Get("OpenAI-Organization"), Model: req.Model, Input: req.Input})
	reply := f.reply
	f.mu.Unlock()
	if reply != nil {
		reply(w, r, req.Input)
		return
	}
	vs := make([][]float32, len(req.Input))
	for i, text := range req.Input {
		vs[i] = fakeOpenAIVector(text, f.dim)
	}
	writeEmbeddings(w, req.Model, vs)
}

// requests returns a copy of the requests seen so far.
func (f *fakeOpenAI) requests() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.reqs...)
}

func (f *fakeOpenAI) setReply(reply func(w http.ResponseWriter, r *http.Request, input []string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reply = reply
}

// inputs returns the input of every request seen so far.
func (f *fakeOpenAI) inputs() [][]string {
	var in [][]string
	for _, r := range f.requests() {
		in = append(in, r.Input)
	}
	return in
}

// writeEmbeddings answers with vs in the OpenAI embeddings response format.
func writeEmbeddings(w http.ResponseWriter, model string, vs [][]float32) {
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	data := make([]item, len(vs))
	for i, v := range vs {
		data[i] = item{Object: "embedding", Index: i, Embedding: v}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list",
		"data":   data,
		"model":  model,
		"usage":  map[string]int{"prompt_tokens": len(vs), "total_tokens": len(vs)},
	})
}

// fakeOpenAIVector is the raw vector the fake server returns for text: a
// function of the text alone, different for different texts, and never of
// unit length, so the client's ordering and normalisation show.
func fakeOpenAIVector(text string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	sum := h.Sum64()
	v := make([]float32, dim)
	for j := range v {
		v[j] = float32(sum>>(8*(j%8))&0xff) + float32(j) + 1
	}
	return v
}

// wantOpenAIVector is what Embed should return for text.
func wantOpenAIVector(text string, dim int) []float32 {
	if strings.TrimSpace(text) == "" {
		return make([]float32, dim)
	}
	v := fakeOpenAIVector(text, dim)
	Normalize(v)
	return v
}

// newFakeOpenAI starts a fake server answering vectors of length dim.
func newFakeOpenAI(tb testing.TB, dim int) (*fakeOpenAI, *httptest.Server) {
	tb.Helper()
	f := &fakeOpenAI{dim: dim}
	srv := httptest.NewServer(f)
	tb.Cleanup(srv.Close)
	return f, srv
}

// mustNewOpenAI returns a client for cfg pointed at srv.
func mustNewOpenAI(tb testing.TB, srv *httptest.Server, cfg OpenAIConfig) *OpenAI {
	tb.Helper()
	cfg.BaseURL = srv.URL
	e, err := NewOpenAI(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

var approx = cmpopts.EquateApprox(0, 1e-6)

func TestOpenAIProbeAndName(t *testing.T) {
	tests := []struct {
		name       string
		model      string
		dim        int // OpenAIConfig.Dim
		serverDim  int
		wantDim    int
		wantName   string
		wantInputs [][]string
	}{
		{
			name:       "probe",
			model:      "nomic-embed-text",
			serverDim:  7,
			wantDim:    7,
			wantName:   "openai:nomic-embed-text:7",
			wantInputs: [][]string{{probeText}},
		},
		{
			name:      "configured dim sends nothing",
			model:     "text-embedding-3-small",
			dim:       5,
			serverDim: 5,
			wantDim:   5,
			wantName:  "openai:text-embedding-3-small:5",
		},
		{
			name:       "model with slash and colon",
			model:      "nomic-ai/nomic-embed-text:v1.5",
			serverDim:  3,
			wantDim:    3,
			wantName:   "openai:nomic-ai/nomic-embed-text:v1.5:3",
			wantInputs: [][]string{{probeText}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeOpenAI(t, tt.serverDim)
			e := mustNewOpenAI(t, srv, OpenAIConfig{Model: tt.model, Dim: tt.dim})
			if got := e.Dim(); got != tt.wantDim {
				t.Errorf("Dim() = %d, want %d", got, tt.wantDim)
			}
			if got := e.Name(); got != tt.wantName {
				t.Errorf("Name() = %q, want %q", got, tt.wantName)
			}
			if diff := cmp.Diff(tt.wantInputs, f.inputs()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenAIProbeErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply func(w http.ResponseWriter, r *http.Request, input []string)
	}{
		{"server error", func(w http.ResponseWriter, r *http.Request, input []string) {
			http.Error(w, `{"error":{"message":"boom"}}`, http.StatusInternalServerError)
		}},
		{"empty vector", func(w http.ResponseWriter, r *http.Request, input []string) {
			writeEmbeddings(w, "m", [][]float32{{}})
		}},
		{"no vectors", func(w http.ResponseWriter, r *http.Request, input []string) {
			writeEmbeddings(w, "m", nil)
		}},
		{"malformed JSON", func(w http.ResponseWriter, r *http.Request, input []string) {
			w.Write([]byte(`{"object":"list","data":[{"embedding":[1,`))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeOpenAI(t, 4)
			f.setReply(tt.reply)
			e, err := NewOpenAI(t.Context(), OpenAIConfig{BaseURL: srv.URL, Model: "m"})
			if err == nil {
				t.Fatalf("NewOpenAI succeeded with dim %d, want error", e.Dim())
			}
			if !strings.Contains(err.Error(), "probe dimension") {
				t.Errorf("err = %v, want a probe error", err)
			}
		})
	}
}

func TestOpenAIConfigErrors(t *testing.T) {
	// Nothing listens on port 1, so a request would fail; the config
	// errors must come first.
	const unreachable = "http://127.0.0.1:1/v1"
	tests := []struct {
		name string
		cfg  OpenAIConfig
	}{
		{"no model", OpenAIConfig{BaseURL: unreachable, Dim: 4}},
		{"negative dim", OpenAIConfig{BaseURL: unreachable, Model: "m", Dim: -1}},
		{"negative batch size", OpenAIConfig{BaseURL: unreachable, Model: "m", Dim: 4, BatchSize: -1}},
		{"negative timeout", OpenAIConfig{BaseURL: unreachable, Model: "m", Dim: 4, Timeout: -time.Second}},
		{"unreachable server to probe", OpenAIConfig{BaseURL: unreachable, Model: "m", Timeout: 5 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewOpenAI(t.Context(), tt.cfg); err == nil {
				t.Fatal("NewOpenAI succeeded, want error")
			}
		})
	}
}

func TestOpenAIEmbedBatching(t *testing.T) {
	const dim = 6
	many := make([]string, 130)
	for i := range many {
		many[i] = fmt.Sprintf("text %d", i)
	}
	tests := []struct {
		name       string
		batchSize  int
		texts      []string
		wantInputs [][]string
	}{
		{
			name:       "uneven batches",
			batchSize:  2,
			texts:      []string{"a", "bb", "ccc", "dddd", "eeeee"},
			wantInputs: [][]string{{"a", "bb"}, {"ccc", "dddd"}, {"eeeee"}},
		},
		{
			name:       "even batches",
			batchSize:  2,
			texts:      []string{"a", "bb", "ccc", "dddd"},
			wantInputs: [][]string{{"a", "bb"}, {"ccc", "dddd"}},
		},
		{
			name:       "batch size one",
			batchSize:  1,
			texts:      []string{"x", "y", "z"},
			wantInputs: [][]string{{"x"}, {"y"}, {"z"}},
		},
		{
			name:       "batch larger than input",
			batchSize:  10,
			texts:      []string{"x", "y", "z"},
			wantInputs: [][]string{{"x", "y", "z"}},
		},
		{
			name:       "default batch size",
			texts:      many,
			wantInputs: [][]string{many[:64], many[64:128], many[128:]},
		},
		{
			name:       "blank texts are not sent",
			batchSize:  2,
			texts:      []string{"a", "", " \t\n", "b", "c", "  "},
			wantInputs: [][]string{{"a", "b"}, {"c"}},
		},
		{
			name:      "only blank texts",
			batchSize: 2,
			texts:     []string{"", "   "},
		},
		{
			name:      "empty input",
			batchSize: 2,
			texts:     []string{},
		},
		{
			name:      "nil input",
			batchSize: 2,
		},
		{
			name:       "duplicates keep their places",
			batchSize:  2,
			texts:      []string{"same", "other", "same"},
			wantInputs: [][]string{{"same", "other"}, {"same"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeOpenAI(t, dim)
			e := mustNewOpenAI(t, srv, OpenAIConfig{Model: "m", Dim: dim, BatchSize: tt.batchSize})
			got, err := e.Embed(t.Context(), tt.texts)
			if err != nil {
				t.Fatal(err)
			}
			want := make([][]float32, len(tt.texts))
			for i, text := range tt.texts {
				want[i] = wantOpenAIVector(text, dim)
			}
			if diff := cmp.Diff(want, got, approx, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("vectors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantInputs, f.inputs(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("request inputs (-want +got):\n%s", diff)
			}
			for i, v := range got {
				n := math.Sqrt(l2sq(v))
				if strings.TrimSpace(tt.texts[i]) == "" {
					if n != 0 {
						t.Errorf("blank text %d: norm %v, want 0", i, n)
					}
				} else if math.Abs(n-1) > 1e-5 {
					t.Errorf("text %d: norm %v, want 1", i, n)
				}
			}
		})
	}
}

func l2sq(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}

func TestOpenAIRequestHeadersAndModel(t *testing.T) {
	tests := []struct {
		name     string
		token    string
		model    string
		wantAuth string
	}{
		{"placeholder token", "", "nomic-embed-text", "Bearer " + tokenPlaceholder},
		{"configured token", "sk-test", "text-embedding-3-small", "Bearer sk-test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// langchaingo reads these when they are not set explicitly;
			// NewOpenAI must not pick them up.
			t.Setenv("OPENAI_API_KEY", "sk-from-env")
			t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/env")
			t.Setenv("OPENAI_API_BASE", "http://127.0.0.1:1/env")
			t.Setenv("OPENAI_ORGANIZATION", "org-from-env")

			f, srv := newFakeOpenAI(t, 3)
			e := mustNewOpenAI(t, srv, OpenAIConfig{Token: tt.token, Model: tt.model, BatchSize: 1})
			if _, err := e.Embed(t.Context(), []string{"a", "b"}); err != nil {
				t.Fatal(err)
			}
			want := []fakeRequest{
				{Auth: tt.wantAuth, Model: tt.model, Input: []string{probeText}},
				{Auth: tt.wantAuth, Model: tt.model, Input: []string{"a"}},
				{Auth: tt.wantAuth, Model: tt.model, Input: []string{"b"}},
			}
			if diff := cmp.Diff(want, f.requests()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenAIBaseURLTrailingSlash(t *testing.T) {
	f, srv := newFakeOpenAI(t, 3)
	e, err := NewOpenAI(t.Context(), OpenAIConfig{BaseURL: srv.URL + "/", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 3 || len(f.requests()) != 1 {
		t.Fatalf("dim %d after %d requests, want 3 after 1", e.Dim(), len(f.requests()))
	}
}

func TestOpenAIHTTPClient(t *testing.T) {
	_, srv := newFakeOpenAI(t, 3)
	var trips atomic.Int32
	client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		trips.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
	e := mustNewOpenAI(t, srv, OpenAIConfig{Model: "m", HTTPClient: client, BatchSize: 1})
	if _, err := e.Embed(t.Context(), []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if got := trips.Load(); got != 3 {
		t.Errorf("custom client sent %d requests, want 3 (probe and two batches)", got)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestOpenAIEmbedBadResponses(t *testing.T) {
	const dim = 4
	vectors := func(n, dim int) [][]float32 {
		vs := make([][]float32, n)
		for i := range vs {
			vs[i] = fakeOpenAIVector(fmt.Sprint(i), dim)
		}
		return vs
	}
	tests := []struct {
		name  string
		reply func(w http.ResponseWriter, r *http.Request, input []string)
	}{
		{"500 with OpenAI error body", func(w http.ResponseWriter, r *http.Request, input []string) {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"message":"boom","type":"server_error"}}`))
		}},
		{"500 with text body", func(w http.ResponseWriter, r *http.Request, input []string) {
			http.Error(w, "internal error", http.StatusInternalServerError)
		}},
		{"429", func(w http.ResponseWriter, r *http.Request, input []string) {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"rate limited","type":"requests"}}`))
		}},
		{"404", func(w http.ResponseWriter, r *http.Request, input []string) {
			http.NotFound(w, r)
		}},
		{"truncated JSON", func(w http.ResponseWriter, r *http.Request, input []string) {
			w.Write([]byte(`{"object":"list","data":[{"embedding":[1,`))
		}},
		{"HTML", func(w http.ResponseWriter, r *http.Request, input []string) {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(`<html><body>proxy error</body></html>`))
		}},
		{"empty body", func(w http.ResponseWriter, r *http.Request, input []string) {}},
		{"embedding of strings", func(w http.ResponseWriter, r *http.Request, input []string) {
			w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":["a","b","c","d"]}]}`))
		}},
		{"no data", func(w http.ResponseWriter, r *http.Request, input []string) {
			writeEmbeddings(w, "m", nil)
		}},
		{"too few vectors", func(w http.ResponseWriter, r *http.Request, input []string) {
			writeEmbeddings(w, "m", vectors(len(input)-1, dim))
		}},
		{"too many vectors", func(w http.ResponseWriter, r *http.Request, input []string) {
			writeEmbeddings(w, "m", vectors(len(input)+1, dim))
		}},
		{"short vector", func(w http.ResponseWriter, r *http.Request, input []string) {
			writeEmbeddings(w, "m", vectors(len(input), dim-1))
		}},
		{"long vector", func(w http.ResponseWriter, r *http.Request, input []string) {
			writeEmbeddings(w, "m", vectors(len(input), dim+1))
		}},
		{"one vector of the wrong length", func(w http.ResponseWriter, r *http.Request, input []string) {
			vs := vectors(len(input), dim)
			vs[len(vs)-1] = vs[len(vs)-1][:1]
			writeEmbeddings(w, "m", vs)
		}},
		{"empty vector", func(w http.ResponseWriter, r *http.Request, input []string) {
			vs := vectors(len(input), dim)
			vs[0] = []float32{}
			writeEmbeddings(w, "m", vs)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeOpenAI(t, dim)
			f.setReply(tt.reply)
			e := mustNewOpenAI(t, srv, OpenAIConfig{Model: "m", Dim: dim})
			got, err := e.Embed(t.Context(), []string{"a", "b", "c"})
			if err == nil {
				t.Fatalf("Embed = %v, want error", got)
			}
			if got != nil {
				t.Errorf("Embed returned vectors %v with error %v", got, err)
			}
			if !strings.HasPrefix(err.Error(), "embed: openai m: ") {
				t.Errorf("err = %q, want the embed: openai m: prefix", err)
			}
		})
	}
}

// TestOpenAIDimChangeAfterProbe: a server whose model changes after the probe
// must not slip vectors of another length into the store.
func TestOpenAIDimChangeAfterProbe(t *testing.T) {
	f, srv := newFakeOpenAI(t, 4)
	e := mustNewOpenAI(t, srv, OpenAIConfig{Model: "m"})
	f.setReply(func(w http.ResponseWriter, r *http.Request, input []string) {
		vs := make([][]float32, len(input))
		for i, text := range input {
			vs[i] = fakeOpenAIVector(text, 8)
		}
		writeEmbeddings(w, "m", vs)
	})
	if _, err := e.Embed(t.Context(), []string{"a"}); err == nil {
		t.Fatal("Embed accepted a vector of length 8 from a 4-dimensional embedder")
	}
}

// TestOpenAIBadBatchFailsWholeCall: an error in a later batch fails Embed
// even though earlier batches succeeded.
func TestOpenAIBadBatchFailsWholeCall(t *testing.T) {
	f, srv := newFakeOpenAI(t, 4)
	e := mustNewOpenAI(t, srv, OpenAIConfig{Model: "m", Dim: 4, BatchSize: 1})
	var n atomic.Int32
	f.setReply(func(w http.ResponseWriter, r *http.Request, input []string) {
		if n.Add(1) == 2 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		writeEmbeddings(w, "m", [][]float32{fakeOpenAIVector(input[0], 4)})
	})
	got, err := e.Embed(t.Context(), []string{"a", "b", "c"})
	if err == nil {
		t.Fatalf("Embed = %v, want error", got)
	}
	if diff := cmp.Diff([][]string{{"a"}, {"b"}}, f.inputs()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestOpenAIContext(t *testing.T) {
	tests := []struct {
		name    string
		timeout time.Duration // OpenAIConfig.Timeout
		// ctx returns the context for Embed; started is closed when the
		// server has the request.
		ctx          func(t *testing.T, started <-chan struct{}) context.Context
		want         error
		wantRequests int
	}{
		{
			name: "cancelled before the call",
			ctx: func(t *testing.T, _ <-chan struct{}) context.Context {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				return ctx
			},
			want: context.Canceled,
		},
		{
			name: "cancelled during the request",
			ctx: func(t *testing.T, started <-chan struct{}) context.Context {
				ctx, cancel := context.WithCancel(t.Context())
				go func() {
					<-started
					cancel()
				}()
				t.Cleanup(cancel)
				return ctx
			},
			want:         context.Canceled,
			wantRequests: 1,
		},
		{
			name: "caller deadline",
			ctx: func(t *testing.T, _ <-chan struct{}) context.Context {
				ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
				t.Cleanup(cancel)
				return ctx
			},
			want:         context.DeadlineExceeded,
			wantRequests: 1,
		},
		{
			name:    "configured timeout",
			timeout: 50 * time.Millisecond,
			ctx: func(t *testing.T, _ <-chan struct{}) context.Context {
				return t.Context()
			},
			want:         context.DeadlineExceeded,
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := newFakeOpenAI(t, 4)
			e := mustNewOpenAI(t, srv, OpenAIConfig{Model: "m", Dim: 4, Timeout: tt.timeout})
			started := make(chan struct{})
			var once sync.Once
			// The server never answers; it waits for the client to go away.
			f.setReply(func(w http.ResponseWriter, r *http.Request, input []string) {
				once.Do(func() { close(started) })
				select {
				case <-r.Context().Done():
				case <-time.After(10 * time.Second):
				}
			})
			start := time.Now()
			got, err := e.Embed(tt.ctx(t, started), []string{"a"})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Embed = %v, %v; want error %v", got, err, tt.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Embed took %v to give up", d)
			}
			if got := len(f.requests()); got != tt.wantRequests {
				t.Errorf("%d requests, want %d", got, tt.wantRequests)
			}
		})
	}
}

func TestOpenAIProbeContext(t *testing.T) {
	_, srv := newFakeOpenAI(t, 4)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := NewOpenAI(ctx, OpenAIConfig{BaseURL: srv.URL, Model: "m"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("NewOpenAI with a cancelled context: err = %v, want %v", err, context.Canceled)
	}
}

func TestOpenAIConcurrent(t *testing.T) {
	const dim = 5
	f, srv := newFakeOpenAI(t, dim)
	e := mustNewOpenAI(t, srv, OpenAIConfig{Model: "m", BatchSize: 3})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			texts := make([]string, 7)
			want := make([][]float32, len(texts))
			for i := range texts {
				texts[i] = fmt.Sprintf("goroutine %d text %d", g, i)
				want[i] = wantOpenAIVector(texts[i], dim)
			}
			got, err := e.Embed(t.Context(), texts)
			if err != nil {
				t.Error(err)
				return
			}
			if diff := cmp.Diff(want, got, approx); diff != "" {
				t.Errorf("goroutine %d vectors (-want +got):\n%s", g, diff)
			}
		})
	}
	wg.Wait()
	// One probe, then 8 calls of 7 texts in batches of 3.
	if got, want := len(f.requests()), 1+8*3; got != want {
		t.Errorf("%d requests, want %d", got, want)
	}
}
