package uselite

import (
	"slices"
	"testing"
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
