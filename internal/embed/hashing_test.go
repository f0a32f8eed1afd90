package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// embedOne embeds a single text with h, failing the test on error.
func embedOne(tb testing.TB, h *Hashing, text string) []float32 {
	tb.Helper()
	vs, err := h.Embed(tb.Context(), []string{text})
	if err != nil {
		tb.Fatal(err)
	}
	return vs[0]
}

func norm2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestHashingSimilarity(t *testing.T) {
	h := NewHashing(0)
	tests := []struct {
		name, text, similar, unrelated string
	}{
		{"zh spicy", "我不吃辣", "我从来不吃辣的东西", "今天天气很好"},
		{"zh trip", "下周三要去上海出差", "去上海出差是哪天", "我女儿喜欢画画"},
		{"zh pet", "我家的猫叫咪咪", "咪咪是一只橘猫", "明天早上八点开会"},
		{"en spicy", "I love spicy food", "spicy dishes are my favourite", "the meeting is on Monday"},
		{"en birthday", "my daughter's birthday is on June 5", "when is her daughter's birthday party?", "we parked the car on level 3"},
		{"en inflection", "she was running marathons", "he runs a marathon every year", "the printer needs new toner"},
		{"mixed", "明天用 Python 写爬虫", "python 爬虫项目进展如何", "晚饭吃了饺子"},
		{"mixed en query", "我最喜欢的 IDE 是 GoLand", "which IDE do you use", "天气预报说下雨"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := embedOne(t, h, tt.text)
			sim := Cosine(a, embedOne(t, h, tt.similar))
			unrel := Cosine(a, embedOne(t, h, tt.unrelated))
			t.Logf("similar %.3f, unrelated %.3f", sim, unrel)
			if sim <= unrel {
				t.Errorf("cos(%q, %q) = %.3f, not above cos(%q, %q) = %.3f",
					tt.text, tt.similar, sim, tt.text, tt.unrelated, unrel)
			}
			if sim < 0.1 {
				t.Errorf("cos(%q, %q) = %.3f, want clearly positive", tt.text, tt.similar, sim)
			}
		})
	}
}

func TestHashingSingleCJKChar(t *testing.T) {
	h := NewHashing(0)
	doc := embedOne(t, h, "我不吃辣")
	if got := Cosine(embedOne(t, h, "辣"), doc); got <= 0 {
		t.Errorf("Embed: cos(辣, 我不吃辣) = %v, want > 0", got)
	}
	if got := Cosine(h.EmbedQuery("辣", nil, 0), doc); got <= 0 {
		t.Errorf("EmbedQuery: cos(辣, 我不吃辣) = %v, want > 0", got)
	}
}

func TestHashingNormalisation(t *testing.T) {
	h := NewHashing(0)
	tests := []struct{ a, b string }{
		{"ＨＥＬＬＯ Ｗｏｒｌｄ", "hello world"},           // full-width forms (NFKC)
		{"Spicy FOOD", "spicy food"},             // case
		{"ｶﾀｶﾅ", "カタカナ"},                         // half-width katakana (NFKC)
		{"café", "cafe\u0301"},                   // composed and decomposed
		{"I don't like it.", "i DON’T like it!"}, // apostrophes and punctuation
	}
	for _, tt := range tests {
		t.Run(tt.a, func(t *testing.T) {
			if diff := cmp.Diff(embedOne(t, h, tt.a), embedOne(t, h, tt.b)); diff != "" {
				t.Errorf("Embed(%q) != Embed(%q) (-a +b):\n%s", tt.a, tt.b, diff)
			}
		})
	}
}

func TestHashingZeroVector(t *testing.T) {
	h := NewHashing(64)
	texts := []string{"", "   ", "the a is of", "I did what you do?", "的了吗", "!!! ??? ...", "我们的", "🙂"}
	vs, err := h.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	zero := make([]float32, 64)
	for i, v := range vs {
		if diff := cmp.Diff(zero, v); diff != "" {
			t.Errorf("Embed(%q) not zero (-want +got):\n%s", texts[i], diff)
		}
		if got := h.EmbedQuery(texts[i], func(uint64) int { return 1 }, 10); !cmp.Equal(zero, got) {
			t.Errorf("EmbedQuery(%q) = %v, want zero", texts[i], got)
		}
		if terms := h.Terms(texts[i]); len(terms) != 0 {
			t.Errorf("Terms(%q) = %v, want none", texts[i], terms)
		}
		if c := Cosine(v, embedOne(t, h, "spicy food")); c != 0 {
			t.Errorf("Cosine(zero, x) = %v, want 0", c)
		}
	}
}

