package agent

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// observation is what the Observe phase reads from a question.
type observation struct {
	zh         bool   // the question is mostly Chinese
	intent     string // constraint, preference, background, promise, schedule, event
	intentHits int    // lexicon words of the intent found in the question
	role       string // whose words count: user, assistant or any
	signal     string // the time signal found, if any
	// loose: the time signal is loose (TimeSignal.Loose) and the question
	// presupposes what it asks about (no yes/no question): when nothing
	// in the window bears it out, all time is searched.
	loose      bool
	window     timeWindow
	phrases    []string // "quoted phrases"
	names      []string // capitalised names and other anchors
	keywords   string   // the question's content words, for BM25 with match=any
	topics     []string // topic lexicons the question touches
	expansions []string // other words of those topics
	// broad are the expansions of the topics the question names as a
	// whole (a generic word: 宠物, pet): a message sharing only the topic
	// may answer it. A question naming a member (猫, dog) is not answered
	// by another member.
	broad   []string
	present bool // the question asks about now (现在, 目前, still, currently)
	past    bool // the question asks about the past (以前, 当初, used to, originally)
	number  bool // the question asks for a quantity one message states (几岁, how old, phone number)
	age     bool // the question asks for an age (几岁, how old)
	// petName: the question asks a pet's name ("我养的猫叫什么名字", "what's
	// my dog called"): a message that gives none (the neighbour's cat
	// sleeping outside) does not answer it.
	petName bool
	// aggregate: the question asks for several things, each said in its
	// own message (哪些, 几次, how many, "what books has Melanie read"):
	// the answer is cited more widely.
	aggregate bool
	// thread: the question asks for a matter's course (markers.thread:
	// 一路下来, 从头到尾, rundown): the messages that continue its best
	// hits are followed (offlineRun.thread) and cited like a list.
	thread bool
	// kinds are the kinds of answer the question asks for by name
	// (skill kinds: 什么颜色 → color), sorted.
	kinds []string
	// relation is the group of the user's people the question asks about
	// ("我弟弟…", "my manager's…"), or "".
	relation string
	// people is the group of people the question asks about, the user's
	// or another person's ("Caroline's dad", "her kids"), or "".
	people   string
	personal bool // the question is about the user themself
}

// observe classifies the question, extracts time signals, anchors and the
// query rewriting the later rounds use.
func (r *run) observe() observation {
	p := r.skill.Params
	q := r.question
	lower := strings.ToLower(q)
	o := observation{zh: cjkShare(q) >= 0.3}

	// Intent: the intent with most lexicon hits, in intentOrder on ties.
	best := 0
	for _, name := range intentOrder {
		in, ok := p.Intents[name]
		if !ok {
			continue
		}
		n := countHits(lower, in.Words())
		if n > best {
			best, o.intent, o.role = n, name, in.Role
		}
	}
	o.intentHits = best
	o.personal = mentionsSelf(lower)
	if o.intent == "" {
		if o.personal {
			o.intent, o.role = "background", "user"
		} else {
			o.intent, o.role = "event", "any"
		}
	}
	switch r.rolePref {
	case "user":
		o.role = "user"
	case "any":
		o.role = "any"
	}

	// Time: the caller's window wins; else explicit dates; else signal words.
	o.window = r.window
	if !o.window.explicit {
		if w, ok := explicitDates(q, r.now); ok {
			o.window, o.signal = w, "date"
		} else {
			signals := deadline.ReplaceAllString(lower, "$1")
			for _, ts := range p.TimeSignals {
				if countHits(signals, ts.Words()) > 0 {
					o.signal = ts.Name
					o.window = timeWindow{since: r.now.AddDate(0, 0, -ts.Days), until: r.now.Add(time.Minute)}
					o.loose = ts.Loose && !yesNo(q)
					break
				}
			}
		}
	}

	o.phrases = quoted(q)
	o.names = names(q)
	o.keywords = KeywordQuery(q)
	for _, name := range sortedKeys(p.Topics) {
		lex := p.Topics[name]
		if countHits(lower, lex.Words()) == 0 && countHits(lower, lex.Cues) == 0 {
			continue
		}
		o.topics = append(o.topics, name)
		generic := countHits(lower, lex.Generic) > 0 && !namesPart(lower, lex)
		for _, w := range lex.Words() {
			if !strings.Contains(lower, strings.ToLower(w)) && !slices.Contains(o.expansions, w) {
				o.expansions = append(o.expansions, w)
				if generic {
					o.broad = append(o.broad, w)
				}
			}
		}
	}
	o.present = presentTense(lower, p.Markers["present"])
	o.past = countHits(lower, p.Markers["past"].Words()) > 0
	o.number = countHits(lower, p.Markers["number"].Words()) > 0
	o.age = countHits(lower, p.Markers["age"].Words()) > 0
	o.aggregate = countHits(lower, p.Markers["aggregate"].Words()) > 0 || asksForSeveral(lower)
	o.thread = countHits(lower, p.Markers["thread"].Words()) > 0 || asksFromTo(lower)
	for _, name := range sortedKeys(p.Kinds) {
		if countHits(lower, p.Kinds[name].Ask.Words()) > 0 {
			o.kinds = append(o.kinds, name)
		}
	}
	o.relation = relationOf(lower, p.Relations, true)
	o.people = relationOf(lower, p.Relations, false)
	o.petName = o.people == "" && !o.aggregate && asksName.MatchString(lower) && !asksWhyHow.MatchString(lower) && countHits(lower, p.Topics["pet"].Words()) > 0
	return o
}

// asksWhyHow opens a question that asks why or how, not what: "Why did
// Joanna name the stuffed dog Tilly?" asks no name.
var asksWhyHow = regexp.MustCompile(zhForms(`^\W*(?:why|how)\b|为什么|为啥|怎么会|咋会`))

