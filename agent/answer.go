package agent

import "regexp"

// What a question asks for by its question word, and whether a message
// gives one: a question asking when is answered by a message that names a
// time ("yesterday", "last Friday", "in 2013", 上周三, 3 月 5 号), one asking
// how long by a message that names a span ("for 3 years", 两个月). In
// LoCoMo conv0-4, 82% of the gold turns the hybrid ranks in the top ten
// for a question opening with "When" name a time, against 17% of the
// other turns there.
var (
	asksTime = regexp.MustCompile(zhForms(`(?i)^\s*(when|what time|what date|what day|which day|what year|which year|what month|which month)\b|\bwhen (did|does|do|is|was|were|will|are|has|have|had)\b|how long ago|什么时候|啥时候|什么时间|哪天|哪一天|哪年|哪一年|哪个月|几号|几月几|星期几|周几|几点|多久以前|多久前`))
	asksSpan = regexp.MustCompile(zhForms(`(?i)\bhow long\b|多久|多长时间|多少年|几年了|多少天|多少个月`))

	enNumber = `(\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|a couple of|several|many|a|an)`
	enMonth  = `january|february|march|april|june|july|august|september|october|november|december|may \d`
	enDay    = `monday|tuesday|wednesday|thursday|friday|saturday|sunday`
	zhNumber = `[0-9０-９一二三四五六七八九十两几半多]+`

	givesTime = regexp.MustCompile(zhForms(`(?i)\b(yesterday|today|tonight|tomorrow|recently|the other day|ago|last (week|month|year|weekend|night|summer|winter|spring|fall|autumn|time|` + enDay + `)|this (morning|afternoon|evening|week|weekend|month|year|summer|past)|next (week|month|year|weekend|` + enDay + `)|` + enMonth + `|` + enDay + `|(19|20)\d\d|\d{1,2}(:\d\d)?\s*(am|pm)|weekend)\b` +
		`|昨天|今天|前天|明天|后天|今早|今晚|昨晚|明早|明晚|上周|下周|这周|本周|上个?星期|下个?星期|上个?礼拜|下个?礼拜|上个月|下个月|这个月|本月|月初|月底|去年|今年|明年|前年|年初|年底|刚才|刚刚|前几天|前阵子|周末` +
		`|[0-9０-９]+\s*[年月号日点]|[一二三四五六七八九十两]+\s*[月号点]|(周|星期|礼拜)[一二三四五六日天]|` + zhNumber + `\s*(天|周|个?星期|个?月|年)(以?前|之前|后|以后|之后)`))
	// A question asking why is mostly answered by a turn that gives a
	// reason: in a dialogue the reason often comes in the speaker's next
	// turn, after the other asks what made them do it.
	asksReason  = regexp.MustCompile(zhForms(`(?i)^\s*why\b|\bwhy (did|does|do|is|was|were|has|have|had|would|are|am)\b|\bwhat (inspired|motivated|made|prompted|led|sparked|drove|caused|got)\b|为什么|为啥|干嘛要|怎么会想|什么原因|啥原因|动机`))
	givesReason = regexp.MustCompile(zhForms(`(?i)\b(because|cause|cuz|so that|in order to|wanted to|inspired|motivated|the reason|due to|that's why|made me|led me|got me|growing up)\b|因为|为了|所以|原因|由于|为的是|动机`))
	givesSpan   = regexp.MustCompile(zhForms(`(?i)\b(` + enNumber + ` (days?|weeks?|months?|years?|hours?|decades?)|since|for (years|months|ages|a while|so long|decades|life)|all my life|decade)\b` +
		`|` + zhNumber + `\s*(年|个月|天|周|个?星期|个?小时|分钟)|多年|好几年|很久|从小|从.{1,8}(开始|起)`))
)

// answerKind returns, for a question that asks for a time, a span or a
// reason by its question word, whether a message's content gives one;
// nil for other questions. A question asking how long ago is asking when.
func answerKind(question string) func(content string) bool {
	switch {
	case asksTime.MatchString(question):
		return givesTime.MatchString
	case asksSpan.MatchString(question):
		return givesSpan.MatchString
	case asksReason.MatchString(question):
		return givesReason.MatchString
	}
	return nil
}

