package agent

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/queryapi"
)

// stopChars carry no topic in a Chinese question. Cantonese writes its
// own (嘅 的, 咗 了, 唔 不, 咩 什么, 佢 他, 喺 在, 啲 些, 嗰 那, 冇 没有),
// and traditional characters give their forms (這 個 們 還 與 給 嗎 麼 誰).
const stopChars = "的了是我你他她它在有和就不也都吗呢吧啊么什怎这那个们呀哦嗯还又被把给跟与及或很太更最哪谁" +
	"嘅咗唔咩佢嘢啲喺嗰乜咁哋冇" + "這個們還與給嗎麼誰"

// keyTerms returns the question's content terms: English words (stop words
// and fillers dropped, lightly stemmed) and Chinese bigrams of the runs left
// after fillers and function characters are removed.
func keyTerms(question string, filler Lexicon) []string {
	lower := strings.ToLower(question)
	for _, f := range filler.ZH {
		lower = strings.ReplaceAll(lower, f, " ")
	}
	fillerEN := map[string]bool{}
	for _, f := range filler.EN {
		f = strings.ToLower(f)
		// A phrase ("at the moment", "go-to") is blanked as a whole: its
		// parts alone are words of their own ("go", "moment").
		if strings.ContainsAny(f, " -") {
			lower = replaceWord(lower, f)
			continue
		}
		fillerEN[f] = true
	}
	var out []string
	add := func(t string) {
		if t != "" && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !isWordRune(r) || isCJK(r) }) {
		w = strings.Trim(w, "'")
		w = strings.TrimSuffix(w, "'s")
		if len(w) < 2 || isStopWord(w) || isStopWord(strings.ReplaceAll(w, "'", "")) || fillerEN[w] || isQuestionWord(w) {
			continue
		}
		add(stem(w))
	}
	var seg []rune
	flush := func() {
		switch {
		case len(seg) == 1:
			add(string(seg))
		case len(seg) > 1:
			for i := 0; i+1 < len(seg); i++ {
				add(string(seg[i : i+2]))
			}
		}
		seg = seg[:0]
	}
	for _, r := range lower {
		if isCJK(r) && !strings.ContainsRune(stopChars, r) {
			seg = append(seg, r)
			continue
		}
		flush()
	}
	flush()
	return out
}

// replaceWord blanks every occurrence of the phrase w in s that stands as
// whole words.
func replaceWord(s, w string) string {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return s
		}
		at := i + j
		if boundary(s, at, true, w) && boundary(s, at+len(w), false, w) {
			s = s[:at] + strings.Repeat(" ", len(w)) + s[at+len(w):]
		}
		i = at + len(w)
	}
}

// askingWords are the words of a question that say what kind of answer it
// wants or when, not what it is about: fillers, time signals, the intents'
// words, the topics' generic words, the present-tense markers and the
// words asking an age
// ("这周我有什么安排", "上次那个项目进展怎么样"). The messages that answer
// rarely contain them, so they are no terms of support.
func askingWords(p Params) Lexicon {
	out := Lexicon{ZH: slices.Clone(p.Markers["filler"].ZH), EN: slices.Clone(p.Markers["filler"].EN)}
	add := func(l Lexicon) {
		out.ZH = append(out.ZH, l.ZH...)
		out.EN = append(out.EN, l.EN...)
	}
	for _, ts := range p.TimeSignals {
		add(ts.Lexicon)
	}
	for _, name := range sortedKeys(p.Intents) {
		add(p.Intents[name].Lexicon)
	}
	for _, name := range sortedKeys(p.Topics) {
		for _, w := range p.Topics[name].Generic {
			if isCJKRun(w) {
				out.ZH = append(out.ZH, w)
			} else {
				out.EN = append(out.EN, w)
			}
		}
	}
	add(p.Markers["present"])
	// An age is checked as an age (hasAge): "三岁" bears out "多大了"
	// without sharing a character, and the 大 of 多大 is in 大鹏.
	add(p.Markers["age"])
	// Longer words first, so that 不吃 goes before 吃 and leaves nothing behind.
	byLen := func(a, b string) int { return cmp.Compare(len(b), len(a)) }
	slices.SortStableFunc(out.ZH, byLen)
	slices.SortStableFunc(out.EN, byLen)
	return out
}

// contentChars returns the Chinese content characters of a question: those
// of keyTerms' runs, one by one.
func contentChars(question string, asking Lexicon) []string {
	var out []string
	for _, t := range keyTerms(question, asking) {
		for _, r := range t {
			if isCJK(r) && !slices.Contains(out, string(r)) {
				out = append(out, string(r))
			}
		}
	}
	return out
}

// stemSuffixes are the suffixes stem trims, longest first.
var stemSuffixes = []string{"ies", "ing", "ed", "es", "ic", "y", "s"}

