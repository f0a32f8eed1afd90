package embed

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// fakeEncoder is a SentenceEncoder whose vectors are fixed per text.
type fakeEncoder struct {
	vecs map[string][]float32
	err  error
}

func (f *fakeEncoder) Name() string { return "fake-3" }
func (f *fakeEncoder) Dim() int     { return 3 }
func (f *fakeEncoder) EmbedOne(text string) []float32 {
	if v, ok := f.vecs[text]; ok {
		return slices.Clone(v)
	}
	return make([]float32, 3)
}
func (f *fakeEncoder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = f.EmbedOne(t)
	}
	return out, nil
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestCompositeFusesCosines(t *testing.T) {
	f := &fakeEncoder{vecs: map[string][]float32{
		"do I like spicy food":            {1, 0, 0},
		"I can't handle hot fiery dishes": {0.8, 0.6, 0},
		"the meeting is on monday":        {0, 0, 1},
	}}
	h := NewHashing(256)
	for _, w := range []float64{0.25, 0.5, 0.8} {
		c, err := NewComposite(f, h, w)
		if err != nil {
			t.Fatal(err)
		}
		if c.Dim() != 259 || c.Name() == "" {
			t.Fatalf("Dim %d Name %q", c.Dim(), c.Name())
		}
		texts := []string{"do I like spicy food", "I can't handle hot fiery dishes", "the meeting is on monday"}
		vs, err := c.Embed(t.Context(), texts)
		if err != nil {
			t.Fatal(err)
		}
		hv, _ := h.Embed(t.Context(), texts)
		for i := range texts {
			if n := dot(vs[i], vs[i]); math.Abs(n-1) > 1e-5 {
				t.Errorf("w %v: |v(%q)|² = %v", w, texts[i], n)
			}
			for j := range texts {
				want := w*dot(f.vecs[texts[i]], f.vecs[texts[j]]) + (1-w)*dot(hv[i], hv[j])
				if got := dot(vs[i], vs[j]); math.Abs(got-want) > 1e-5 {
					t.Errorf("w %v: v(%q)·v(%q) = %v, want w·cos_meaning + (1-w)·cos_hash = %v", w, texts[i], texts[j], got, want)
				}
			}
		}
		// The paraphrase shares no content word, yet ranks above the unrelated text.
		if dot(vs[0], vs[1]) <= dot(vs[0], vs[2]) {
			t.Errorf("w %v: paraphrase not above unrelated", w)
		}
	}
}