// A part of the day a question names ("What have I been doing in the
// mornings lately?", 我晚上一般干嘛) is borne out by a message that names
// it, a meal or moment of it, or a clock time in it ("6am gym sessions",
// 晚上九点): partsOfDay pairs the question's term with what gives one.
var partsOfDay = []struct {
	term  *regexp.Regexp
	gives *regexp.Regexp
}{
	{regexp.MustCompile(zhForms(`^(morning|早上|上午|早晨|清晨)`)),
		regexp.MustCompile(zhForms(`(?i)\b(mornings?|breakfast|sunrise|dawn|([4-9]|1[01])(:\d\d)?\s*am)\b|早上|上午|早晨|清晨|早起|早饭|早餐|晨跑|一早|凌晨`))},
	{regexp.MustCompile(zhForms(`^(afternoon|下午)`)),
		regexp.MustCompile(zhForms(`(?i)\b(afternoons?|lunch|(12|[1-4])(:\d\d)?\s*pm)\b|下午|午后|午饭|午休`))},
	{regexp.MustCompile(zhForms(`^(evening|night|晚上|夜里|傍晚)`)),
		regexp.MustCompile(zhForms(`(?i)\b(evenings?|nights?|tonight|dinner|after work|before bed|([5-9]|1[01])(:\d\d)?\s*pm)\b|晚上|夜里|傍晚|今晚|每晚|下班后|睡前|晚饭|半夜|深夜|熬夜`))},
}

// A question whether a time or date changed ("Kite 上线时间后来改了吗？",
// "did the launch date move?") is borne out by a message that names one:
// the new date is the answer, said without a word for date.
var (
	dateTerm   = regexp.MustCompile(zhForms(`^(时间|日期|date|time|day)$`))
	asksChange = regexp.MustCompile(zhForms(`(?i)改|变|换|推迟|提前|延期|延后|\b(change[ds]?|move[ds]?|postponed?|pushed|reschedul\w*|delayed?)\b`))
)

// dateTerms returns the evidence terms that name a date or time in a
// question whether it changed, each borne out by a message that gives a
// time; nil for other questions.
func dateTerms(question string, evidence []string) map[string]func(string) bool {
	if !asksChange.MatchString(question) {
		return nil
	}
	return termsBy(evidence, dateTerm, givesTime.MatchString)
}

// whenTerms returns, for a question asking when in Chinese (什么时候,
// 么时候, 几时), the terms of its question word (时候, 时), each borne out
// by a message that gives a time: "伢六月十二过生日" answers "我屋里伢么时候
// 过生来着" though it has no 时候.
func whenTerms(question string, evidence []string) map[string]func(string) bool {
	if !asksTime.MatchString(question) && !whenZH.MatchString(question) {
		return nil
	}
	return termsBy(evidence, whenTerm, givesTime.MatchString)
}

var (
	whenTerm = regexp.MustCompile(zhForms(`^(时候|时|候|几时)$`))
	whenZH   = regexp.MustCompile(zhForms(`么时候|几时|何时`))
)

// termsBy returns the evidence terms that match term, each borne out by a
// message for which gives holds; nil for none.
func termsBy(evidence []string, term *regexp.Regexp, gives func(string) bool) map[string]func(string) bool {
	var out map[string]func(string) bool
	for _, t := range evidence {
		if term.MatchString(t) {
			if out == nil {
				out = make(map[string]func(string) bool)
			}
			out[t] = gives
		}
	}
	return out
}

// partOfDayTerms returns the evidence terms that name a part of the day,
// each with whether a message gives one (partsOfDay); nil for none.
func partOfDayTerms(evidence []string) map[string]func(string) bool {
	var out map[string]func(string) bool
	for _, t := range evidence {
		for _, p := range partsOfDay {
			if p.term.MatchString(t) {
				if out == nil {
					out = make(map[string]func(string) bool)
				}
				out[t] = p.gives.MatchString
			}
		}
	}
	return out
}
