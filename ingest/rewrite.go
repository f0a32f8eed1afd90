package ingest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file is the rule path of the historian: it rewrites an observation
// to absolute form (relative times to dates, first and second person to the
// sender's name and id) and checks what is left with word lists. It knows
// zh and en; both rule sets run on every observation, since chat mixes them.

// scene is what the rules know about a turn.
type scene struct {
	at         time.Time // the turn's time in the historian's zone
	senderID   string
	senderName string
}

// rewrite is an observation in absolute form.
type rewrite struct {
	text string
	// leftovers are the relative words the rules could not resolve, in the
	// order they appear, each once.
	leftovers []string
}

// rewriter rewrites one observation. Replacements are held as private-use
// placeholders until the end, so that later rules and the gate never see
// (or rewrite) text the rules produced, such as a name.
type rewriter struct {
	sc    scene
	subs  []string
	named bool // the sender's id was written once already
}

const placeholderBase = 0xE000

func (r *rewriter) hold(s string) string {
	if len(r.subs) >= 0x1000 {
		return s
	}
	r.subs = append(r.subs, s)
	return string(rune(placeholderBase + len(r.subs) - 1))
}

func (r *rewriter) expand(s string) string {
	var b strings.Builder
	for _, c := range s {
		if i := int(c) - placeholderBase; i >= 0 && i < len(r.subs) {
			b.WriteString(r.subs[i])
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// absolutize rewrites obs for sc.
func absolutize(obs string, sc scene) rewrite {
	r := &rewriter{sc: sc}
	s := obs
	for _, rule := range timeRules {
		s = r.apply(s, rule)
	}
	s = r.pronounsZH(s)
	s = r.pronounsEN(s)
	return rewrite{text: r.expand(s), leftovers: gate(s)}
}

// A timeRule replaces the matches of re with what fn returns (held as a
// placeholder); fn returns ok false to leave a match as it is.
type timeRule struct {
	re *regexp.Regexp
	fn func(r *rewriter, s string, m []int) (string, bool)
}

func (r *rewriter) apply(s string, rule timeRule) string {
	ms := rule.re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		out, ok := rule.fn(r, s, m)
		if !ok {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(r.hold(out))
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// group returns submatch i of m in s ("" when it did not take part).
func group(s string, m []int, i int) string {
	if 2*i+1 >= len(m) || m[2*i] < 0 {
		return ""
	}
	return s[m[2*i]:m[2*i+1]]
}

func day(at time.Time, days int) time.Time { return at.AddDate(0, 0, days) }

// weekStart is the Monday of at's week.
func weekStart(at time.Time) time.Time {
	return day(at, -((int(at.Weekday()) + 6) % 7))
}

func zhDate(t time.Time) string { return fmt.Sprintf("%d年%d月%d日", t.Year(), t.Month(), t.Day()) }
func zhMinute(t time.Time) string {
	return zhDate(t) + t.Format("15:04")
}
func zhMonth(t time.Time) string { return fmt.Sprintf("%d年%d月", t.Year(), t.Month()) }
func zhRange(a, b time.Time) string {
	if a.Year() != b.Year() {
		return zhDate(a) + "至" + zhDate(b)
	}
	return zhDate(a) + "至" + fmt.Sprintf("%d月%d日", b.Month(), b.Day())
}
func enDate(t time.Time) string   { return t.Format("2006-01-02") }
func enMinute(t time.Time) string { return t.Format("2006-01-02 15:04") }

// monthsAdd moves t by n calendar months, keeping it inside the target month.
func monthsAdd(t time.Time, n int) time.Time {
	return time.Date(t.Year(), t.Month()+time.Month(n), 1, 12, 0, 0, 0, t.Location())
}

var zhDays = map[string]struct {
	days int
	part string
}{
	"大前天": {-3, ""}, "前天": {-2, ""}, "昨天": {-1, ""}, "昨日": {-1, ""}, "今天": {0, ""}, "今日": {0, ""},
	"明天": {1, ""}, "明日": {1, ""}, "后天": {2, ""}, "大后天": {3, ""},
	"昨晚": {-1, "晚上"}, "昨夜": {-1, "夜里"}, "今晚": {0, "晚上"}, "今夜": {0, "夜里"}, "今早": {0, "早上"},
	"今晨": {0, "早上"}, "明早": {1, "早上"}, "明晚": {1, "晚上"},
}

var zhRel = map[string]int{"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1, "下下": 2}

var zhWeekday = map[string]int{"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}

var zhYears = map[string]int{"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "大后年": 3}

// zhNumber parses 1..99 in Arabic or Chinese numerals.
func zhNumber(s string) (int, bool) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, n >= 0
	}
	digits := map[rune]int{'零': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	rs := []rune(s)
	switch {
	case len(rs) == 1 && rs[0] == '十':
		return 10, true
	case len(rs) == 1:
		n, ok := digits[rs[0]]
		return n, ok
	case len(rs) == 2 && rs[0] == '十':
		n, ok := digits[rs[1]]
		return 10 + n, ok
	case len(rs) == 2 && rs[1] == '十':
		n, ok := digits[rs[0]]
		return 10 * n, ok
	case len(rs) == 3 && rs[1] == '十':
		a, ok1 := digits[rs[0]]
		b, ok2 := digits[rs[2]]
		return 10*a + b, ok1 && ok2
	}
	return 0, false
}

var enNumbers = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "a couple of": 2, "three": 3, "four": 4, "five": 5,
	"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}

var enWeekdays = map[string]int{"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}

var enRel = map[string]int{"last": -1, "this": 0, "next": 1}

// enPrepositions are the words after which a time needs no preposition of its own.
var enPrepositions = map[string]bool{"on": true, "in": true, "at": true, "since": true, "until": true, "till": true,
	"by": true, "from": true, "before": true, "after": true, "of": true, "to": true, "as": true, "during": true, "through": true}

// precedingWord is the word before byte offset i of s, lowercased.
func precedingWord(s string, i int) string {
	t := strings.TrimRightFunc(s[:i], unicode.IsSpace)
	j := strings.LastIndexFunc(t, func(c rune) bool { return !unicode.IsLetter(c) })
	return strings.ToLower(t[j+1:])
}

// en returns phrase with prep in front unless s already has a preposition
// before the match, capitalised when the match was.
func en(s string, m []int, prep, phrase string) string {
	out := phrase
	if prep != "" && !enPrepositions[precedingWord(s, m[0])] {
		out = prep + " " + phrase
	}
	if c, _ := utf8.DecodeRuneInString(s[m[0]:]); unicode.IsUpper(c) {
		f, n := utf8.DecodeRuneInString(out)
		out = string(unicode.ToUpper(f)) + out[n:]
	}
	return out
}

func fixed(f func(r *rewriter, s string, m []int) string) func(r *rewriter, s string, m []int) (string, bool) {
	return func(r *rewriter, s string, m []int) (string, bool) { return f(r, s, m), true }
}

var timeRules = []timeRule{
	// zh: N units before/after.
	{regexp.MustCompile(`([0-9]+|[零一二两三四五六七八九十]+|半)个?(天|日|周|星期|礼拜|月|年|小时|钟头|分钟)(以前|之前|前|以后|之后|后)`),
		func(r *rewriter, s string, m []int) (string, bool) {
			unit := group(s, m, 2)
			sign := 1
			if strings.HasSuffix(group(s, m, 3), "前") {
				sign = -1
			}
			numText := group(s, m, 1)
			if numText == "半" {
				switch unit {
				case "年":
					return zhMonth(monthsAdd(r.sc.at, sign*6)), true
				case "小时", "钟头":
					return zhMinute(r.sc.at.Add(time.Duration(sign) * 30 * time.Minute)), true
				case "月":
					return zhDate(day(r.sc.at, sign*15)), true
				}
				return "", false
			}
			n, ok := zhNumber(numText)
			if !ok {
				return "", false
			}
			switch unit {
			case "天", "日":
				return zhDate(day(r.sc.at, sign*n)), true
			case "周", "星期", "礼拜":
				return zhDate(day(r.sc.at, sign*7*n)) + "前后", true
			case "月":
				return zhMonth(monthsAdd(r.sc.at, sign*n)), true
			case "年":
				return fmt.Sprintf("%d年", r.sc.at.Year()+sign*n), true
			case "小时", "钟头":
				return zhMinute(r.sc.at.Add(time.Duration(sign*n) * time.Hour)), true
			default: // 分钟
				return zhMinute(r.sc.at.Add(time.Duration(sign*n) * time.Minute)), true
			}
		}},
	// zh: days, with a part of the day.
	{regexp.MustCompile(`大前天|前天|昨天|昨日|今天|今日|明天|明日|大后天|后天|昨晚|昨夜|今晚|今夜|今早|今晨|明早|明晚`),
		fixed(func(r *rewriter, s string, m []int) string {
			d := zhDays[s[m[0]:m[1]]]
			return zhDate(day(r.sc.at, d.days)) + d.part
		})},
	{regexp.MustCompile(`刚才|刚刚|方才`), fixed(func(r *rewriter, s string, m []int) string { return zhMinute(r.sc.at) })},
	{regexp.MustCompile(`现在|目前`), fixed(func(r *rewriter, s string, m []int) string { return "截至" + zhDate(r.sc.at) })},
	// zh: weeks, and weekdays of a week.
	{regexp.MustCompile(`(上上|上|下下|下|这|本)个?(?:周|星期|礼拜)([一二三四五六日天末])?`),
		fixed(func(r *rewriter, s string, m []int) string {
			start := day(weekStart(r.sc.at), 7*zhRel[group(s, m, 1)])
			wd := group(s, m, 2)
			if wd == "末" {
				return zhRange(day(start, 5), day(start, 6)) + "(周末)"
			}
			// 下周一起 is "together next week", not "next Monday".
			if wd == "" || (wd == "一" && strings.HasPrefix(s[m[1]:], "起")) {
				out := zhRange(start, day(start, 6))
				if wd != "" {
					out += wd
				}
				return out
			}
			return zhDate(day(start, zhWeekday[wd]))
		})},
	{regexp.MustCompile(`(上上|上|下下|下|这|本)个?月`), fixed(func(r *rewriter, s string, m []int) string {
		return zhMonth(monthsAdd(r.sc.at, zhRel[group(s, m, 1)]))
	})},
	{regexp.MustCompile(`大前年|前年|去年|今年|明年|大后年|后年`), fixed(func(r *rewriter, s string, m []int) string {
		return fmt.Sprintf("%d年", r.sc.at.Year()+zhYears[s[m[0]:m[1]]])
	})},

	// en, longest phrases first.
	{regexp.MustCompile(`(?i)\b(?:the )?day before yesterday\b`), fixed(func(r *rewriter, s string, m []int) string {
		return en(s, m, "on", enDate(day(r.sc.at, -2)))
	})},
	{regexp.MustCompile(`(?i)\b(?:the )?day after tomorrow\b`), fixed(func(r *rewriter, s string, m []int) string {
		return en(s, m, "on", enDate(day(r.sc.at, 2)))
	})},
	{regexp.MustCompile(`(?i)\b(yesterday|today|tomorrow) (morning|afternoon|evening|night)\b`),
		fixed(func(r *rewriter, s string, m []int) string {
			off := map[string]int{"yesterday": -1, "today": 0, "tomorrow": 1}[strings.ToLower(group(s, m, 1))]
			return en(s, m, "on", "the "+strings.ToLower(group(s, m, 2))+" of "+enDate(day(r.sc.at, off)))
		})},
	{regexp.MustCompile(`(?i)\blast night\b`), fixed(func(r *rewriter, s string, m []int) string {
		return en(s, m, "on", "the night of "+enDate(day(r.sc.at, -1)))
	})},
	{regexp.MustCompile(`(?i)\btonight\b`), fixed(func(r *rewriter, s string, m []int) string {
		return en(s, m, "on", "the night of "+enDate(r.sc.at))
	})},
	{regexp.MustCompile(`(?i)\bthis (morning|afternoon|evening)\b`), fixed(func(r *rewriter, s string, m []int) string {
		return en(s, m, "on", "the "+strings.ToLower(group(s, m, 1))+" of "+enDate(r.sc.at))
	})},
	{regexp.MustCompile(`(?i)\b(yesterday|today|tomorrow)\b`), fixed(func(r *rewriter, s string, m []int) string {
		off := map[string]int{"yesterday": -1, "today": 0, "tomorrow": 1}[strings.ToLower(group(s, m, 1))]
		return en(s, m, "on", enDate(day(r.sc.at, off)))
	})},
	{regexp.MustCompile(`(?i)\b(?:just now|a moment ago|a minute ago)\b`), fixed(func(r *rewriter, s string, m []int) string {
		return en(s, m, "at", enMinute(r.sc.at))
	})},
	{regexp.MustCompile(`(?i)\b(?:right now|at the moment|currently|nowadays|now)\b`),
		func(r *rewriter, s string, m []int) (string, bool) {
			if precedingWord(s, m[0]) == "for" { // "for now" is not a date
				return "", false
			}
			return en(s, m, "as of", enDate(r.sc.at)), true
		}},
	{regexp.MustCompile(`(?i)\b(last|this|next) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`),
		fixed(func(r *rewriter, s string, m []int) string {
			start := day(weekStart(r.sc.at), 7*enRel[strings.ToLower(group(s, m, 1))])
			return en(s, m, "on", enDate(day(start, enWeekdays[strings.ToLower(group(s, m, 2))])))
		})},
	{regexp.MustCompile(`(?i)\b(last|this|next) weekend\b`), fixed(func(r *rewriter, s string, m []int) string {
		start := day(weekStart(r.sc.at), 7*enRel[strings.ToLower(group(s, m, 1))])
		return en(s, m, "on", "the weekend of "+enDate(day(start, 5)))
	})},
	{regexp.MustCompile(`(?i)\b(last|this|next) week\b`), fixed(func(r *rewriter, s string, m []int) string {
		start := day(weekStart(r.sc.at), 7*enRel[strings.ToLower(group(s, m, 1))])
		return en(s, m, "in", "the week of "+enDate(start))
	})},
	{regexp.MustCompile(`(?i)\b(last|this|next) month\b`), fixed(func(r *rewriter, s string, m []int) string {
		return en(s, m, "in", monthsAdd(r.sc.at, enRel[strings.ToLower(group(s, m, 1))]).Format("January 2006"))
	})},
	{regexp.MustCompile(`(?i)\b(last|this|next) year\b`), fixed(func(r *rewriter, s string, m []int) string {
		return en(s, m, "in", strconv.Itoa(r.sc.at.Year()+enRel[strings.ToLower(group(s, m, 1))]))
	})},
	{regexp.MustCompile(`(?i)\b([0-9]+|an?|one|two|a couple of|three|four|five|six|seven|eight|nine|ten|eleven|twelve) (minute|hour|day|week|month|year)s? ago\b`),
		func(r *rewriter, s string, m []int) (string, bool) {
			return enSpan(r, s, m, -1)
		}},
	{regexp.MustCompile(`(?i)\bin ([0-9]+|an?|one|two|a couple of|three|four|five|six|seven|eight|nine|ten|eleven|twelve) (minute|hour|day|week|month|year)s?\b`),
		func(r *rewriter, s string, m []int) (string, bool) {
			return enSpan(r, s, m, 1)
		}},
}

// enSpan resolves "N units ago" (sign -1) and "in N units" (sign 1).
func enSpan(r *rewriter, s string, m []int, sign int) (string, bool) {
	num := strings.ToLower(group(s, m, 1))
	n, ok := enNumbers[num]
	if !ok {
		var err error
		if n, err = strconv.Atoi(num); err != nil {
			return "", false
		}
	}
	n *= sign
	switch strings.ToLower(group(s, m, 2)) {
	case "minute":
		return en(s, m, "at", enMinute(r.sc.at.Add(time.Duration(n)*time.Minute))), true
	case "hour":
		return en(s, m, "at", enMinute(r.sc.at.Add(time.Duration(n)*time.Hour))), true
	case "day":
		return en(s, m, "on", enDate(day(r.sc.at, n))), true
	case "week":
		return en(s, m, "around", enDate(day(r.sc.at, 7*n))), true
	case "month":
		return en(s, m, "in", monthsAdd(r.sc.at, n).Format("January 2006")), true
	default:
		return en(s, m, "in", strconv.Itoa(r.sc.at.Year()+n)), true
	}
}

// name is how the sender is written: the name with the id the first time,
// the name alone after; "" when the sender is unknown.
func (r *rewriter) name(zh bool) string {
	n, id := r.sc.senderName, r.sc.senderID
	switch {
	case n == "" && id == "":
		return ""
	case n == "":
		return id
	case id == "" || r.named:
		return n
	}
	r.named = true
	if zh {
		return n + "(" + id + ")"
	}
	return n + " (" + id + ")"
}

// zhPronoun finds the pronouns with the compounds that contain one and
// are not pronouns (其他, 吉他, 自我, 迷你...), which the alternation tries first.
var zhPronoun = regexp.MustCompile(`其他|其它|吉他|他人|他乡|利他|自我|忘我|迷你|我们|咱们|你们|您们|他们|她们|我|俺|你|您|他|她|咱`)

// zhSelf is 本人 opening a sentence, as chat writes "I" ("本人坐标厦门");
// after a name or a pronoun (他本人) it is "himself" and stays.
var zhSelf = regexp.MustCompile(`(^|[，。！？；：,.!?;:\s])本人`)

func (r *rewriter) pronounsZH(s string) string {
	firstPerson := zhSelf.MatchString(s)
	if firstPerson {
		if n := r.name(true); n != "" {
			s = zhSelf.ReplaceAllString(s, "${1}"+r.hold(n))
		}
	}
	for _, m := range zhPronoun.FindAllString(s, -1) {
		firstPerson = firstPerson || m == "我" || m == "俺"
	}
	return zhPronoun.ReplaceAllStringFunc(s, func(m string) string {
		second := m == "你" || m == "您"
		if m != "我" && m != "俺" && !(second && !firstPerson) {
			return m
		}
		n := r.name(true)
		if n == "" {
			return m
		}
		return r.hold(n)
	})
}

var (
	enPronoun = regexp.MustCompile(`(?i)\b(?:(i|you)['’]?(m|re|ve|ll|d)|i|me|my|mine|myself|you|your|yours|yourself)\b`)
	enFirst   = regexp.MustCompile(`(?i)\b(?:i|i['’](?:m|ve|ll|d)|im|ive|me|my|mine|myself)\b`)
	// enBare are the contractions chat writes without the apostrophe
	// ("im a ux designer"); ill, id, youd and the like are words of their own.
	enBare = map[string]bool{"im": true, "ive": true, "youre": true, "youve": true}
	// enNext finds the verb after a subject, past adverbs and rewritten
	// times (placeholders).
	enNext = regexp.MustCompile(`^(\s+)((?:(?:also|really|very|usually|often|always|never|still|just|sometimes|rarely|mostly|already|even|only|probably|actually|definitely|[\x{E000}-\x{EFFF}])\s+)*)([A-Za-z]+(?:['’]t)?)`)
)

var enContraction = map[string]string{"m": "is", "re": "is", "ve": "has", "ll": "will", "d": "would"}

// enVerbs are the verbs written in third person after a rewritten subject.
var enVerbs = map[string]string{"am": "is", "are": "is", "were": "was", "have": "has", "do": "does", "go": "goes",
	"don't": "doesn't", "don’t": "doesn't", "haven't": "hasn't", "haven’t": "hasn't", "aren't": "isn't", "aren’t": "isn't"}

var enRegular = strings.Fields(`like love hate want need live work prefer think own play eat drink know plan study use feel
	enjoy watch read speak cook run write hope miss teach believe dislike get make take visit remember forget wish intend
	drive ride wear keep collect avoid practice sing dance swim walk travel buy sell prefer agree mean seem try stay
	lift knit bake paint draw hike bike jog surf ski skate climb garden volunteer coach tutor commute meditate train
	stream code design grow raise foster adopt babysit serve clean brew pray attend listen journal skip spend pick
	manage lead head supervise oversee handle build edit translate deliver`)

// progressive reports whether v is a verb's -ing form ("staying"), not a
// verb that ends so (bring, swing).
func progressive(v string) bool {
	lower := strings.ToLower(v)
	return len(lower) > 5 && strings.HasSuffix(lower, "ing") && !slices.Contains(ingVerbs, lower)
}

var ingVerbs = strings.Fields(`bring swing sting spring string cling fling sling wring`)

func thirdPerson(v string) string {
	if t, ok := enVerbs[strings.ToLower(v)]; ok {
		return t
	}
	lower := strings.ToLower(v)
	if !slices.Contains(enRegular, lower) {
		return v
	}
	switch {
	case strings.HasSuffix(lower, "y") && !strings.ContainsAny(lower[len(lower)-2:len(lower)-1], "aeiou"):
		return v[:len(v)-1] + "ies"
	case strings.HasSuffix(lower, "s"), strings.HasSuffix(lower, "sh"), strings.HasSuffix(lower, "ch"),
		strings.HasSuffix(lower, "x"), strings.HasSuffix(lower, "o"):
		return v + "es"
	}
	return v + "s"
}

func (r *rewriter) pronounsEN(s string) string {
	firstPerson := enFirst.MatchString(s)
	ms := enPronoun.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		if m[0] < last {
			continue
		}
		word := strings.ToLower(s[m[0]:m[1]])
		stem := strings.ToLower(group(s, m, 1))
		if stem != "" && !strings.ContainsAny(word, "'’") && !enBare[word] {
			continue
		}
		if word == "i" && strings.HasPrefix(s[m[1]:], ".e.") { // i.e.
			continue
		}
		second := strings.HasPrefix(word, "you")
		if second && firstPerson {
			continue // "I told you": you is not the sender
		}
		n := r.name(false)
		if n == "" {
			continue
		}
		out, subject := n, false
		switch {
		case stem != "":
			out += " " + enContraction[strings.ToLower(group(s, m, 2))]
		case word == "my" || word == "mine" || word == "your" || word == "yours":
			out += "'s"
		case word == "i" || word == "you":
			subject = true
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(r.hold(out))
		last = m[1]
		if subject {
			if v := enNext.FindStringSubmatchIndex(s[last:]); v != nil {
				verb := s[last+v[6] : last+v[7]]
				if progressive(verb) {
					// A learner's "I staying Tampines": the verb lacks its am.
					b.WriteString(s[last : last+v[6]])
					b.WriteString("is ")
					b.WriteString(verb)
					last += v[7]
				} else if t := thirdPerson(verb); t != verb {
					b.WriteString(s[last : last+v[6]])
					b.WriteString(t)
					last += v[7]
				}
			}
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// The gate's word lists: what must not be left in an absolute event.
var (
	gateZH = regexp.MustCompile(`其他|其它|吉他|他人|他乡|利他|自我|忘我|迷你|` +
		`我们|咱们|你们|您们|他们|她们|我|俺|你|您|他|她|咱|` +
		`今天|昨天|前天|明天|后天|今日|昨日|明日|今晚|昨晚|明晚|今早|刚才|刚刚|现在|目前|最近|近来|近期|` +
		`前几天|这几天|过几天|前阵子|这阵子|上次|下次|那天|当时|待会|等会|上周|下周|这周|本周|上个月|下个月|这个月|本月|` +
		`去年|今年|明年|前年|后年|这里|这儿|那里|那儿|这边|那边`)
	gateZHSkip = map[string]bool{"其他": true, "其它": true, "吉他": true, "他人": true, "他乡": true, "利他": true,
		"自我": true, "忘我": true, "迷你": true}
	gateEN = regexp.MustCompile(`(?i)\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves|you|your|yours|yourself|yourselves|` +
		`he|him|his|himself|she|her|hers|herself|they|them|their|theirs|themselves|` +
		`today|yesterday|tomorrow|tonight|now|currently|recently|lately|soon|ago|nowadays|the other day|these days|` +
		`last time|next time|last week|next week|this week|last month|next month|last year|next year|here|over there)\b`)
)

// gate returns the relative words left in s (placeholders are skipped).
func gate(s string) []string {
	var out []string
	add := func(w string) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for _, w := range gateZH.FindAllString(s, -1) {
		if !gateZHSkip[w] {
			add(w)
		}
	}
	for _, m := range gateEN.FindAllStringIndex(s, -1) {
		w := s[m[0]:m[1]]
		if w == "US" || (strings.EqualFold(w, "i") && strings.HasPrefix(s[m[1]:], ".e.")) {
			continue
		}
		add(strings.ToLower(w))
	}
	return out
}
