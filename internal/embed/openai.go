package embed

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms/openai"
)

// Defaults for OpenAIConfig.
const (
	DefaultOpenAIBaseURL   = "https://api.openai.com/v1"
	DefaultOpenAIBatchSize = 64
	DefaultOpenAITimeout   = 60 * time.Second
)

// tokenPlaceholder is sent when no token is configured: langchaingo refuses
// to start without one, and local servers (Ollama, vLLM, TEI) ignore it.
const tokenPlaceholder = "unused"

// probeText is embedded once by NewOpenAI to discover the dimension.
const probeText = "dimension probe"

// OpenAIConfig configures an OpenAI-compatible embeddings client.
type OpenAIConfig struct {
	// BaseURL is the API root; requests go to BaseURL + "/embeddings".
	// Empty means DefaultOpenAIBaseURL. For Ollama use
	// "http://localhost:11434/v1".
	BaseURL string
	// Token is the bearer token. Empty sends a placeholder, which local
	// servers accept.
	Token string
	// Model is the embedding model name, for example
	// "text-embedding-3-small" or "nomic-embed-text". Required.
	Model string
	// Dim is the expected vector length. 0 discovers it with one probe
	// request in NewOpenAI. It is checked against every response and is not
	// sent to the server.
	Dim int
	// BatchSize is the most texts sent in one request; 0 means
	// DefaultOpenAIBatchSize.
	BatchSize int
	// Timeout bounds each request; 0 means DefaultOpenAITimeout.
	Timeout time.Duration
	// HTTPClient, if set, sends the requests instead of langchaingo's
	// default client.
	HTTPClient *http.Client
}

// OpenAI embeds text with an OpenAI-compatible embeddings endpoint (OpenAI,
// Ollama /v1, vLLM, TEI) through langchaingo. It does not implement
// TermWeighter. An OpenAI is safe for concurrent use.
type OpenAI struct {
	llm     *openai.LLM
	model   string
	name    string
	dim     int
	batch   int
	timeout time.Duration
}

// NewOpenAI returns a client for cfg. When cfg.Dim is 0 it embeds one probe
// text with ctx to learn the dimension, so the server must be reachable.
func NewOpenAI(ctx context.Context, cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.Model == "" {
		return nil, errors.New("embed: openai: model is required")
	}
	if cfg.Dim < 0 || cfg.BatchSize < 0 || cfg.Timeout < 0 {
		return nil, fmt.Errorf("embed: openai %s: negative dim, batch size or timeout", cfg.Model)
	}
	opts := []openai.Option{
		// Every option that langchaingo would otherwise read from the
		// environment is set explicitly.
		openai.WithBaseURL(cmp.Or(cfg.BaseURL, DefaultOpenAIBaseURL)),
		openai.WithToken(cmp.Or(cfg.Token, tokenPlaceholder)),
		openai.WithOrganization(""),
		openai.WithEmbeddingModel(cfg.Model),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, openai.WithHTTPClient(cfg.HTTPClient))
	}
	llm, err := openai.New(opts...)
	if err != nil {
		return nil, fmt.Errorf("embed: openai %s: %w", cfg.Model, err)
	}
	e := &OpenAI{
		llm:     llm,
		model:   cfg.Model,
		dim:     cfg.Dim,
		batch:   cmp.Or(cfg.BatchSize, DefaultOpenAIBatchSize),
		timeout: cmp.Or(cfg.Timeout, DefaultOpenAITimeout),
	}
	if e.dim == 0 {
		vs, err := e.call(ctx, []string{probeText})
		if err != nil {
			return nil, fmt.Errorf("embed: openai %s: probe dimension: %w", e.model, err)
		}
		if len(vs[0]) == 0 {
			return nil, fmt.Errorf("embed: openai %s: probe dimension: empty vector", e.model)
		}
		e.dim = len(vs[0])
	}
	e.name = fmt.Sprintf("openai:%s:%d", e.model, e.dim)
	return e, nil
}

// Name returns "openai:<model>:<dim>".
func (e *OpenAI) Name() string { return e.name }

// Dim returns the vector length.
func (e *OpenAI) Dim() int { return e.dim }

// Embed returns one L2-normalised vector per text, sending at most BatchSize
// texts per request. Blank texts are not sent (OpenAI rejects empty input)
// and get a zero vector. It fails if the server returns a different number of
// vectors or a vector whose length is not Dim.
func (e *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: openai %s: %w", e.model, err)
	}
	out := make([][]float32, len(texts))
	send := make([]int, 0, len(texts)) // indexes of the texts to send
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			out[i] = make([]float32, e.dim)
			continue
		}
		send = append(send, i)
	}
	batch := make([]string, 0, min(e.batch, len(send)))
	for start := 0; start < len(send); start += e.batch {
		idx := send[start:min(start+e.batch, len(send))]
		batch = batch[:0]
		for _, i := range idx {
			batch = append(batch, texts[i])
		}
		vs, err := e.call(ctx, batch)
		if err != nil {
			return nil, fmt.Errorf("embed: openai %s: %w", e.model, err)
		}
		for j, v := range vs {
			if len(v) != e.dim {
				return nil, fmt.Errorf("embed: openai %s: vector of length %d, want %d", e.model, len(v), e.dim)
			}
			Normalize(v)
			out[idx[j]] = v
		}
	}
	return out, nil
}

// call sends one request and checks the vector count.
func (e *OpenAI) call(ctx context.Context, texts []string) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	vs, err := e.llm.CreateEmbedding(ctx, texts)
	if err != nil {
		// langchaingo replaces context errors with plain strings; report
		// the context's own error so callers can match it.
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	if len(vs) != len(texts) {
		return nil, fmt.Errorf("got %d vectors for %d texts", len(vs), len(texts))
	}
	return vs, nil
}