// yesNo reports whether a question asks whether something is so rather
// than for what, when or who: its last sentence opens with an auxiliary
// verb ("Did I…", "Any news…") or ends with 吗 or asks 是不是/有没有.
func yesNo(q string) bool {
	ss := sentences(q)
	if len(ss) == 0 {
		return false
	}
	last := strings.TrimSpace(ss[len(ss)-1])
	if yesNoZH.MatchString(last) {
		return true
	}
	return yesNoEN.MatchString(strings.ToLower(last))
}

// deadline is a time and the 之前 or 以前 after it that make it a
// deadline ("房租每回是啥时候之前要交", "5号之前"): before that time, not
// "previously"; the time is kept.
var deadline = regexp.MustCompile(zhForms(`(啥时候|什么时候|什麼時候|几号|幾號|几点|幾點|哪天|哪一天|何时|何時|\d+\s*[号號日点點]|[一二三四五六七八九十两兩]+\s*[号號日点點]|月底|月初|年底|周[一二三四五六日天末]|週[一二三四五六日天末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|禮拜[一二三四五六日天]|下班|明天|今天|今晚)\s*(?:之前|以前)`))

var (
	yesNoEN = regexp.MustCompile(`^(do|does|did|am|is|are|was|were|have|has|had|can|could|will|would|should|shall|may|any|anything)\b`)
	yesNoZH = regexp.MustCompile(zhForms(`(吗|嘛)\s*[？?。！!]*\s*$|是不是|有没有|是否|了没`))
)

// asksForSeveral reports whether an English question asks for several
// things by its grammar: what or which before a plural noun ("what books",
// "what are her hobbies", "what kinds of art", "what outdoor activities"),
// or what or where before the present perfect ("what has John cooked",
// "where has Maria camped": all the times it happened).
func asksForSeveral(lower string) bool {
	words := strings.FieldsFunc(lower, func(r rune) bool { return !isWordRune(r) })
	for i, w := range words {
		if w != "what" && w != "which" && w != "where" {
			continue
		}
		rest := words[i+1:]
		if len(rest) > 1 && (rest[0] == "has" || rest[0] == "have") {
			return true
		}
		if w == "where" {
			continue
		}
		// The noun comes within a few words, after "are the", "kinds of"
		// or a possessive. A plural right after what is a verb unless a
		// verb follows it ("what motivates her" against "what pets does
		// she have").
		are := false
		for j, n := 0, 0; j < len(rest) && n < 3 && !auxiliaries[rest[j]]; j++ {
			switch v := rest[j]; {
			case v == "kinds" || v == "types" || v == "sorts":
				return true
			case v == "are" || v == "were":
				are = true
			case nounLead[v] || strings.HasSuffix(v, "'s"):
			case plural(v) && (are || j+1 == len(rest) || auxiliaries[rest[j+1]] || nounEnd[rest[j+1]]):
				return true
			default:
				n++ // an adjective or a noun of a compound ("video games")
			}
		}
	}
	return false
}

// nounLead are the words between what or which and its noun.
var nounLead = map[string]bool{"the": true, "some": true, "all": true, "any": true, "of": true,
	"kind": true, "type": true, "sort": true}

// nounEnd are the words after a plural noun that show it is one.
var nounEnd = map[string]bool{"are": true, "were": true, "of": true, "that": true, "which": true, "who": true}

// auxiliaries end the noun phrase after what or which.
var auxiliaries = map[string]bool{"am": true, "is": true, "was": true, "do": true, "does": true, "did": true, "has": true, "have": true,
	"had": true, "can": true, "could": true, "would": true, "will": true, "should": true, "might": true, "may": true, "must": true}

// plural reports whether an English word looks like a plural noun.
func plural(w string) bool {
	w = strings.TrimSuffix(w, "'")
	if irregularPlural[w] {
		return true
	}
	if len(w) < 4 || !strings.HasSuffix(w, "s") || notPlural[w] {
		return false
	}
	return !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is")
}

var irregularPlural = map[string]bool{"people": true, "children": true, "men": true, "women": true}

var notPlural = map[string]bool{"this": true, "always": true, "perhaps": true, "series": true, "news": true, "across": true,
	"hers": true, "ours": true, "yours": true, "theirs": true, "sometimes": true, "whereas": true, "besides": true}

// namesPart reports whether a question names a thing of a topic beside
// its words for the topic as a whole ("吃海鲜要注意吗": seafood, not
// food): a topic word that is none of the generic ones and holds none of
// them (不吃 holds 吃), and in Chinese a word of two characters or more
// (菜 of 点菜 and 饭 of 吃饭 name no dish). A word right before a generic
// one describes it ("spicy food", "辣的食物") and names no part. Such a
// question asks about that thing, and a message naming another thing of
// the topic does not bear it out.
func namesPart(lower string, lex Lexicon) bool {
	generic := lowerAll(lex.Generic)
	for _, w := range lex.Words() {
		w = strings.ToLower(w)
		if isCJKRun(w) && utf8.RuneCountInString(w) < 2 || slices.ContainsFunc(generic, func(g string) bool { return containsWord(w, g) }) {
			continue
		}
		for _, at := range mentions(lower, w) {
			next := strings.TrimPrefix(strings.TrimLeft(lower[at[1]:], " "), "的")
			if !slices.ContainsFunc(generic, func(g string) bool { return strings.HasPrefix(next, g) && boundary(next, len(g), false, g) }) {
				return true
			}
		}
	}
	return false
}

