package bge

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	loadOnce   sync.Once
	testModel  *Model
	testLoadEr error
)

// mustModel returns the model (shipped tokenizer settings), loaded once per
// test binary, or skips the test when the files were never fetched.
func mustModel(tb testing.TB) *Model {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(modelDir, ModelFile)); errors.Is(err, os.ErrNotExist) {
		tb.Skipf("model files not found in %s: run scripts/fetch-bge-zh.sh (make setup) to test bge", modelDir)
	}
	loadOnce.Do(func() { testModel, testLoadEr = Load(modelDir, Options{}) })
	if testLoadEr != nil {
		tb.Fatal(testLoadEr)
	}
	return testModel
}

// TestReferenceVectors compares the Go forward pass with onnxruntime's
// vectors (testdata/README.md). Exact agreement is impossible: the model
// quantizes every activation tensor to uint8 at run time, so a float
// difference of 1e-6 (summation order) that lands on a rounding boundary
// moves a value by a whole quantum, and that grows through the later
// layers; onnxruntime on an AVX2 CPU without VNNI also saturates pairs of
// u8·s8 products to int16 (VPMADDUBSW), which the ONNX semantics this
// package follows do not. Most lines agree to 1e-6; the test asks for cosine
// ≥ 0.99 on every line and ≥ 0.9999 on at least half of them.
func TestReferenceVectors(t *testing.T) {
	m := mustModel(t)
	cases := readReference(t)
	if testing.Short() || raceEnabled {
		cases = cases[:6]
	}
	var worst float64
	minCos, close := 1.0, 0
	for _, c := range cases {
		got := m.EmbedIDs(c.IDs)
		var maxDiff, dot float64
		for i, w := range c.Vector {
			maxDiff = max(maxDiff, math.Abs(float64(got[i])-float64(w)))
			dot += float64(got[i]) * float64(w)
		}
		worst = max(worst, maxDiff)
		minCos = min(minCos, dot)
		if dot >= 0.9999 {
			close++
		}
		if dot < 0.99 {
			t.Errorf("%q (lowercase %v): max |diff| %.2g, cosine %.7f", c.Text, c.Lowercase, maxDiff, dot)
		}
	}
	if 2*close < len(cases) {
		t.Errorf("%d of %d cases have cosine ≥ 0.9999, want at least half", close, len(cases))
	}
	t.Logf("%d cases: %d with cosine ≥ 0.9999, min cosine %.7f, max |diff| %.2g", len(cases), close, minCos, worst)
}
