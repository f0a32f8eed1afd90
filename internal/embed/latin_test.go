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

// TestLatinQueriesComposite checks that a LatinQueries part stores every
// text as its encoder does (same name, same vectors, so existing stores
// open) and reads only Latin queries: a Chinese query is matched by the
// other parts alone.
func TestLatinQueriesComposite(t *testing.T) {
	const en, zh1, zh2 = "apple pie recipe", "苹果派的做法", "苹果派怎么做"
	f := &fakeEncoder{vecs: map[string][]float32{en: {1, 0, 0}, zh1: {0, 1, 0}, zh2: {0, 1, 0}}}
	l := NewLatinQueries(f)
	if l.Name() != f.Name() || l.Dim() != 3 {
		t.Errorf("Name, Dim = %q, %d, want the encoder's", l.Name(), l.Dim())
	}
	if v := l.EmbedOne(zh1); !slices.Equal(v, []float32{0, 1, 0}) {
		t.Errorf("EmbedOne(zh) = %v, want the encoder's vector", v)
	}
	if q := l.EmbedQueryOne(en); !slices.Equal(q, []float32{1, 0, 0}) {
		t.Errorf("EmbedQueryOne(en) = %v, want the encoder's vector", q)
	}
	if q := l.EmbedQueryOne(zh1); !slices.Equal(q, []float32{0, 0, 0}) {
		t.Errorf("EmbedQueryOne(zh) = %v, want zero", q)
	}
	h := NewHashing(64)
	c, err := NewCompositeParts([]Part{{Encoder: l, Weight: 0.5}}, h)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewCompositeParts([]Part{{Encoder: f, Weight: 0.5}}, h)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != plain.Name() {
		t.Errorf("Name = %q, want the plain composite's %q", c.Name(), plain.Name())
	}
	docs, err := c.Embed(t.Context(), []string{zh2})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := plain.Embed(t.Context(), []string{zh2})
	if !slices.Equal(docs[0], want[0]) {
		t.Errorf("document vectors differ from the plain composite's")
	}
	df := func(uint64) int { return 1 }
	q := c.EmbedQuery(zh1, df, 10)
	hq, hd := h.EmbedQuery(zh1, df, 10), want[0][3:]
	// The query's meaning part is zero, so the cosine is the hashing
	// cosine scaled by the document's hashing share, √0.5.
	if got, want := dot(q, docs[0]), dot(hq, hd); math.Abs(got-want) > 1e-5 {
		t.Errorf("Chinese query: composite cosine %v, want %v", got, want)
	}
}