// presentTense reports whether a question asks about the present: a word
// of the present lexicon, or 还 ("still") that does not start 还记得.
func presentTense(lower string, present Lexicon) bool {
	if countHits(lower, present.Words()) > 0 {
		return true
	}
	// 还 (traditional 還) is still, unless it opens 还记得 or 还是.
	for _, still := range []string{"还", "還"} {
		for i := 0; ; {
			j := strings.Index(lower[i:], still)
			if j < 0 {
				break
			}
			at := i + j + len(still)
			if rest := lower[at:]; !strings.HasPrefix(rest, "记") && !strings.HasPrefix(rest, "記") && !strings.HasPrefix(rest, "是") {
				return true
			}
			i = at
		}
	}
	return false
}

// realQuestion returns the clause after the last turn marker of a question
// that rambles before it asks ("……不好意思，我真正想问的是：我现在住哪？"),
// and whether there was one with a clause after it.
func realQuestion(q string, turn Lexicon) (string, bool) {
	lower := strings.ToLower(q)
	at := -1
	for _, m := range turn.Words() {
		// A marker before someone else asks them, not the assistant ("我想
		// 问问她报的哪个团").
		if i := strings.LastIndex(lower, strings.ToLower(m)); i >= 0 && i+len(m) > at && !asksOther(lower[i+len(m):]) {
			at = i + len(m)
		}
	}
	if at < 0 {
		return q, false
	}
	rest := strings.TrimLeftFunc(q[at:], func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) && r != '"' && r != '“'
	})
	if utf8.RuneCountInString(rest) < 3 {
		return q, false
	}
	return rest, true
}

// asksOther reports whether the words after a turn marker name whom else
// it asks (问问他, 问问她). Not in English: its markers ask no one ("anyway,
// her new job…").
func asksOther(rest string) bool {
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	return strings.HasPrefix(rest, "他") || strings.HasPrefix(rest, "她")
}

// afterPreamble returns the question a message asks after a chatty
// preamble that has no turn marker ("早上地铁又挤爆了，烦死。我每天通勤要
// 多久？"): its last sentence that asks something, with the questions
// right before it, and whether there was a preamble to leave out. The
// preamble's words would otherwise be searched as the question's. A
// preamble sentence that points back at the conversation ("我之前跟你说过
// 我去日本玩的事", markers.reference) stays, and so does the sentence
// before a question that asks nothing of its own ("你还记得吗？").
//
// Sentences after the last question that ask nothing give its reason
// ("when's my wedding again? my family needs to book flights") and are
// left out too, unless they point back at the conversation or the
// question asks nothing of its own ("你还记得吗？我上次说的那家店"). A
// message whose sentences ask nothing is left whole.
func afterPreamble(q string, filler, reference Lexicon) (string, bool) {
	sents := sentences(q)
	if len(sents) == 1 {
		return reasonClauses(q, reference)
	}
	// A last sentence that gives the purpose the question is asked for
	// ("体测到底是哪天来着 我要算下还能练几次800") is no part of it, even
	// when it asks by a word, after a sentence that asks.
	for len(sents) > 1 && purpose(sents[len(sents)-1]) && slices.ContainsFunc(sents[:len(sents)-1], asksSomething) {
		sents = sents[:len(sents)-1]
		if len(sents) == 1 {
			return sents[0], true
		}
	}
	// Trailing pleasantries ("谢谢！", "thanks!") are no sentence of it,
	// nor is one that says who is waiting for the answer ("朵朵问我呢").
	waiting := false // a sentence saying who waits was left out
	for len(sents) > 1 {
		s := sents[len(sents)-1]
		if !asksSomething(s) && statesNe.MatchString(strings.TrimSpace(s)) {
			waiting = true
		} else if isQuestionText(s) || len(keyTerms(s, filler)) > 1 || utf8.RuneCountInString(s) > 12 {
			break
		}
		sents = sents[:len(sents)-1]
	}
	last := len(sents) - 1
	for last >= 0 && !isQuestionText(sents[last]) {
		last--
	}
	// Without a question mark, the last sentence that asks by its words
	// ("我吃的喝的要注意啥") is the question, and those after it that ask
	// nothing are its reason ("上周跑的哪个厂来着 报销单要填地点").
	for i := len(sents) - 1; last < 0 && len(sents) > 1 && i >= 0; i-- {
		if asksSomething(sents[i]) {
			last = i
		}
	}
	if last < 0 && waiting && slices.ContainsFunc(sents, asksSomething) {
		return strings.Join(sents, " "), true
	}
	// A message that asks nothing but requests ("我那篇 paper 从开始写到现在
	// 整个过程帮我 recap 一下 要写进 annual progress report") is its request,
	// with all before it, and the sentences after give its reason.
	request := false
	for i := len(sents) - 2; last < 0 && i >= 0; i-- {
		if asksHelp(sents[i]) {
			last, request = i, true
		}
	}
	if last < 0 {
		return q, false
	}
	refers := func(s string) bool { return countHits(strings.ToLower(s), reference.Words()) > 0 }
	var tail []string
	if rest := sents[last+1:]; len(rest) > 0 {
		if slices.ContainsFunc(rest, asksSomething) || len(keyTerms(strings.Join(sents[:last+1], " "), filler)) == 0 {
			return q, false
		}
		for _, s := range rest {
			if refers(s) {
				tail = append(tail, s)
			}
		}
	}
	dropped := len(tail) < len(sents)-last-1
	from := last
	// The questions right before the last are part of it, and so is a
	// sentence before them that asks by its words alone and names nothing
	// ("从头到尾是咋样的"; one that names something, "嗓子发炎好几天了" with
	// its 几天, may be the preamble's).
	for from > 0 && (isQuestionText(sents[from-1]) || asksPlainly(sents[from-1]) || asksSomething(sents[from-1]) && len(keyTerms(sents[from-1], filler)) == 0) {
		from--
	}
	if from > 0 && len(keyTerms(strings.Join(sents[from:last+1], " "), filler)) == 0 {
		from--
	}
	// A sentence right before the question that names the matter it asks
	// about ("我那个攒钱买游戏机的事 从头到尾是咋样的") is part of it.
	if from > 0 && namesMatter(sents[from-1]) {
		from--
	}
	if request {
		from = 0
	}
	if from == 0 && !dropped {
		return q, false
	}
	var kept []string
	for _, s := range sents[:from] {
		if refers(s) {
			kept = append(kept, s)
		}
	}
	kept = append(append(kept, sents[from:last+1]...), tail...)
	return strings.Join(kept, " "), true
}

