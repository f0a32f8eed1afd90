package uselite

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/recalld/recalld/internal/embed/embedtest"
)

// modelDir is where `make setup` (scripts/fetch-models.sh) puts the model.
const modelDir = "../../../models/use-lite"

var (
	loadOnce   sync.Once
	testModel  *Model
	testLoadEr error
)

// mustModel returns the model, loaded once per test binary, or skips the
// test when the files were never fetched (an offline machine).
func mustModel(tb testing.TB) *Model {
	tb.Helper()
	if _, err := os.Stat(filepath.Join(modelDir, "model.json")); errors.Is(err, os.ErrNotExist) {
		tb.Skipf("model files not found in %s: run scripts/fetch-models.sh (make setup) to test USE-Lite", modelDir)
	}
	loadOnce.Do(func() { testModel, testLoadEr = Load(modelDir) })
	if testLoadEr != nil {
		tb.Fatal(testLoadEr)
	}
	return testModel
}

type refCase struct {
	Text      string    `json:"text"`
	Tokens    []int32   `json:"tokens"`
	Embedding []float32 `json:"embedding"`
}

func readReference(tb testing.TB) []refCase {
	return embedtest.ReferenceCases[refCase](tb, "testdata/reference.json")
}

// TestReferenceVectors compares the Go forward pass with vectors of the
// real TF.js model (testdata/README.md) to 1e-5 per component.
func TestReferenceVectors(t *testing.T) {
	m := mustModel(t)
	cases := readReference(t)
	if testing.Short() || raceEnabled {
		cases = cases[:4] // the race detector slows the forward pass ~20×
	}
	enc := NewEncoder(m, Options{CacheSize: -1})
	s := m.newScratch()
	for _, c := range cases {
		got := make([]float32, m.Dim())
		m.forward(s, m.tokens(s, c.Text), got)
		var worst float64
		for j := range got {
			worst = max(worst, math.Abs(float64(got[j])-float64(c.Embedding[j])))
		}
		if worst > 1e-5 {
			t.Errorf("%.40q: max |Go - TF.js| = %.2g, want <= 1e-5", c.Text, worst)
		}
		if one := enc.EmbedOne(c.Text); !equalVec(one, got) {
			t.Errorf("%.40q: EmbedOne differs from the forward pass", c.Text)
		}
	}
}

func equalVec(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