// stem trims common English suffixes so that "allergies" meets "allergic".
func stem(w string) string {
	for _, suf := range stemSuffixes {
		if len(w)-len(suf) >= 4 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// relevance judges whether a message bears on the question.
type relevance struct {
	terms      []string
	expansions []string
	broad      []string // expansions that may stand for the question's topic (observation.broad)
	// namesPeople, for a question that asks the name of one of the
	// user's people (asksName), reports whether a message names someone
	// of that group (namesOneOf); nil for other questions.
	namesPeople func(content string) bool
	// namesPet, for a question that asks a pet's name (observation.petName),
	// reports whether a message gives a name (offlineRun.namesPet); nil
	// for other questions.
	namesPet func(content string) bool
	// kind are the words of the question's intent and topics; they judge a
	// question that has no content terms left ("我有什么忌口？") unless a
	// time window already narrows it (windowed).
	kind     []string
	windowed bool
	// course, for a Chinese question asking for a matter's course
	// (observation.thread), reports whether a word is rare in everyday
	// language (threadCommon); nil for other questions or without the
	// word frequencies. Once a message seen holds one of the question's
	// rare words, its terms no message holds weigh nothing (idf).
	course func(word string) bool
	// scene reports, for each evidence term of a Chinese question of
	// several clauses, whether only the clauses before the last hold it:
	// the last asks, those before set the scene ("我跟你转述过老板评价我初稿的
	// 那句话，原话是咋说的？"). Once a message seen holds a word of the last
	// clause, the scene's terms no message holds weigh nothing (idf). Nil
	// for a question of one clause.
	scene map[string]bool
	plans bool // the question asks for plans (the schedule intent)
	zh    bool // the question is mostly Chinese
	// evidence are the terms support weighs: the key terms and, for
	// Chinese, each content character, so that 睡眠 bears out 睡得 in part.
	evidence []string
	// alts are key terms' words in the other language (translations),
	// and an English verb's irregular forms (grew for grow): a message
	// with one has the term.
	alts    map[string][]string
	names   []string
	phrases []string
	// places reports whether a message names a place (the dictionary's,
	// bilingual.Dict.Places); nil without a dictionary.
	places func(content string) bool
	// kindTerms are the evidence terms inside the words with which the
	// question asks for a kind of thing (颜色 of 什么颜色, 电影 of 哪几部电影,
	// 区 of 哪个区; or the noun it asks for, when WordNet knows it as a
	// kind: race, 乐器), each with whether a message names one of its kind:
	// such a message has the term (hasIn).
	kindTerms map[string]func(content string) bool
	// broadKinds are the kinds a question asks for by a word that names
	// its topic as a whole and is no evidence term (乐器), each with
	// whether a message names a thing of it: such a message bears the
	// question out as a word of the topic does (namesBroadKind).
	broadKinds []func(content string) bool
}

// hasIn is has for a message: the text (lower case) has the term, or the
// term is one of the words asking for a kind of thing and the message
// names one ("我今年看过哪几部电影？" and "今天去看了《流浪地球3》").
func (rel relevance) hasIn(e queryapi.Evidence, text, t string) bool {
	if rel.has(text, t) {
		return true
	}
	named := rel.kindTerms[t]
	return named != nil && named(e.Content)
}

// idf weighs the question's key terms by how rarely they occur among the
// messages the run has seen (BM25's idf, always positive): the words that
// make a question specific weigh most, and a term no message contains
// weighs most of all, so that a message sharing only the common words of
// a question about something never said is not support.
func (rel relevance) idf(seen map[string]*candidate) map[string]float64 {
	// At least minIDFDocs documents: over a handful of messages (a search
	// inside "这几天") a term every one of them has would weigh a fifth of
	// one none has, and the answer itself would look unsupported.
	n := max(float64(len(seen)), minIDFDocs)
	df := make(map[string]float64, len(rel.evidence))
	// held are the terms a message seen holds, or a turn a seen message is
	// judged with (the question it answers, the assistant's taking it
	// down: replies); only the course and scene rules read them.
	held := make(map[string]bool)
	for _, c := range seen {
		text := strings.ToLower(c.ev.SenderName + " " + c.ev.Content)
		for _, t := range rel.evidence {
			if rel.hasIn(c.ev, text, t) {
				df[t]++
				held[t] = true
			}
		}
		if rel.course == nil && rel.scene == nil {
			continue
		}
		for _, e := range []*queryapi.Evidence{c.asked, c.noted} {
			if e == nil {
				continue
			}
			for _, t := range rel.evidence {
				if rel.hasIn(*e, strings.ToLower(e.Content), t) {
					held[t] = true
				}
			}
		}
	}
	out := make(map[string]float64, len(rel.evidence))
	for _, t := range rel.evidence {
		out[t] = math.Log(1 + (n-df[t]+0.5)/(df[t]+0.5))
	}
	// told reports whether a message seen holds a word of terms that ok
	// accepts.
	told := func(terms []string, ok func(string) bool) bool {
		return slices.ContainsFunc(terms, func(t string) bool { return threadWord(t) && ok(t) && held[t] })
	}
	// A question asking for a matter's course that names the matter by a
	// word some message holds and everyday language rarely uses (温江,
	// 分店) asks of something told: what no message holds of a Chinese
	// one is its chatter and the bigrams that straddle its words (子事 and
	// 从看 of "温江分店那一摊子事，从看铺面到现在走到哪一步了"), not
	// something never said, and weighs nothing. So do the words no message
	// holds of the clauses that set the scene before the one that asks,
	// when that one names something told.
	course := rel.course != nil && told(rel.terms, rel.course)
	scene := rel.scene != nil && told(rel.evidence, func(t string) bool { return !rel.scene[t] })
	for _, t := range rel.evidence {
		if (course || scene && rel.scene[t]) && !held[t] {
			out[t] = 0
		}
	}
	return out
}

// minIDFDocs is the fewest documents relevance.idf assumes.
const minIDFDocs = 50

// support is how much of the question a message bears out, in absolute
// terms: the idf-weighted share of the question's key terms it contains;
// 1 for a quoted phrase of the question; at least credit when it contains
// a word of a topic the question names as a whole (宠物 → 狗狗).
func (rel relevance) support(e queryapi.Evidence, idf map[string]float64, credit float64) float64 {
	text := strings.ToLower(e.SenderName + " " + e.Content)
	for _, ph := range rel.phrases {
		if strings.Contains(text, strings.ToLower(ph)) {
			return 1
		}
	}
	if len(rel.evidence) == 0 {
		return rel.generic(text)
	}
	// A message without Chinese is judged by the terms it can hold: a
	// Chinese term with no English word and no kind to name it cannot be
	// in it in any form ("pitched Lantern Hollow to a publisher" for
	// "Lantern Hollow 跟发行商谈得怎么样了": 谈 and 得 are no evidence either
	// way).
	latin := !strings.ContainsFunc(e.Content, isCJK)
	var have, all float64
	for _, t := range rel.evidence {
		if latin && isCJKString(t) && len(rel.alts[t]) == 0 && rel.kindTerms[t] == nil {
			continue
		}
		all += idf[t]
		if rel.hasIn(e, text, t) {
			have += idf[t]
		}
	}
	s := have / max(all, 1e-9)
	for _, x := range rel.broad {
		if containsWord(text, x) {
			return max(s, credit)
		}
	}
	if rel.namesBroadKind(e.Content) {
		return max(s, credit)
	}
	return s
}

// namesBroadKind reports whether a message names a thing of a kind the
// question asks for by a word that names its topic as a whole (乐器 of
// 那个乐器叫啥: offlineRun.wordKinds), as a word of the topic would.
func (rel relevance) namesBroadKind(content string) bool {
	return slices.ContainsFunc(rel.broadKinds, func(named func(string) bool) bool { return named(content) })
}

// overlap is the share of the question's key terms a message contains, at
// least 0.25 when it contains a topic word of the question's topics, 1 for a
// quoted phrase.
func (rel relevance) overlap(e queryapi.Evidence) float64 {
	text := strings.ToLower(e.SenderName + " " + e.Content)
	for _, ph := range rel.phrases {
		if strings.Contains(text, strings.ToLower(ph)) {
			return 1
		}
	}
	if len(rel.terms) == 0 {
		return rel.generic(text)
	}
	n := 0
	for _, t := range rel.terms {
		if rel.hasIn(e, text, t) {
			n++
		}
	}
	ov := float64(n) / float64(len(rel.terms))
	for _, x := range rel.expansions {
		if containsWord(text, x) {
			return max(ov, 0.25)
		}
	}
	if rel.namesBroadKind(e.Content) {
		return max(ov, 0.25)
	}
	return ov
}

// generic judges a message for a question without content terms ("我有什么
// 忌口？", "这周我有什么安排？"): inside a time window, or without intent and
// topic words, every message may answer (0.5); else one that has a word of
// the question's intent or topics.
func (rel relevance) generic(text string) float64 {
	if rel.windowed || len(rel.kind) == 0 || countHits(text, rel.kind) > 0 {
		return 0.5
	}
	return 0
}

// termIn matches a key term: a substring for Chinese, a word prefix for English.
func termIn(text, t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	if isCJK(r) {
		return strings.Contains(text, t)
	}
	for i := 0; ; {
		j := strings.Index(text[i:], t)
		if j < 0 {
			return false
		}
		at := i + j
		if at == 0 || !isWordRune([]rune(text[:at])[len([]rune(text[:at]))-1]) {
			return true
		}
		i = at + 1
	}
}

// contextFlags say why a message may not be the user's own, current fact.
type contextFlags struct {
	joke, hypothetical, thirdParty, question, change bool
	// asksOnly: the message asks its addressee and says nothing in the
	// first person ("What instrument are you playing?", "要不要顺便试试瑜
	// 伽？", "You're the drummer, right?"): it states no fact of its
	// speaker's, and only asks about the other.
	asksOnly bool
}

func (f contextFlags) excluded() string {
	switch {
	case f.joke:
		return "a joke"
	case f.hypothetical:
		return "a hypothetical"
	case f.thirdParty:
		return "about someone else"
	case f.asksOnly:
		return "a question that states nothing"
	}
	return ""
}

// habitual finds the words of what always happens to the speaker ("I'll
// always take long days", "I never book earlies"), not a never of what
// would follow ("I'm buying a vineyard and never answering email again").
var habitual = regexp.MustCompile(`\bi(?:'ll|’ll| will|'d|’d| would)?\s+(?:always|never|usually|normally)\b|\bevery time\b|\bwhenever\b`)

func (r *run) flags(c *candidate) contextFlags {
	m := r.skill.Params.Markers
	lower := strings.ToLower(c.ev.Content)
	f := contextFlags{
		joke: joking(lower, m["joke"].Words(), m["correction"].Words()),
		// A message that opens with its condition ("if I ever win the
		// lottery I'm buying a boat") tells what would follow, not what is;
		// unless what follows is what always does ("If I get the choice on
		// the rota I'll always take long days"): a habit.
		hypothetical: countHits(lower, m["hypothetical"].Words()) > 0 || strings.HasPrefix(strings.TrimSpace(lower), "if ") && !habitual.MatchString(lower),
		thirdParty:   aboutOthers(lower, m["third_party"].Words()),
		change:       countHits(lower, m["change"].Words()) > 0,
	}
	trimmed := strings.TrimRightFunc(c.ev.Content, func(r rune) bool { return unicode.IsSpace(r) || r == '~' })
	f.question = strings.HasSuffix(trimmed, "?") || strings.HasSuffix(trimmed, "？") ||
		strings.HasSuffix(trimmed, "吗") || strings.HasSuffix(trimmed, "呢")
	f.asksOnly = asksOnly(c.ev.Content)
	// A retraction right after it by the same speaker ("开玩笑的", "jk").
	for _, n := range c.context {
		if n.CreatedAt.After(c.ev.CreatedAt) && n.Role == c.ev.Role && n.SenderName == c.ev.SenderName &&
			n.CreatedAt.Sub(c.ev.CreatedAt) < 10*time.Minute && countHits(strings.ToLower(n.Content), m["joke"].Words()) > 0 {
			f.joke = true
		}
	}
	return f
}

// asksOnly reports whether a message only asks: it has a question, says
// nothing in the first person, and its other sentences are a few words
// at most ("Hey Nate!", "Wow, how cute!").
func asksOnly(text string) bool {
	if !isQuestionText(text) || firstPerson(text) {
		return false
	}
	for _, s := range sentences(text) {
		if isQuestionText(s) {
			continue
		}
		if cjkShare(s) >= 0.3 && utf8.RuneCountInString(s) > 6 || len(strings.Fields(s)) > 3 {
			return false
		}
	}
	return true
}

// joking reports whether lower (a message in lower case) is said in
// jest: it has a joke marker (开玩笑, jk) and no correction after the last
// one ("我最爱吃榴莲，哈哈，开玩笑的，其实我受不了榴莲的味道": what follows
// 其实 is meant).
func joking(lower string, jokes, corrections []string) bool {
	joke, _ := corrected(lower, jokes, corrections)
	return joke
}

// corrected finds, in lower, the last joke marker and the first correction
// after it: joke reports a marker with no correction after it, and meant
// is where the correction starts (-1 when there is none).
func corrected(lower string, jokes, corrections []string) (joke bool, meant int) {
	last := -1
	for _, w := range jokes {
		last = max(last, lastWord(lower, strings.ToLower(w)))
	}
	if last < 0 {
		return false, -1
	}
	meant = -1
	for _, w := range corrections {
		if i := lastWord(lower, strings.ToLower(w)); i > last && (meant < 0 || i < meant) {
			meant = i
		}
	}
	return meant < 0, meant
}

// meant returns e with its content cut to what follows a correction
// after a joke ("…开玩笑的，其实我受不了榴莲的味道" → "其实我受不了榴莲的
// 味道"), the part of the message that states what is so; e itself
// otherwise.
func (r *run) meant(e queryapi.Evidence) queryapi.Evidence {
	m := r.skill.Params.Markers
	lower := strings.ToLower(e.Content)
	if _, at := corrected(lower, m["joke"].Words(), m["correction"].Words()); at >= 0 && len(lower) == len(e.Content) {
		e.Content = e.Content[at:]
	}
	return e
}

// lastWord returns the index of the last occurrence of w in s on word
// boundaries (containsWord's), or -1.
func lastWord(s, w string) int {
	if w == "" {
		return -1
	}
	for end := len(s); end > 0; {
		i := strings.LastIndex(s[:end], w)
		if i < 0 {
			return -1
		}
		if boundary(s, i, true, w) && boundary(s, i+len(w), false, w) {
			return i
		}
		end = i + len(w) - 1
	}
	return -1
}

// aboutOthers reports whether lower (a message in lower case) speaks of
// someone else by one of markers (我妈, my friend): somewhere a marker
// stands other than beside the speaker, as in "my mom and I made dinner",
// "went riding with my dad" or 我和我妈去爬山, which tell what the speaker
// did. An English marker "my X" stands with a word between ("my little
// brother", "my new roommate") and as a possessive ("my roommate's
// corgi").
func aboutOthers(lower string, markers []string) bool {
	for _, w := range markers {
		w = strings.ToLower(w)
		for _, m := range mentions(lower, w) {
			if !besideSpeaker(lower[:m[0]], lower[m[1]:]) {
				return true
			}
		}
	}
	return false
}

// mentions returns where marker w stands in lower as words of its own
// ([start, end) pairs); see aboutOthers for the English forms.
func mentions(lower, w string) [][2]int {
	var out [][2]int
	rel, mine := strings.CutPrefix(w, "my ")
	find := w
	if mine {
		find = rel
	}
	for i := 0; ; {
		j := strings.Index(lower[i:], find)
		if j < 0 {
			return out
		}
		start, end := i+j, i+j+len(find)
		i = start + 1
		if !boundary(lower, start, true, find) {
			continue
		}
		rest := strings.Replace(lower[end:], "’", "'", 1)
		if !boundary(lower, end, false, find) && !(mine && strings.HasPrefix(rest, "'s") && boundary(rest, 2, false, "s")) {
			continue
		}
		if mine {
			words := strings.Fields(lower[:start])
			switch {
			case len(words) >= 1 && words[len(words)-1] == "my":
			case len(words) >= 2 && words[len(words)-2] == "my" && isModifier(words[len(words)-1]):
			default:
				continue
			}
			start = strings.LastIndex(lower[:start], "my")
		}
		out = append(out, [2]int{start, end})
	}
}

// isModifier reports whether w can stand between "my" and a person
// ("little", "new", "best"): a plain word, not a conjunction.
func isModifier(w string) bool {
	if w == "and" || w == "or" || w == "own" {
		return false
	}
	return strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// ownClause reports whether a clause of the candidate bears out one of
// the question's key terms without speaking of someone else: "菜单终于定稿
// 了！…我妈说下周拿去打印" is the speaker's news about the menu, and only
// mentions the mother.
func (r *run) ownClause(rel relevance, c *candidate) bool {
	for _, clause := range r.ownClauses(c) {
		for _, t := range rel.terms {
			if rel.has(clause, t) {
				return true
			}
		}
	}
	return false
}

// ownClauses returns the clauses of a message (lower case) that name no
// one else by a third_party marker (我妈, my friend).
func (r *run) ownClauses(c *candidate) []string {
	markers := r.skill.Params.Markers["third_party"].Words()
	return slices.DeleteFunc(clauses(strings.ToLower(c.ev.Content)), func(clause string) bool { return aboutOthers(clause, markers) })
}

// saidOfSelf reports whether a message that speaks of someone else says a
// word of the question of its speaker in a clause of its own: a clause
// that names no one else, where the nearest pronoun before the word is 我
// or I ("…不过4月底我就不出差了，我老婆预产期4月28号" for "我之前说过哪段时间不能
// 出差？"). A clause that leaves the subject out ("手术挺顺利，我爸已经能拄
// 着拐走两步了") may be about the one the next clause names.
//
// A clause that names someone else doing it for the user ("我妈给我报了物理
// 补习 每周六下午两点", "老板让我下周去深圳") says it of the user too: the
// nearest pronoun before the word is 我 right after 给, 帮, 让 and the like.
func (r *run) saidOfSelf(rel relevance, c *candidate) bool {
	markers := r.skill.Params.Markers["third_party"].Words()
	for i, clause := range clauses(strings.ToLower(c.ev.Content)) {
		own := !aboutOthers(clause, markers)
		for _, t := range rel.terms {
			at := wordIndex(clause, t)
			if at < 0 {
				continue
			}
			// The user's message opens with a clause of its own that
			// names no one: chat leaves the subject out, and it is the
			// speaker's ("今天在湖南那段让一个小轿车给追尾了 … 对方说他看手机"),
			// unless the message names one of the user's people, of
			// whom such a clause may tell ("手术挺顺利，我爸已经能…").
			if i == 0 && own && personBefore(clause[:at]) == 0 && c.ev.Role == "user" && onlyReports(strings.ToLower(c.ev.Content), markers) {
				return true
			}
			if personBefore(clause[:at]) != 1 {
				continue
			}
			if own || forSelf(clause[:at]) {
				return true
			}
		}
	}
	return false
}

// onlyReports reports whether the third-party markers lower holds are all
// someone's reported words (他说, 说她, she said), not one of the user's
// people (我妈, my friend).
func onlyReports(lower string, markers []string) bool {
	for _, m := range markers {
		if strings.Contains(lower, m) && !reportWord.MatchString(m) {
			return false
		}
	}
	return true
}

var reportWord = regexp.MustCompile(zhForms(`^(?:他说|她说|说他|说她)$|\b(?:said|says)\b`))

// forSelf reports whether the last 我 of before is the one someone does
// something for or to (给我, 帮我, 让我): the object of another's doing.
func forSelf(before string) bool { return forSelfLast.MatchString(before) }

// forSelfLast matches text whose last 我 follows 给, 帮, 让 and the like
// (traditional forms too).
var forSelfLast = regexp.MustCompile(zhForms(`[给帮替为带陪让叫逼请送教]我[^我]*$`))

// saidOfOthers reports whether content says a word of the question (a
// key term, or a word of its intent or topics) of a third person and
// never of its speaker: in some clause the nearest pronoun before the
// word is 他, 她, he, she or they ("小林今天吃了口花生酥 她花生过敏"), and in
// none is it 我 or I ("我芒果过敏"). Chat leaves the subject out, so a
// clause with no pronoun before the word says nothing either way.
func (rel relevance) saidOfOthers(content string) bool {
	words := append(slices.Clone(rel.terms), rel.kind...)
	theirs := false
	for _, clause := range clauses(strings.ToLower(content)) {
		for _, w := range words {
			at := wordIndex(clause, w)
			if at < 0 {
				continue
			}
			switch personBefore(clause[:at]) {
			case 3:
				theirs = true
			case 1:
				return false
			}
		}
	}
	return theirs
}

// notPronoun are words that hold 他 without meaning him (其他, 吉他), and
// 他 or 她 after a preposition (给他买了, 陪她去): the object the speaker
// does it for or with, not who does it.
var notPronoun = func() []string {
	out := []string{"其他", "吉他", "他乡", "利他"}
	for _, prep := range []string{"给", "給", "为", "為", "帮", "幫", "替", "跟", "和", "陪", "带", "帶", "送", "同", "与", "與", "对", "對", "问", "問", "教", "请", "請"} {
		out = append(out, prep+"他", prep+"她")
	}
	return out
}()

// personBefore returns the person of the last personal pronoun in before
// (lower case): 1 for the speaker's (我, I, my, we), 3 for someone else's
// (他, 她, he, she, they), 0 when there is none.
func personBefore(before string) int {
	for _, w := range notPronoun {
		before = strings.ReplaceAll(before, w, "")
	}
	last, person := -1, 0
	for _, p := range []struct {
		person     int
		han, latin []string
	}{
		{1, []string{"我", "俺", "咱"}, []string{"i", "i'm", "i've", "my", "me", "we"}},
		{3, []string{"他", "她"}, []string{"he", "she", "they", "he's", "she's", "they're", "his", "her", "their"}},
	} {
		for _, w := range p.han {
			if i := strings.LastIndex(before, w); i > last {
				last, person = i, p.person
			}
		}
		for _, w := range p.latin {
			if i := lastWord(before, w); i > last {
				last, person = i, p.person
			}
		}
	}
	return person
}

// ownStatement reports whether a message by a speaker the question names
// bears the question out (its terms but the names) in what it states:
// a message whose terms are all in questions ("Love that purple color!
// For walking or running?", "What gave you the idea for all the colors
// and patterns?") asks about the other speaker and says nothing of its
// own. (Clauses spoken to the other, "your pottery project", set aside
// too cost LoCoMo's tune half .007 cited recall and gained no
// abstention: README, twelfth session.)
func (r *run) ownStatement(rel relevance, c *candidate) bool {
	terms := slices.DeleteFunc(slices.Clone(rel.terms), func(t string) bool {
		return slices.ContainsFunc(rel.names, func(n string) bool { return t == n || t == stem(n) })
	})
	if len(terms) == 0 {
		return true
	}
	asked := false // a term in a question
	for _, s := range sentences(strings.ToLower(c.ev.Content)) {
		q := strings.TrimRight(s, "\"”」）) ")
		question := strings.HasSuffix(q, "?") || strings.HasSuffix(q, "？")
		for _, t := range terms {
			if rel.has(s, t) {
				if !question {
					return true
				}
				asked = true
			}
		}
	}
	// A message that shares no term with the question (a paraphrase,
	// found by its meaning) is not judged here.
	return !asked
}

// clauses cuts lower at the punctuation that ends a clause, and at a space
// between two Chinese characters, which chat writes for a comma ("周六带朵
// 朵逛了拙政园 她说像电视里的皇宫").
func clauses(lower string) []string {
	var out []string
	start := 0
	rs := []rune(lower)
	flush := func(end int) {
		if c := strings.TrimSpace(string(rs[start:end])); c != "" {
			out = append(out, c)
		}
		start = end + 1
	}
	for i, r := range rs {
		switch {
		case strings.ContainsRune("。！？!?；;\n，,", r):
			flush(i)
		case r == ' ' && i > 0 && i+1 < len(rs) && isCJK(rs[i-1]) && isCJK(rs[i+1]):
			flush(i)
		}
	}
	flush(len(rs))
	return out
}

// besideSpeaker reports whether the words before and after a mention of
// someone join them to the speaker, or make them whom the speaker acts
// for: "with"/"me and"/"for"/"to" before, "and I"/"and me" after;
// 和/跟/同/陪/带/给/为/替 before (和我妈, 给我妈买了), 和我/跟我 after (我妈和我).
func besideSpeaker(before, after string) bool {
	before = strings.TrimRightFunc(before, unicode.IsSpace)
	after = strings.TrimLeftFunc(after, unicode.IsSpace)
	for _, w := range []string{" with", " me and", " for", " to", "和", "跟", "同", "陪", "带", "给", "为", "替"} {
		if strings.HasSuffix(" "+before, w) {
			return true
		}
	}
	for _, w := range []string{"and i ", "and i'", "and me ", "和我", "跟我"} {
		if strings.HasPrefix(after+" ", w) {
			return true
		}
	}
	return false
}

// aboutRelation reports whether a candidate bears out a question about
// some of the user's or a speaker's people (observation.people) by its
// words other than the relation's own: "我弟弟在考驾照" shares 弟弟 with
// "我弟弟在哪里上班？", and is no answer.
func (r *run) aboutRelation(rel relevance, relation string, c *candidate) bool {
	words := r.skill.Params.Relations[relation].Words()
	// People words (弟弟, 妈妈, kids) name whom the question is about, not
	// what it asks.
	people := func(t string) bool {
		for _, lex := range r.skill.Params.Relations {
			for _, w := range lex.Words() {
				if strings.EqualFold(t, w) {
					return true
				}
			}
		}
		return slices.ContainsFunc(words, func(w string) bool {
			w = strings.ToLower(w)
			return t == stem(w) || strings.Contains(w, t)
		})
	}
	bare := rel
	bare.evidence = slices.DeleteFunc(slices.Clone(rel.evidence), people)
	if len(bare.evidence) == 0 {
		// Nothing but the relation and its name asked ("What's my
		// sister's name?"): a message that names one of them bears it out.
		if bare.namesPeople != nil && bare.namesPeople(c.ev.Content) {
			return true
		}
		// Nothing but the relation and the kind of thing asked
		// ("我弟弟在哪里上班？"): a message of that kind (上班) bears it out.
		kind := slices.DeleteFunc(slices.Clone(rel.kind), people)
		return len(kind) > 0 && countHits(strings.ToLower(c.ev.Content), kind) > 0
	}
	return bare.support(c.ev, r.questionIDF(rel), 0) >= r.minSupport(rel)
}

// synthesize turns the supported candidates into the draft view.
func (r *run) synthesize(rel relevance, o observation, stop string) draft {
	p := r.skill.Params
	d := draft{stopReason: stop}
	cands := r.best(rel, o, 1<<30)
	if r.trace {
		r.traceCandidates(rel, cands)
	}
	personal := o.intent == "constraint" || o.intent == "preference" || o.intent == "background"
	// A question in the first person asks about the memory owner: in a
	// group, another member's "我膝盖不好" is not the owner's fact.
	// A question that asks who, without the first person ("班里哪个小朋友
	// 有过敏来着"), asks about someone else, whatever its intent.
	aboutOwner := personal && !asksWho(r.question) || firstPerson(r.question)

	// Is the owner's sender id known among the hits? Then, for questions
	// about the user, other senders' messages in a shared chat are third parties.
	evs := make([]queryapi.Evidence, 0, len(r.seen))
	for _, c := range r.seen {
		evs = append(evs, c.ev)
	}
	// The turns around the hits show who the bot talks to in private (a
	// search for the user's own words finds none of its turns).
	around := slices.Clone(evs)
	for _, c := range r.seen {
		around = append(around, c.context...)
	}
	owners := queryapi.Owners(r.tools.User(), around)
	ownerKnown := slices.ContainsFunc(evs, func(e queryapi.Evidence) bool { return slices.Contains(owners, e.SenderID) })
	// A question naming a speaker asks about that speaker: a message by
	// another speaker counts only if it names them.
	speakers, named := r.namedSpeakers(rel)
	// A question the user asks as its subject ("我对猫毛过敏不 周日去老K家要
	// 注意啥", "Farah jio … what food I must avoid ah?") names the other
	// members as its circumstances, not as whom it asks about.
	if asksAsSelf(r.question) {
		named = nil
	}
	// What the assistant said and the user's next turn denied ("不是插画！")
	// is not the user's word (offlineRun.replies).
	corrected := map[string]string{}
	for _, c := range r.seen {
		if c.asked != nil && c.asked.Role == "assistant" && (r.rebuts(c.ev) || r.denies(c.ev, c.asked.Content)) {
			corrected[c.asked.MessageID] = c.ev.MessageID
		}
		if c.ev.Role == "assistant" {
			if next, ok := nextTurn(c); ok && (r.rebuts(next) || r.denies(next, c.ev.Content)) {
				corrected[c.ev.MessageID] = next.MessageID
			}
		}
	}
	var kept []*candidate
	// told is the strongest own-words support among the set-aside
	// statements another speaker made about themself (toldBy): what the
	// question asks about a named speaker may be the other one's news.
	var told *candidate
	toldSupport := 0.0
	// The names the history gives the user's people the question asks
	// about ("女儿朵朵四岁": 朵朵).
	var theirNames []string
	aboutSelf := o.people == "" && len(named) == 0 && firstPerson(r.question)
	if o.people != "" && o.people == o.relation {
		theirNames, _ = r.relationNames(o)
	}
	// The user's turn the assistant took down stands where the taking
	// down ranks: that is set aside below, for the user's own words (kept
	// is sorted by rank after the loop).
	if o.role != "assistant" {
		for _, c := range cands {
			if c.noted == nil {
				continue
			}
			if ack := r.seen[c.noted.MessageID]; ack != nil && slices.Contains(cands, ack) {
				c.rank, c.support = max(c.rank, ack.rank), max(c.support, ack.support)
			}
		}
	}
	for _, c := range cands {
		if by, ok := corrected[c.ev.MessageID]; ok {
			r.note("set aside %s: the user corrected it in the next turn (%s)", c.ev.MessageID, by)
			continue
		}
		if !ofNamed(c, named) {
			r.note("set aside %s: said by %s, the question asks about %s", c.ev.MessageID, c.ev.SenderName, strings.Join(named, ", "))
			if s := r.ownSupport(rel, c); s > toldSupport && firstPerson(c.ev.Content) && !isQuestionText(c.ev.Content) {
				told, toldSupport = c, s
			}
			continue
		}
		if len(named) > 0 && slices.Contains(named, strings.ToLower(c.ev.SenderName)) && !r.ownStatement(rel, c) {
			r.note("set aside %s: %s bears the question out only in asking the other speaker", c.ev.MessageID, c.ev.SenderName)
			continue
		}
		c.flags = r.flags(c)
		// A question about one of the user's people ("我弟弟在哪里上班？",
		// "What did Caroline do with her dad?", "the menu for my mom's
		// shop") is answered by what is said about them, and beside them:
		// a message that mentions them is no third party's when its words
		// other than the relation's bear the question out, or a clause
		// that does not mention them does, or it calls them by the name
		// the history gives them ("周六带朵朵逛了拙政园 她说像皇宫" for
		// "上周六我带娃去哪儿了": the 她说 is 朵朵's).
		if o.people != "" && c.flags.thirdParty && (r.ownClause(rel, c) || r.aboutRelation(rel, o.people, c) || countHits(strings.ToLower(c.ev.Content), theirNames) > 0) {
			c.flags.thirdParty = false
		}
		// A question the user asks about themself is borne out by a
		// clause in which the user says it of themself, whoever else the
		// message speaks of ("五一回杭州我妈家了，我老家就是杭州的").
		if aboutSelf && c.flags.thirdParty && r.saidOfSelf(rel, c) {
			c.flags.thirdParty = false
		}
		// A question the user asks about themself ("我", "my") is not
		// borne out by what a message says of him or her ("小敏…她花生过
		// 敏", "Priya 更惨 她 vegetarian").
		if aboutSelf && !c.flags.thirdParty && rel.saidOfOthers(c.ev.Content) {
			c.flags.thirdParty = true
		}
		if why := c.flags.excluded(); why != "" {
			r.note("set aside %s: %s", c.ev.MessageID, why)
			r.step("reflect", "", nil, 0, fmt.Sprintf("%s is %s", c.ev.MessageID, why))
			continue
		}
		// The assistant taking down what the user said ("好的，已记下：二甲
		// 双胍早晚各0.5克", "Noted: your mum's appointment is on 14 March")
		// restates the user's turn, and at times restates it wrongly: the
		// user's own words are the evidence, unless the question asks what
		// the assistant said.
		if c.ev.Role == "assistant" && o.role != "assistant" && r.acknowledges(c.ev) {
			r.note("set aside %s: the assistant taking down the user's words, not the user's own", c.ev.MessageID)
			continue
		}
		// The assistant's answer to what the user asked it ("你说给他买个啥
		// 好呢" → "可以考虑乐高机械组…") is its suggestion, not what the user
		// did or chose.
		if c.ev.Role == "assistant" && o.role != "assistant" && aboutOwner && c.asked != nil && c.asked.Role == "user" && isQuestionText(c.asked.Content) {
			r.note("set aside %s: the assistant answering the user's question (%s), not the user's word", c.ev.MessageID, c.asked.MessageID)
			continue
		}
		if c.flags.question {
			c.rank *= p.Stop.QuestionWeight
			r.step("reflect", "", nil, 0, fmt.Sprintf("%s is a question, not a statement: ranked lower", c.ev.MessageID))
		}
		if aboutOwner && ownerKnown && c.ev.Role == "user" && c.ev.SenderID != "" && !slices.Contains(owners, c.ev.SenderID) &&
			!slices.Contains(rel.names, strings.ToLower(c.ev.SenderName)) && !r.namesMember(c.ev.SenderName) {
			r.note("set aside %s: said by %s, not the user", c.ev.MessageID, cmpOr(c.ev.SenderName, c.ev.SenderID))
			continue
		}
		kept = append(kept, c)
	}
	// The user's correction of the assistant's restatement goes with the
	// statement restated ("我闺女今年高三" → "你闺女今年高二" → "不对 高三！"):
	// it ranks as high as that statement does.
	for _, c := range kept {
		if c.asked == nil || corrected[c.asked.MessageID] != c.ev.MessageID {
			continue
		}
		if orig, ok := r.turnBefore(c.asked.MessageID); ok {
			if o := r.seen[orig.MessageID]; o != nil && slices.Contains(kept, o) {
				c.rank = max(c.rank, o.rank)
			}
		}
	}
	slices.SortStableFunc(kept, func(a, b *candidate) int { return cmp.Compare(b.rank, a.rank) })
	// A question that asks for several things ("我的两只猫分别叫什么、几岁
	// 了？") may have each part answered by its own message: there a
	// message that bears the question out by its own words stays even when
	// it gives no number, age or kind the question also asks for.
	partly := func(c *candidate) bool {
		return o.aggregate && len(rel.evidence) > 0 && r.minSupport(rel) > 0 && r.ownWords(rel, r.questionIDF(rel), c)
	}
	// gives reports whether a message gives the number, age and kinds of
	// thing the question asks for ("How old is my partner?" is not
	// answered by "my partner is a vet", "我的车是什么颜色？" not by "I
	// drive a Tesla"). A kind only the dictionary's places name gives
	// nothing to check without one.
	codeAsked, phoneAsked := asksCode(r.question), asksPhone(r.question)
	gives := func(c *candidate) (bool, string) {
		if o.number && !hasNumeral(c.ev.Content) {
			return false, "gives no number, the question asks for one"
		}
		// A number that names one thing (a booth, a passport, an order)
		// is a code: digits in a row or letters with digits, not a date
		// or a count ("第一次摆摊是 5月16号" gives no booth number).
		if codeAsked && !hasCode(c.ev.Content) {
			return false, "gives no number or code, the question asks for one"
		}
		// A phone number is seven digits or more ("$9,800/month" gives none).
		if phoneAsked && !hasPhone(c.ev.Content) {
			return false, "gives no phone number, the question asks for one"
		}
		// An age is a number said as one (三岁, 32 years old), not a count.
		if o.age && !hasAge(c.ev.Content) {
			return false, "gives no age, the question asks for one"
		}
		if rel.namesPet != nil && !rel.namesPet(c.ev.Content) {
			return false, "gives no pet's name, the question asks for one"
		}
		for _, kind := range o.kinds {
			k := p.Kinds[kind]
			if len(k.Words()) == 0 && !k.Titles && rel.places == nil {
				continue
			}
			if !namesKind(k, c.ev.Content, rel.places) {
				return false, "names no " + kind + ", the question asks for one"
			}
		}
		return true, ""
	}
	// Revisions (a later statement that changes an earlier plan) are a
	// bot chat's notion: in a dialogue between named people (LoCoMo) the
	// earlier events are what multi-event questions ask for, and applying
	// them there cost .046 cited recall on LoCoMo conv0-4.
	chat := !queryapi.Dialogue(r.tools.User(), evs)
	switch {
	case o.present && !o.past && !o.thread:
		// (A question about then and now, "where am I from originally, and
		// where do I live now?", asks for both, and one for a matter's
		// course up to now, "从 kickoff 到现在都发生了啥", for each of its
		// steps: nothing is superseded.)
		// Two statements that bear out a question about now by their own
		// words, giving what it asks for, are on its subject. (In the tenth
		// session this was kept out of dialogues of named people for a
		// LoCoMo -.002 that came from a scalar-kernel build: with one build
		// it changes no LoCoMo question. README, eleventh session.)
		bears := func(c *candidate) bool {
			ok, _ := gives(c)
			return ok && r.ownWords(rel, r.questionIDF(rel), c)
		}
		// What is so now is said by a statement that gives what the
		// question's word asks for: "25 days left" does not say when
		// chapter 3 is due now, "new deadline is June 30" does.
		kind := answerKind(r.question)
		kept = r.latest(kept, latestOpts{revisions: chat, names: lowerAll(o.names), broad: rel.broad, topics: o.topics, bears: bears,
			gives: func(c *candidate) bool { ok, _ := gives(c); return ok && (kind == nil || kind(c.ev.Content)) }, kind: kind})
	case !o.past && chat && !o.thread:
		// (A matter's course, "搬家那个事从头到尾是咋个回事", has its
		// revisions among its steps.)
		kept = r.latest(kept, latestOpts{revisedOnly: true, revisions: true, names: lowerAll(o.names), broad: rel.broad})
	}
	kept = r.keepOnlyWhy(kept, func(c *candidate) (bool, string) {
		if partly(c) {
			return true, ""
		}
		return gives(c)
	})
	// A question whether something is so about a thing it names ("Did I
	// go skiing in Hokkaido this year?", "Am I moving to Singapore?") is
	// borne out only by a message that names it, in either language: a
	// message about skiing somewhere else, or about Singapore by another
	// member, says nothing of it.
	if anchors := askedAnchors(r.question, o, speakers); len(anchors) > 0 {
		kept = r.keepOnly(kept, func(c *candidate) bool { return namesAnchor(c.ev.Content, anchors, rel.alts) },
			"does not name "+strings.Join(anchors, ", ")+", which the question asks about")
	} else if unsaid := r.unsaidAnchors(o, rel, speakers); len(unsaid) > 0 {
		// A question naming a thing no message names ("What did Jon take
		// a trip to Barcelona for?", "What does Tim love during
		// Halloween?") asks about something never said.
		kept = r.keepOnly(kept, func(*candidate) bool { return false },
			"the history never names "+strings.Join(unsaid, ", ")+", which the question asks about")
	} else if rel.places != nil && asksOfPlace(r.question, rel.places) {
		// Whether something is so of a place ("我是不是说过要带儿子去北京
		// 玩？") is answered by a message that names a place: that one, or
		// another ("我在上海工作吗？" and "在杭州做前端").
		kept = r.keepOnly(kept, func(c *candidate) bool { return rel.places(c.ev.Content) },
			"names no place, the question asks whether something is so of one")
	}
	// A question about one of the user's people ("我弟弟在哪里上班？") is
	// answered by messages that mention someone of that group, or that
	// correct or answer a turn that does ("不对 高三！" after the bot's "你闺
	// 女今年高二").
	if o.relation != "" {
		words := r.relationWords(o)
		kept = r.keepOnly(kept, func(c *candidate) bool {
			return mentionsOwn(strings.ToLower(c.ev.Content), words) || c.asked != nil && mentionsOwn(strings.ToLower(c.asked.Content), words)
		}, "does not mention the "+o.relation+" the question asks about")
	}
	// A question about one named speaker whose subject only the other
	// speaker told of, in the first person ("What did Melanie find on her
	// walk?" when Caroline said "I came across a rainbow sidewalk"), is
	// not answered by the named speaker's replies to it, unless their own
	// words bear it out nearly as well (stop.told_ratio): in LoCoMo
	// conv0-4 the gold of 95% of the answerable questions naming one
	// speaker is that speaker's own, against 25% of the adversarial ones.
	if len(named) == 1 && told != nil && toldSupport >= r.minSupport(rel) {
		own := 0.0
		for _, c := range kept {
			if strings.EqualFold(c.ev.SenderName, named[0]) {
				own = max(own, r.ownSupport(rel, c))
			}
		}
		if need := max(r.minSupport(rel), p.Stop.ToldRatio*toldSupport); own < need {
			r.note("%s told of it about themself (%s, support %.2f); nothing %s said bears out the question (best support %.2f < %.2f)",
				told.ev.SenderName, told.ev.MessageID, toldSupport, named[0], own, need)
			kept = nil
		}
	}
	// Abstain unless some kept message bears out the question in absolute
	// terms: a question about something never said still has a best hit.
	if strongest, minimum := 0.0, r.minSupport(rel); len(kept) > 0 && minimum > 0 {
		for _, c := range kept {
			strongest = max(strongest, c.support)
		}
		if strongest < minimum {
			r.note("no message bears out the question: searched %d messages%s, roles %s; best support %.2f < %.2f",
				len(r.seen), windowText(r.window), cmpOr(r.role, "any"), strongest, minimum)
			kept = nil
		}
	}
	if len(kept) == 0 {
		d.stopReason = StopNoEvidence
		d.answer = noEvidenceAnswer(r.question)
		return d
	}
	// Cite what ranks close to the best supported hit, not everything that
	// passed: precision matters as much as recall to a bot quoting evidence.
	// A thread ("what did we decide about Atlas") is spread over several
	// messages: cite more widely.
	// So is a question without content terms, which asks for everything of
	// a kind ("我有什么忌口？").
	// So is a question that asks for several things, each said once
	// ("what books has Melanie read", "我都去过哪些城市"): cite more of them.
	ratio, most := p.Stop.CiteRatio, p.Stop.CiteMax
	if o.intent == "event" && o.intentHits > 0 || len(rel.evidence) == 0 || o.aggregate || o.thread {
		ratio = p.Stop.ThreadCiteRatio
	}
	if (o.aggregate || o.thread) && p.Stop.AggregateCiteMax > 0 {
		most = p.Stop.AggregateCiteMax
	}
	if o.thread && p.Stop.ThreadCiteMax > 0 {
		most = p.Stop.ThreadCiteMax
	}
	// An answer few of the best messages (as many as any brain may cite)
	// bear out in absolute terms is unsure: cite those and at most
	// stop.unsupported_cite_max others (a question about something never
	// said ranks look-alikes close to its best hit; a list whose items
	// each bear it out keeps them all).
	minimum, bearing, best := r.minSupport(rel), 0, kept[:min(len(kept), p.Limits.MaxEvidence)]
	for _, c := range best {
		if c.support >= minimum {
			bearing++
		}
	}
	unsure := false
	if limit := bearing + p.Stop.UnsupportedCiteMax; minimum > 0 && len(rel.evidence) > 0 && limit < min(most, len(kept)) {
		r.note("cite at most %d: %d of the best %d kept messages bear out the question", limit, bearing, len(best))
		most, unsure = limit, bearing > 0
	}
	// An unsure answer cites what bears the question out and at most
	// stop.unsupported_cite_max others, and what ranks close to the best
	// message that bears it out: look-alikes that rank higher
	// ("最近在想要不要跳去 startup" for "我最近在学啥乐器") do not push out
	// the message that answers ("报了个 adult cello class").
	top, others := kept[0].rank, 0
	if unsure {
		top = kept[slices.IndexFunc(kept, func(c *candidate) bool { return c.support >= minimum })].rank
	}
	cited := kept[:0:0]
	for _, c := range kept {
		if len(cited) >= most || c.rank < ratio*top {
			break
		}
		if unsure && c.support < minimum {
			if others >= p.Stop.UnsupportedCiteMax {
				continue
			}
			others++
		}
		// Never empty: ratio is at most 1 and top at most the first rank, and
		// an unsure answer reaches the best message that bears it out.
		cited = append(cited, c)
	}
	// A question asking what the user should choose or do ("两个我都想吃 我
	// 投哪个", "你觉得我报唔报名好", "should I sign up") is answered with the
	// user's own constraint too: the best message of theirs that rules
	// things out (过敏, 不能, can't) and shares a term of the question
	// (海鲜), however far below the best it ranks.
	if asksAdvice(r.question) && len(cited) < most {
		for _, c := range kept {
			if c.ev.Role == "user" && c.support > 0 && !slices.Contains(cited, c) &&
				countHits(strings.ToLower(c.ev.Content), p.Intents["constraint"].Words()) > 0 {
				r.note("cited %s: the user's own constraint on the choice asked about", c.ev.MessageID)
				cited = append(cited, c)
				break
			}
		}
	}
	kept = cited

	// Items: one per message, sectioned by what the message says.
	type itemC struct {
		item    Item
		c       *candidate
		section string
		topic   string
	}
	var items []*itemC
	for _, c := range kept {
		section := r.section(c, o)
		d.cited = append(d.cited, c.ev.MessageID)
		if section == "" || len(items) >= p.Limits.MaxItems {
			continue
		}
		items = append(items, &itemC{
			item:    Item{Statement: statement(r.meant(c.ev), rel), EvidenceIDs: []string{c.ev.MessageID}, Status: StatusCurrent, AsOf: c.ev.CreatedAt},
			c:       c,
			section: section,
			topic:   r.topicOf(c.ev.Content),
		})
	}

	// Conflicts: two items of one section and topic whose polarity differs,
	// or whose later one announces a change, are settled by time; the
	// user's words win over the assistant's.
	for i, a := range items {
		for _, b := range items[i+1:] {
			if a.topic == "" || a.topic != b.topic || a.item.Status == StatusChanged || b.item.Status == StatusChanged ||
				!shareTerms(a.c.ev.Content, b.c.ev.Content, p.Markers["filler"]) {
				continue
			}
			older, newer := a, b
			if b.c.ev.CreatedAt.Before(a.c.ev.CreatedAt) {
				older, newer = b, a
			}
			if negated(older.c.ev.Content) == negated(newer.c.ev.Content) && !newer.c.flags.change {
				continue
			}
			reason := "time_change"
			switch {
			case older.c.ev.Role == "user" && newer.c.ev.Role != "user":
				older, newer = newer, older
				reason = "source"
			case older.c.ev.Role != "user" && newer.c.ev.Role == "user":
				reason = "source"
			}
			older.item.Status = StatusChanged
			d.conflicts = append(d.conflicts, Conflict{Topic: a.topic, Kept: []string{newer.c.ev.MessageID},
				Superseded: []string{older.c.ev.MessageID}, Reason: reason})
		}
	}
	for _, it := range items {
		switch it.section {
		case "constraint":
			d.view.Constraints = append(d.view.Constraints, it.item)
		case "background":
			d.view.Profile = append(d.view.Profile, it.item)
		default:
			d.view.Preferences = append(d.view.Preferences, it.item)
		}
	}
	d.answer = r.answer(kept, items2(items, func(it *itemC) (Item, bool) { return it.item, true }), o)
	if d.stopReason == "" {
		d.stopReason = StopEnough
	}
	return d
}

// namedSpeakers returns the lower-case names of the speakers the run has
// seen, and those of them the question names.
func (r *run) namedSpeakers(rel relevance) (speakers map[string]bool, named []string) {
	speakers = map[string]bool{}
	for _, c := range r.seen {
		if c.ev.SenderName != "" {
			speakers[strings.ToLower(c.ev.SenderName)] = true
		}
	}
	for _, n := range rel.names {
		if speakers[n] {
			named = append(named, n)
		}
	}
	return speakers, named
}

// asksWho reports whether a question asks which person: 谁, 哪位, 哪个,
// who.
func asksWho(question string) bool { return whoWord.MatchString(strings.ToLower(question)) }

var whoWord = regexp.MustCompile(zhForms(`谁|哪位|哪个|哪几个|哪些|\bwho(?:m|se)?\b`))

// namesSender reports whether a question names a message's sender by the
// whole name the chat shows ("王浩的公聴会是哪天来着" of 王浩's message): a
// member the question names is whom it asks about, whoever else it
// mentions (我答应给他当计时的). Names of one character are too short to
// tell.
func namesSender(question, sender string) bool {
	sender = strings.TrimSpace(sender)
	return utf8.RuneCountInString(sender) >= 2 && strings.Contains(strings.ToLower(question), strings.ToLower(sender))
}

// namesMember reports whether the question names a group member by the
// name the chat shows (namesSender) or, for a member shown by a family
// name (妈妈, Dad), by another of that person's names (Params.KinNames:
// "mum said…" of 妈妈's message, "我妈" of 老妈's).
func (r *run) namesMember(sender string) bool {
	if namesSender(r.question, sender) {
		return true
	}
	name := strings.ToLower(strings.TrimFunc(sender, func(c rune) bool { return !unicode.IsLetter(c) }))
	q := strings.ToLower(r.question)
	for _, kin := range r.skill.Params.KinNames {
		words := kin.Words()
		if !slices.ContainsFunc(words, func(w string) bool { return strings.ToLower(w) == name }) {
			continue
		}
		return countHits(q, words) > 0
	}
	return false
}

// ofNamed reports whether a candidate may tell of the speakers a
// question names (named, lower case): it is by one of them or speaks of
// them (speaksOf). Any candidate may when the question names none.
func ofNamed(c *candidate, named []string) bool {
	return len(named) == 0 || slices.Contains(named, strings.ToLower(c.ev.SenderName)) || speaksOf(c.ev.Content, named)
}

// latest keeps, for a question about the present, the latest statement on
// each subject: an earlier statement of the same speaker on the same
// subject (one topic lexicon, or a shared content term) is superseded when
// the later one announces a change or turns its polarity ("改喝绿茶" after
// "每天喝两杯美式"). The superseded one is not cited, since it is no
// longer true; a note names it. The latest statement of a subject moves
// up to the rank of the best one it supersedes.
//
// With revisedOnly (a question that names no time: "点餐小程序什么时候上线？")
// only a later statement that revises the earlier in so many words (the
// revision lexicon: 改到, 推迟, moved, changed) supersedes it: the answer is
// the plan as it stands, not as it first was. A term the question names
// (Kite) does not make two statements about one subject there: a thread's
// messages all share it.
//
// bears, for a question about the present, reports whether a kept
// statement bears the question out by its own words: two that do are on
// one subject, the question's.
//
// broad are the words that stand for a topic the question names as a
// whole (observation.broad: nurse for "What's my profession?"): a later
// statement that shares only the earlier one's other words ("switched to
// day shifts" after "I work as a nurse, night shifts mostly") revises
// those, not the answer, unless it has one of them.
//
// topics are the topic lexicons a question about the present touches
// ("我现在住深圳哪边": home): two statements that both touch one of them
// by its words are on the question's subject, even when each is first of
// another topic ("深圳哪有好吃的火锅…我住南山" is about food too).
//
// gives, when set, reports whether a statement gives what the question
// asks for (a place, a number, an age): a later one that does not
// ("搬完了 累瘫") supersedes none that does ("苏州房子定了 下周搬"); it
// cannot say what is so now.
//
// Without revisions (a dialogue of named people), only kept statements
// supersede each other and none takes another's support.
func (r *run) latest(kept []*candidate, lo latestOpts) []*candidate {
	filler := r.skill.Params.Markers["filler"]
	revision := r.skill.Params.Markers["revision"].Words()
	corrections := r.skill.Params.Markers["correction"].Words()
	why := "the question asks about now"
	if lo.revisedOnly {
		why = "the later one revises it"
	}
	// A revision need not share the question's words ("上线时间改到 6 月 6
	// 号" for "点餐小程序什么时候上线？"): later messages the run saw but did
	// not keep may revise a kept one too, and then take its place.
	in := map[*candidate]bool{}
	for _, c := range kept {
		in[c] = true
	}
	questionTerms := keyTerms(r.question, filler)
	// Words that say when or that something changed are no subject either:
	// "最近开始 intermittent fasting" is not about "cello 老师说…可以开始拉
	// Bach" for sharing 开始, nor about a question's 最近.
	// Nor is liking: "我最钟意嘅糖水系双皮奶" and "改成计算机…钟意写code" are
	// not about one thing for both liking something.
	when := slices.Concat(r.skill.Params.Markers["daypart"].Words(), r.skill.Params.Markers["weekday"].Words(), r.skill.Params.Markers["present"].Words(), r.skill.Params.Markers["change"].Words(),
		r.skill.Params.Intents["preference"].Words())
	sameSubjectExcept := append(slices.Clone(lo.names), when...)
	pool := slices.Clone(kept)
	for _, c := range r.seen {
		if lo.revisions && !in[c] && r.inScope(c) && countHits(strings.ToLower(c.ev.Content), revision) > 0 {
			pool = append(pool, c)
		}
	}
	slices.SortFunc(pool[len(kept):], func(a, b *candidate) int { return strings.Compare(a.ev.MessageID, b.ev.MessageID) })
	gone := map[*candidate]bool{}
	for _, a := range kept {
		aRevises := countHits(strings.ToLower(a.ev.Content), revision) > 0
		for _, b := range pool {
			if a == b || gone[a] || gone[b] || !b.ev.CreatedAt.After(a.ev.CreatedAt) ||
				a.ev.Role != b.ev.Role || a.ev.SenderName != b.ev.SenderName {
				continue
			}
			if lo.gives != nil && lo.gives(a) && !lo.gives(b) {
				continue // says nothing of what the question asks for
			}
			fa, fb := r.facts(a, filler), r.facts(b, filler)
			// Two kept statements that both bear out a question about now
			// by their own words are on its subject, whatever words they
			// share ("烟又抽上了" and "戒烟贴贴了十来天了 一根没抽").
			both := lo.bears != nil && in[b] && lo.bears(a) && lo.bears(b)
			// A time of day two statements share is no subject ("每周四晚上"
			// of a cello class and "晚上8点吃" of fasting).
			if !(both || fa.topic != "" && fa.topic == fb.topic || r.shareTopic(a, b, lo.topics) || shareTermLists(noNumbers(fa.terms), fb.terms, sameSubjectExcept)) {
				continue // not the same subject
			}
			if !in[b] {
				// An outsider must speak of the question's subject, or of the
				// earlier statement's by more than the words of revising
				// (推迟, moved), which any two revisions share.
				if !shareTermLists(fb.terms, questionTerms, sameSubjectExcept) &&
					(!shareTermLists(noNumbers(r.termsNoRevisions(a, revision, filler)), r.termsNoRevisions(b, revision, filler), lo.names) ||
						len(lo.broad) > 0 && !slices.ContainsFunc(lo.broad, func(w string) bool { return containsWord(strings.ToLower(b.ev.Content), w) })) {
					continue
				}
				if b.flags = r.flags(b); b.flags.excluded() != "" {
					continue
				}
			}
			// Where only revisions supersede, one that moves a day or time
			// the earlier statement gave to another ("上线时间改到 6 月 6 号"
			// after "定在 5 月 30 号上线") announces its change as much as
			// the change words do, when the two share a word that is more
			// than a date's character (上线; not 月 or 号). So, for a
			// question about now, does one that moves what the question
			// asks for ("moved the crown fitting to April 2" after "March
			// 12" for "When is my crown fitting now?").
			revises := countHits(strings.ToLower(b.ev.Content), revision) > 0
			moved := revises && shareWord(fa.terms, fb.terms, lo.names) &&
				(lo.revisedOnly && r.namesWhen(a.ev.Content) && r.namesWhen(b.ev.Content) ||
					lo.kind != nil && lo.kind(a.ev.Content) && lo.kind(b.ev.Content))
			// A change the later statement dates its news by ("换了药以后稳当
			// 多了": since the switch) is the earlier one's, not a new one.
			changes := b.flags.change && !changeAsTime.MatchString(b.ev.Content)
			if negated(a.ev.Content) == negated(b.ev.Content) && !changes && !moved {
				continue
			}
			// An earlier statement that is itself the change ("officially
			// not a nurse anymore", "不再…") is not turned back by a later
			// one for lacking its negation: that one goes on from it.
			if a.flags.change && negated(a.ev.Content) && !negated(b.ev.Content) && !b.flags.change && !revises {
				continue
			}
			// Nor is one that itself revises an earlier plan ("不对 我改报12月
			// 的N3了", "改到五月十六号"): a later one that revises nothing and
			// corrects nothing goes on from it ("日检文法念到第十课了").
			if aRevises && !revises && !b.flags.change &&
				countHits(strings.ToLower(b.ev.Content), corrections) == 0 {
				continue
			}
			if (lo.revisedOnly || !in[b]) && !revises {
				continue
			}
			// In one sitting a later statement goes on with the earlier one
			// ("搬家了 搬到汉阳…" then "汉阳单价低点 但是不用天天过江"): its
			// negation or 现在 is about something else, unless it revises
			// or corrects it in so many words.
			if r.sameSitting(a, b) && !revises && countHits(strings.ToLower(b.ev.Content), corrections) == 0 {
				continue
			}
			gone[a] = true
			if !in[b] {
				in[b] = true
				kept = append(kept, b)
			}
			// The later statement answers what the earlier one did: it takes
			// its rank and the support the earlier one gave the question.
			b.rank = max(b.rank, a.rank)
			if lo.revisions {
				b.support = max(b.support, a.support)
			}
			r.note("set aside %s (%s): superseded by %s (%s), %s",
				a.ev.MessageID, a.ev.CreatedAt.Format("2006-01-02"), b.ev.MessageID, b.ev.CreatedAt.Format("2006-01-02"), why)
		}
	}
	out := kept[:0:0]
	for _, c := range kept {
		if !gone[c] {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b *candidate) int { return cmp.Compare(b.rank, a.rank) })
	return out
}

// changeAsTime matches a change said as the time something else holds
// from ("换了药以后", "搬过来之后"): the news is what follows it.
var changeAsTime = regexp.MustCompile(zhForms(`(?:换|改|搬)了?[^，。！？,.!?\s]{0,4}(?:以后|之后|以来)`))

// sameSitting reports whether b was said in the same sitting as the
// earlier a: in the same conversation, within stop.sitting_minutes.
func (r *run) sameSitting(a, b *candidate) bool {
	within := time.Duration(r.skill.Params.Stop.SittingMinutes) * time.Minute
	return within > 0 && a.ev.ConversationID == b.ev.ConversationID && b.ev.CreatedAt.Sub(a.ev.CreatedAt) <= within
}

// latestOpts are the options of run.latest.
type latestOpts struct {
	revisedOnly, revisions bool
	names, broad, topics   []string
	bears, gives           func(*candidate) bool
	// kind, when set, reports whether a message gives what the question's
	// word asks for (a time for "when"): a revision that gives a new one
	// after an earlier statement that gave one announces its change.
	kind func(string) bool
}

// shareTopic reports whether two messages both touch one of topics by its
// words.
func (r *run) shareTopic(a, b *candidate, topics []string) bool {
	return slices.ContainsFunc(topics, func(name string) bool {
		words := r.skill.Params.Topics[name].Words()
		return countHits(strings.ToLower(a.ev.Content), words) > 0 && countHits(strings.ToLower(b.ev.Content), words) > 0
	})
}

// keepOnlyWhy is keepOnly with the reason given by ok for each candidate
// it sets aside.
func (r *run) keepOnlyWhy(kept []*candidate, ok func(*candidate) (bool, string)) []*candidate {
	out := kept[:0:0]
	for _, c := range kept {
		yes, why := ok(c)
		if yes {
			out = append(out, c)
			continue
		}
		r.note("set aside %s: %s", c.ev.MessageID, why)
	}
	return out
}

// keepOnly returns the candidates of kept that ok accepts, and notes each
// one set aside with why.
func (r *run) keepOnly(kept []*candidate, ok func(*candidate) bool, why string) []*candidate {
	return r.keepOnlyWhy(kept, func(c *candidate) (bool, string) { return ok(c), why })
}

func items2[T any](in []T, f func(T) (Item, bool)) []Item {
	var out []Item
	for _, x := range in {
		if it, ok := f(x); ok {
			out = append(out, it)
		}
	}
	return out
}

// section files a message under constraint, background or preference by its
// own words, falling back to the question's intent; "" keeps it as evidence only.
func (r *run) section(c *candidate, o observation) string {
	if c.ev.Role != "user" && o.intent != "promise" {
		if o.intent == "constraint" || o.intent == "preference" || o.intent == "background" {
			return o.intent
		}
		return ""
	}
	lower := strings.ToLower(c.ev.Content)
	for _, name := range []string{"constraint", "preference", "background"} {
		if in, ok := r.skill.Params.Intents[name]; ok && countHits(lower, in.Words()) > 0 {
			if o.intent == "event" || o.intent == "schedule" || o.intent == "promise" {
				return ""
			}
			return name
		}
	}
	switch o.intent {
	case "constraint", "preference", "background":
		return o.intent
	}
	return ""
}

// topicOf names the first topic lexicon a text touches.
func (r *run) topicOf(text string) string {
	lower := strings.ToLower(text)
	for _, name := range sortedKeys(r.skill.Params.Topics) {
		if countHits(lower, r.skill.Params.Topics[name].Words()) > 0 {
			return name
		}
	}
	return ""
}

// shareTerms reports whether two messages speak of the same thing: a
// common content term (a Chinese bigram or an English word) other than
// except (lower-case), e.g. the project a question names, which all of a
// thread's messages share whatever they say about it.
func shareTerms(a, b string, filler Lexicon, except ...string) bool {
	return shareTermLists(keyTerms(a, filler), keyTerms(b, filler), except)
}

// shareTermLists reports whether two lists of key terms have one in
// common that is not in except.
func shareTermLists(ta, tb, except []string) bool {
	for _, t := range ta {
		if slices.Contains(tb, t) && !slices.Contains(except, t) {
			return true
		}
	}
	return false
}

// noNumbers returns terms without those that are a number alone, or a
// date's or a time's character alone: "10 kuai" of a snack and "10 days"
// of a trip are not about one thing, nor are "居留许可是 7月15号 过期" and
// "飞机改了, 现在是5月2号到" for their 月 and 号.
func noNumbers(terms []string) []string {
	return slices.DeleteFunc(slices.Clone(terms), func(t string) bool {
		return strings.TrimFunc(t, unicode.IsDigit) == "" || utf8.RuneCountInString(t) == 1 && strings.Contains(dateChars, t)
	})
}

// dateChars are the characters that write a date or a time of day after
// its numbers (7月15号, 3点, 2026年; traditional 號 and 點 too).
const dateChars = "年月日号號点點时時分秒周週天"

// shareWord is shareTermLists for terms of two characters or more: a
// Chinese character alone (月 of a date) is no shared subject.
func shareWord(ta, tb, except []string) bool {
	long := func(t string) bool { return utf8.RuneCountInString(t) < 2 }
	return shareTermLists(slices.DeleteFunc(slices.Clone(ta), long), tb, except)
}

// facts returns c's topic and key terms, computing them on first use.
func (r *run) facts(c *candidate, filler Lexicon) *textFacts {
	if c.text == nil {
		c.text = &textFacts{topic: r.topicOf(c.ev.Content), terms: keyTerms(c.ev.Content, filler)}
	}
	return c.text
}

// termsNoRevisions returns c's key terms without the words of revising,
// computing them on first use.
func (r *run) termsNoRevisions(c *candidate, revision []string, filler Lexicon) []string {
	f := r.facts(c, filler)
	if !f.noRevisionsDone {
		f.termsNoRevisions, f.noRevisionsDone = keyTerms(without(c.ev.Content, revision), filler), true
	}
	return f.termsNoRevisions
}

// negations are the words that deny what a statement says ("zero pain" and
// "no pain" deny the pain "still limping" gave).
var negations = []string{"不", "没", "别", "无法", "不能", "沒", "別", "無法", "唔", "冇", "not", "n't", "never", "no longer", "don't", "can't", "cannot", "no", "zero", "without"}

func negated(text string) bool {
	return countHits(strings.ToLower(text), negations) > 0
}

// statement is the sentence of a message that best carries the question's
// terms, cut to 120 characters: an extract, never a rewrite.
func statement(e queryapi.Evidence, rel relevance) string {
	sentences := splitSentences(e.Content)
	best, bestN := strings.TrimSpace(e.Content), -1
	for _, s := range sentences {
		lower := strings.ToLower(s)
		n := 0
		for _, t := range rel.terms {
			if termIn(lower, t) {
				n += 2
			}
		}
		for _, x := range rel.expansions {
			if containsWord(lower, x) {
				n++
			}
		}
		if n > bestN {
			best, bestN = strings.TrimSpace(s), n
		}
	}
	return truncate(best, 120)
}

func splitSentences(s string) []string {
	var out []string
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
		if strings.ContainsRune("。！？!?；;\n", r) {
			if t := strings.TrimSpace(b.String()); t != "" {
				out = append(out, t)
			}
			b.Reset()
		}
	}
	if t := strings.TrimSpace(b.String()); t != "" {
		out = append(out, t)
	}
	return out
}

// answer writes one or two sentences from the items, in the question's language.
func (r *run) answer(kept []*candidate, items []Item, o observation) string {
	var cur, changed []string
	for _, it := range items {
		s := fmt.Sprintf("%s (%s)", strings.TrimRight(it.Statement, "。.!！"), it.AsOf.Format("2006-01-02"))
		if o.zh {
			s = fmt.Sprintf("%s（%s）", strings.TrimRight(it.Statement, "。.!！"), it.AsOf.Format("2006-01-02"))
		}
		if it.Status == StatusChanged {
			changed = append(changed, s)
		} else {
			cur = append(cur, s)
		}
	}
	if len(cur) == 0 {
		for _, c := range kept[:min(3, len(kept))] {
			s := truncate(strings.TrimSpace(c.ev.Content), 80)
			name := cmpOr(c.ev.SenderName, c.ev.Role)
			if o.zh {
				cur = append(cur, fmt.Sprintf("%s：“%s”（%s）", name, s, c.ev.CreatedAt.Format("2006-01-02")))
			} else {
				cur = append(cur, fmt.Sprintf("%s: \"%s\" (%s)", name, s, c.ev.CreatedAt.Format("2006-01-02")))
			}
		}
	}
	cur = cur[:min(3, len(cur))]
	if o.zh {
		a := "根据记录：" + strings.Join(cur, "；") + "。"
		if len(changed) > 0 {
			a += "此前的说法已改变：" + strings.Join(changed[:min(2, len(changed))], "；") + "。"
		}
		return a
	}
	a := "From the records: " + strings.Join(cur, "; ") + "."
	if len(changed) > 0 {
		a += " Earlier, since changed: " + strings.Join(changed[:min(2, len(changed))], "; ") + "."
	}
	return a
}

// firstPerson reports whether a question asks about its asker: 我 (not
// 我们) in Chinese, I, my, me or mine in English.
func firstPerson(question string) bool {
	return saysSelf(question, "i", "my", "me", "mine", "i'm", "i've", "i'd")
}

// asksAsSelf reports whether the user is a subject of the question: 我
// (not 我们), or I, I'm, I've, I'd, I'll (not me or my: "What did Farah
// tell me?" asks about Farah).
func asksAsSelf(question string) bool {
	return saysSelf(question, "i", "i'm", "i've", "i'd", "i'll")
}

// saysSelf reports whether question has 我 or the northern 俺 (not 我们,
// 俺们, 我們) or one of the English words (lower case).
func saysSelf(question string, english ...string) bool {
	rs := []rune(question)
	for i, r := range rs {
		if (r == '我' || r == '俺') && (i+1 == len(rs) || rs[i+1] != '们' && rs[i+1] != '們') {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(question), func(r rune) bool { return !isWordRune(r) }) {
		if slices.Contains(english, w) {
			return true
		}
	}
	return false
}

// tellsOfOwn reports whether a turn another user wrote tells of its
// writer: it speaks in the first person and does not address anyone as
// you (你, 您, you), as a question about its addressee does ("你周末去不
// 去爬山？", "What instrument are you playing?").
func tellsOfOwn(e queryapi.Evidence) bool {
	if e.Role != "user" || !firstPerson(e.Content) || strings.ContainsAny(e.Content, "你您") {
		return false
	}
	return !slices.ContainsFunc(strings.FieldsFunc(strings.ToLower(e.Content), func(r rune) bool { return !isWordRune(r) }), func(w string) bool {
		return w == "you" || w == "your" || w == "you're" || w == "u"
	})
}

func noEvidenceAnswer(question string) string {
	if cjkShare(question) >= 0.3 {
		return "我没有找到能回答这个问题的记录。"
	}
	return "I found nothing in the history that answers this."
}

// speaksOf reports whether text names one of names other than to address
// them: "Thanks, Melanie! This necklace is special to me", "Hey Gina, I
// had to shut down my bank account" speak to Melanie and Gina, of the
// speaker. An address stands at the start, after a comma or a greeting,
// and ends its clause (a comma, a full stop, ! or ?).
func speaksOf(text string, names []string) bool {
	lower := strings.ToLower(text)
	for _, n := range names {
		for i := 0; i < len(lower); {
			j := strings.Index(lower[i:], n)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(n)
			i = end
			if !boundary(lower, start, true, n) || !boundary(lower, end, false, n) {
				continue
			}
			if !addressed(lower[:start], lower[end:]) {
				return true
			}
		}
	}
	return false
}

// addressed reports whether a name between before and after is spoken to.
func addressed(before, after string) bool {
	const ends = ",.!?，。！？"
	if next, _ := utf8.DecodeRuneInString(strings.TrimLeft(after, " ")); next != utf8.RuneError && !strings.ContainsRune(ends, next) {
		return false
	}
	before = strings.TrimRight(before, " ")
	if prev, _ := utf8.DecodeLastRuneInString(before); before == "" || prev != '?' && prev != '？' && strings.ContainsRune(ends, prev) {
		return true
	}
	words := strings.Fields(before)
	return greetings[strings.Trim(words[len(words)-1], ",.!")]
}

// greetings open an address ("Hey Gina,", "Thanks Mel!").
var greetings = map[string]bool{"hey": true, "hi": true, "hello": true, "thanks": true, "thank": true, "you": true, "yo": true,
	"congrats": true, "congratulations": true, "dear": true, "oh": true, "wow": true, "yeah": true, "yes": true, "aw": true, "aww": true}

var numberWords = []string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
	"eleven", "twelve", "twenty", "thirty", "forty", "fifty", "hundred", "thousand", "dozen", "twice", "once", "a couple", "half"}

// hasNumeral reports whether text gives a number: a digit, a Chinese
// numeral (一 only before a measure word: 一岁, not 一起), or an English
// number word.
// asksCode reports whether a question asks for the number or code that
// names one thing ("What's the booth number I got?", "我的医保卡号是多少",
// "block code"), not for a count ("the number of points") or a rank.
func asksCode(question string) bool {
	lower := strings.ToLower(question)
	return codeAsk.MatchString(lower) && !countAsk.MatchString(lower)
}

// hasCode reports whether a text holds a code: three digits or more in a
// row, or letters before digits (EGO8F2K4XQ, KM-6021387; not 7am).
func hasCode(text string) bool { return codeToken.MatchString(text) }

// asksAdvice reports whether a question asks what the user should choose
// or do: which one to pick, whether to go or sign up, what to eat.
func asksAdvice(question string) bool { return adviceAsk.MatchString(strings.ToLower(question)) }

var adviceAsk = regexp.MustCompile(zhForms(`你觉得我|我该不该|我要不要|我应不应该|帮我选|帮我挑|我投哪|我选哪|我该选|选哪个好|报不报|报唔报|去不去好|去唔去好|能不能吃|可不可以吃|适不适合我|\b(?:should i|which (?:one )?should i|do you think i should|would you (?:recommend|suggest)|can i (?:eat|have|join|go)|is it (?:ok|okay|safe) for me)\b`))

// asksPhone reports whether a question asks for a phone number ("Mr Koh
// handphone number what ah?", "房东电话多少").
func asksPhone(question string) bool { return phoneAsk.MatchString(strings.ToLower(question)) }

// hasPhone reports whether a text holds a phone number: seven digits or
// more, single spaces or dashes between them allowed (9123 4567,
// 138-0013-8000).
func hasPhone(text string) bool { return phoneToken.MatchString(text) }

var (
	phoneAsk   = regexp.MustCompile(zhForms(`电话号|电话是?多少|手机号|联系方式|\b(?:(?:hand)?phone|mobile|cell|hp|whatsapp|contact) (?:number|no\.?|num)\b`))
	phoneToken = regexp.MustCompile(`\+?\d(?:[ -]?\d){6,}`)
	codeAsk    = regexp.MustCompile(zhForms(`号码|卡号|编号|单号|车牌|账号|密码|工号|学号|房号|证号|统编|尾号|\b(?:number|code|id|pin|password|passcode|reference|ref)\b`))
	countAsk   = regexp.MustCompile(`\bnumber (?:of|one|two)\b|\bhow many\b`)
	codeToken  = regexp.MustCompile(`\d{3,}|[A-Za-z]+-?\d+[A-Za-z\d-]*|[一二三四五六七八九零〇]{3,}`)
)

func hasNumeral(text string) bool {
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case unicode.IsDigit(r), strings.ContainsRune("二三四五六七八九十百千万两零半俩", r):
			return true
		case r == '一' && i+1 < len(rs) && strings.ContainsRune("岁个年月天周次口只条本位号点块元分米公斤", rs[i+1]):
			return true
		}
	}
	lower := strings.ToLower(text)
	for _, w := range numberWords {
		if containsWord(lower, w) {
			return true
		}
	}
	return false
}

