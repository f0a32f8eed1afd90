package bge

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/recalld/recalld/internal/embed/internal/veccache"
)

// Name is the embedder identity of a bge-small-zh-v1.5 Encoder: model,
// version and dimension.
const Name = "bge-small-zh-v1.5-512"

// Encoder embeds text with a Model for the embed package, behind the
// prefixes of its Spec: for bge-small-zh-v1.5, documents as they are and
// search queries behind QueryPrefix, as BAAI recommends for short queries
// that look for passages; for e5-small-v2, "passage: " and "query: ", as
// intfloat asks. It is safe for concurrent use.
type Encoder struct {
	m       *Model
	name    string
	workers int
	cache   *veccache.Cache
}

// DefaultCacheSize is the number of vectors an Encoder keeps by default.
const DefaultCacheSize = 4096

// EncoderOptions tune an Encoder; the zero value is the default.
type EncoderOptions struct {
	// Workers is how many texts of a batch run at once, each on one
	// goroutine (default GOMAXPROCS). A single text (a query) splits its
	// matrix products over the Model's Threads instead.
	Workers int
	// CacheSize is the number of vectors of recent texts kept (documents
	// and queries; default DefaultCacheSize, negative: none), so a query
	// asked in every round of a recall costs one forward pass.
	CacheSize int
}

// LoadEncoder loads the model in dir (Load) with the tokenizer lower-casing
// where its Spec says so (bge-small-zh-v1.5: as BAAI's tokenizer does, which
// the shipped tokenizer.json does not), and returns its Encoder.
func LoadEncoder(dir string, opt EncoderOptions) (*Encoder, error) {
	spec, err := DetectSpec(dir)
	if err != nil {
		return nil, err
	}
	m, err := load(dir, spec, Options{Tokenizer: TokenizerOptions{Lowercase: spec.Lowercase}})
	if err != nil {
		return nil, err
	}
	return NewEncoder(m, opt), nil
}

// NewEncoder returns an Encoder over m. Load m with the tokenizer's
// Lowercase option where its Spec has it (LoadEncoder does): without it
// bge-small-zh-v1.5 turns capitalised words into [UNK].
func NewEncoder(m *Model, opt EncoderOptions) *Encoder {
	e := &Encoder{m: m, name: m.spec.Name + "-" + strconv.Itoa(m.Dim()), workers: opt.Workers}
	if m.centers != nil {
		e.name = m.spec.Name + "-c" + m.centers.id + "-" + strconv.Itoa(m.Dim())
	}
	if e.workers <= 0 {
		e.workers = runtime.GOMAXPROCS(0)
	}
	size := opt.CacheSize
	if size == 0 {
		size = DefaultCacheSize
	}
	if size > 0 {
		e.cache = veccache.New(size)
	}
	return e
}

// Name returns the embedder identity: the Spec's name and the dimension
// (Name for bge-small-zh-v1.5, "e5-small-v2-384").
func (e *Encoder) Name() string { return e.name }

// Dim returns the vector length (512; e5-small-v2: 384).
func (e *Encoder) Dim() int { return e.m.Dim() }

// Embed returns the unit document vector of each text (behind the Spec's
// DocumentPrefix), in order. Texts run in parallel, one a worker; ctx is
// checked between texts.
func (e *Encoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bge: %w", err)
	}
	out := make([][]float32, len(texts))
	workers := min(e.workers, len(texts))
	if workers <= 1 {
		for i, text := range texts {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("bge: %w", err)
			}
			out[i] = e.EmbedOne(text)
		}
		return out, nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				n := int(next.Add(1)) - 1
				if n >= len(texts) || ctx.Err() != nil {
					return
				}
				out[n] = e.embed(e.m.spec.DocumentPrefix+texts[n], 1)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bge: %w", err)
	}
	return out, nil
}

// EmbedOne returns the document vector of text (behind the Spec's
// DocumentPrefix). It cannot fail.
func (e *Encoder) EmbedOne(text string) []float32 {
	return e.embed(e.m.spec.DocumentPrefix+text, e.m.threads)
}

// EmbedQueryOne returns the vector of text as a search query: text behind
// the Spec's QueryPrefix.
func (e *Encoder) EmbedQueryOne(text string) []float32 {
	return e.embed(e.m.spec.QueryPrefix+text, e.m.threads)
}

// embed returns the vector of text (prefix included), from the cache or
// from a forward pass over threads goroutines (which it caches).
func (e *Encoder) embed(text string, threads int) []float32 {
	key := veccache.Key(text)
	v := make([]float32, e.m.Dim())
	if e.cache.Get(key, v) {
		return v
	}
	v = e.m.embedIDs(e.m.tok.Encode(text), threads)
	if e.m.centers != nil {
		e.m.centers.apply(v, text)
	}
	e.cache.Put(key, v)
	return v
}
