package bge

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxTokens is the longest input of the model (its position table), [CLS]
// and [SEP] included. Longer texts are cut.
const MaxTokens = 512

// Tokenizer is the BERT WordPiece tokenizer a Hugging Face tokenizer.json
// describes (BertNormalizer, BertPreTokenizer, WordPiece with "##"
// continuations, [CLS] text [SEP]), ported so that its ids equal those of
// the tokenizers library. The special tokens of added_tokens are matched in
// the raw text first, as there. A Tokenizer is safe for concurrent use.
type Tokenizer struct {
	vocab map[string]int32 // pieces that start a word
	cont  map[string]int32 // "##" pieces, keyed without the prefix
	added []addedToken
	unk   int32
	cls   int32
	sep   int32

	cleanText, chineseChars, stripAccents, lowercase bool
	maxWordChars                                     int
}

type addedToken struct {
	content string
	id      int32
}

// TokenizerOptions changes what tokenizer.json says.
type TokenizerOptions struct {
	// Lowercase lower-cases the text even when tokenizer.json does not. With
	// strip_accents unset it then also strips accents, as BERT does. The
	// bge-small-zh-v1.5 file shipped with the ONNX export has lowercase
	// false, but its vocabulary has no upper-case piece and BAAI's own
	// tokenizer lower-cases, so without this capitalised words become [UNK].
	Lowercase bool
}

type tokenizerJSON struct {
	AddedTokens []struct {
		ID         int32  `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer struct {
		Type               string `json:"type"`
		CleanText          bool   `json:"clean_text"`
		HandleChineseChars bool   `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          bool   `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	PostProcessor struct {
		Type          string `json:"type"`
		SpecialTokens map[string]struct {
			IDs []int32 `json:"ids"`
		} `json:"special_tokens"`
	} `json:"post_processor"`
	Model struct {
		Type                    string           `json:"type"`
		UnkToken                string           `json:"unk_token"`
		ContinuingSubwordPrefix string           `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
		Vocab                   map[string]int32 `json:"vocab"`
	} `json:"model"`
}

// NewTokenizer builds a tokenizer from the bytes of a tokenizer.json. It
// refuses any pipeline other than the BERT one it implements.
func NewTokenizer(data []byte, opt TokenizerOptions) (*Tokenizer, error) {
	var j tokenizerJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, fmt.Errorf("bge: tokenizer.json: %w", err)
	}
	switch {
	case j.Normalizer.Type != "BertNormalizer":
		return nil, fmt.Errorf("bge: tokenizer.json: normalizer %q, want BertNormalizer", j.Normalizer.Type)
	case j.PreTokenizer.Type != "BertPreTokenizer":
		return nil, fmt.Errorf("bge: tokenizer.json: pre_tokenizer %q, want BertPreTokenizer", j.PreTokenizer.Type)
	case j.Model.Type != "WordPiece":
		return nil, fmt.Errorf("bge: tokenizer.json: model %q, want WordPiece", j.Model.Type)
	case j.PostProcessor.Type != "TemplateProcessing":
		return nil, fmt.Errorf("bge: tokenizer.json: post_processor %q, want TemplateProcessing", j.PostProcessor.Type)
	}
	t := &Tokenizer{
		vocab:        make(map[string]int32, len(j.Model.Vocab)),
		cont:         make(map[string]int32),
		cleanText:    j.Normalizer.CleanText,
		chineseChars: j.Normalizer.HandleChineseChars,
		lowercase:    j.Normalizer.Lowercase || opt.Lowercase,
		maxWordChars: j.Model.MaxInputCharsPerWord,
	}
	// strip_accents unset follows lowercase, as in BertNormalizer.
	t.stripAccents = t.lowercase
	if j.Normalizer.StripAccents != nil {
		t.stripAccents = *j.Normalizer.StripAccents
	}
	prefix := j.Model.ContinuingSubwordPrefix
	for p, id := range j.Model.Vocab {
		if rest, ok := strings.CutPrefix(p, prefix); ok && prefix != "" {
			t.cont[rest] = id
		} else {
			t.vocab[p] = id
		}
	}
	var ok bool
	if t.unk, ok = j.Model.Vocab[j.Model.UnkToken]; !ok {
		return nil, fmt.Errorf("bge: tokenizer.json: unknown token %q not in vocabulary", j.Model.UnkToken)
	}
	special := func(name string) (int32, error) {
		s, ok := j.PostProcessor.SpecialTokens[name]
		if !ok || len(s.IDs) != 1 {
			return 0, fmt.Errorf("bge: tokenizer.json: post_processor lacks %s", name)
		}
		return s.IDs[0], nil
	}
	var err error
	if t.cls, err = special("[CLS]"); err != nil {
		return nil, err
	}
	if t.sep, err = special("[SEP]"); err != nil {
		return nil, err
	}
	for _, a := range j.AddedTokens {
		if a.SingleWord || a.Lstrip || a.Rstrip || a.Normalized || a.Content == "" {
			return nil, fmt.Errorf("bge: tokenizer.json: added token %q has options this port lacks", a.Content)
		}
		t.added = append(t.added, addedToken{a.Content, a.ID})
	}
	if t.maxWordChars <= 0 {
		t.maxWordChars = 100
	}
	return t, nil
}