// reasonClauses returns a one-sentence Chinese question without the
// clauses after its last that asks or requests, when they ask nothing and
// point back at nothing: its reason ("签证这桩事体从头到尾是哪能办下来的，
// 侬帮我理一理，我要讲拨阿拉妹妹听，伊也想去。").
func reasonClauses(q string, reference Lexicon) (string, bool) {
	if cjkShare(q) < 0.5 {
		return enReasonClause(q, reference)
	}
	cs := strings.FieldsFunc(q, func(r rune) bool { return r == '，' })
	if len(cs) < 2 {
		return q, false
	}
	last := -1
	for i, c := range cs {
		if asksSomething(c) || requests(c) {
			last = i
		}
	}
	if last < 0 || last == len(cs)-1 {
		return q, false
	}
	for _, c := range cs[last+1:] {
		if countHits(strings.ToLower(c), reference.Words()) > 0 {
			return q, false
		}
	}
	return strings.Join(cs[:last+1], "，"), true
}

// enReasonClause returns a one-sentence English question without a
// clause after its last comma that gives the reason it is asked ("what
// time's my dentist on thurs again, need to tell the new clinic"): one
// that opens with a need, a plan or a cause (enReasonLead), after a
// clause that asks. A clause that points back at the conversation stays.
func enReasonClause(q string, reference Lexicon) (string, bool) {
	i := strings.LastIndex(q, ", ")
	if i < 0 {
		return q, false
	}
	head, tail := q[:i], strings.TrimSpace(q[i+2:])
	if !asksSomething(head) || asksSomething(tail) || !enReasonLead.MatchString(strings.ToLower(tail)) ||
		countHits(strings.ToLower(tail), reference.Words()) > 0 {
		return q, false
	}
	return head, true
}

// purpose reports whether a sentence says what the asker means to do with
// the answer: it opens with a plan of the asker's to work something out
// ("我要算下还能练几次", "我得安排下", "need to tell the new clinic").
func purpose(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return zhPurposeLead.MatchString(s) || enReasonLead.MatchString(s)
}

var zhPurposeLead = regexp.MustCompile(zhForms(`^(?:我|俺)?(?:要|得|想|好|需要|打算|准备)(?:算|看看|看下|看一下|安排|排|订|定|规划|计划|告诉|通知|跟)`))

// enReasonLead opens a clause that says why a question is asked: a need,
// a plan or a cause.
var enReasonLead = regexp.MustCompile(`^(?:(?:i |we )?(?:need|needs|gotta|got to|have to|has to|want to|wanna|am trying to|trying to|am about to|about to|am going to|gonna)\b|so (?:i|we) can\b|(?:cos|cause|'cause|because|since)\b|(?:my|the|our|his|her) [a-z]+(?: [a-z]+)? (?:wants|needs|is asking|asks|asked)\b)`)

// withoutReason returns the question a turn marker opens ("我想问问你 我媳
// 妇儿过生日到底是几号 明年我可不能再在外头过了") without the sentences after
// its last asking one that ask nothing and request nothing: its reason.
func withoutReason(q string) string {
	sents := sentences(q)
	last := len(sents) - 1
	for last >= 0 && !asksSomething(sents[last]) {
		if requests(sents[last]) {
			return q
		}
		last--
	}
	if last < 0 || last == len(sents)-1 {
		return q
	}
	return strings.Join(sents[:last+1], " ")
}

// requests reports whether a sentence asks the assistant to do something
// ("帮我串一下", "给我从头捋捋", "tell me"): part of the question.
func requests(s string) bool { return requestWord.MatchString(strings.ToLower(strings.TrimSpace(s))) }

var requestWord = regexp.MustCompile(zhForms(`^(?:你)?(?:帮我|给我|帮忙|麻烦|请|替我)|^(?:please|help me|tell me|remind me|walk me)\b`))

// asksHelp reports whether a sentence asks the assistant for help: it
// opens with a request, or asks anywhere in it for a matter to be told
// over ("整个过程帮我 recap 一下", "从头到尾捋一下"). 帮我 alone is no
// request of the assistant's ("室友话帮我带奶茶").
func asksHelp(s string) bool {
	return requests(s) || helpWord.MatchString(strings.ToLower(s))
}

var helpWord = regexp.MustCompile(zhForms(`捋|理一理|理一下|梳理|总结一下|串一下|串一串|\b(?:recap|rundown|summari[sz]e|walk me through)\b`))

// namesMatter reports whether a sentence ends by naming a matter as one
// ("我那个攒钱买游戏机的事", "搬店这事儿"): what the question after it asks
// about.
func namesMatter(s string) bool {
	return matterEnd.MatchString(strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) || isEmoji(r) }))
}

var matterEnd = regexp.MustCompile(zhForms(`[的那这]事(?:儿|情)?$`))

// asksSomething reports whether a sentence asks, by its mark or its
// words: a question (isQuestionText), or a word asking what, who, where,
// when, why or how ("都是为啥回去的", "老师咋说的").
func asksSomething(s string) bool {
	if !isQuestionText(s) && forgets.MatchString(s) {
		return false // "咋想不起了": the asker's memory, not a question
	}
	return isQuestionText(s) || whWord.MatchString(strings.ToLower(s))
}

