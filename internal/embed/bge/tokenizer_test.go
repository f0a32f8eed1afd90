package bge

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/embed/embedtest"
)

// modelDir is where `make setup` (scripts/fetch-bge-zh.sh) puts the model.
const modelDir = "../../../models/bge-small-zh"

type refCase struct {
	Text      string    `json:"text"`
	Query     bool      `json:"query"`
	Lowercase bool      `json:"lowercase"`
	IDs       []int32   `json:"ids"`
	Vector    []float32 `json:"vector"`
}

func readReference(tb testing.TB) []refCase {
	return embedtest.ReferenceCases[refCase](tb, "testdata/reference.json")
}

// mustTokenizerJSON returns the shipped tokenizer.json or skips the test when
// the model was never fetched (an offline machine).
func mustTokenizerJSON(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(modelDir, TokenizerFile))
	if errors.Is(err, os.ErrNotExist) {
		tb.Skipf("model files not found in %s: run scripts/fetch-bge-zh.sh (make setup) to test bge", modelDir)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestTokenizerReference checks the ids of every reference text against
// the tokenizers library, with the shipped settings and lower-cased.
func TestTokenizerReference(t *testing.T) {
	data := mustTokenizerJSON(t)
	toks := map[bool]*Tokenizer{}
	for _, lower := range []bool{false, true} {
		tok, err := NewTokenizer(data, TokenizerOptions{Lowercase: lower})
		if err != nil {
			t.Fatal(err)
		}
		toks[lower] = tok
	}
	cases := readReference(t)
	for _, c := range cases {
		if got := toks[c.Lowercase].Encode(c.Text); !slices.Equal(got, c.IDs) {
			t.Errorf("Encode(%q, lowercase %v) =\n%v\nwant\n%v", c.Text, c.Lowercase, got, c.IDs)
		}
	}
	// A case written only without lowercase has the same ids with it.
	lowered := map[string]bool{}
	for _, c := range cases {
		if c.Lowercase {
			lowered[c.Text] = true
		}
	}
	for _, c := range cases {
		if !c.Lowercase && !lowered[c.Text] {
			if got := toks[true].Encode(c.Text); !slices.Equal(got, c.IDs) {
				t.Errorf("Encode(%q, lowercase) = %v, want %v", c.Text, got, c.IDs)
			}
		}
	}
}

// TestTokenizerTiny runs the tokenizer on a hand-made vocabulary, so its
// rules are tested without the model files.
func TestTokenizerTiny(t *testing.T) {
	spec := `{
	 "added_tokens": [{"id": 3, "content": "[SEP]", "special": true}, {"id": 2, "content": "[CLS]", "special": true}],
	 "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": false},
	 "pre_tokenizer": {"type": "BertPreTokenizer"},
	 "post_processor": {"type": "TemplateProcessing", "special_tokens": {"[CLS]": {"ids": [2]}, "[SEP]": {"ids": [3]}}},
	 "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 10,
	  "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "un": 4, "##aff": 5, "##able": 6, "a": 7, ",": 8,
	   "中": 9, "文": 10, "cafe": 11, "$": 12, "aff": 13, "##a": 14}}
	}`
	tests := []struct {
		name, text string
		lower      bool
		want       []int32
	}{
		{"empty", "", false, []int32{2, 3}},
		{"continuations", "unaffable", false, []int32{2, 4, 5, 6, 3}},
		{"a failed piece makes the word unknown", "unaffx a", false, []int32{2, 1, 7, 3}},
		{"punctuation splits", "a,a$", false, []int32{2, 7, 8, 7, 12, 3}},
		{"cjk splits without spaces", "a中文a", false, []int32{2, 7, 9, 10, 7, 3}},
		{"controls dropped, whitespace splits", "a\u0000\u200b\ta\u3000a", false, []int32{2, 7, 7, 7, 3}},
		{"case kept", "Cafe", false, []int32{2, 1, 3}},
		{"lowercase strips accents", "Café", true, []int32{2, 11, 3}},
		{"accents kept without lowercase", "café", false, []int32{2, 1, 3}},
		{"long word is unknown", "unaffaffable", false, []int32{2, 1, 3}},
		{"added tokens match raw text", "a[SEP]a [CLS]", false, []int32{2, 7, 3, 7, 2, 3}},
		{"added token inside a word", "aff[SEP]a", false, []int32{2, 13, 3, 7, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := NewTokenizer([]byte(spec), TokenizerOptions{Lowercase: tt.lower})
			if err != nil {
				t.Fatal(err)
			}
			if got := tok.Encode(tt.text); !slices.Equal(got, tt.want) {
				t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
			}
		})
	}
}

// TestTokenizerCut checks that a long text yields MaxTokens ids ending in
// [SEP], cut in the middle of words and of runs of added tokens alike.
func TestTokenizerCut(t *testing.T) {
	tok, err := NewTokenizer(mustTokenizerJSON(t), TokenizerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{strings.Repeat("中文", 600), strings.Repeat("unaffable ", 600), strings.Repeat("[SEP]", 600)} {
		ids := tok.Encode(text)
		if len(ids) != MaxTokens || ids[0] != tok.cls || ids[len(ids)-1] != tok.sep {
			t.Errorf("Encode(%.20q…): %d ids, first %d last %d", text, len(ids), ids[0], ids[len(ids)-1])
		}
	}
}
