package uselite

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/recalld/recalld/internal/embed/internal/veccache"
)

// DefaultCacheSize is the number of vectors an Encoder keeps by default.
const DefaultCacheSize = 4096

// Encoder embeds text with a Model: it implements embed.Embedder. It spreads
// a batch over the CPUs, reuses each worker's buffers, and keeps the vectors
// of recent texts in a cache keyed by the SHA-256 of the text, so a text
// that comes again (a repeated question, a reindex of the same message)
// costs no forward pass. An Encoder is safe for concurrent use.
type Encoder struct {
	m       *Model
	name    string
	workers int
	pool    sync.Pool // of *scratch
	cache   *veccache.Cache
}

// Options tune an Encoder; the zero value is the default.
type Options struct {
	// Workers is how many texts of a batch run at once (default GOMAXPROCS).
	Workers int
	// CacheSize is the number of cached vectors (default DefaultCacheSize;
	// negative disables the cache).
	CacheSize int
}

// NewEncoder returns an Encoder over m.
func NewEncoder(m *Model, opt Options) *Encoder {
	e := &Encoder{m: m, name: "use-lite-v1-" + strconv.Itoa(m.Dim()), workers: opt.Workers}
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
	e.pool.New = func() any { return m.newScratch() }
	return e
}

// Name returns "use-lite-v1-512".
func (e *Encoder) Name() string { return e.name }

// Dim returns 512.
func (e *Encoder) Dim() int { return e.m.Dim() }

// Embed returns the unit vector of each text, in order; a text without
// pieces (empty) gives a zero vector. Texts are embedded in parallel; ctx
// is checked between texts.
func (e *Encoder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	dim := e.Dim()
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*dim)
	var todo []int
	for i, text := range texts {
		out[i] = backing[i*dim : (i+1)*dim : (i+1)*dim]
		if !e.cached(text, out[i]) {
			todo = append(todo, i)
		}
	}
	workers := min(e.workers, len(todo))
	if workers <= 1 {
		s := e.pool.Get().(*scratch)
		defer e.pool.Put(s)
		for _, i := range todo {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("uselite: %w", err)
			}
			e.embed(s, texts[i], out[i])
		}
		return out, nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			s := e.pool.Get().(*scratch)
			defer e.pool.Put(s)
			for {
				n := int(next.Add(1)) - 1
				if n >= len(todo) || ctx.Err() != nil {
					return
				}
				e.embed(s, texts[todo[n]], out[todo[n]])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("uselite: %w", err)
	}
	return out, nil
}

// EmbedOne returns the vector of one text. It cannot fail.
func (e *Encoder) EmbedOne(text string) []float32 {
	v := make([]float32, e.Dim())
	if e.cached(text, v) {
		return v
	}
	s := e.pool.Get().(*scratch)
	e.embed(s, text, v)
	e.pool.Put(s)
	return v
}

// embed runs the model on text into dst and caches the result.
func (e *Encoder) embed(s *scratch, text string, dst []float32) {
	e.m.forward(s, e.m.tokens(s, text), dst)
	e.cache.Put(veccache.Key(text), dst)
}

// cached copies the cached vector of text into dst, if there is one.
func (e *Encoder) cached(text string, dst []float32) bool {
	return e.cache.Get(veccache.Key(text), dst)
}
