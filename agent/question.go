package agent

import (
	"strings"
	"time"
	"unicode"

	"github.com/recalld/recalld/queryapi"
)

// ParseQuestion reads a natural-language question for queryapi.Hybrid: its
// keywords (KeywordQuery), the day or month it names (explicitDates, years
// resolved against now; zero now means time.Now()), which sender names it
// names and the kind of answer it asks for (answerKind). Reading a
// question is the agent's (its stop words, date patterns and name matching
// serve Observe as well); fusing the rankings is queryapi's.
func ParseQuestion(question string, now time.Time) queryapi.Question {
	if now.IsZero() {
		now = time.Now()
	}
	q := queryapi.Question{Text: question, Keywords: KeywordQuery(question), Names: namesIn(question), Answers: answerKind(question)}
	if win, ok := explicitDates(question, now); ok {
		q.Dates = &queryapi.TimeWindow{From: win.since, To: win.until}
	}
	return q
}

// namesIn returns whether the question names a sender. A name matches
// when the whole name or its first word (two letters or more) appears in
// the question as a word, ignoring case; a name written in CJK characters
// matches as a substring, since those are not split into words.
func namesIn(question string) func(name string) bool {
	lq := strings.ToLower(question)
	words := make(map[string]bool)
	for _, w := range splitWords(lq) {
		words[w] = true
	}
	return func(name string) bool { return nameIn(strings.ToLower(name), lq, words) }
}

func nameIn(name, question string, words map[string]bool) bool {
	if isCJKRun(name) {
		return len([]rune(name)) >= 2 && strings.Contains(question, name)
	}
	fields := splitWords(name)
	if len(fields) == 0 {
		return false
	}
	if len(fields) > 1 && strings.Contains(question, strings.Join(fields, " ")) {
		return true
	}
	return len([]rune(fields[0])) >= 2 && words[fields[0]]
}

// splitWords splits s into runs of letters, digits and marks, so that an
// apostrophe ends a word ("caroline's" → "caroline", "s").
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
}

// KeywordQuery turns a natural-language question into the text of a
// match-any lexical search: English stop words and question words go, a
// possessive 's goes, and quotes go so that no phrase becomes required.
// Chinese, Japanese and Korean runs are kept whole (the lexical index splits
// them itself). It returns "" when no keyword is left.
func KeywordQuery(question string) string {
	var kept []string
	word := func(w string) {
		if w == "" {
			return
		}
		lw := strings.ToLower(w)
		lw = strings.TrimSuffix(lw, "'s")
		if isStopWord(lw) || isStopWord(strings.ReplaceAll(lw, "'", "")) {
			return
		}
		if strings.HasSuffix(strings.ToLower(w), "'s") {
			w = w[:len(w)-2]
		}
		kept = append(kept, w)
	}
	var b strings.Builder
	flush := func() {
		word(strings.Trim(b.String(), "'"))
		b.Reset()
	}
	for _, r := range question {
		switch {
		case r == '\'' || r == '’':
			b.WriteRune('\'')
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			if isCJK(r) != isCJKRun(b.String()) {
				flush()
			}
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return strings.Join(kept, " ")
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// isCJKRun reports whether the word being built is a CJK run ("" is not).
func isCJKRun(s string) bool {
	for _, r := range s {
		return isCJK(r)
	}
	return false
}

// isStopWord reports whether the lowercased, apostrophe-free word w carries no
// topic in a question: NLTK's English list, question words, chat fillers and
// contraction fragments.
func isStopWord(w string) bool {
	switch w {
	case "a", "about", "above", "after", "again", "against", "ain", "all", "also", "am", "an", "and",
		"any", "anybody", "anyone", "anything", "are", "aren", "arent", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "cant", "could", "couldn", "couldnt",
		"d", "did", "didn", "didnt", "do", "does", "doesn", "doesnt", "doing", "don", "dont", "down", "during",
		"each", "else", "ever", "everybody", "everyone", "everything",
		"few", "for", "from", "further",
		"had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself",
		"hey", "hi", "him", "himself", "his", "how",
		"i", "if", "im", "in", "into", "is", "isn", "isnt", "it", "its", "itself", "ive",
		"just",
		"ll",
		"m", "me", "might", "more", "most", "must", "my", "myself",
		"no", "nobody", "nor", "not", "nothing", "now",
		"o", "of", "off", "oh", "ok", "okay", "on", "once", "only", "or", "other", "our", "ours",
		"ourselves", "out", "over", "own",
		"re",
		"s", "same", "shall", "she", "should", "shouldn", "so", "some", "somebody", "someone", "something", "such",
		"t", "than", "that", "thats", "the", "their", "theirs", "them", "themselves", "then", "there",
		"these", "they", "this", "those", "through", "to", "too",
		"under", "until", "up",
		"ve", "very",
		"was", "wasn", "we", "were", "weren", "what", "whats", "when", "where", "which",
		"while", "who", "whom", "whose", "why", "will", "with", "would", "wouldn",
		"y", "you", "your", "yours", "yourself", "yourselves",
		// Chat's interjections and asides ("帮我点我的那杯 lol", "btw what's
		// my…"): no message that answers holds them for the question.
		"lol", "lmao", "haha", "hahaha", "omg", "eh", "pls", "plz", "btw", "tbh", "ngl", "idk", "rn", "hmm", "lah", "leh", "lor", "yeah":
		return true
	}
	return false
}