func TestHashingDimAndUnitLength(t *testing.T) {
	tests := []struct {
		dim, wantDim int
		wantName     string
	}{
		{0, 1024, "hash-ngram-v1-1024"},
		{-3, 1024, "hash-ngram-v1-1024"},
		{64, 64, "hash-ngram-v1-64"},
		{1000, 1000, "hash-ngram-v1-1000"},
	}
	texts := []string{"我不吃辣", "I love spicy food", "明天用 Python 写爬虫", "x", strings.Repeat("long text 很长的文本 ", 200)}
	for _, tt := range tests {
		t.Run(tt.wantName, func(t *testing.T) {
			h := NewHashing(tt.dim)
			if h.Dim() != tt.wantDim || h.Name() != tt.wantName {
				t.Fatalf("NewHashing(%d): Dim %d Name %q, want %d %q", tt.dim, h.Dim(), h.Name(), tt.wantDim, tt.wantName)
			}
			vs, err := h.Embed(t.Context(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != len(texts) {
				t.Fatalf("got %d vectors for %d texts", len(vs), len(texts))
			}
			for i, v := range vs {
				if len(v) != tt.wantDim {
					t.Errorf("len(Embed(%q)) = %d, want %d", texts[i], len(v), tt.wantDim)
				}
				if n := norm2(v); math.Abs(n-1) > 1e-5 {
					t.Errorf("|Embed(%.20q)| = %v, want 1", texts[i], n)
				}
			}
			// Vectors share one backing array; appending to one must not
			// overwrite the next.
			before := append([]float32(nil), vs[1]...)
			_ = append(vs[0], 42)
			if diff := cmp.Diff(before, vs[1]); diff != "" {
				t.Errorf("append to vs[0] changed vs[1] (-before +after):\n%s", diff)
			}
		})
	}
}

func TestHashingDeterministic(t *testing.T) {
	texts := []string{"我从来不吃辣的东西", "spicy dishes are my favourite", "明天用 Python 写爬虫"}
	a, err := NewHashing(0).Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	h := NewHashing(0)
	for range 3 {
		b, err := h.Embed(t.Context(), texts)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("Embed not deterministic (-first +again):\n%s", diff)
		}
	}
	if diff := cmp.Diff(h.Terms(texts[0]), NewHashing(64).Terms(texts[0])); diff != "" {
		t.Errorf("Terms depend on dim (-1024 +64):\n%s", diff)
	}
}

func TestHashingTerms(t *testing.T) {
	h := NewHashing(0)
	tests := []struct {
		text string
		want int // distinct features
	}{
		{"spicy", 1 + 3},                         // word + 3 trigrams
		{"spicy spicy spicy", 1 + 1 + 3},         // word, bigram spicy_spicy, trigrams
		{"the spicy food", 1 + 1 + 1 + 3},        // spicy, food, spicy_food, trigrams of spicy
		{"spicy. food", 1 + 1 + 3},               // the full stop breaks the bigram
		{"辣", 1},                                 // one character
		{"我不吃辣", 3 + 3},                          // 不 吃 辣; 我不 不吃 吃辣
		{"我们的", 0},                               // stop characters only, and no bigram of two
		{"cats", 1},                              // word of four runes: no trigrams
		{"I don't know", 1},                      // know
		{"Go 语言", 1 + 2 + 1},                     // go; 语 言; 语言
		{"running runs", 1 + 1 + 5},              // run, bigram run_run, trigrams of "running"
		{"the quick brown fox jumps", 4 + 3 + 9}, // words, bigrams, trigrams of quick brown jumps
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := h.Terms(tt.text)
			if len(got) != tt.want {
				t.Errorf("len(Terms(%q)) = %d, want %d", tt.text, len(got), tt.want)
			}
			for i := 1; i < len(got); i++ {
				if got[i] <= got[i-1] {
					t.Fatalf("Terms(%q) not strictly increasing: %v", tt.text, got)
				}
			}
		})
	}
}

