package embed

// maxStopWordLen is the byte length of the longest English stop word.
const maxStopWordLen = 10

// isStopWord reports whether the lowercased word w is an English stop word.
// The list is NLTK's English list (minus "won" and "ma", which are real words
// more often than fragments) plus chat fillers and apostrophe-less
// contractions. Contractions are split at the apostrophe before this check,
// so "don't" arrives as "don" and "t".
func isStopWord(w string) bool {
	switch w {
	case "a", "about", "above", "after", "again", "against", "ain", "all", "also", "am", "an", "and",
		"any", "are", "aren", "arent", "as", "at",
		"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "cant", "could", "couldn",
		"d", "did", "didn", "didnt", "do", "does", "doesn", "doesnt", "doing", "don", "dont", "down", "during",
		"each", "either", "else",
		"few", "for", "from", "further",
		"had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself",
		"hey", "hi", "him", "himself", "his", "hmm", "how",
		"i", "if", "im", "in", "into", "is", "isn", "isnt", "it", "its", "itself", "ive",
		"just",
		"lets", "ll",
		"m", "me", "might", "mightn", "more", "most", "must", "mustn", "my", "myself",
		"needn", "no", "nor", "not", "now",
		"o", "of", "off", "oh", "ok", "okay", "on", "once", "only", "or", "other", "our", "ours",
		"ourselves", "out", "over", "own",
		"re", "really",
		"s", "same", "shall", "shan", "she", "should", "shouldn", "so", "some", "such",
		"t", "than", "that", "thats", "the", "their", "theirs", "them", "themselves", "then", "there",
		"these", "they", "theyre", "this", "those", "through", "to", "too",
		"uh", "um", "under", "until", "up",
		"ve", "very",
		"was", "wasn", "wasnt", "we", "were", "weren", "what", "whats", "when", "where", "which",
		"while", "who", "whom", "why", "will", "with", "would", "wouldn",
		"y", "yeah", "yep", "yes", "you", "your", "youre", "yours", "yourself", "yourselves":
		return true
	}
	return false
}

// isStopChar reports whether r is a Chinese (or Japanese kana) function
// character that carries no topic on its own. Stop characters give no
// unigram, and a bigram of two stop characters is dropped too.
func isStopChar(r rune) bool {
	switch r {
	case '的', '了', '是', '我', '你', '他', '她', '它', '们', '吗', '呢', '吧', '啊', '在', '有',
		'和', '就', '也', '都', '这', '那', '个', '很', '还', '么', '什', '怎', '您', '咱', '之',
		'与', '及', '而', '着', '过', '把', '被', '得', '地', '哦', '嗯', '呀', '哈', '啦', '嘛',
		'哪', '啥',
		'の', 'は', 'が', 'を', 'に', 'で', 'と', 'も', 'へ', 'や', 'か', 'ね', 'よ':
		return true
	}
	return false
}

// stemWord strips a few English suffixes from the lowercased ASCII word b in
// place and returns the stem. It is deliberately light and deterministic:
// plurals (sses→ss, ies→i, es after a sibilant, s), then ing or ed (undoubling
// a final double consonant), then ly, then final y→i and a final e. The rules
// aim at mapping inflections of one word to one stem ("love", "loves",
// "loved", "loving" → "lov"), not at producing dictionary words.
func stemWord(b []byte) []byte {
	if len(b) <= 2 {
		return b
	}
	// Plurals.
	n := len(b)
	switch {
	case hasSuffix(b, "sses"):
		b = b[:n-2]
	case hasSuffix(b, "ies") && n > 4:
		b = b[:n-2]
		b[len(b)-1] = 'i'
	case hasSuffix(b, "es") && n-2 >= 3 && endsSibilant(b[:n-2]):
		b = b[:n-2]
	case n >= 4 && b[n-1] == 's' && b[n-2] != 's' && b[n-2] != 'u' && b[n-2] != 'i':
		b = b[:n-1]
	}
	// Verb endings.
	n = len(b)
	switch {
	case hasSuffix(b, "ing") && n-3 >= 3 && hasVowel(b[:n-3]):
		b = undouble(b[:n-3])
	case hasSuffix(b, "ed") && n-2 >= 3 && b[n-3] != 'e' && hasVowel(b[:n-2]):
		b = undouble(b[:n-2])
	}
	// Adverbs.
	if n = len(b); hasSuffix(b, "ly") && n-2 >= 4 {
		b = b[:n-2]
	}
	// Final y and e.
	n = len(b)
	switch {
	case n >= 3 && b[n-1] == 'y' && hasVowel(b[:n-1]):
		b[n-1] = 'i'
	case n >= 4 && b[n-1] == 'e':
		b = b[:n-1]
	}
	return b
}

func hasSuffix(b []byte, suffix string) bool {
	return len(b) >= len(suffix) && string(b[len(b)-len(suffix):]) == suffix
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

func hasVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

func endsSibilant(b []byte) bool {
	switch b[len(b)-1] {
	case 's', 'x', 'z':
		return true
	case 'h':
		return len(b) >= 2 && (b[len(b)-2] == 'c' || b[len(b)-2] == 's')
	}
	return false
}

// undouble drops one letter of a final double consonant ("runn" → "run"),
// except l, s and z ("fall", "pass", "buzz").
func undouble(b []byte) []byte {
	n := len(b)
	if n >= 2 && b[n-1] == b[n-2] && !isVowel(b[n-1]) {
		switch b[n-1] {
		case 'l', 's', 'z':
		default:
			return b[:n-1]
		}
	}
	return b
}
