package bge

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// e5ModelDir is where `make setup` (scripts/fetch-e5.sh) puts e5-small-v2.
const e5ModelDir = "../../../models/e5-small-v2"

var (
	e5Once   sync.Once
	testE5   *Encoder
	e5LoadEr error
)

// mustE5 returns an e5-small-v2 Encoder, loaded once per test binary, or
// skips the test when the model files were never fetched.
func mustE5(tb testing.TB) *Encoder {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(e5ModelDir, E5ModelFile)); errors.Is(err, os.ErrNotExist) {
		tb.Skipf("model files not found in %s: run scripts/fetch-e5.sh (make setup) to test e5-small-v2", e5ModelDir)
	}
	e5Once.Do(func() { testE5, e5LoadEr = LoadEncoder(e5ModelDir, EncoderOptions{}) })
	if e5LoadEr != nil {
		tb.Fatal(e5LoadEr)
	}
	return testE5
}

// TestArchitecture checks what Load reads from each model's graph, and
// the Encoder's name and dimension.
func TestArchitecture(t *testing.T) {
	tests := []struct {
		name    string
		encoder func(testing.TB) *Encoder
		arch    arch
		layers  int
		pooling Pooling
		encName string
	}{
		{"bge-small-zh", mustEncoder, arch{hidden: 512, heads: 8, headDim: 64, ffn: 2048, scale: 8}, 4, PoolCLS, Name},
		{"e5-small-v2", mustE5, arch{hidden: 384, heads: 12, headDim: 32, ffn: 1536, scale: 5.656854}, 12, PoolMean, "e5-small-v2-384"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.encoder(t)
			if e.m.arch != tt.arch || len(e.m.layers) != tt.layers {
				t.Errorf("architecture %+v, %d layers; want %+v, %d layers", e.m.arch, len(e.m.layers), tt.arch, tt.layers)
			}
			if p := e.m.Spec().Pooling; p != tt.pooling {
				t.Errorf("pooling %v, want %v", p, tt.pooling)
			}
			if e.Name() != tt.encName || e.Dim() != tt.arch.hidden {
				t.Errorf("Name, Dim = %q, %d; want %q, %d", e.Name(), e.Dim(), tt.encName, tt.arch.hidden)
			}
		})
	}
}

// TestDetectSpec: a model directory is known by its ONNX file, and one
// with none or both is refused.
func TestDetectSpec(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  string // Spec name; "" for an error
	}{
		{"bge-small-zh", []string{ModelFile, TokenizerFile}, "bge-small-zh-v1.5"},
		{"e5-small-v2", []string{E5ModelFile, E5TokenizerFile, "NOTICE"}, "e5-small-v2"},
		{"tokenizer only", []string{E5TokenizerFile}, ""},
		{"empty", nil, ""},
		{"both", []string{ModelFile, E5ModelFile}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := DetectSpec(dir)
			if tt.want == "" {
				if err == nil {
					t.Errorf("DetectSpec = %q, want an error", s.Name)
				}
				return
			}
			if err != nil || s.Name != tt.want {
				t.Errorf("DetectSpec = %q, %v; want %q", s.Name, err, tt.want)
			}
		})
	}
}

// TestE5EncoderBatch: Embed puts "passage: " before each text, as EmbedOne
// does, and a query differs from the same text as a document.
func TestE5EncoderBatch(t *testing.T) {
	e := mustE5(t)
	texts := []string{"I've been practicing the ukulele every day.", "我在学什么乐器", "ok"}
	got, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if cos := cosine(got[i], e.EmbedOne(text)); cos < 0.99999 {
			t.Errorf("Embed(%q) differs from EmbedOne: cosine %.6f", text, cos)
		}
		if cos := cosine(got[i], e.EmbedQueryOne(text)); cos > 0.999 {
			t.Errorf("Embed(%q) is the query vector: cosine %.6f", text, cos)
		}
	}
}
