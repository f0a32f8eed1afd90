package uselite

import (
	"encoding/json"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// separator replaces spaces and starts every text, as in SentencePiece.
const separator = '▁'

// reservedPieces are the first vocabulary entries (unknown, control and
// user-defined symbols) that never match text.
const reservedPieces = 6

// maxInputRunes bounds the text the tokenizer looks at. The model reads at
// most maxLen (128) pieces and a piece is at least one character, so 4096
// characters leave the first 128 pieces of any chat message as they would be
// for the whole text, while a huge message costs no more than a long one.
const maxInputRunes = 4096

// Tokenizer splits text into SentencePiece ids the way the TF.js Universal
// Sentence Encoder tokenizer does: NFKC, "▁" for each space and in front,
// then the segmentation of highest total piece score (Viterbi over a trie of
// the vocabulary). A character no piece covers becomes the unknown id 0, and
// consecutive unknown ids are merged into one.
//
// The port keeps the reference's quirks, since the model was used with them:
// a tie between two segmentations goes to the one found later, an
// unreachable position counts as score 0, and the backward pass steps back
// by the UTF-16 length of each piece. A Tokenizer is safe for concurrent use.
type Tokenizer struct {
	pieces []piece
	// trie maps (node<<21 | rune) to the child node; node 0 is the root.
	trie map[uint64]int32
	// end holds, per trie node, the vocabulary id of the piece ending there, or -1.
	end []int32
}

type piece struct {
	score float64
	units int // UTF-16 length of the piece text
}

// NewTokenizer builds a tokenizer from the vocabulary file of the model: a
// JSON array of [piece, score] pairs whose index is the piece id.
func NewTokenizer(vocabJSON []byte) (*Tokenizer, error) {
	var raw [][2]json.RawMessage
	if err := json.Unmarshal(vocabJSON, &raw); err != nil {
		return nil, fmt.Errorf("uselite: vocabulary: %w", err)
	}
	if len(raw) <= reservedPieces {
		return nil, fmt.Errorf("uselite: vocabulary has %d pieces", len(raw))
	}
	t := &Tokenizer{
		pieces: make([]piece, len(raw)),
		trie:   make(map[uint64]int32, 4*len(raw)),
		end:    []int32{-1},
	}
	for id, pair := range raw {
		var text string
		var score float64
		if err := json.Unmarshal(pair[0], &text); err != nil {
			return nil, fmt.Errorf("uselite: vocabulary piece %d: %w", id, err)
		}
		if err := json.Unmarshal(pair[1], &score); err != nil {
			return nil, fmt.Errorf("uselite: vocabulary score %d: %w", id, err)
		}
		if text == "" || !utf8.ValidString(text) {
			return nil, fmt.Errorf("uselite: vocabulary piece %d is empty or not UTF-8", id)
		}
		t.pieces[id] = piece{score: score, units: len(utf16.Encode([]rune(text)))}
		if id >= reservedPieces {
			t.insert(text, int32(id))
		}
	}
	return t, nil
}

// insert adds text to the trie; a later duplicate replaces an earlier one.
func (t *Tokenizer) insert(text string, id int32) {
	node := int32(0)
	for _, r := range text {
		key := uint64(node)<<21 | uint64(r)
		child, ok := t.trie[key]
		if !ok {
			child = int32(len(t.end))
			t.end = append(t.end, -1)
			t.trie[key] = child
		}
		node = child
	}
	t.end[node] = id
}

// VocabSize is the number of pieces.
func (t *Tokenizer) VocabSize() int { return len(t.pieces) }

// Encode returns the piece ids of text, all of them (the model reads the first 128).
func (t *Tokenizer) Encode(text string) []int32 {
	var s tokScratch
	return append([]int32(nil), t.encode(&s, text)...)
}

// tokScratch holds the buffers of one encoding, reused by a worker.
type tokScratch struct {
	symbols []rune
	best    []float64
	words   []int32
	// cands lists, per end position, the candidate pieces ending there in
	// the order of their start position.
	cands   [][]cand
	results []int32
}

type cand struct {
	start int32
	id    int32
	score float64
}

// encode is Encode on reusable buffers; the result aliases s.
func (t *Tokenizer) encode(s *tokScratch, text string) []int32 {
	s.symbols = appendSymbols(s.symbols[:0], text)
	n := len(s.symbols)
	s.best = resize(s.best, n+1)
	s.words = resize(s.words, n+1)
	if cap(s.cands) < n+1 {
		s.cands = append(s.cands[:cap(s.cands)], make([][]cand, n+1-cap(s.cands))...)
	}
	s.cands = s.cands[:n+1]
	for i := range s.cands {
		s.cands[i] = s.cands[i][:0]
		s.best[i], s.words[i] = 0, 0
	}
	// The lattice: every piece that starts at i, or the unknown piece.
	for i := 0; i < n; i++ {
		found := false
		node := int32(0)
		for j := i; j < n; j++ {
			child, ok := t.trie[uint64(node)<<21|uint64(s.symbols[j])]
			if !ok {
				break
			}
			node = child
			if id := t.end[node]; id >= 0 {
				s.cands[j+1] = append(s.cands[j+1], cand{start: int32(i), id: id, score: t.pieces[id].score})
				found = true
			}
		}
		if !found {
			s.cands[i+1] = append(s.cands[i+1], cand{start: int32(i), id: 0, score: 0})
		}
	}
	// Forward pass, with the reference's tie and sentinel rules.
	for end := 0; end <= n; end++ {
		for _, c := range s.cands[end] {
			score := c.score + s.best[c.start]
			if s.best[end] == 0 || score >= s.best[end] {
				s.best[end] = score
				s.words[end] = c.id
			}
		}
	}
	// Backward pass, then merge runs of unknown ids.
	s.results = s.results[:0]
	prevUnk := false
	for i := n; i > 0; i -= t.pieces[s.words[i]].units {
		id := s.words[i]
		if !(prevUnk && id == 0) {
			s.results = append(s.results, id)
		}
		prevUnk = id == 0
	}
	r := s.results
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return r
}

// appendSymbols appends the characters of the normalised text: NFKC, then
// "▁" in front and in place of every space. At most maxInputRunes are taken.
func appendSymbols(dst []rune, text string) []rune {
	if len(text) > 4*maxInputRunes {
		cut := 4 * maxInputRunes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	text = norm.NFKC.String(text)
	if text == "" {
		return dst
	}
	dst = append(dst, separator)
	for _, r := range text {
		if len(dst) > maxInputRunes {
			break
		}
		if r == ' ' {
			r = separator
		}
		dst = append(dst, r)
	}
	return dst
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
