package embed

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// DefaultHashingDim is the dimension NewHashing uses when it is given 0.
const DefaultHashingDim = 1024

// Feature kinds. The kind is hashed as the first byte of every feature, so the
// word "go" and the character trigram "go…" never share an id.
const (
	kindWord       byte = 'w' // stemmed Latin/digit word
	kindWordBigram byte = 'b' // two adjacent kept words
	kindTrigram    byte = 't' // character 3-gram of a word longer than 4 runes
	kindCJK        byte = 'c' // one Han, kana or hangul character
	kindCJKBigram  byte = 'd' // two adjacent characters of a CJK run
)

// Type weights, multiplied into every feature's tf weight.
const (
	weightWord       = 1.0
	weightWordBigram = 0.8
	weightTrigram    = 0.5
	weightCJK        = 0.7
	weightCJKBigram  = 1.0
)

// minIDF keeps a term that occurs in every document from vanishing from a query.
const minIDF = 0.05

// maxPooledFeatures bounds the scratch buffers kept for reuse, so one huge
// text does not pin its buffers for the life of the process.
const maxPooledFeatures = 1 << 16

// Hashing is a feature-hashing embedder for Chinese, English and mixed text.
//
// Text is NFKC-normalised and lowercased. Latin and digit words lose English
// stop words and a few suffixes (plural s/es, ing, ed, ly); their features
// are word unigrams, bigrams of adjacent kept words and, at a lower weight,
// character 3-grams of words longer than four characters, so "spicy" and
// "spice" overlap. Han, kana and hangul runs give character unigrams
// (without stop characters such as 的 了 是) and character bigrams. Each feature
// is hashed to a 64-bit id; id % Dim picks the bucket and the top bit of the
// id its sign.
//
// Document vectors weight each feature by (1+ln tf) times its type weight;
// EmbedQuery also multiplies in BM25 idf. A Hashing is safe for concurrent use.
type Hashing struct {
	dim  int
	name string
	pool sync.Pool // of *scratch
}

// NewHashing returns a hashing embedder with dim buckets; dim <= 0 selects
// DefaultHashingDim.
func NewHashing(dim int) *Hashing {
	if dim <= 0 {
		dim = DefaultHashingDim
	}
	h := &Hashing{dim: dim, name: "hash-ngram-v1-" + strconv.Itoa(dim)}
	h.pool.New = func() any { return new(scratch) }
	return h
}

// Name returns "hash-ngram-v1-<dim>".
func (h *Hashing) Name() string { return h.name }

// Dim returns the vector length.
func (h *Hashing) Dim() int { return h.dim }

// Embed returns the tf-weighted, L2-normalised document vector of each text.
// Text without features (empty, punctuation or stop words only) gives a zero
// vector. ctx is only checked once, before any work.
func (h *Hashing) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: hashing: %w", err)
	}
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*h.dim)
	s := h.get()
	defer h.put(s)
	for i, text := range texts {
		v := backing[i*h.dim : (i+1)*h.dim : (i+1)*h.dim]
		h.fill(v, s.extract(text), nil, 0)
		out[i] = v
	}
	return out, nil
}

// Terms returns the distinct feature ids of text in ascending order.
func (h *Hashing) Terms(text string) []uint64 {
	s := h.get()
	defer h.put(s)
	feats := s.extract(text)
	if len(feats) == 0 {
		return nil
	}
	ids := make([]uint64, len(feats))
	for i, f := range feats {
		ids[i] = f.id
	}
	return ids
}

// EmbedQuery returns the L2-normalised query vector of text. Each feature is
// weighted by (1+ln tf) times its type weight times the BM25 idf
// ln(1 + (docs-df+0.5)/(df+0.5)), floored at a small positive value. With
// docs <= 0 or a nil df the idf factor is left out and the result equals the
// Embed vector of text.
func (h *Hashing) EmbedQuery(text string, df func(term uint64) int, docs int) []float32 {
	if df == nil {
		docs = 0
	}
	s := h.get()
	defer h.put(s)
	v := make([]float32, h.dim)
	h.fill(v, s.extract(text), df, docs)
	return v
}

// fill adds the weighted features to the zeroed vector v and normalises it.
func (h *Hashing) fill(v []float32, feats []feature, df func(uint64) int, docs int) {
	dim := uint64(h.dim)
	for _, f := range feats {
		w := (1 + math.Log(float64(f.tf))) * float64(f.w)
		if docs > 0 {
			w *= idf(df(f.id), docs)
		}
		if f.id>>63 != 0 {
			w = -w
		}
		v[f.id%dim] += float32(w)
	}
	Normalize(v)
}

// idf is the BM25 inverse document frequency, floored at minIDF.
func idf(df, docs int) float64 {
	df = min(max(df, 0), docs)
	x := math.Log(1 + (float64(docs-df)+0.5)/(float64(df)+0.5))
	return max(x, minIDF)
}

func (h *Hashing) get() *scratch { return h.pool.Get().(*scratch) }

func (h *Hashing) put(s *scratch) {
	if cap(s.feats) > maxPooledFeatures {
		return
	}
	h.pool.Put(s)
}

// feature is one hashed feature; after extract, tf counts its occurrences.
type feature struct {
	id uint64
	w  float32 // type weight
	tf uint32
}