// TestCompositeQueryIDF checks that the hashing half of a query keeps the
// hashing embedder's idf weighting and the meaning half is the encoder's.
func TestCompositeQueryIDF(t *testing.T) {
	f := &fakeEncoder{vecs: map[string][]float32{"project atlas launch": {0, 1, 0}}}
	h := NewHashing(512)
	c, err := NewComposite(f, h, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	text := "project atlas launch"
	if !slices.Equal(c.Terms(text), h.Terms(text)) {
		t.Error("Terms differ from the hashing part's")
	}
	df := func(term uint64) int {
		if term == h.Terms("project")[0] {
			return 90
		}
		return 1
	}
	q := c.EmbedQuery(text, df, 100)
	hq := h.EmbedQuery(text, df, 100)
	s := float32(math.Sqrt(0.5))
	for i, x := range []float32{0, 1, 0} {
		if math.Abs(float64(q[i]-s*x)) > 1e-6 {
			t.Fatalf("meaning half [%d] = %v, want %v", i, q[i], s*x)
		}
	}
	for i := range hq {
		if math.Abs(float64(q[3+i]-s*hq[i])) > 1e-6 {
			t.Fatalf("hashing half [%d] = %v, want √½ · idf query %v", i, q[3+i], hq[i])
		}
	}
	plain := c.EmbedQuery(text, nil, 0)
	if slices.Equal(plain, q) {
		t.Error("idf did not change the query vector")
	}
}

func TestCompositeErrors(t *testing.T) {
	h := NewHashing(64)
	for _, w := range []float64{0, 1, -0.5, 2, math.NaN()} {
		if _, err := NewComposite(&fakeEncoder{}, h, w); err == nil {
			t.Errorf("NewComposite(w=%v) accepted", w)
		}
	}
	boom := errors.New("boom")
	c, err := NewComposite(&fakeEncoder{err: boom}, h, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(t.Context(), []string{"x"}); !errors.Is(err, boom) {
		t.Errorf("Embed error = %v, want the encoder's", err)
	}
}

// queryFake is a fakeEncoder whose query vectors differ from its document
// vectors, like bge's prefixed queries.
type queryFake struct {
	fakeEncoder
	query []float32
}

func (f *queryFake) Name() string                   { return "qfake-3" }
func (f *queryFake) EmbedQueryOne(string) []float32 { return slices.Clone(f.query) }

// TestCompositeParts checks two meaning parts: the name, the weights of the
// fused cosine, the single-part name of NewComposite, and that EmbedQuery
// takes a QueryEncoder's query vector and the other part's document vector.
func TestCompositeParts(t *testing.T) {
	const x, y = "apple pie recipe", "monday meeting schedule"
	a := &fakeEncoder{vecs: map[string][]float32{x: {1, 0, 0}, y: {0, 1, 0}}}
	b := &queryFake{fakeEncoder: fakeEncoder{vecs: map[string][]float32{x: {0, 0, 1}, y: {0, 0, 1}}}, query: []float32{0, 1, 0}}
	h := NewHashing(64)
	c, err := NewCompositeParts([]Part{{Encoder: a, Weight: 0.3}, {Encoder: b, Weight: 0.2}}, h)
	if err != nil {
		t.Fatal(err)
	}
	if want := "fake-3+qfake-3+hash-ngram-v1-64-w30-20"; c.Name() != want {
		t.Errorf("Name = %q, want %q", c.Name(), want)
	}
	if c.Dim() != 70 {
		t.Errorf("Dim = %d, want 70", c.Dim())
	}
	one, err := NewCompositeParts([]Part{{Encoder: a, Weight: 0.5}}, h)
	if err != nil {
		t.Fatal(err)
	}
	two, _ := NewComposite(a, h, 0.5)
	if one.Name() != two.Name() || one.Name() != "fake-3+hash-ngram-v1-64-w50" {
		t.Errorf("one part: %q, NewComposite: %q", one.Name(), two.Name())
	}
	vs, err := c.Embed(t.Context(), []string{x, y})
	if err != nil {
		t.Fatal(err)
	}
	hv, _ := h.Embed(t.Context(), []string{x, y})
	// cos(a) = 0, cos(b) = 1.
	if got, want := dot(vs[0], vs[1]), 0.2+0.5*dot(hv[0], hv[1]); math.Abs(got-want) > 1e-5 {
		t.Errorf("fused cosine %v, want %v", got, want)
	}
	q := c.EmbedQuery(x, func(uint64) int { return 0 }, 0)
	if q[4] <= 0 || q[3] != 0 || q[5] != 0 || q[0] <= 0 {
		t.Errorf("query vector parts %v %v: want a's document vector then b's query vector", q[0:3], q[3:6])
	}
	for _, bad := range [][]Part{nil, {{Encoder: a, Weight: 0.6}, {Encoder: b, Weight: 0.4}}, {{Encoder: a, Weight: 0}}} {
		if _, err := NewCompositeParts(bad, h); err == nil {
			t.Errorf("NewCompositeParts(%d parts) accepted bad weights", len(bad))
		}
	}
}

// TestMultilingualComposite: the multilingual part comes last with its
// share, use and hashing split the rest; without it (or without zh) the
// composite is the one before, named as before.
func TestMultilingualComposite(t *testing.T) {
	use := &fakeEncoder{vecs: map[string][]float32{}}
	zh := &queryFake{fakeEncoder: fakeEncoder{vecs: map[string][]float32{}}}
	ml := &fakeEncoder{vecs: map[string][]float32{}}
	h := NewHashing(64)
	tests := []struct {
		name    string
		zh, ml  SentenceEncoder
		want    string
		wantDim int
	}{
		{"all three", zh, ml, "fake-3+qfake-3+fake-3+hash-ngram-v1-64-w23-35-20", 73},
		{"no multilingual", zh, nil, "fake-3+qfake-3+hash-ngram-v1-64-w33-35", 70},
		{"no zh", nil, ml, "fake-3+fake-3+hash-ngram-v1-64-w40-20", 70},
		{"neither", nil, nil, "fake-3+hash-ngram-v1-64-w50", 67},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewMultilingualComposite(use, tt.zh, tt.ml, h, 0.5, 0.35, 0.2)
			if err != nil {
				t.Fatal(err)
			}
			if c.Name() != tt.want || c.Dim() != tt.wantDim {
				t.Errorf("Name, Dim = %q, %d; want %q, %d", c.Name(), c.Dim(), tt.want, tt.wantDim)
			}
			if tt.ml == nil {
				old, _ := NewSentenceComposite(use, tt.zh, h, 0.5, 0.35)
				if old.Name() != c.Name() {
					t.Errorf("without the multilingual part %q, NewSentenceComposite %q", c.Name(), old.Name())
				}
			}
		})
	}
}