// ageExpr matches an age as chats give one: a number before 岁 or 个月大
// (三岁, 6 个月大), N years/months old (32-year-old), turned/turning N, or
// aged N.
var ageExpr = regexp.MustCompile(zhForms(`(?i)[0-9一二三四五六七八九十两半]+\s*(?:周岁|岁|个多?月大|个月了)|\b(?:[0-9]+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[\s-]*(?:years?|yrs?|months?|weeks?)[\s-]*old\b|\b(?:turned|turning|turns|aged?)\s+[0-9]{1,3}\b`))

// hasAge reports whether text gives an age (ageExpr).
func hasAge(text string) bool { return ageExpr.MatchString(text) }

// without is text, lower-cased, with each of words blanked out.
func without(text string, words []string) string {
	text = strings.ToLower(text)
	for _, w := range words {
		text = strings.ReplaceAll(text, w, " ")
	}
	return text
}

func lowerAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.ToLower(s)
	}
	return out
}

// unsaidAnchors returns the names of the question (not its speakers, a
// month, a weekday, an acronym or its first word) when no message the run has
// seen mentions any of them, in either language: the searches looked for
// them, so none names them. One of them said is enough ("Lebron James",
// "Harry Potter and the Philosopher's Stone" asked as the messages write
// part of them).
func (r *run) unsaidAnchors(o observation, rel relevance, speakers map[string]bool) []string {
	var out []string
	sents := sentences(r.question)
	for _, name := range o.names {
		n := strings.ToLower(name)
		upper := 0
		for _, ch := range name {
			if unicode.IsUpper(ch) {
				upper++
			}
		}
		// Not a sentence's first word ("Remind me what my dog's name
		// is?", "… Answer yes or no."), nor a word written as an acronym
		// (TV, PhD).
		_, weekday := weekdayByName[n]
		if speakers[n] || isMonthName(n) || weekday || upper > 1 ||
			slices.ContainsFunc(sents, func(s string) bool { return strings.HasPrefix(s, name) }) {
			continue
		}
		said := false
		for _, c := range r.seen {
			lower := strings.ToLower(c.ev.Content)
			if containsName(lower, n) || slices.ContainsFunc(rel.alts[n], func(t string) bool { return containsWord(lower, strings.ToLower(t)) }) {
				said = true
				break
			}
		}
		if said {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// askedAnchors returns the names a yes/no question asks about: the names
// of its last sentence (a preamble's are not asked about) that are among
// o.names and not the history's speakers, lower-cased. Another question,
// or one that asks what would likely be ("Would Caroline likely enjoy
// Vivaldi?": an inference, which no message need name), has none.
func askedAnchors(q string, o observation, speakers map[string]bool) []string {
	last, ok := askedWhether(q)
	if !ok {
		return nil
	}
	asked := lowerAll(names(last))
	var out []string
	for _, n := range lowerAll(o.names) {
		if !speakers[n] && slices.Contains(asked, n) {
			out = append(out, n)
		}
	}
	return out
}

// namesKind reports whether content names a thing of kind k: one of its
// words, a place (places, nil without a dictionary) or a title.
func namesKind(k Kind, content string, places func(string) bool) bool {
	return countHits(strings.ToLower(content), k.Words()) > 0 ||
		k.Places && places != nil && places(content) ||
		k.Titles && titleExpr.MatchString(content)
}

// titleExpr matches a title in book-title marks or quotes.
var titleExpr = regexp.MustCompile(`《[^》]+》|“[^”]{2,}”|"[^"]{2,}"`)

// nextTurn is the turn right after c in its conversation among the
// neighbours the run fetched for it (candidate.context), if any.
func nextTurn(c *candidate) (queryapi.Evidence, bool) {
	var next queryapi.Evidence
	found := false
	for _, n := range c.context {
		if n.ConversationID == c.ev.ConversationID && n.CreatedAt.After(c.ev.CreatedAt) && (!found || n.CreatedAt.Before(next.CreatedAt)) {
			next, found = n, true
		}
	}
	return next, found
}

// asksOfPlace reports whether q is a yes/no question whose last sentence
// names a place (places: bilingual.Dict.Places), not asking what would
// likely be.
func asksOfPlace(q string, places func(string) bool) bool {
	last, ok := askedWhether(q)
	return ok && places(last)
}

// askedWhether returns the last sentence of a yes/no question, which is
// what it asks about (a preamble's sentences are not), unless it asks
// what would likely be.
func askedWhether(q string) (string, bool) {
	ss := sentences(q)
	if !yesNo(q) || len(ss) == 0 {
		return "", false
	}
	last := strings.TrimSpace(ss[len(ss)-1])
	return last, !inferenceQuestion.MatchString(strings.ToLower(last))
}

// inferenceQuestion matches a question that asks what would or could be.
var inferenceQuestion = regexp.MustCompile(`^(would|could|should|might)\b`)

// namesAnchor reports whether a sentence of text that is no question
// names one of anchors (lower case), or one of its words in the other
// language (alts): "你说护士去新加坡工作靠谱吗？" only asks about Singapore.
func namesAnchor(text string, anchors []string, alts map[string][]string) bool {
	for _, sent := range sentences(text) {
		if isQuestionText(sent) {
			continue
		}
		lower := strings.ToLower(sent)
		for _, a := range anchors {
			if containsName(lower, a) {
				return true
			}
			for _, t := range alts[a] {
				if containsWord(lower, strings.ToLower(t)) {
					return true
				}
			}
		}
	}
	return false
}

// containsName reports whether lower names n as a word, its possessive
// too ("our kirsty's wedding": the apostrophe is a word's letter).
func containsName(lower, n string) bool {
	return containsWord(lower, n) || containsWord(lower, n+"'s")
}

// nameTerms returns, for a question that asks the name of one of the
// user's people ("What's my sister's name?", "我闺女叫啥"), the evidence
// terms that ask for it (name, called, 名字, 叫), each borne out by a
// message that names someone of the group (gives: namesOneOf, nil for
// other questions): "my sister Aoife is up from Cork", "女儿朵朵", "she's
// called Mia".
func nameTerms(evidence []string, gives func(string) bool) map[string]func(string) bool {
	if gives == nil {
		return nil
	}
	return termsBy(evidence, nameTerm, gives)
}

// namesOneOf returns whether a message names someone of group: a name it
// gives (givenNames: "my sister Aoife", "她叫Mia") beside a word of the
// group, or a name right after one (namesAfter: 女儿朵朵).
func namesOneOf(group Lexicon, d *bilingual.Dict) func(content string) bool {
	words := group.Words()
	lower := lowerAll(words)
	return func(content string) bool {
		return len(namesAfter(content, words, d)) > 0 ||
			len(givenNames(content)) > 0 && countHits(possessiveless.Replace(strings.ToLower(content)), lower) > 0
	}
}

// possessiveless drops the 's that keeps a word from standing alone
// ("my sister's called Mia").
var possessiveless = strings.NewReplacer("'s ", " ", "’s ", " ")

var (
	asksName = regexp.MustCompile(zhForms(`\bname\b|\bnames\b|\bcalled\b|名字|叫什么|叫啥|怎么称呼`))
	nameTerm = regexp.MustCompile(zhForms(`^(?:name|names|called|名字|名|字|叫|称呼)$`))
)

// relationWords returns the words that name the people of the relation
// the question asks about (o.relation): the relation's words, and the
// names the history gives with them ("my partner Alex", "女儿朵朵"). It
// reads r.seen and r.people, so its answer grows as the run finds
// messages.
func (r *run) relationWords(o observation) []string {
	group := r.skill.Params.Relations[o.relation].Words()
	words := slices.Clone(group)
	learn := func(content string) {
		if countHits(strings.ToLower(content), group) > 0 {
			for _, n := range append(names(content), namesAfter(content, group, r.dict)...) {
				if !slices.Contains(words, n) && !isStopWord(strings.ToLower(n)) {
					words = append(words, n)
				}
			}
		}
	}
	for _, c := range r.seen {
		learn(c.ev.Content)
	}
	for _, e := range r.people {
		learn(e.Content)
	}
	return words
}

// relationNames returns the names the history gives the people of the
// relation the question asks about (relationWords without the relation's
// own words), and the relation's words the question uses, space-separated
// ("" when it names no relation or the history no name).
func (r *run) relationNames(o observation) (names []string, asked string) {
	if o.relation == "" {
		return nil, ""
	}
	group := r.skill.Params.Relations[o.relation].Words()
	names = r.relationWords(o)[len(group):]
	if len(names) == 0 {
		return nil, ""
	}
	lower := strings.ToLower(r.question)
	var used []string
	for _, w := range group {
		if containsWord(lower, strings.ToLower(w)) {
			used = append(used, w)
		}
	}
	return names, strings.Join(used, " ")
}

// namesAfter returns the Chinese names put right after one of words, a
// relation ("女儿朵朵四岁", "我老公阿明", "儿子小军说"): two Han characters
// that repeat one (朵朵, 豆豆) or open with 阿 (阿明), as Chinese gives a
// child's or a partner's pet name, unless they are an adverb said so (天天,
// 刚刚) or a kinship word (宝宝, 妈妈); with a dictionary (d), also 小 and a
// character that open no word it knows (小军, 小美; not 小学, 小时候, 小提琴).
// Other characters after a relation are words of the sentence (女儿今天,
// 儿子小学).
func namesAfter(text string, words []string, d *bilingual.Dict) []string {
	var out []string
	for _, w := range words {
		if !hasHan(w) {
			continue
		}
		for rest := text; ; {
			i := strings.Index(rest, w)
			if i < 0 {
				break
			}
			rest = rest[i+len(w):]
			rs := []rune(rest)
			if len(rs) < 2 || !unicode.Is(unicode.Han, rs[0]) || !unicode.Is(unicode.Han, rs[1]) {
				continue
			}
			n := string(rs[:2])
			pet := rs[0] == rs[1] || rs[0] == '阿' && rs[1] != '姨' || rs[0] == '小' && d != nil && opensNoWord(d, rs)
			if pet && !strings.Contains(notPetNames, n) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// opensNoWord reports whether the dictionary knows no word of two
// characters or more that opens rs (a run of Han characters first).
func opensNoWord(d *bilingual.Dict, rs []rune) bool {
	ws := d.Segment(string(rs[:min(len(rs), 8)]))
	return len(ws) > 0 && utf8.RuneCountInString(ws[0]) == 1
}

// notPetNames are the reduplicated words that follow a relation as words
// of the sentence: adverbs ("女儿天天哭") and kinship words ("儿子宝宝").
const notPetNames = "天天 刚刚 常常 慢慢 偷偷 好好 渐渐 悄悄 稍稍 仅仅 明明 往往 每每 统统 通通 乖乖 宝宝 妈妈 爸爸 哥哥 姐姐 弟弟 妹妹 爷爷 奶奶 姥姥 姥爷 公公 婆婆 叔叔 伯伯 舅舅 姑姑 婶婶"

// mentionsOwn reports whether lower mentions one of words other than as
// someone else's: "隔壁王嬢嬢的女儿" and "my neighbour's daughter" are not
// the user's daughter; "我的女儿", "我女儿" and "女儿" may be.
func mentionsOwn(lower string, words []string) bool {
	for _, w := range words {
		w = strings.ToLower(w)
		for i := 0; ; {
			at := wordIndex(lower[i:], w)
			if at < 0 {
				break
			}
			at += i
			i = at + 1
			before := strings.TrimRightFunc(lower[:at], unicode.IsSpace)
			if rest, ok := strings.CutSuffix(before, "的"); ok {
				if strings.HasSuffix(rest, "我") || strings.HasSuffix(rest, "我们") || strings.HasSuffix(rest, "俺") || strings.HasSuffix(rest, "咱") {
					return true
				}
				continue
			}
			if fields := strings.Fields(strings.ReplaceAll(before, "’", "'")); len(fields) > 0 {
				if strings.HasSuffix(fields[len(fields)-1], "'s") {
					continue
				}
			}
			return true
		}
	}
	return false
}

// traceCandidates records, for a traced run, the question's terms with
// their weights and the candidates synthesis starts from, with their
// support and rank: what a reader of the trace needs to see why a message
// was or was not kept.
func (r *run) traceCandidates(rel relevance, cands []*candidate) {
	idf := r.questionIDF(rel)
	terms := make([]string, 0, len(rel.evidence))
	for _, t := range rel.evidence {
		terms = append(terms, fmt.Sprintf("%s=%.2f", t, idf[t]))
	}
	r.step("reflect", "", nil, len(cands), fmt.Sprintf("terms %s; minimum support %.2f", strings.Join(terms, " "), r.minSupport(rel)))
	for _, c := range cands[:min(len(cands), 15)] {
		r.step("reflect", "", nil, 0, fmt.Sprintf("candidate %s support %.2f rank %.2f: %s", c.ev.MessageID, c.support, c.rank, truncate(c.ev.Content, 60)))
	}
}
