package bge

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/recalld/recalld/internal/embed"
)

var (
	encOnce sync.Once
	testEnc *Encoder
	encErr  error
)

// mustEncoder returns an Encoder (lower-casing tokenizer), loaded once per
// test binary, or skips the test when the model files were never fetched.
func mustEncoder(tb testing.TB) *Encoder {
	tb.Helper()
	mustModel(tb) // skips without the files
	encOnce.Do(func() { testEnc, encErr = LoadEncoder(modelDir, EncoderOptions{}) })
	if encErr != nil {
		tb.Fatal(encErr)
	}
	return testEnc
}

var (
	_ embed.SentenceEncoder = (*Encoder)(nil)
	_ embed.QueryEncoder    = (*Encoder)(nil)
)

// TestEncoderReference checks that the Encoder embeds documents as they
// are and queries behind QueryPrefix, with the lower-casing tokenizer, by
// the reference vectors of the lower-cased cases (and of the cases lower-
// casing does not change).
func TestEncoderReference(t *testing.T) {
	e := mustEncoder(t)
	cases := readReference(t)
	lowered := map[string]bool{}
	for _, c := range cases {
		if c.Lowercase {
			lowered[c.Text] = true
		}
	}
	var docs []string
	var want [][]float32
	queries := 0
	for _, c := range cases {
		if !c.Lowercase && lowered[c.Text] {
			continue // the shipped tokenizer's ids, not the Encoder's
		}
		if q, ok := strings.CutPrefix(c.Text, QueryPrefix); ok {
			if queries++; testing.Short() || raceEnabled && queries > 1 {
				continue
			}
			if cos := cosine(e.EmbedQueryOne(q), c.Vector); cos < 0.99 {
				t.Errorf("EmbedQueryOne(%q): cosine %.5f with the reference", q, cos)
			}
			continue
		}
		docs = append(docs, c.Text)
		want = append(want, c.Vector)
		if raceEnabled && len(docs) == 1 {
			break
		}
	}
	got, err := e.Embed(t.Context(), docs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range docs {
		if cos := cosine(got[i], want[i]); cos < 0.99 {
			t.Errorf("Embed(%q): cosine %.5f with the reference", docs[i], cos)
		}
		if one := e.EmbedOne(docs[i]); cosine(one, got[i]) < 0.99999 {
			t.Errorf("EmbedOne(%q) differs from Embed's vector", docs[i])
		}
	}
}

// TestEncoderComposite adds bge as a meaning part beside another encoder
// and checks the name and that a query takes the prefixed vector.
func TestEncoderComposite(t *testing.T) {
	e := mustEncoder(t)
	c, err := embed.NewCompositeParts([]embed.Part{{Encoder: e, Weight: 0.4}}, embed.NewHashing(256))
	if err != nil {
		t.Fatal(err)
	}
	if want := "bge-small-zh-v1.5-512+hash-ngram-v1-256-w40"; c.Name() != want {
		t.Errorf("Name = %q, want %q", c.Name(), want)
	}
	const text = "我在学什么乐器"
	q := c.EmbedQuery(text, func(uint64) int { return 0 }, 0)
	d, err := c.Embed(t.Context(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	qm, dm := cosine(q[:512], e.EmbedQueryOne(text)), cosine(d[0][:512], e.EmbedOne(text))
	if qm < 0.99999 || dm < 0.99999 {
		t.Errorf("meaning part of the query vector: cosine %.6f with EmbedQueryOne; of the document vector: %.6f with EmbedOne", qm, dm)
	}
}

// cosine of two vectors (neither zero).
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// TestEncoderCache: a text embedded again comes from the cache, the same
// vector, and the caller's copy is its own.
func TestEncoderCache(t *testing.T) {
	e := NewEncoder(mustModel(t), EncoderOptions{})
	q := e.EmbedQueryOne("我在学什么乐器？")
	again := e.EmbedQueryOne("我在学什么乐器？")
	if !slices.Equal(q, again) {
		t.Fatal("cached query vector differs")
	}
	again[0] += 1
	if e.EmbedQueryOne("我在学什么乐器？")[0] == again[0] {
		t.Error("cache shares memory with a returned vector")
	}
	if slices.Equal(e.EmbedOne("我在学什么乐器？"), q) {
		t.Error("document and query vectors of one text share a cache entry")
	}
}
