package embed

import (
	"context"
	"math"
)

// Embedder turns texts into unit-length vectors. Vectors of two embedders
// with different Name never mix.
type Embedder interface {
	// Name is the model identity, including version and dimension, for
	// example "hash-ngram-v1-1024".
	Name() string
	// Dim is the length of every vector the embedder returns.
	Dim() int
	// Embed returns one L2-normalised document vector per text, in order.
	// Text with no features (empty or stop words only) may yield a zero vector.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// TermWeighter is implemented by embedders whose query vectors are weighted
// with corpus statistics kept by the store (per-user document frequencies).
// Stored document vectors never depend on those statistics, so they do not
// drift as a store grows; only the query side is reweighted.
type TermWeighter interface {
	// Terms returns the distinct feature ids of text (the ones Embed uses),
	// for document-frequency bookkeeping.
	Terms(text string) []uint64
	// EmbedQuery returns the L2-normalised query vector, each feature
	// weighted by idf computed from df(term) and docs (the number of
	// documents of the user). docs == 0 gives plain tf weights.
	EmbedQuery(text string, df func(term uint64) int, docs int) []float32
}

var (
	_ Embedder     = (*Hashing)(nil)
	_ TermWeighter = (*Hashing)(nil)
	_ Embedder     = (*OpenAI)(nil)
)

// Normalize scales v in place to unit L2 length. A zero vector is left as it
// is, so the result never contains NaN.
func Normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 || math.IsInf(sum, 0) || math.IsNaN(sum) {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

// Cosine returns the cosine similarity of a and b. It returns 0 when either
// vector is zero or their lengths differ.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return float32(dot / (math.Sqrt(na) * math.Sqrt(nb)))
}
