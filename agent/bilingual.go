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
	words := strings.FieldsFunc(lower, func(r rune) bool { return !isWordRune(r) || isCJK(r) })
	for i, w := range words {
		w = strings.TrimSuffix(strings.Trim(w, "'"), "'s")
		t := stem(w)
		if !slices.Contains(terms, t) {
			continue
		}
		forms := lookupForms(w)
		if d.Whole(w) {
			// A word that is a sense as it stands (tired: 累, glasses:
			// 眼镜) is not read as its base (tire, glass).
			forms = append([]string{w}, forms...)
		}
		if i+1 < len(words) {
			// A verb with its particle, when that is a sense (listen to:
			// 听, give up: 放弃), before the verb alone.
			for _, f := range forms {
				if p := f + " " + strings.Trim(words[i+1], "'"); d.Whole(p) {
					forms = append([]string{p}, forms...)
					break
				}
			}
		}
		for _, form := range forms {
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
			if !strings.Contains(form, " ") {
				// The phrase's words come with the word's own.
				break
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// lookupForms are the forms of an English word to look up in the
// dictionary, the base forms first (movies → movy, movie, movi, movies;
// driving → drive, driv, driving; stopped → stop, stopp, stopped;
// favourite → favourite, favorite, but not four → for): the first the
// dictionary knows is used. The dictionary lists verbs by their base form
// only, so a question in the past tense or the -ing form would otherwise
// find nothing, or the one rare compound that names the form (driving →
// 醉酒驾车).
func lookupForms(w string) []string {
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
	if s, ok := strings.CutSuffix(w, "ied"); ok && len(s) >= 2 {
		out = append(out, s+"y")
	}
	for _, suf := range []string{"ing", "ed"} {
		if s, ok := strings.CutSuffix(w, suf); ok && len(s) >= 3 && strings.ContainsAny(s, "aeiouy") {
			out = append(out, verbBases(s)...)
		}
	}
	out = append(out, w)
	// British spelling: the dictionary writes favorite, color, flavor.
	if i := strings.LastIndex(w, "our"); i >= 3 {
		for _, f := range slices.Clone(out) {
			if j := strings.LastIndex(f, "our"); j > 0 {
				out = append(out, f[:j]+"or"+f[j+3:])
			}
		}
	}
	return out
}

// verbBases are the base forms a stem left by -ing or -ed may come from:
// a doubled last consonant undone (stopp → stop), an e restored after a
// single vowel and consonant (driv → drive, us → use), or the stem itself
// (listen, read, sing).
func verbBases(s string) []string {
	n := len(s)
	last, prev := s[n-1], s[n-2]
	if last == prev && !isVowel(last) && last != 'l' && last != 's' {
		return []string{s[:n-1], s}
	}
	if !isVowel(last) && !strings.ContainsRune("wxy", rune(last)) && isVowel(prev) && (n < 3 || !isVowel(s[n-3])) {
		return []string{s + "e", s}
	}
	return []string{s}
}

func isVowel(b byte) bool { return strings.IndexByte("aeiou", b) >= 0 }

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
// search that finds the messages written in it ("" when it has none), and
// its verbs' irregular forms, which the search's stemming does not reach
// (grew of grow).
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