// scratch holds the buffers of one extraction, reused through Hashing.pool.
type scratch struct {
	feats []feature
	word  []byte  // current word, lowercased
	runes []int32 // byte offset of each rune of word
	alpha bool    // word is all ASCII letters, so it may be stemmed
	stem  []byte
	prev  []byte // last kept word stem, for word bigrams
	chain bool   // prev is set and adjacent to the next word
	run   rune   // previous character of the current CJK run, or -1
	runSt bool   // run is a stop character
}

// extract returns the distinct features of text, sorted by id, with tf set.
// The result aliases s and is valid until the next call.
func (s *scratch) extract(text string) []feature {
	s.feats = s.feats[:0]
	s.resetWord()
	s.chain = false
	s.run = -1
	text = normalizeText(text)
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			switch {
			case 'a' <= r && r <= 'z':
				s.addRune(r, true)
			case 'A' <= r && r <= 'Z':
				s.addRune(r+'a'-'A', true)
			case '0' <= r && r <= '9':
				s.addRune(r, false)
			default:
				s.separator(r)
			}
		case isCJK(r):
			s.cjk(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			s.addRune(unicode.ToLower(r), false)
		case unicode.IsMark(r):
			// Combining marks NFKC could not compose belong to the word
			// they follow; elsewhere (after CJK, variation selectors) they
			// carry nothing.
			if len(s.word) > 0 {
				s.addRune(r, false)
			}
		default:
			s.separator(r)
		}
	}
	s.flushWord()
	return s.merge()
}

// merge sorts s.feats by id and folds duplicates into tf counts.
func (s *scratch) merge() []feature {
	feats := s.feats
	slices.SortFunc(feats, func(a, b feature) int { return cmp.Compare(a.id, b.id) })
	n := 0
	for i := 0; i < len(feats); {
		j := i + 1
		for j < len(feats) && feats[j].id == feats[i].id {
			j++
		}
		feats[n] = feature{id: feats[i].id, w: feats[i].w, tf: uint32(j - i)}
		n++
		i = j
	}
	s.feats = feats[:n]
	return s.feats
}

func (s *scratch) resetWord() {
	s.word = s.word[:0]
	s.runes = s.runes[:0]
	s.alpha = true
}

func (s *scratch) addRune(r rune, alpha bool) {
	s.run = -1
	s.runes = append(s.runes, int32(len(s.word)))
	s.word = utf8.AppendRune(s.word, r)
	s.alpha = s.alpha && alpha
}

func (s *scratch) separator(r rune) {
	s.flushWord()
	s.run = -1
	if breaksChain(r) {
		s.chain = false
	}
}

// cjk handles one Han, kana or hangul character.
func (s *scratch) cjk(r rune) {
	s.flushWord()
	s.chain = false
	stop := isStopChar(r)
	if !stop {
		s.add(fnvRune(fnvByte(fnvOffset, kindCJK), r), weightCJK)
	}
	if s.run >= 0 && !(stop && s.runSt) {
		s.add(fnvRune(fnvRune(fnvByte(fnvOffset, kindCJKBigram), s.run), r), weightCJKBigram)
	}
	s.run, s.runSt = r, stop
}

// flushWord emits the features of the word collected so far.
func (s *scratch) flushWord() {
	if len(s.word) == 0 {
		return
	}
	defer s.resetWord()
	if len(s.word) <= maxStopWordLen && isStopWord(string(s.word)) {
		return
	}
	stem := s.word
	if s.alpha {
		s.stem = stemWord(append(s.stem[:0], s.word...))
		stem = s.stem
	}
	s.add(fnvBytes(fnvByte(fnvOffset, kindWord), stem), weightWord)
	if s.chain {
		h := fnvBytes(fnvByte(fnvOffset, kindWordBigram), s.prev)
		h = fnvBytes(fnvByte(h, ' '), stem)
		s.add(h, weightWordBigram)
	}
	s.prev = append(s.prev[:0], stem...)
	s.chain = true
	if n := len(s.runes); n > 4 {
		for i := 0; i+3 <= n; i++ {
			end := len(s.word)
			if i+3 < n {
				end = int(s.runes[i+3])
			}
			s.add(fnvBytes(fnvByte(fnvOffset, kindTrigram), s.word[s.runes[i]:end]), weightTrigram)
		}
	}
}

// add appends a feature whose FNV-1a state is h.
func (s *scratch) add(h uint64, w float32) {
	s.feats = append(s.feats, feature{id: mix64(h), w: w})
}

// normalizeText returns the NFKC form of text, without copying ASCII or
// already normalised text.
func normalizeText(text string) string {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			if norm.NFKC.IsNormalString(text) {
				return text
			}
			return norm.NFKC.String(text)
		}
	}
	return text
}

// isCJK reports whether r is segmented character by character: Han, kana or
// hangul (including the katakana prolonged sound mark).
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) || r == 'ー'
}

// breaksChain reports whether separator r ends a phrase, so the words on
// either side do not form a bigram. Spaces, apostrophes and hyphens do not.
func breaksChain(r rune) bool {
	switch r {
	case '\'', '‘', '’', '-', '‐', '‑':
		return false
	}
	return unicode.IsPunct(r)
}

// FNV-1a 64 parameters.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

func fnvBytes(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

func fnvRune(h uint64, r rune) uint64 {
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return fnvBytes(h, buf[:n])
}

// mix64 is the splitmix64 finaliser. FNV-1a's low bits, which pick the
// bucket, depend only on the low bits of the input; mixing spreads every
// input bit over the whole id, so bucket and sign bit are independent.
func mix64(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}
