package agent

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/recalld/recalld/internal/bilingual"
)

// WithDictionary lets the offline brain match a question's words with
// messages in the other language (猫 ↔ cat, dinner ↔ 晚饭): chat users
// write Chinese and English, and mix them, so a question may be asked in
// one and answered in the other. Without it (nil) words match in their
// own language only.
func WithDictionary(d *bilingual.Dict) Option {
	return func(a *Agent) { a.dict = d }
}

// translations gives the words of the question's key terms in the other
// language: for a Chinese term, the English senses of the dictionary word
// it lies in (the question cut into the longest words the dictionary
// knows: 自行车 → bicycle, not 自行 → voluntary); for an English term, the
// Chinese words with that sense (cat → 猫). A term keeps its weight and
// matches a message that has one of them (relevance.has).
func translations(d *bilingual.Dict, question string, terms []string) map[string][]string {
	if d == nil || len(terms) == 0 {
		return nil
	}
	out := make(map[string][]string)
	add := func(term string, alts []string) {
		for _, a := range alts {
			if !slices.Contains(out[term], a) {
				out[term] = append(out[term], a)
			}
		}
	}
	lower := strings.ToLower(question)
	// Chinese: each dictionary word of the question gives its senses to
	// the terms inside it (bigrams, or a one-character term that is a
	// word by itself).
	for _, w := range d.Segment(lower) {
		en := d.English(w)
		if len(en) == 0 {
			continue
		}
		if utf8.RuneCountInString(w) == 1 {
			// A character on its own is read in its first sense (餐 → meal;
			// 点 is a dot, not also tap, select and mention), as an English
			// word is given a single character only for its first sense.
			en = en[:1]
		}
		for _, t := range terms {
			if isCJKString(t) && strings.Contains(w, t) && (utf8.RuneCountInString(t) > 1 || utf8.RuneCountInString(w) == 1) {
				add(t, en)
			}
		}
	}
	// English: each word whose stem is a term gives the Chinese words with
	// that sense. A single character stands for the word only when it is
	// its first sense (猫 for cat, not 影 for movie): alone it matches
	// inside other words.
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !isWordRune(r) || isCJK(r) }) {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		t := stem(w)
		if !slices.Contains(terms, t) {
			continue
		}
		for _, form := range singulars(w) {
			zh := d.Chinese(form)
			if len(zh) == 0 {
				continue
			}
			for _, z := range zh {
				if utf8.RuneCountInString(z) == 1 {
					if en := d.English(z); len(en) == 0 || en[0] != form {
						continue
					}
				}
				add(t, []string{z})
			}
			break
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// singulars are the forms of an English word to look up, those without
// a plural ending first (movies → movy, movie, movi, movie, movies: the
// first the dictionary knows is used).
func singulars(w string) []string {
	var out []string
	if s, ok := strings.CutSuffix(w, "ies"); ok && len(s) >= 2 {
		out = append(out, s+"y")
	}
	if s, ok := strings.CutSuffix(w, "es"); ok && len(s) >= 3 {
		out = append(out, s+"e", s)
	}
	if s, ok := strings.CutSuffix(w, "s"); ok && len(s) >= 3 && !strings.HasSuffix(w, "ss") {
		out = append(out, s)
	}
	return append(out, w)
}

// has reports whether text (lower case) has term t, in the question's
// language or the other (relevance.alts): an English word whole (cat, not
// category; a plural too), a Chinese one anywhere.
func (rel relevance) has(text, t string) bool {
	if termIn(text, t) {
		return true
	}
	for _, a := range rel.alts[t] {
		if isCJKString(a) {
			if strings.Contains(text, a) {
				return true
			}
			continue
		}
		if containsWord(text, a) || containsWord(text, a+"s") || containsWord(text, a+"es") {
			return true
		}
	}
	return false
}

// altQuery is the question's words in the other language, for a lexical
// search that finds the messages written in it ("" when it has none).
func (rel relevance) altQuery() string {
	var words []string
	for _, t := range rel.evidence {
		for _, a := range rel.alts[t] {
			if !slices.Contains(words, a) {
				words = append(words, a)
			}
		}
	}
	return strings.Join(words, " ")
}

func isCJKString(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isCJK(r)
}