func TestStemWord(t *testing.T) {
	tests := []struct{ word, want string }{
		{"dishes", "dish"},
		{"dish", "dish"},
		{"boxes", "box"},
		{"classes", "class"},
		{"class", "class"},
		{"studies", "studi"},
		{"study", "studi"},
		{"cookies", "cooki"},
		{"cookie", "cooki"},
		{"love", "lov"},
		{"loves", "lov"},
		{"loved", "lov"},
		{"loving", "lov"},
		{"running", "run"},
		{"runs", "run"},
		{"stopped", "stop"},
		{"falling", "fall"},
		{"meetings", "meet"},
		{"meeting", "meet"},
		{"need", "need"},
		{"speed", "speed"},
		{"string", "string"},
		{"thing", "thing"},
		{"quickly", "quick"},
		{"early", "earli"},
		{"spicy", "spici"},
		{"spice", "spic"},
		{"bus", "bus"},
		{"status", "status"},
		{"analysis", "analysis"},
		{"uses", "use"},
		{"use", "use"},
		{"gas", "gas"},
		{"go", "go"},
		{"day", "dai"},
		{"days", "dai"},
		{"keys", "kei"},
		{"embedding", "embed"},
		{"embedded", "embed"},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if got := string(stemWord([]byte(tt.word))); got != tt.want {
				t.Errorf("stemWord(%q) = %q, want %q", tt.word, got, tt.want)
			}
		})
	}
}

// dfTable counts, for each feature id, how many of docs contain it.
func dfTable(h *Hashing, docs []string) map[uint64]int {
	df := make(map[uint64]int)
	for _, d := range docs {
		for _, id := range h.Terms(d) {
			df[id]++
		}
	}
	return df
}

func TestHashingEmbedQueryIDF(t *testing.T) {
	h := NewHashing(0)
	corpus := []string{
		"atlas launch",
		"project meeting",
		"project budget review",
		"project deadline moved to Friday",
		"the project kickoff went well",
		"project notes from the call",
		"weekly project sync",
		"project retro next week",
		"project hiring plan",
		"new project dashboard",
	}
	table := dfTable(h, corpus)
	df := func(id uint64) int { return table[id] }
	atlas := embedOne(t, h, "atlas launch")
	meeting := embedOne(t, h, "project meeting")

	q := h.EmbedQuery("project atlas", df, len(corpus))
	if n := norm2(q); math.Abs(n-1) > 1e-5 {
		t.Errorf("|EmbedQuery| = %v, want 1", n)
	}
	if ca, cm := Cosine(q, atlas), Cosine(q, meeting); ca <= cm {
		t.Errorf("with idf: cos(q, atlas launch) = %.3f, not above cos(q, project meeting) = %.3f", ca, cm)
	}

	// Without corpus statistics "project" (7 letters, more trigrams)
	// outweighs "atlas", which is what idf is there to fix.
	q0 := h.EmbedQuery("project atlas", df, 0)
	if ca, cm := Cosine(q0, atlas), Cosine(q0, meeting); ca >= cm {
		t.Errorf("without idf: cos(q, atlas launch) = %.3f, expected below cos(q, project meeting) = %.3f", ca, cm)
	}
}

func TestHashingEmbedQueryWithoutStatsEqualsEmbed(t *testing.T) {
	h := NewHashing(0)
	approx := cmpopts.EquateApprox(0, 1e-6)
	for _, text := range []string{"我不吃辣", "I love spicy food", "明天用 Python 写爬虫"} {
		want := embedOne(t, h, text)
		if diff := cmp.Diff(want, h.EmbedQuery(text, nil, 0), approx); diff != "" {
			t.Errorf("EmbedQuery(%q, nil, 0) (-Embed +EmbedQuery):\n%s", text, diff)
		}
		if diff := cmp.Diff(want, h.EmbedQuery(text, func(uint64) int { return 3 }, 0), approx); diff != "" {
			t.Errorf("EmbedQuery(%q, df, 0) (-Embed +EmbedQuery):\n%s", text, diff)
		}
	}
}