// forgets is a sentence that says the asker cannot recall, asking why
// only of themselves ("咋想不起了", "怎么就记不住呢").
var forgets = regexp.MustCompile(zhForms(`^\s*(?:我)?(?:咋|怎么|为啥|为什么|怎)(?:就|又|都|老是?|总是?|一下)?(?:想不起|记不住|记不清|记不得|忘)[^\s，,。？?！!]{0,4}$`))

// asksFromTo reports whether a question asks for a matter's course from
// one of its steps to another ("搬店那个事从签合同到开业 中间出了啥子岔子",
// "從看房到簽約"), not for a span it asks the ends of ("我晚班是从几点跑到
// 几点？", "婚假从哪天到哪天"), or a step of one character, as idioms
// name an extent (从小到大, 从早到晚).
func asksFromTo(s string) bool {
	for _, m := range fromTo.FindAllString(s, -1) {
		if !strings.ContainsAny(m, "几幾哪啥什甚咩边邊") {
			return true
		}
	}
	return false
}

var fromTo = regexp.MustCompile(`[从從][^\s，,。？?！!、]{2,8}[到至][^\s，,。？?！!、]{1,8}`)

// asksPlainly reports whether a sentence asks by a word that asks and
// nothing else ("这几天我是不是跟你吐槽过什么程序挂了" before "最后咋解决的"):
// not 几 (好几天) or 咋 and 怎 (Cantonese "just", 怎么这么累), which a
// preamble says too.
func asksPlainly(s string) bool { return plainAsk.MatchString(strings.ToLower(s)) }

var plainAsk = regexp.MustCompile(zhForms(`\b(?:what|which|who|whom|whose|when|where|why|how)\b|是不是|有没有|什么|啥|谁|多少|哪(?:$|[^怕])`))

// whWord matches a word that asks (not 几乎 or 哪怕).
var whWord = regexp.MustCompile(zhForms(`\b(?:what|which|who|whom|whose|when|where|why|how)\b|什么|啥|咋|谁|怎|多少|为何|哪(?:$|[^怕])|几[个次点号岁天年月趟回种位遍部本件样]`))

// sentences splits a message after each sentence's end (。！？；…, a
// newline, or a full stop before a space), keeping the marks.
// isEmoji reports whether r is a pictograph or an emoticon (😵, 🧋, ☕),
// not a letter, a digit or punctuation.
func isEmoji(r rune) bool {
	return r >= 0x1F300 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF
}

func sentences(s string) []string {
	var out []string
	rs := []rune(s)
	start := 0
	cut := func(end int) {
		if t := strings.TrimSpace(string(rs[start:end])); t != "" {
			out = append(out, t)
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		// Chat ends a sentence with an emoji as often as with a stop
		// ("收了三个病人 😵 对了，我那个执业证…").
		end := strings.ContainsRune("。！？!?；;…\n", rs[i]) || isEmoji(rs[i]) ||
			rs[i] == '.' && (i+1 == len(rs) || unicode.IsSpace(rs[i+1])) && fullStop(rs[:i])
		// Chat Chinese ends a clause with a space where writing would put
		// a comma or a full stop ("今晚跟老同事聚餐 我吃的喝的要注意啥").
		if !end && rs[i] == ' ' && i > 0 && isCJK(rs[i-1]) {
			j := i
			for j < len(rs) && rs[j] == ' ' {
				j++
			}
			if j < len(rs) && isCJK(rs[j]) {
				cut(i)
				i = j - 1
				start = j
			}
			continue
		}
		if !end {
			continue
		}
		j := i + 1
		for j < len(rs) && (strings.ContainsRune("。！？!?；;….\n\"”」）)", rs[j]) || isEmoji(rs[j]) || rs[j] == '\uFE0F' || rs[j] == '\u200D') {
			j++
		}
		cut(j)
		i = j - 1
	}
	cut(len(rs))
	return out
}

// fullStop reports whether a full stop after before ends a sentence: it
// follows a word of two letters or more that is no abbreviation (not
// "Dr.", "U.S.", "C. S. Lewis", "3.5").
func fullStop(before []rune) bool {
	i := len(before)
	for i > 0 && unicode.IsLetter(before[i-1]) {
		i--
	}
	w := strings.ToLower(string(before[i:]))
	return utf8.RuneCountInString(w) >= 2 && !slices.Contains(abbreviations, w)
}

var abbreviations = []string{"mr", "mrs", "ms", "dr", "st", "jr", "sr", "vs", "etc", "prof", "inc", "ltd", "co", "no", "mt", "ft", "approx"}

func cjkShare(s string) float64 {
	var cjk, letters int
	for _, r := range s {
		switch {
		case isCJK(r):
			cjk++
			letters++
		case unicode.IsLetter(r):
			letters++
		}
	}
	if letters == 0 {
		return 0
	}
	// A CJK character carries about a word; weigh Latin letters as fifths.
	return float64(cjk) / (float64(cjk) + float64(letters-cjk)/5)
}

// countHits counts the words of lex that occur in lower (already lowercased).
// English words match on word boundaries; Chinese ones as substrings.
func countHits(lower string, lex []string) int {
	n := 0
	for _, w := range lex {
		if containsWord(lower, strings.ToLower(w)) {
			n++
		}
	}
	return n
}

// containsWord reports whether w occurs in s, on word boundaries when w
// starts or ends with a Latin letter or digit.
func containsWord(s, w string) bool { return wordIndex(s, w) >= 0 }

// wordIndex is the index of the first occurrence of w in s on
// containsWord's boundaries, or -1.
func wordIndex(s, w string) int {
	if w == "" {
		return -1
	}
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return -1
		}
		at := i + j
		if boundary(s, at, true, w) && boundary(s, at+len(w), false, w) {
			return at
		}
		i = at + 1
	}
	return -1
}

