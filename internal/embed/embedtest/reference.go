package embedtest

import (
	"encoding/json"
	"os"
	"testing"
)

// ReferenceCases reads the cases of a reference file ({"cases": [...]}),
// such as the vectors a model's own runtime made for the Go port to match;
// a file without cases fails the test.
func ReferenceCases[T any](tb testing.TB, path string) []T {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	var ref struct {
		Cases []T `json:"cases"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(ref.Cases) == 0 {
		tb.Fatalf("%s has no cases", path)
	}
	return ref.Cases
}