func TestIDF(t *testing.T) {
	tests := []struct {
		name      string
		df, docs  int
		wantAbove float64
		wantBelow float64
	}{
		{"unseen", 0, 100, 4, 6},
		{"rare", 1, 100, 3.5, 4.5},
		{"everywhere is floored", 100, 100, minIDF - 1e-9, minIDF + 1e-9},
		{"df above docs is clamped", 500, 100, minIDF - 1e-9, minIDF + 1e-9},
		{"negative df is clamped", -1, 100, 4, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := idf(tt.df, tt.docs)
			if got < tt.wantAbove || got > tt.wantBelow || math.IsNaN(got) {
				t.Errorf("idf(%d, %d) = %v, want in [%v, %v]", tt.df, tt.docs, got, tt.wantAbove, tt.wantBelow)
			}
		})
	}
	if idf(1, 100) <= idf(50, 100) {
		t.Error("idf does not fall as df grows")
	}
}

func TestHashingCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := NewHashing(0).Embed(ctx, []string{"hello"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Embed(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestHashingConcurrent(t *testing.T) {
	h := NewHashing(256)
	texts := make([]string, 40)
	for i := range texts {
		texts[i] = fmt.Sprintf("消息 %d: I love spicy food number %d, 我不吃辣", i, i*7)
	}
	want, err := h.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	wantQ := h.EmbedQuery(texts[3], func(uint64) int { return 2 }, 10)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range texts {
				j := (i + g) % len(texts)
				got, err := h.Embed(t.Context(), texts[j:j+1])
				if err != nil {
					t.Error(err)
					return
				}
				if !cmp.Equal(want[j], got[0]) {
					t.Errorf("concurrent Embed(%q) differs", texts[j])
				}
				if q := h.EmbedQuery(texts[3], func(uint64) int { return 2 }, 10); !cmp.Equal(wantQ, q) {
					t.Error("concurrent EmbedQuery differs")
				}
				_ = h.Terms(texts[j])
			}
		})
	}
	wg.Wait()
}

func TestNormalizeAndCosine(t *testing.T) {
	tests := []struct {
		name    string
		a, b    []float32
		wantCos float32
	}{
		{"same direction", []float32{3, 4}, []float32{6, 8}, 1},
		{"opposite", []float32{1, 0}, []float32{-2, 0}, -1},
		{"orthogonal", []float32{1, 0}, []float32{0, 5}, 0},
		{"zero", []float32{0, 0}, []float32{1, 1}, 0},
		{"length mismatch", []float32{1, 0}, []float32{1, 0, 0}, 0},
		{"empty", nil, nil, 0},
	}
	approx := cmpopts.EquateApprox(0, 1e-6)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cosine(tt.a, tt.b); !cmp.Equal(tt.wantCos, got, approx) {
				t.Errorf("Cosine(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.wantCos)
			}
		})
	}

	v := []float32{3, 4}
	Normalize(v)
	if diff := cmp.Diff([]float32{0.6, 0.8}, v, approx); diff != "" {
		t.Errorf("Normalize({3,4}) (-want +got):\n%s", diff)
	}
	z := []float32{0, 0, 0}
	Normalize(z)
	if diff := cmp.Diff([]float32{0, 0, 0}, z); diff != "" {
		t.Errorf("Normalize(zero) (-want +got):\n%s", diff)
	}
}

func BenchmarkHashingEmbed(b *testing.B) {
	texts := []struct{ name, text string }{
		{"zh-30", "我不吃辣，但是我老婆特别喜欢吃四川火锅和麻辣烫。"},
		{"en-30", "I never eat spicy food at all"},
		{"zh-140", "下周三我要去上海出差，住在外滩附近的酒店，记得提醒我带上笔记本电脑和充电器。" +
			"周四上午十点和客户开会，讨论新项目的预算和时间表，下午可能还要去工厂参观。" +
			"周五晚上的航班回北京，到家大概十一点左右，周末想带女儿去动物园看熊猫宝宝。" +
			"另外别忘了周日是妈妈生日，要提前订好蛋糕。"},
		{"en-140", "Next Wednesday I'm flying to Shanghai for work; remind me to pack the laptop charger. " +
			"The client meeting on Thursday covers the project budget."},
	}
	for _, tt := range texts {
		b.Run(fmt.Sprintf("%s(%d)", tt.name, len([]rune(tt.text))), func(b *testing.B) {
			h := NewHashing(0)
			in := []string{tt.text}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := h.Embed(b.Context(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkHashingEmbedQuery(b *testing.B) {
	h := NewHashing(0)
	df := func(id uint64) int { return int(id % 50) }
	b.ReportAllocs()
	for b.Loop() {
		_ = h.EmbedQuery("上周说的那个 atlas project 什么时候上线", df, 100)
	}
}