func boundary(s string, at int, before bool, w string) bool {
	var edge rune
	if before {
		edge = []rune(w)[0]
	} else {
		rs := []rune(w)
		edge = rs[len(rs)-1]
	}
	if numeralWord(w) {
		// A word of numerals (万一, "in case") is no word inside a number
		// (月租一万一千五).
		var next rune
		switch {
		case before && at > 0:
			next, _ = utf8.DecodeLastRuneInString(s[:at])
		case !before && at < len(s):
			next, _ = utf8.DecodeRuneInString(s[at:])
		}
		return !isNumeral(next) && !unicode.IsDigit(next)
	}
	if !isWordRune(edge) || isCJK(edge) {
		return true
	}
	if before {
		if at == 0 {
			return true
		}
		r := []rune(s[:at])
		return !isWordRune(r[len(r)-1]) || isCJK(r[len(r)-1])
	}
	if at >= len(s) {
		return true
	}
	r := []rune(s[at:])[0]
	return !isWordRune(r) || isCJK(r)
}

// isNumeral reports whether r is a Chinese numeral (一…十, 百, 千, 万, 亿,
// 两, 零 and their traditional and financial forms).
func isNumeral(r rune) bool {
	return strings.ContainsRune("零〇一二三四五六七八九十百千万亿两萬億兩壹贰貳叁參肆伍陆陸柒捌玖拾佰仟", r)
}

