package storage_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// TestPhraseWorkBounded quotes every prefix of stored Chinese, English and
// mixed messages: Bleve's multi-phrase matcher, given the CJK field's bigrams
// and unigrams at shared positions, explored 2^n paths for an n-character
// phrase (a 22-character quote took seconds and gigabytes). Each phrase must
// still find its message, in time and memory that do not grow with its length.
func TestPhraseWorkBounded(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	zh := "我们周末一起去杭州西湖边散步，然后去吃了一家很好吃的杭帮菜馆，哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈哈"
	en := "we walked along the west lake in hangzhou at the weekend and then had dinner at a very good restaurant"
	mixed := "周末用iPhone 15拍了西湖的照片，then we ate 杭帮菜 at 外婆家 again and again"
	mustInsert(t, s, "u1", msg("zh", "user", zh, 1), msg("en", "user", en, 2), msg("mixed", "user", mixed, 3),
		msg("other", "user", "完全无关的一句话 nothing to see", 4))
	mustInsert(t, s, "u2", msg("zh2", "user", zh, 1))
	mustDrain(t, s)

	for _, text := range []string{zh, en, mixed} {
		rs := []rune(text)
		for n := 1; n <= len(rs); n++ {
			if n < len(rs) && isWordRune(rs[n-1]) && isWordRune(rs[n]) {
				continue // a Latin word cut in two is not a phrase of the text
			}
			phrase := strings.TrimSpace(string(rs[:n]))
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			hits, _, err := s.LexicalSearch(ctx, "u1", storage.LexicalQuery{Text: `"` + phrase + `"`, Size: 5})
			took := time.Since(start)
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			cancel()
			if err != nil {
				t.Fatalf("phrase of %d runes: %v", n, err)
			}
			if took > 2*time.Second {
				t.Errorf("phrase of %d runes took %v", n, took)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
				t.Errorf("phrase of %d runes allocated %d MB", n, alloc>>20)
			}
			if len(hits) == 0 {
				t.Errorf("phrase %q found nothing", phrase)
			}
			for _, h := range hits {
				if h.Message.ID == "other" {
					t.Errorf("phrase %q matched an unrelated message", phrase)
				}
			}
		}
	}
}

func isWordRune(r rune) bool {
	return r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// TestPhraseMatching: a phrase matches adjacent words only, across
// punctuation the query leaves out, in either field.
func TestPhraseMatching(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	mustInsert(t, s, "u1",
		msg("lake", "user", "我们周末一起去杭州西湖边散步，然后去吃了一家很好吃的杭帮菜馆", 1),
		msg("walk", "user", "We walked along the lake, then had dinner", 2),
		msg("apart", "user", "西湖很美。我们散步了", 3))
	mustInsert(t, s, "u2", msg("lake2", "user", "我们周末一起去杭州西湖边散步", 1))
	mustDrain(t, s)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{`"西湖边散步"`, []string{"lake"}},
		{`"散步然后去"`, []string{"lake"}}, // the comma left out
		{`"西湖散步"`, nil},               // not adjacent anywhere
		{`"湖"`, []string{"lake", "apart"}},
		{`"walked along the lake"`, []string{"walk"}},
		{`"walking along the lake"`, []string{"walk"}}, // stemmed field
		{`"lake walked"`, nil},
		{`"!!!"`, nil},
		{`"西湖边散步" 杭帮菜`, []string{"lake"}},
		{`"西湖边散步" 火锅`, nil},
	} {
		hits, _, err := s.LexicalSearch(t.Context(), "u1", storage.LexicalQuery{Text: tc.q, Size: 10})
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		got := hitIDs(hits)
		slices.Sort(got)
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", tc.q, got, want)
		}
	}
}

// TestPhraseRepeatedTerms: a message that repeats one character thousands of
// times and a long quote of it; the matcher's work grows with the square of
// the repeats, so the phrase's length is what must stay bounded.
func TestPhraseRepeatedTerms(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	long := strings.Repeat("哈", storage.MaxContentLen/len("哈"))
	mustInsert(t, s, "u1", msg("ha", "user", long, 1))
	mustDrain(t, s)
	for _, n := range []int{2, 8, 32, 33, 200} {
		start := time.Now()
		hits, _, err := s.LexicalSearch(t.Context(), "u1", storage.LexicalQuery{Text: `"` + strings.Repeat("哈", n) + `"`, Size: 5})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("quote of %d repeats: %v", n, time.Since(start))
		if len(hits) != 1 {
			t.Errorf("quote of %d: %d hits", n, len(hits))
		}
	}
}

// TestHugeQueriesBounded: the longest query text the API takes (2,000
// characters), every word distinct, in each match mode, against a few
// thousand messages.
func TestHugeQueriesBounded(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	r := rand.New(rand.NewPCG(1, 2))
	cjk := func(n int) string {
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = rune(0x4e00 + r.IntN(3000))
		}
		return string(rs)
	}
	var msgs []storage.Message
	for i := range 600 {
		msgs = append(msgs, msg(fmt.Sprintf("m%d", i), "user", cjk(30)+fmt.Sprintf(" word%d and w%d", i%97, i%13), i))
	}
	mustInsert(t, s, "u1", msgs...)
	mustDrain(t, s)
	var en strings.Builder
	for i := range 300 {
		fmt.Fprintf(&en, "word%d OR +w%d AND -x:%d* ", i, i, i)
	}
	for name, text := range map[string]string{
		"zh":     cjk(2000),
		"en":     en.String()[:2000],
		"quoted": strings.Repeat(`"`+cjk(30)+`" `, 60)[:2000],
		"mixed":  cjk(700) + " " + en.String()[:1000],
	} {
		for _, any := range []bool{false, true} {
			// Each search ends by its deadline, done or cut off.
			const deadline = time.Second
			ctx, cancel := context.WithTimeout(t.Context(), deadline)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, _, err := s.LexicalSearch(ctx, "u1", storage.LexicalQuery{Text: text, Any: any, Contextual: any, Size: 20})
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s any=%v: %v", name, any, err)
			}
			alloc := (after.TotalAlloc - before.TotalAlloc) >> 20
			t.Logf("%s any=%v: %v, %d MB allocated, err %v", name, any, took, alloc, err)
			if took > deadline+2*time.Second || alloc > 512 {
				t.Errorf("%s any=%v: %v after a %v deadline, %d MB", name, any, took, deadline, alloc)
			}
		}
	}
}
