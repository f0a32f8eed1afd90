package embed

import (
	"math"
	"slices"
	"testing"
)

func TestLatinText(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"the Kite launch moved to 4/1", true},
		{"I started learning Mandarin last month, 我会说一点点", true},
		{"I'm learning Mandarin, 我会说一点点", false},
		{"Kite 上线推迟到 4 月 1 号了", false},
		{"我不吃辣", false},
		{"café crème, s'il vous plaît", true},
		{"2026-05-01 12:00", false},
		{"", false},
	} {
		if got := LatinText(tc.text); got != tc.want {
			t.Errorf("LatinText(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestLatinOnlyComposite checks that a LatinOnly part gives non-Latin
// texts a zero vector, so that inside a Composite two Chinese texts are
// judged by the other parts alone, renormalised.
func TestLatinOnlyComposite(t *testing.T) {
	const en, zh1, zh2 = "apple pie recipe", "苹果派的做法", "苹果派怎么做"
	a := &queryFake{fakeEncoder: fakeEncoder{vecs: map[string][]float32{en: {1, 0, 0}, zh1: {0, 1, 0}, zh2: {0, 0, 1}}}, query: []float32{0, 1, 0}}
	l := NewLatinOnly(a)
	if l.Name() != "qfake-3-latin" || l.Dim() != 3 {
		t.Errorf("Name, Dim = %q, %d", l.Name(), l.Dim())
	}
	vs, err := l.Embed(t.Context(), []string{zh1, en, zh2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(vs[0], []float32{0, 0, 0}) || !slices.Equal(vs[1], []float32{1, 0, 0}) || !slices.Equal(vs[2], []float32{0, 0, 0}) {
		t.Errorf("Embed = %v, want zero, the encoder's, zero", vs)
	}
	if q := l.EmbedQueryOne(en); !slices.Equal(q, []float32{0, 1, 0}) {
		t.Errorf("EmbedQueryOne(en) = %v, want the encoder's query vector", q)
	}
	if q := l.EmbedQueryOne(zh1); !slices.Equal(q, []float32{0, 0, 0}) {
		t.Errorf("EmbedQueryOne(zh) = %v, want zero", q)
	}
	h := NewHashing(64)
	c, err := NewCompositeParts([]Part{{Encoder: l, Weight: 0.5}}, h)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := c.Embed(t.Context(), []string{zh1, zh2})
	if err != nil {
		t.Fatal(err)
	}
	hv, _ := h.Embed(t.Context(), []string{zh1, zh2})
	if got, want := dot(cv[0], cv[1]), dot(hv[0], hv[1]); math.Abs(got-want) > 1e-5 {
		t.Errorf("two Chinese texts: composite cosine %v, want the hashing cosine %v", got, want)
	}
}
