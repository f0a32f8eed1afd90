package embed

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultMeaningWeight is the share of the composite's cosine that comes
// from the sentence encoder (the rest comes from the hashing part), chosen on
// the LoCoMo and own-suite evals (README, "Embedders").
const DefaultMeaningWeight = 0.5

// DefaultZhWeight is the share of the default composite's cosine that comes
// from bge-small-zh, the Chinese sentence model, when it is installed;
// USE-Lite and hashing split the rest by DefaultMeaningWeight. Chosen on the
// tune halves of the own suites and LoCoMo (README, "Embedders").
const DefaultZhWeight = 0.35

// DefaultMultilingualWeight is the share of the default composite's
// cosine that comes from multilingual-e5-small when it is installed
// (0: left out).
const DefaultMultilingualWeight = 0.0

// SentenceEncoder is a local model that gives one unit vector per text, such
// as uselite.Encoder. Its single-text form cannot fail: it is computation,
// not a call over the network.
type SentenceEncoder interface {
	Embedder
	// EmbedOne returns the unit vector of text.
	EmbedOne(text string) []float32
}

// QueryEncoder is implemented by sentence encoders that embed a search
// query differently from a stored document, such as bge.Encoder, which puts
// BAAI's instruction before queries. Embedder.Embed always gives document
// vectors; Composite.EmbedQuery, the query path of the store, uses
// EmbedQueryOne for the meaning parts that have it.
type QueryEncoder interface {
	// EmbedQueryOne returns the unit query vector of text.
	EmbedQueryOne(text string) []float32
}

// Part is one meaning encoder of a Composite and its share of the cosine.
type Part struct {
	Encoder SentenceEncoder
	Weight  float64
}

// Composite concatenates a sentence encoder's vector (meaning: paraphrases,
// synonyms) with the Hashing vector (exact words, and Chinese, which an
// English encoder cannot read), scaled by √w and √(1-w). Both parts are unit
// vectors, so the dot product of two composite vectors is
// w·cos(meaning) + (1-w)·cos(hashing): a weighted fusion of the two
// similarities inside one vector, one per message.
//
// Composite is a TermWeighter: its Terms are the hashing part's, and
// EmbedQuery weights the hashing part of the query by idf exactly as Hashing
// does, leaving the meaning part as it is. A Composite is safe for
// concurrent use if its parts are.
type Composite struct {
	parts   []part
	lexical *Hashing
	wl      float32 // √(1-Σw)
	name    string
	dim     int
	mDim    int // sum of the meaning parts' dimensions
}

type part struct {
	enc SentenceEncoder
	w   float32 // √w
	off int     // where its values start in a composite vector
}

var (
	_ Embedder     = (*Composite)(nil)
	_ TermWeighter = (*Composite)(nil)
)

// NewComposite returns the composite of meaning and lexical, with weight w
// (0 < w < 1) on the meaning part.
func NewComposite(meaning SentenceEncoder, lexical *Hashing, w float64) (*Composite, error) {
	return NewCompositeParts([]Part{{Encoder: meaning, Weight: w}}, lexical)
}

// NewCompositeParts returns the composite of several meaning encoders (for
// example USE-Lite for English and bge for Chinese) and lexical. Each part's
// weight is its share of the cosine (all > 0, summing below 1); lexical has
// the rest. One part gives the same vectors and name as NewComposite.
func NewCompositeParts(parts []Part, lexical *Hashing) (*Composite, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("embed: composite without a meaning part")
	}
	c := &Composite{lexical: lexical}
	var sum float64
	names, pcts := make([]string, len(parts)), make([]string, len(parts))
	for i, p := range parts {
		if !(p.Weight > 0 && p.Weight < 1) {
			return nil, fmt.Errorf("embed: composite weight %v of %s is not in (0, 1)", p.Weight, p.Encoder.Name())
		}
		sum += p.Weight
		c.parts = append(c.parts, part{enc: p.Encoder, w: float32(math.Sqrt(p.Weight)), off: c.mDim})
		c.mDim += p.Encoder.Dim()
		names[i] = p.Encoder.Name()
		pcts[i] = strconv.Itoa(int(math.Round(p.Weight * 100)))
	}
	if !(sum < 1) {
		return nil, fmt.Errorf("embed: composite weights sum to %v, leaving nothing to %s", sum, lexical.Name())
	}
	c.wl = float32(math.Sqrt(1 - sum))
	c.dim = c.mDim + lexical.Dim()
	c.name = strings.Join(names, "+") + "+" + lexical.Name() + "-w" + strings.Join(pcts, "-")
	return c, nil
}