// numeralWord reports whether w is two Chinese numerals or more (万一).
func numeralWord(w string) bool {
	n := 0
	for _, r := range w {
		if !isNumeral(r) {
			return false
		}
		n++
	}
	return n >= 2
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' }

var selfWords = []string{"我", "i", "me", "my", "mine", "myself", "i'm", "i've", "i'd"}

func mentionsSelf(lower string) bool {
	return countHits(lower, selfWords) > 0
}

var quotedRE = regexp.MustCompile(`"([^"]+)"|“([^”]+)”|「([^」]+)」|『([^』]+)』`)

func quoted(q string) []string {
	var out []string
	for _, m := range quotedRE.FindAllStringSubmatch(q, -1) {
		for _, g := range m[1:] {
			if g = strings.TrimSpace(g); g != "" {
				out = append(out, g)
			}
		}
	}
	return append(out, singleQuoted(q)...)
}

// singleQuoted returns what single quotes enclose, at word edges only: the
// apostrophes of "How's the menu for my mom's shop" quote nothing.
func singleQuoted(q string) []string {
	var out []string
	open := -1
	for i, r := range q {
		if r != '\'' {
			continue
		}
		before, after := i > 0 && isWordRune(lastRune(q[:i])), i+1 < len(q) && isWordRune(firstRune(q[i+1:]))
		switch {
		case open < 0 && !before && after:
			open = i + 1
		case open >= 0 && before && !after:
			if t := strings.TrimSpace(q[open:i]); utf8.RuneCountInString(t) >= 2 {
				out = append(out, t)
			}
			open = -1
		}
	}
	return out
}

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// names returns capitalised words that do not start a sentence and are not
// stop words: people, places, projects.
func names(q string) []string {
	var out []string
	fields := strings.FieldsFunc(q, func(r rune) bool { return !isWordRune(r) && r != '-' })
	for i, f := range fields {
		rs := []rune(f)
		if len(rs) < 2 || !unicode.IsUpper(rs[0]) || isStopWord(strings.ToLower(f)) {
			continue
		}
		// "I'm", "I've", "I'll", "Don't": a pronoun or a stop word with
		// its contraction, not a name ("Mom's" and "O'Brien" are).
		if head, _, ok := strings.Cut(strings.ToLower(f), "'"); ok && (head == "i" || len(head) > 1 && isStopWord(head)) {
			continue
		}
		if i == 0 && !strings.HasPrefix(strings.TrimSpace(q), f) {
			continue
		}
		// "What's" is a question word with its contraction, not a name.
		f = strings.TrimSuffix(strings.TrimSuffix(f, "'s"), "'")
		if i == 0 && isQuestionWord(strings.ToLower(f)) {
			continue
		}
		// A month in a date ("in May 2023", "on 3 May") is no one's name.
		if isMonthName(strings.ToLower(f)) && inDate(fields, i) {
			continue
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// isMonthName reports whether w (lower case) is a month's name or its
// abbreviation.
func isMonthName(w string) bool {
	if _, ok := monthByName[w]; ok {
		return true
	}
	switch w {
	case "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december":
		return true
	}
	return false
}

// inDate reports whether fields[i], a month's name, is part of a date:
// a number or a time preposition beside it.
func inDate(fields []string, i int) bool {
	number := func(j int) bool {
		return j >= 0 && j < len(fields) && strings.IndexFunc(fields[j], unicode.IsDigit) == 0
	}
	if number(i-1) || number(i+1) {
		return true
	}
	if i > 0 {
		switch strings.ToLower(fields[i-1]) {
		case "in", "on", "of", "since", "until", "till", "before", "after", "by", "during", "early", "late", "mid", "last", "next", "this":
			return true
		}
	}
	return false
}

func isQuestionWord(w string) bool {
	switch w {
	case "what", "when", "where", "who", "whom", "which", "why", "how", "do", "does", "did", "is", "are", "was",
		"were", "can", "could", "would", "should", "have", "has", "had", "will", "tell", "remember", "list":
		return true
	}
	return false
}

var (
	isoDateRE = regexp.MustCompile(`\b(\d{4})-(\d{1,2})-(\d{1,2})\b`)
	// lastWeekdayRE: 上周六, 上个星期三, 上礼拜天, 上週六; lastWeekendRE: 上周末,
	// 上个周末, last weekend; enLastDayRE: last Saturday.
	lastWeekdayRE = regexp.MustCompile(zhForms(`上(?:个|個)?(?:周|週|星期|礼拜|禮拜)([一二三四五六日天])`))
	lastWeekendRE = regexp.MustCompile(zhForms(`(?i)上(?:个|個)?(?:周|週)末|\blast weekend\b`))
	// lastWeekRE: 上周, 上个礼拜, 上週, last week, read after the two
	// above (上周六 and 上周末 name days of it).
	lastWeekRE   = regexp.MustCompile(zhForms(`(?i)上(?:个|個)?(?:周|週|星期|礼拜|禮拜)|\blast week\b`))
	lastMonthRE  = regexp.MustCompile(zhForms(`(?i)上个?月|\blast month\b`))
	thisYearRE   = regexp.MustCompile(zhForms(`(?i)今年(?:以来)?|\b(?:so far )?this year\b`))
	enLastDayRE  = regexp.MustCompile(`(?i)\blast (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)
	zhDateRE     = regexp.MustCompile(zhForms(`(?:(\d{4})年)?(\d{1,2})月(?:(\d{1,2})[日号])?`))
	enMonthRE    = regexp.MustCompile(`(?i)\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s+(\d{4})\b)?`)
	enDayMonthRE = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b(?:,?\s+(\d{4})\b)?`)
	monthLeadRE  = regexp.MustCompile(`(?i)\b(?:in|during|since|until|till|by|before|after|early|late|mid|end of|this|last|next)\s*-?\s*$`)
	// lastSpanRE: the last or past so many days, weeks or months ("in the
	// last two weeks", "past 10 days", 过去三个月, 最近两周, 近两个礼拜).
	lastSpanRE  = regexp.MustCompile(zhForms(`(?i)\b(?:last|past) (\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|couple of|few) (day|week|month)s?\b|(?:过去|過去|最近|近)(?:的)?\s*(\d{1,2}|[两兩二三四五六七八九十]|几|幾)\s*(天|日|周|週|个?星期|個?星期|个?礼拜|個?禮拜|个月|個月)`))
	monthByName = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
)

// withoutDates blanks the dates, months and days explicitDates reads in q
// ("on 9 November, 2022", "2026年3月5日", "上周末", "last Friday", "上个月";
// not "may" alone, usually the verb).
func withoutDates(q string) string {
	for _, re := range []*regexp.Regexp{isoDateRE, zhDateRE, enDayMonthRE, thisYearRE, lastWeekdayRE, lastWeekendRE, lastWeekRE, enLastDayRE, lastMonthRE, lastSpanRE} {
		q = re.ReplaceAllString(q, " ")
	}
	var b strings.Builder
	last := 0
	for _, ix := range enMonthRE.FindAllStringSubmatchIndex(q, -1) {
		if readsAsMonth(q, ix) {
			b.WriteString(q[last:ix[0]])
			b.WriteString(" ")
			last = ix[1]
		}
	}
	b.WriteString(q[last:])
	return b.String()
}

// readsAsMonth reports whether enMonthRE's match ix in q names a month:
// "may" alone is usually the verb, and an abbreviation alone a name ("Jun
// Hao", "Jan") unless a word of time leads it ("in Jun").
func readsAsMonth(q string, ix []int) bool {
	if ix[4] >= 0 || ix[6] >= 0 {
		return true // a day or a year follows
	}
	name := q[ix[2]:ix[3]]
	return !strings.EqualFold(name, "may") && (len(name) > 4 || monthLeadRE.MatchString(q[:ix[0]]))
}

// explicitDates finds a date or month named in the question and returns its
// range: a day, or a month (the most recent one not after now when no year
// is given).
func explicitDates(q string, now time.Time) (timeWindow, bool) {
	loc := now.Location()
	day := func(y int, m time.Month, d int) timeWindow {
		s := time.Date(y, m, d, 0, 0, 0, 0, loc)
		return timeWindow{since: s.Add(-12 * time.Hour), until: s.Add(36 * time.Hour)}
	}
	month := func(y int, m time.Month) timeWindow {
		s := time.Date(y, m, 1, 0, 0, 0, 0, loc)
		return timeWindow{since: s.Add(-12 * time.Hour), until: s.AddDate(0, 1, 0).Add(12 * time.Hour)}
	}
	yearFor := func(y string, m time.Month) int {
		if n, err := strconv.Atoi(y); err == nil && n > 1900 {
			return n
		}
		if m > now.Month() {
			return now.Year() - 1
		}
		return now.Year()
	}
	if m := isoDateRE.FindStringSubmatch(q); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		if mo >= 1 && mo <= 12 && d >= 1 && d <= 31 {
			return day(y, time.Month(mo), d), true
		}
	}
	if m := zhDateRE.FindStringSubmatch(q); m != nil {
		mo, _ := strconv.Atoi(m[2])
		if mo >= 1 && mo <= 12 {
			y := yearFor(m[1], time.Month(mo))
			if d, err := strconv.Atoi(m[3]); err == nil && d >= 1 && d <= 31 {
				return day(y, time.Month(mo), d), true
			}
			return month(y, time.Month(mo)), true
		}
	}
	if m := enDayMonthRE.FindStringSubmatch(q); m != nil {
		name := strings.ToLower(m[2])
		if len(name) > 3 && name != "sept" {
			name = name[:3]
		}
		mo := monthByName[name]
		if d, err := strconv.Atoi(m[1]); err == nil && d >= 1 && d <= 31 {
			return day(yearFor(m[3], mo), mo, d), true
		}
	}
	for _, ix := range enMonthRE.FindAllStringSubmatchIndex(q, -1) {
		m := make([]string, 4)
		for i := range m {
			if ix[2*i] >= 0 {
				m[i] = q[ix[2*i]:ix[2*i+1]]
			}
		}
		name := strings.ToLower(m[1])
		if len(name) > 3 && name != "sept" {
			name = name[:3]
		}
		mo := monthByName[name]
		if !readsAsMonth(q, ix) {
			continue
		}
		y := yearFor(m[3], mo)
		if d, err := strconv.Atoi(m[2]); err == nil && d >= 1 && d <= 31 {
			return day(y, mo, d), true
		}
		return month(y, mo), true
	}
	// Else the days of last week (上周六: Saturday of the week before this one,
	// weeks from Monday), last weekend (the Saturday and Sunday before
	// this week) and last Saturday (the latest Saturday before today).
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
	// The last so many days, weeks or months: from as far back to today.
	if m := lastSpanRE.FindStringSubmatch(q); m != nil {
		n, unit := spanCount(cmpOr(m[1], m[3])), cmpOr(m[2], m[4])
		back := today.AddDate(0, 0, -n)
		switch {
		case strings.Contains(unit, "week") || strings.ContainsAny(unit, "周週星礼禮"):
			back = today.AddDate(0, 0, -7*n)
		case strings.Contains(unit, "month") || strings.Contains(unit, "月"):
			back = today.AddDate(0, -n, 0)
		}
		return timeWindow{since: back.Add(-12 * time.Hour), until: today.AddDate(0, 0, 1).Add(12 * time.Hour)}, true
	}
	if m := lastWeekdayRE.FindStringSubmatch(q); m != nil {
		d := monday.AddDate(0, 0, -7+zhWeekday[m[1]])
		return day(d.Year(), d.Month(), d.Day()), true
	}
	// This year (今年, so far this year): from its first day on.
	if thisYearRE.MatchString(q) {
		jan := time.Date(now.Year(), time.January, 1, 0, 0, 0, 0, loc)
		return timeWindow{since: jan.Add(-12 * time.Hour), until: today.AddDate(0, 0, 1).Add(12 * time.Hour)}, true
	}
	if lastWeekendRE.MatchString(q) {
		sat := monday.AddDate(0, 0, -2)
		return timeWindow{since: sat.Add(-12 * time.Hour), until: sat.AddDate(0, 0, 2).Add(12 * time.Hour)}, true
	}
	// Last week (上周, last week): from the Monday of the week before this
	// one to today, since what was done last week is often told this week
	// ("上周体检了…" on a Tuesday); a message of this week that tells of its
	// own day ("明天去龙华…", "今天跑了趟…") is this week's (timeWindow.told).
	if lastWeekRE.MatchString(q) {
		return timeWindow{since: monday.AddDate(0, 0, -7).Add(-12 * time.Hour), until: today.AddDate(0, 0, 1).Add(12 * time.Hour), told: monday}, true
	}
	// Last month (上个月): the calendar month before this one.
	if lastMonthRE.MatchString(q) {
		first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, loc).AddDate(0, -1, 0)
		return month(first.Year(), first.Month()), true
	}
	if m := enLastDayRE.FindStringSubmatch(q); m != nil {
		want := weekdayByName[strings.ToLower(m[1])]
		back := (int(today.Weekday()) - int(want) + 7) % 7
		if back == 0 {
			back = 7
		}
		d := today.AddDate(0, 0, -back)
		return day(d.Year(), d.Month(), d.Day()), true
	}
	return timeWindow{}, false
}

// spanCount reads the count of lastSpanRE: digits, an English or Chinese
// numeral; a few (几) is three.
func spanCount(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	switch strings.ToLower(s) {
	case "two", "couple of", "两", "兩", "二":
		return 2
	case "four", "四":
		return 4
	case "five", "五":
		return 5
	case "six", "六":
		return 6
	case "seven", "七":
		return 7
	case "eight", "八":
		return 8
	case "nine", "九":
		return 9
	case "ten", "十":
		return 10
	}
	return 3 // three, few, 三, 几
}

// zhWeekday is the days from Monday of a weekday's Chinese numeral (六 of
// 周六; 日 and 天 are Sunday).
var zhWeekday = map[string]int{"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}

var weekdayByName = map[string]time.Weekday{"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday,
	"wednesday": time.Wednesday, "thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// relationOf names the group of people that the question asks about: one
// of its words right after a possessive, or "". With ownerOnly the
// possessive is the user's (我/我的/my); else also another person's
// (他的/她的, his/her/their, a name's 's).
func relationOf(lower string, relations map[string]Lexicon, ownerOnly bool) string {
	// 我家娃, 我家小朋友; 带娃 in a question of the user's own ("我带娃去哪
	// 儿了"): the user's own people too.
	zh, en := []string{"我", "我的", "我家", "带"}, []string{"my "}
	if !ownerOnly {
		zh, en = append(zh, "他的", "她的"), append(en, "his ", "her ", "their ", "'s ", "’s ")
	}
	for _, name := range sortedKeys(relations) {
		for _, w := range relations[name].Words() {
			w = strings.ToLower(w)
			for _, p := range zh {
				if strings.Contains(lower, p+w) {
					return name
				}
			}
			for _, p := range en {
				// "my sister's name": the relation before a possessive.
				if containsWord(lower, p+w) || strings.Contains(lower, p+w+"'s") || strings.Contains(lower, p+w+"’s") ||
					strings.HasPrefix(p, "'") && strings.Contains(lower, p+w) {
					return name
				}
			}
		}
	}
	return ""
}
