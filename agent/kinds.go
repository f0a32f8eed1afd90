package agent

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/internal/wordfreq"
	"github.com/recalld/recalld/internal/wordnet"
)

// WithWordNet lets the offline brain know what a thing is a kind of (a
// harmonica is a musical instrument, a marathon a race): a question naming
// a kind ("我最近自学的那个乐器叫啥来着？", "What race am I getting ready
// for?") is borne out by a message naming a thing of it ("impulse bought a
// chromatic harmonica"), in either language through the dictionary.
// Without it (nil) only the skill's kinds and topics know such things.
func WithWordNet(w *wordnet.WordNet) Option {
	return func(a *Agent) { a.wordnet = w }
}

// WithWordFreq lets the offline brain know how common a word is in
// everyday Chinese and English: a matter's course is followed by the words
// that tie its messages together (装修, glaze), not by those any message
// may hold (开始, thing), which a user's few dozen messages cannot tell
// apart. Without it (nil) no matter's course is followed.
func WithWordFreq(f *wordfreq.Freq) Option {
	return func(a *Agent) { a.freq = f }
}

// kindSenses is how many of a Chinese word's English senses are read, the
// most common first: 乐器 is a musical instrument, 尤克里里 a ukulele.
const kindSenses = 2

// wordKinds returns the evidence terms of the question that name the kind
// of thing it asks for (askedNouns) when WordNet knows it as one (race;
// 乐器 by its sense "musical instrument"), each with whether a message
// names a thing of that kind, and the kinds asked for by a noun no
// evidence term lies in (a word naming a topic as a whole, which is no
// evidence: relevance.broadKinds). Only the noun asked for: a kind the
// question merely mentions ("What does Nate use to remember his dog?") is
// borne out by every dog.
func (or *offlineRun) wordKinds(question string, evidence []string) (byTerm map[string]func(string) bool, broad []func(string) bool) {
	if or.wordnet == nil {
		return nil, nil
	}
	add := func(t string, named func(string) bool) {
		if byTerm == nil {
			byTerm = make(map[string]func(string) bool)
		}
		if byTerm[t] == nil {
			byTerm[t] = named
		}
	}
	for _, a := range or.askedKinds(question) {
		n, k := a.noun, a.kind
		var in func(t string) bool
		if isCJKString(n) {
			in = func(t string) bool { return isCJKString(t) && utf8.RuneCountInString(t) > 1 && strings.Contains(n, t) }
		} else {
			words := strings.Fields(n)
			in = func(t string) bool {
				return slices.ContainsFunc(words, func(w string) bool { return t == w || t == stem(w) })
			}
		}
		named, found := or.namesOfKind(k), false
		for _, t := range evidence {
			if in(t) {
				add(t, named)
				found = true
			}
		}
		if !found {
			broad = append(broad, named)
		}
	}
	return byTerm, broad
}

// askedKind is a noun a question asks for a thing of and the kind WordNet
// knows it as.
type askedKind struct {
	noun string
	kind *wordnet.Kind
}

// askedKinds returns the nouns of the question that ask for a thing of a
// kind WordNet knows (askedNouns): race; 乐器 by its sense "musical
// instrument".
func (or *offlineRun) askedKinds(question string) []askedKind {
	if or.wordnet == nil {
		return nil
	}
	var out []askedKind
	covered := map[string]bool{} // the first words of two that name a kind together
	for _, n := range askedNouns(question, or.dict) {
		if covered[n] {
			continue
		}
		var k *wordnet.Kind
		if isCJKString(n) {
			for _, en := range firstN(or.dict.English(n), kindSenses) {
				if k = or.wordnet.Kind(en); k != nil {
					break
				}
			}
		} else {
			k = or.wordnet.Kind(n)
		}
		if k != nil {
			out = append(out, askedKind{n, k})
			if first, _, two := strings.Cut(n, " "); two {
				covered[first] = true
			}
		}
	}
	return out
}

// askedNouns returns the nouns a question asks for a thing of: the word
// after what, which, any, what kind of or what's my ("What race am I
// getting ready for?", "is there any medication I can't take?", "What's
// my dog called?"), and, tried before it,
// the two words there ("What martial arts has John done?"); in Chinese the word
// (of the dictionary: d) after 什么, 啥, 哪个, 那个… with or without a
// measure word, or before 叫啥, 是什么… ("我最近自学的那个乐器叫啥来着？").
func askedNouns(question string, d *bilingual.Dict) []string {
	lower := strings.ToLower(question)
	var out []string
	for _, m := range askedEN.FindAllStringSubmatch(lower, -1) {
		// Two words may name the kind together (martial arts, board
		// games): they are tried first.
		if m[2] != "" {
			out = append(out, m[1]+" "+m[2])
		}
		out = append(out, m[1])
	}
	if d == nil {
		return out
	}
	for _, m := range askedAfterZH.FindAllStringSubmatch(lower, -1) {
		if ws := d.Segment(m[1]); len(ws) > 0 && utf8.RuneCountInString(ws[0]) > 1 {
			out = append(out, ws[0])
		}
	}
	for _, m := range askedBeforeZH.FindAllStringSubmatch(lower, -1) {
		if ws := d.Segment(m[1]); len(ws) > 0 && utf8.RuneCountInString(ws[len(ws)-1]) > 1 {
			out = append(out, ws[len(ws)-1])
		}
	}
	return out
}

var (
	askedEN       = regexp.MustCompile(`\b(?:what|which|any)(?:(?:'s|\s+is|\s+was|\s+are|\s+were)\s+(?:my|our))?\s+(?:(?:kinds?|types?|sorts?)\s+of\s+)?([a-z]{3,})(?:\s+([a-z]{3,}))?`)
	askedAfterZH  = regexp.MustCompile(zhForms(`(?:什么|啥|哪个|哪种|哪款|哪些|哪几|哪家|哪部|哪本|哪一|哪项|哪门|哪所|哪座|哪条|哪位|那个|那种|那款)[个种款部本件只位家样类项门所座条]?(\p{Han}{2,4})`))
	askedBeforeZH = regexp.MustCompile(zhForms(`(\p{Han}{2,4})(?:叫啥|叫什么|是啥|是什么|是哪)`))
)

// namesOfKind reports whether a message names a thing of kind k: a word
// or a phrase of up to three words of its English, or the first English
// senses of a Chinese word of it (尤克里里 → ukulele); remembered per
// message (memo).
func (or *offlineRun) namesOfKind(k *wordnet.Kind) func(content string) bool {
	return memo(func(content string) bool { return or.names(k, content) })
}

func (or *offlineRun) names(k *wordnet.Kind, content string) bool {
	words := latinWords(strings.ToLower(content))
	for n := 1; n <= 3; n++ {
		for i := 0; i+n <= len(words); i++ {
			if k.Has(strings.Join(words[i:i+n], " ")) {
				return true
			}
		}
	}
	if or.dict == nil {
		return false
	}
	for _, w := range or.dict.Segment(content) {
		if utf8.RuneCountInString(w) < 2 || !isCJKString(w) {
			continue
		}
		for _, en := range firstN(or.dict.English(w), kindSenses) {
			if k.Has(en) {
				return true
			}
		}
	}
	return false
}

// latinWords are the words of a text written in Latin letters, of three
// letters or more.
func latinWords(lower string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) || isCJK(r) }) {
		if len(w) >= 3 {
			out = append(out, w)
		}
	}
	return out
}

func firstN(s []string, n int) []string { return s[:min(n, len(s))] }
