package agent

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/bilingual"
)

func TestZhForms(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"什么时候", "什[么麼][时時]候"},
		{"哪[个种]?", "哪[个個种種]?"},
		{`\d+[号日]`, `\d+[号號日]`},
		{"(?i)when", "(?i)when"},
	} {
		if got := zhForms(tc.in); got != tc.want {
			t.Errorf("zhForms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, q := range []string{"我口試到底是幾號?", "第一次睇完牙之後，下次覆診我約咗星期幾、幾點？"} {
		if answerKind(q) == nil {
			t.Errorf("answerKind(%q) = nil: asks when", q)
		}
	}
}

// TestTraditionalForms checks traditionalForms against CC-CEDICT (where
// scripts/fetch-cedict.sh installed it): each character's forms are the
// dictionary's, and every character of the agent's patterns (its raw
// string literals) that has forms in the dictionary has them in the table.
func TestTraditionalForms(t *testing.T) {
	dir := filepath.Join("..", "models", "cc-cedict")
	if _, err := os.Stat(filepath.Join(dir, "all.js")); errors.Is(err, os.ErrNotExist) {
		t.Skip("CC-CEDICT not installed (scripts/fetch-cedict.sh)")
	}
	d, err := bilingual.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for c, forms := range traditionalForms {
		if got, want := d.Traditional(string(c)), strings.Split(forms, ""); !slices.Equal(got, want) {
			t.Errorf("forms of %c: table %q, dictionary %q", c, want, got)
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	literal := regexp.MustCompile("`([^`]*)`")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			for _, c := range m[1] {
				if _, ok := traditionalForms[c]; !ok && len(d.Traditional(string(c))) > 0 {
					t.Errorf("%s: %c has traditional forms %q, not in traditionalForms", f, c, d.Traditional(string(c)))
				}
			}
		}
	}
}
