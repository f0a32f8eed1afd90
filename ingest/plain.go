package ingest

import (
	"fmt"

	"github.com/recalld/recalld/internal/bilingual"
	"slices"
	"strings"
	"unicode/utf8"
)

// plain returns text in the Chinese the rules are written in: traditional
// characters simplified (with the dictionary of lx.kinds) and the words of
// Cantonese and other spoken Chinese (喺 在, 钟意 喜欢, 屋企 家里, 莫得 没有)
// in Mandarin's, word for word of the same length. The result has as many
// runes as text, so restore can find a value's words in text again.
//
// A character of dialect_alone (Cantonese 食 eat, 饮 drink, 系 is) is
// replaced only where it stands alone: inside no word of the dictionary
// (素食, 饮料 and 关系 stay).
func (lx extraction) plain(text string) string {
	var dict *bilingual.Dict
	if lx.kinds != nil {
		dict = lx.kinds.dict
	}
	text = dict.Simplified(text)
	if lx.dialect != nil {
		// Twice: a word the first pass makes may be one of the table's
		// (好钟意 → 好喜欢 → 很喜欢).
		text = lx.dialect.Replace(lx.dialect.Replace(text))
	}
	if dict == nil || strings.IndexFunc(text, func(r rune) bool { _, ok := lx.alone[r]; return ok }) < 0 {
		return text
	}
	rs := []rune(text)
	for i, r := range rs {
		if m, ok := lx.alone[r]; ok && !inWord(dict, rs, i) {
			rs[i] = m
		}
	}
	return string(rs)
}

// inWord reports whether the character at i is part of a word of the
// dictionary of two to four characters in rs.
func inWord(dict *bilingual.Dict, rs []rune, i int) bool {
	for k := 2; k <= 4; k++ {
		for start := max(0, i-k+1); start <= i && start+k <= len(rs); start++ {
			if dict.Word(string(rs[start : start+k])) {
				return true
			}
		}
	}
	return false
}

// restore gives each fact found in plain (plain's rewriting of text) its
// value in text's own words: the same runes at the same place (榴莲 back
// to 榴槤). A value plain does not hold as it is (rules may join or cut
// its words) keeps its plain form; slots stay plain, so 榴莲 and 榴槤 are
// one food.
func restore(fs []Fact, text, plain string) []Fact {
	orig := []rune(text)
	for i, f := range fs {
		at := strings.Index(plain, f.Value)
		if at < 0 || f.Value == "" {
			continue
		}
		start := utf8.RuneCountInString(plain[:at])
		fs[i].Value = string(orig[start : start+utf8.RuneCountInString(f.Value)])
	}
	return fs
}

// dialectReplacer replaces the dialect lexicon's words, longest first;
// each replacement must be as long as its word (plain keeps places).
func dialectReplacer(words map[string]string) (*strings.Replacer, error) {
	if len(words) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(words))
	for w, m := range words {
		if utf8.RuneCountInString(w) != utf8.RuneCountInString(m) {
			return nil, fmt.Errorf("ingest: fact lexicon: dialect %q → %q: not as long as the word", w, m)
		}
		keys = append(keys, w)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if d := utf8.RuneCountInString(b) - utf8.RuneCountInString(a); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	pairs := make([]string, 0, 2*len(keys))
	for _, w := range keys {
		pairs = append(pairs, w, words[w])
	}
	return strings.NewReplacer(pairs...), nil
}
