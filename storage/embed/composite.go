package embed

import (
	"context"
	"fmt"
	"math"
	"strconv"
)

// DefaultMeaningWeight is the share of the composite's cosine that comes
// from the sentence encoder (the rest comes from the hashing part), chosen on
// the LoCoMo and own-suite evals (README, "Embedders").
const DefaultMeaningWeight = 0.5

// SentenceEncoder is a local model that gives one unit vector per text, such
// as uselite.Encoder. Its single-text form cannot fail: it is computation,
// not a call over the network.
type SentenceEncoder interface {
	Embedder
	// EmbedOne returns the unit vector of text.
	EmbedOne(text string) []float32
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
	meaning   SentenceEncoder
	lexical   *Hashing
	wm, wl    float32 // √w and √(1-w)
	name      string
	dim, mDim int
}

var (
	_ Embedder     = (*Composite)(nil)
	_ TermWeighter = (*Composite)(nil)
)

// NewComposite returns the composite of meaning and lexical, with weight w
// (0 < w < 1) on the meaning part.
func NewComposite(meaning SentenceEncoder, lexical *Hashing, w float64) (*Composite, error) {
	if !(w > 0 && w < 1) {
		return nil, fmt.Errorf("embed: composite weight %v is not in (0, 1)", w)
	}
	pct := int(math.Round(w * 100))
	c := &Composite{
		meaning: meaning, lexical: lexical,
		wm: float32(math.Sqrt(w)), wl: float32(math.Sqrt(1 - w)),
		mDim: meaning.Dim(), dim: meaning.Dim() + lexical.Dim(),
	}
	c.name = meaning.Name() + "+" + lexical.Name() + "-w" + strconv.Itoa(pct)
	return c, nil
}

// Name is "<meaning>+<hashing>-w<percent>", e.g.
// "use-lite-v1-512+hash-ngram-v1-1024-w50".
func (c *Composite) Name() string { return c.name }

// Dim is the sum of the parts' dimensions.
func (c *Composite) Dim() int { return c.dim }

// Embed returns the unit composite vector of each text.
func (c *Composite) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	mv, err := c.meaning.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed: composite: %w", err)
	}
	lv, err := c.lexical.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embed: composite: %w", err)
	}
	if len(mv) != len(texts) {
		return nil, fmt.Errorf("embed: composite: %s returned %d vectors for %d texts", c.meaning.Name(), len(mv), len(texts))
	}
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*c.dim)
	for i := range texts {
		if len(mv[i]) != c.mDim {
			return nil, fmt.Errorf("embed: composite: %s returned dim %d, want %d", c.meaning.Name(), len(mv[i]), c.mDim)
		}
		out[i] = c.join(backing[i*c.dim:(i+1)*c.dim:(i+1)*c.dim], mv[i], lv[i])
	}
	return out, nil
}

// Terms returns the hashing part's feature ids of text.
func (c *Composite) Terms(text string) []uint64 { return c.lexical.Terms(text) }

// EmbedQuery returns the composite query vector: the meaning vector of text
// beside the hashing part's idf-weighted query vector.
func (c *Composite) EmbedQuery(text string, df func(term uint64) int, docs int) []float32 {
	return c.join(make([]float32, c.dim), c.meaning.EmbedOne(text), c.lexical.EmbedQuery(text, df, docs))
}

// join writes √w·m then √(1-w)·l into dst and normalises it, so a text with
// no hashing features (or no meaning vector) is still a unit vector.
func (c *Composite) join(dst, m, l []float32) []float32 {
	for i, x := range m {
		dst[i] = c.wm * x
	}
	for i, x := range l {
		dst[c.mDim+i] = c.wl * x
	}
	Normalize(dst)
	return dst
}