// Encode returns the ids of [CLS] text [SEP], cut to at most MaxTokens ids.
func (t *Tokenizer) Encode(text string) []int32 {
	ids := make([]int32, 0, min(MaxTokens, len(text)+2))
	ids = append(ids, t.cls)
	limit := MaxTokens - 1 // room for [SEP]
	var buf []rune
	for text != "" && len(ids) < limit {
		// The earliest added token splits the text; ties go to the longest.
		at, tok := len(text), -1
		for i, a := range t.added {
			if k := strings.Index(text[:min(len(text), at+len(a.content))], a.content); k >= 0 &&
				(k < at || (k == at && len(a.content) > len(t.added[tok].content))) {
				at, tok = k, i
			}
		}
		buf = t.normalize(buf[:0], text[:at])
		ids = t.words(ids, buf, limit)
		if tok < 0 || len(ids) >= limit {
			break
		}
		ids = append(ids, t.added[tok].id)
		text = text[at+len(t.added[tok].content):]
	}
	return append(ids, t.sep)
}

// normalize appends the BertNormalizer form of s to dst.
func (t *Tokenizer) normalize(dst []rune, s string) []rune {
	if t.stripAccents {
		s = norm.NFD.String(s)
	}
	for _, r := range s {
		if t.cleanText {
			if r == 0 || r == utf8.RuneError || isControl(r) {
				continue
			}
			if isWhitespace(r) {
				r = ' '
			}
		}
		if t.stripAccents && unicode.Is(unicode.Mn, r) {
			continue
		}
		if t.lowercase {
			r = unicode.ToLower(r)
		}
		if t.chineseChars && isChinese(r) {
			dst = append(dst, ' ', r, ' ')
			continue
		}
		dst = append(dst, r)
	}
	return dst
}

// words splits normalized text on whitespace and punctuation (each
// punctuation character is a word) and appends the WordPiece ids of each
// word to ids, stopping at limit ids.
func (t *Tokenizer) words(ids []int32, text []rune, limit int) []int32 {
	start := -1
	flush := func(end int) {
		if start >= 0 {
			ids = t.wordPiece(ids, text[start:end])
			start = -1
		}
	}
	for i, r := range text {
		if len(ids) >= limit {
			return ids[:limit]
		}
		switch {
		case isWhitespace(r):
			flush(i)
		case isPunct(r):
			flush(i)
			ids = t.wordPiece(ids, text[i:i+1])
		default:
			if start < 0 {
				start = i
			}
		}
	}
	flush(len(text))
	return ids[:min(len(ids), limit)]
}

// wordPiece appends the greedy longest-match-first pieces of word, or [UNK]
// when some part matches no piece or the word is too long.
func (t *Tokenizer) wordPiece(ids []int32, word []rune) []int32 {
	if len(word) > t.maxWordChars {
		return append(ids, t.unk)
	}
	n := len(ids)
	var sb strings.Builder
	for start := 0; start < len(word); {
		end, id := len(word), int32(-1)
		for ; end > start; end-- {
			sb.Reset()
			for _, r := range word[start:end] {
				sb.WriteRune(r)
			}
			table := t.vocab
			if start > 0 {
				table = t.cont
			}
			if v, ok := table[sb.String()]; ok {
				id = v
				break
			}
		}
		if id < 0 {
			return append(ids[:n], t.unk)
		}
		ids = append(ids, id)
		start = end
	}
	return ids
}

// isWhitespace is char::is_whitespace of Rust (Unicode White_Space), which
// is what unicode.IsSpace tests.
func isWhitespace(r rune) bool { return unicode.IsSpace(r) }

// isControl matches the tokenizers library: categories Cc, Cf, Co and
// unassigned code points, except tab, newline and carriage return.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cs)
}

// isPunct is BERT's punctuation: any ASCII punctuation (which includes
// symbols such as $ + < = > ^ ` | ~) or a Unicode punctuation character.
func isPunct(r rune) bool {
	if r < 0x80 {
		return r >= '!' && r <= '/' || r >= ':' && r <= '@' || r >= '[' && r <= '`' || r >= '{' && r <= '~'
	}
	return unicode.IsPunct(r)
}

// isChinese reports whether r is in a CJK Unified Ideographs block, which
// BERT splits into single-character words.
func isChinese(r rune) bool {
	switch {
	case r >= 0x4E00 && r <= 0x9FFF,
		r >= 0x3400 && r <= 0x4DBF,
		r >= 0x20000 && r <= 0x2A6DF,
		r >= 0x2A700 && r <= 0x2B73F,
		r >= 0x2B740 && r <= 0x2B81F,
		r >= 0x2B920 && r <= 0x2CEAF,
		r >= 0xF900 && r <= 0xFAFF,
		r >= 0x2F800 && r <= 0x2FA1F:
		return true
	}
	return false
}
