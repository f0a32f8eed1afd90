package wordfreq_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/wordfreq"
)

// TestParse reads the excerpt in testdata: counts become shares of the
// language's total, English words are folded to lower case, and a word
// the lists lack is unknown (0).
func TestParse(t *testing.T) {
	f, err := wordfreq.Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ common, rare string }{
		{"开始", "装修"},
		{"一个", "铺面"},
		{"thing", "glaze"},
		{"week", "console"},
	} {
		c, r := f.PerMillion(tc.common), f.PerMillion(tc.rare)
		if !(c > r && r > 0) {
			t.Errorf("%s %.1f, %s %.1f per million: want the first more common, both known", tc.common, c, tc.rare, r)
		}
	}
	if f.PerMillion("what") <= f.PerMillion("thing") {
		t.Errorf("What and what not folded into one word: %.1f", f.PerMillion("what"))
	}
	for _, w := range []string{"tidewalker", "谷店", "Thing"} {
		if got := f.PerMillion(w); got != 0 {
			t.Errorf("%s: %.1f per million, want 0 (unknown)", w, got)
		}
	}
	var none *wordfreq.Freq
	if none.PerMillion("开始") != 0 || none.Len() != 0 {
		t.Error("a nil Freq knows words")
	}
}

// TestParseErrors: a count that is no number, a list that is no JSON and
// lists without words are errors, not an empty Freq.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, zh, en string }{
		{"count", "开始 many v\n", `[]`},
		{"json", "开始 1 v\n", `{`},
		{"empty", "", `[]`},
	} {
		if _, err := wordfreq.Parse(strings.NewReader(tc.zh), strings.NewReader(tc.en)); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	if _, err := wordfreq.Load(t.TempDir()); err == nil {
		t.Error("Load of an empty folder: no error")
	}
}

// TestFetched checks the lists scripts/fetch-wordfreq.sh installs (skipped
// without them): everyday words are common (20 per million or more), the
// words of one matter are not.
func TestFetched(t *testing.T) {
	dir := filepath.Join("..", "..", "models", "wordfreq")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("models/wordfreq not fetched (scripts/fetch-wordfreq.sh)")
	}
	f, err := wordfreq.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"开始", "一个", "今天", "学生", "那边", "thing", "week", "made", "back", "paper"} {
		if f.PerMillion(w) < 20 {
			t.Errorf("%s: %.1f per million, want common", w, f.PerMillion(w))
		}
	}
	for _, w := range []string{"装修", "铺面", "地砖", "扶手", "总成", "glaze", "crepe", "console", "publisher", "tidewalker"} {
		if f.PerMillion(w) >= 20 {
			t.Errorf("%s: %.1f per million, want rare", w, f.PerMillion(w))
		}
	}
	t.Logf("%d words", f.Len())
}

func BenchmarkLoad(b *testing.B) {
	dir := filepath.Join("..", "..", "models", "wordfreq")
	if _, err := os.Stat(dir); err != nil {
		b.Skip("models/wordfreq not fetched")
	}
	for b.Loop() {
		if _, err := wordfreq.Load(dir); err != nil {
			b.Fatal(err)
		}
	}
}
