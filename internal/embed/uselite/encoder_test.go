package uselite

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestEncoderBatchMatchesSingle checks that the parallel batch path, the
// single-text path and the cache all give the forward pass's vectors.
func TestEncoderBatchMatchesSingle(t *testing.T) {
	m := mustModel(t)
	texts := []string{"Do I like spicy food?", "", "I really can't handle hot, fiery dishes", "Do I like spicy food?", "我喜欢吃辣的食物"}
	if !raceEnabled {
		for i := range 6 {
			texts = append(texts, fmt.Sprintf("message number %d about the trip to Lisbon", i))
		}
	}
	enc := NewEncoder(m, Options{Workers: 3})
	vs, err := enc.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	s := m.newScratch()
	for i, text := range texts {
		want := make([]float32, m.Dim())
		m.forward(s, m.tokens(s, text), want)
		if !equalVec(vs[i], want) {
			t.Errorf("Embed[%d] (%q) differs from the forward pass", i, text)
		}
		if !equalVec(enc.EmbedOne(text), want) {
			t.Errorf("EmbedOne(%q) (cached) differs from the forward pass", text)
		}
	}
	for _, x := range vs[1] {
		if x != 0 {
			t.Fatal("empty text: want a zero vector")
		}
	}
	// Vectors returned are the caller's: changing one leaves the cache intact.
	vs[0][0] += 1
	if again := enc.EmbedOne(texts[0]); again[0] == vs[0][0] {
		t.Error("cache shares memory with a returned vector")
	}
}

func TestEncoderCancelled(t *testing.T) {
	m := mustModel(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := NewEncoder(m, Options{}).Embed(ctx, []string{"a", "b"})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestSemanticSimilarity is the point of the model: a paraphrase without a
// shared content word is closer than an unrelated text, which the hashing
// embedder cannot see (it scores both 0).
func TestSemanticSimilarity(t *testing.T) {
	m := mustModel(t)
	enc := NewEncoder(m, Options{})
	cos := func(a, b string) float64 {
		va, vb := enc.EmbedOne(a), enc.EmbedOne(b)
		var d float64
		for i := range va {
			d += float64(va[i]) * float64(vb[i])
		}
		return d
	}
	tests := []struct{ q, para, other string }{
		{"Do I like spicy food?", "I really can't handle hot, fiery dishes", "The quarterly report is due next week"},
		{"When is my daughter's birthday?", "Emma turns seven on the fifth of June", "I need to renew my passport soon"},
		{"Where did we park the car?", "The vehicle is on level 3 of the garage", "She started learning the violin"},
	}
	for _, tt := range tests {
		p, o := cos(tt.q, tt.para), cos(tt.q, tt.other)
		t.Logf("%q: paraphrase %.3f, unrelated %.3f", tt.q, p, o)
		if p < o+0.1 {
			t.Errorf("cos(%q, paraphrase) = %.3f, not clearly above cos(%q, unrelated) = %.3f", tt.q, p, tt.q, o)
		}
	}
}