// NewSentenceComposite returns the default composite: use (USE-Lite) and,
// when zh is not nil, zh (bge-small-zh) with lexical. zh takes zhWeight of
// the cosine; use and lexical split the rest by useWeight. Without zh it
// is NewComposite(use, lexical, useWeight), the composite before bge, whose
// stores open as they are.
func NewSentenceComposite(use, zh SentenceEncoder, lexical *Hashing, useWeight, zhWeight float64) (*Composite, error) {
	return NewMultilingualComposite(use, zh, nil, lexical, useWeight, zhWeight, 0)
}

// NewMultilingualComposite is NewSentenceComposite with, when ml is not
// nil, a multilingual part ml (multilingual-e5-small) taking mlWeight of
// the cosine; use and lexical split what zh and ml leave by useWeight.
// Without ml it is NewSentenceComposite, whose stores open as they are.
func NewMultilingualComposite(use, zh, ml SentenceEncoder, lexical *Hashing, useWeight, zhWeight, mlWeight float64) (*Composite, error) {
	if ml == nil {
		mlWeight = 0
	}
	if zh == nil {
		zhWeight = 0
	}
	if zh == nil && ml == nil {
		return NewComposite(use, lexical, useWeight)
	}
	parts := []Part{{Encoder: use, Weight: (1 - zhWeight - mlWeight) * useWeight}}
	if zh != nil {
		parts = append(parts, Part{Encoder: zh, Weight: zhWeight})
	}
	if ml != nil {
		parts = append(parts, Part{Encoder: ml, Weight: mlWeight})
	}
	return NewCompositeParts(parts, lexical)
}

// Name is "<meaning>+<hashing>-w<percent>", e.g.
// "use-lite-v1-512+hash-ngram-v1-1024-w50"; with several meaning parts,
// "<m1>+<m2>+<hashing>-w<p1>-<p2>".
func (c *Composite) Name() string { return c.name }

// Dim is the sum of the parts' dimensions.
func (c *Composite) Dim() int { return c.dim }

// Embed returns the unit composite vector of each text.
func (c *Composite) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	mvs := make([][][]float32, len(c.parts))
	for j, p := range c.parts {
		mv, err := p.enc.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("embed: composite: %w", err)
		}
		if len(mv) != len(texts) {
			return nil, fmt.Errorf("embed: composite: %s returned %d vectors for %d texts", p.enc.Name(), len(mv), len(texts))
		}
		for _, v := range mv {
			if len(v) != p.enc.Dim() {
				return nil, fmt.Errorf("embed: composite: %s returned dim %d, want %d", p.enc.Name(), len(v), p.enc.Dim())
			}
		}
		mvs[j] = mv
	}
	lv, err := c.lexical.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed: composite: %w", err)
	}
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*c.dim)
	m := make([][]float32, len(c.parts))
	for i := range texts {
		for j := range c.parts {
			m[j] = mvs[j][i]
		}
		out[i] = c.join(backing[i*c.dim:(i+1)*c.dim:(i+1)*c.dim], m, lv[i])
	}
	return out, nil
}

// Terms returns the hashing part's feature ids of text.
func (c *Composite) Terms(text string) []uint64 { return c.lexical.Terms(text) }

// EmbedQuery returns the composite query vector: the meaning vectors of
// text (query vectors of the parts that are QueryEncoders) beside the
// hashing part's idf-weighted query vector.
func (c *Composite) EmbedQuery(text string, df func(term uint64) int, docs int) []float32 {
	m := make([][]float32, len(c.parts))
	for j, p := range c.parts {
		if q, ok := p.enc.(QueryEncoder); ok {
			m[j] = q.EmbedQueryOne(text)
		} else {
			m[j] = p.enc.EmbedOne(text)
		}
	}
	return c.join(make([]float32, c.dim), m, c.lexical.EmbedQuery(text, df, docs))
}

// join writes each √w·m then √(1-Σw)·l into dst and normalises it, so a
// text with no hashing features (or no meaning vector) is still a unit
// vector.
func (c *Composite) join(dst []float32, m [][]float32, l []float32) []float32 {
	for j, p := range c.parts {
		for i, x := range m[j] {
			dst[p.off+i] = p.w * x
		}
	}
	for i, x := range l {
		dst[c.mDim+i] = c.wl * x
	}
	Normalize(dst)
	return dst
}
