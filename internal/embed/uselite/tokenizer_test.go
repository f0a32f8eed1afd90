package uselite

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTokenizerReference checks the piece ids of every reference text
// against the TF.js tokenizer (emoji, CJK, NFKC forms, control
// characters, runs of spaces, texts past the model's 128 pieces).
func TestTokenizerReference(t *testing.T) {
	m := mustModel(t)
	for _, c := range readReference(t) {
		if got := m.Tokenizer().Encode(c.Text); !slices.Equal(got, c.Tokens) {
			t.Errorf("Encode(%.40q) =\n%v\nwant\n%v", c.Text, got, c.Tokens)
		}
	}
}

// TestTokenizerTiny runs the tokenizer on a hand-made vocabulary, so its
// rules are tested without the model files.
func TestTokenizerTiny(t *testing.T) {
	vocab := `[["�",0],["<s>",0],["</s>",0],["r1",0],["r2",0],["r3",0],
		["▁",-2],["a",-3],["b",-3],["ab",-4],["▁ab",-3],["c",-3],["é",-2]]`
	tok, err := NewTokenizer([]byte(vocab))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		want       []int32
	}{
		{"empty", "", []int32{}},
		{"best piece", "ab", []int32{10}},
		{"space becomes separator", "ab ab", []int32{10, 10}},
		{"longest is not always best", "abc", []int32{10, 11}},
		{"unknown runs merge", "ab 🎉🎉x", []int32{10, 6, 0}},
		{"cjk is unknown", "中文", []int32{6, 0}},
		{"nfkc composes e + acute into é", "e\u0301", []int32{6, 12}},
		{"reserved never match", "r1", []int32{6, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tok.Encode(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// TestTokenizerTruncation checks that the model reads the first maxLen
// pieces, and that a huge text costs no more than its first maxInputRunes
// characters and gives the same pieces as that prefix.
func TestTokenizerTruncation(t *testing.T) {
	m := mustModel(t)
	s := m.newScratch()
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 40) // ~1800 chars, ~360 pieces
	all := m.Tokenizer().Encode(long)
	if len(all) <= m.MaxLen() {
		t.Fatalf("long text has %d pieces, want more than %d", len(all), m.MaxLen())
	}
	if got := m.tokens(s, long); !slices.Equal(got, all[:m.MaxLen()]) {
		t.Errorf("model tokens are not the first %d pieces", m.MaxLen())
	}
	huge := strings.Repeat("Emoji 🎉 and 中文 mixed with English words, ", 30000) // ~1.2 MB
	start := time.Now()
	got := m.tokens(s, huge)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("tokenizing 1.2 MB took %v", d)
	}
	prefix := string([]rune(huge)[:maxInputRunes-1]) // the separator takes one symbol
	if want := m.tokens(s, prefix); !slices.Equal(got, want) {
		t.Errorf("huge text pieces differ from those of its prefix:\n%v\n%v", got, want)
	}
	if len(got) != m.MaxLen() {
		t.Errorf("huge text gives %d pieces, want %d", len(got), m.MaxLen())
	}
}
