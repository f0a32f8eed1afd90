package ingest

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/recalld/recalld/storage"
)

// This file is the fact extractor: it finds long-lived facts about a person
// in an event's absolute text with the category lexicons of
// lexicon/facts.yaml (zh and en), and group topics. Any historian can call
// ExtractFacts and GroupTopics on the text it rewrote.

//go:embed lexicon/facts.yaml
var factsYAML []byte

// Fact is one long-lived fact found in a text.
type Fact struct {
	// Category is the lexicon category (location, food, hobby...); Slot is
	// what the fact is about inside it (the category itself for one-value
	// categories such as location, else the normalised value).
	Category string `json:"category"`
	Slot     string `json:"slot"`
	Value    string `json:"value"`
	// Polarity is positive or negative for likes and dislikes, else empty.
	Polarity string `json:"polarity,omitempty"`
	// Lang is the language of the rule that found it (zh or en).
	Lang string `json:"lang"`
}

// Subject is the person facts must be about: the sender, as the historian
// wrote them ("Name(id)", the name, or the id).
type Subject struct {
	ID   string
	Name string
}

type lexiconFile struct {
	Macros     map[string]map[string]string `yaml:"macros"`
	Times      map[string][]string          `yaml:"times"`
	Adverbs    map[string][]string          `yaml:"adverbs"`
	Skip       map[string][]string          `yaml:"skip"`
	NotSkip    []string                     `yaml:"not_skip"`
	Jokes      map[string][]string          `yaml:"jokes"`
	BotSelf    map[string][]string          `yaml:"bot_self"`
	Laughter   map[string][]string          `yaml:"laughter"`
	LeadWords  map[string][]string          `yaml:"lead_words"`
	NoteLabels []noteLabel                  `yaml:"note_labels"`
	Correction map[string][]string          `yaml:"correction"`
	Vague      map[string][]string          `yaml:"vague"`
	Questions  map[string][]string          `yaml:"questions"`
	PastLead   map[string][]string          `yaml:"past_lead"`
	Past       map[string][]string          `yaml:"past"`
	Kin        map[string][]string          `yaml:"kin"`
	Others     map[string][]string          `yaml:"others"`
	We         map[string][]string          `yaml:"we"`
	WeOnly     []string                     `yaml:"we_categories"`
	SelfLead   []string                     `yaml:"self_lead"`
	SelfNames  []string                     `yaml:"self_names"`
	Someone    map[string][]string          `yaml:"someone"`
	NotSomeone []string                     `yaml:"not_someone"`
	TopicStop  map[string][]string          `yaml:"topic_stop"`
	NotStop    []string                     `yaml:"not_topic_stop"`
	TopicTime  string                       `yaml:"topic_time"`
	PlaceOpen  map[string][]string          `yaml:"place_open"`
	Dialect    map[string]string            `yaml:"dialect"`
	Alone      map[string]string            `yaml:"dialect_alone"`
	Particles  []string                     `yaml:"particles"`
	Categories []struct {
		Name     string              `yaml:"name"`
		Single   bool                `yaml:"single"`
		Tag      bool                `yaml:"tag"`
		Summary  map[string]string   `yaml:"summary"`
		Negative map[string]string   `yaml:"negative"`
		Vocab    map[string][]string `yaml:"vocab"`
		SlotDrop string              `yaml:"slot_drop"`
		Kinds    []string            `yaml:"kinds"`
		Places   bool                `yaml:"places"`
	} `yaml:"categories"`
	SlotStrip map[string][]string `yaml:"slot_strip"`
	Rules     []struct {
		Category string            `yaml:"category"`
		Lang     string            `yaml:"lang"`
		Polarity string            `yaml:"polarity"`
		Pattern  string            `yaml:"pattern"`
		Values   map[string]string `yaml:"values"`
		Reroute  []string          `yaml:"reroute"`
		Ellipsis []string          `yaml:"ellipsis"`
		Other    bool              `yaml:"other"`
		Anywhere bool              `yaml:"anywhere"`
		Also     bool              `yaml:"also"`
		Inverted bool              `yaml:"inverted"`
		List     bool              `yaml:"list"`
		Ante     string            `yaml:"ante"`
		Whole    bool              `yaml:"whole"`
	} `yaml:"rules"`
	Topics []struct {
		Key   string   `yaml:"key"`
		ZH    string   `yaml:"zh"`
		EN    string   `yaml:"en"`
		Words []string `yaml:"words"`
	} `yaml:"topics"`
}

type category struct {
	name     string
	order    int
	single   bool
	tag      bool
	summary  map[string]string
	negative map[string]string
	vocab    *regexp.Regexp // nil when the category has none
	slotDrop *regexp.Regexp
	// kinds are the WordNet senses its things are kinds of (beverage#1),
	// as noun and sense number.
	kinds []kindSense
	// places: its things are the places the dictionary knows (成都, 南湖区).
	places bool
}

type rule struct {
	category string
	lang     string
	polarity string
	re       *regexp.Regexp
	values   map[string]string
	reroute  []string
	// ellipsis lists the categories whose fact, stated in an earlier
	// clause, the rule may take up ("原来不喝茶，现在开始喝了"); such a
	// rule matches only after one.
	ellipsis []string
	// anteCategory: the fact is in the antecedent's category (else in
	// the rule's).
	anteCategory bool
	// ante, when set, must match the antecedent's value.
	ante *regexp.Regexp
	// other: what follows the match is about someone else (a relative
	// named right after the subject).
	other bool
	// also: the rule adds its fact to the one the first matching rule
	// found ("walks Ann's dog twice a day" is a routine and a pet).
	also bool
	// inverted: the rule matches a whole clause in which the subject is
	// not the first word ("Shellfish makes {self} break out in hives"),
	// and only such clauses.
	inverted bool
	// list: the value is a list ("爱玩的几样：桌游、剧本杀"), each item its
	// own fact.
	list bool
	// kind, when set, is the category whose things the value must name
	// ({kind:pet}): a word of its vocab, or with Kinds a thing of one of
	// its kinds (a guinea pig is an animal).
	kind string
	// whole: the thing of the kind is the whole value, not its first
	// words (是齐齐哈尔的, not 是北京的一家公司的).
	whole bool
}

type topic struct {
	key    string
	labels map[string]string
	re     *regexp.Regexp
}

// lexicon is facts.yaml compiled.
type lexicon struct {
	cats    map[string]*category
	order   []*category // in the file's order
	rules   []rule
	times   []*regexp.Regexp
	adverbs []string // longest first
	skip    *regexp.Regexp
	jokes   *regexp.Regexp
	// botSelf says the text's speaker is the assistant (lexicon bot_self).
	botSelf *regexp.Regexp
	// laughter makes a joke of what a text claims the subject is
	// (lexicon laughter, claimsToBe).
	laughter *regexp.Regexp
	// leadWords open a clause and say nothing of it (lexicon lead_words).
	leadWords *regexp.Regexp
	// notes finds a labelled part of a bot's notes (lexicon note_labels):
	// the label is submatch 1; noteSay and noteAfter are the sentence
	// each label (lower case) is read as.
	notes              *regexp.Regexp
	noteSay, noteAfter map[string]map[string]string
	// notesBare finds a Chinese label with its value right after it
	// ("职业护士长"), read only in notes of several labelled parts.
	notesBare *regexp.Regexp
	// correction after the last joke marker: what follows is meant
	// ("开玩笑的，其实…", "jk, actually…").
	correction *regexp.Regexp
	questions  *regexp.Regexp
	past       *regexp.Regexp // a clause about what used to be
	pastLead   []string       // words that open such a clause, longest first
	others     *regexp.Regexp // someone the subject has, named after it
	we         *regexp.Regexp // a subject that includes the sender
	weOnly     []string       // the categories a we-clause may state
	selfLead   []string       // words that open a statement about oneself without a subject
	kinLead    []string       // Chinese kin of two characters or more, longest first: a first clause they open is about the sender's own
	selfNames  []string       // how an observation may name the sender (用户, the user)
	topicStop  *regexp.Regexp // words that keep a text before the sender from being a topic, and the compounds of notStop
	notStop    []string       // compounds that hold a topic_stop word and are none (小说)
	notSkip    []string       // compounds that hold a skip word and state a fact (准备考)
	topicTime  *regexp.Regexp // a topic that is a time or a circumstance, not an object
	placeOpen  *regexp.Regexp // a clause of living somewhere that does not say where
	dialect    *strings.Replacer
	alone      map[rune]rune  // dialect words of one character, replaced where they stand alone
	particles  *regexp.Regexp // the mood particles that end a clause (啦, 呢, 㗎)
	vague      map[string]bool
	slotStrip  []string
	topics     []topic

	// someone finds the words that name someone (kin, others but for
	// animals, we, pronouns, the assistant) and the compounds of
	// notSomeone, which do not.
	someone    *regexp.Regexp
	notSomeone []string
}

// facts is the compiled lexicon. The file is embedded, so it either loads
// in every test of the package or in none.
var facts = mustLoadLexicon(factsYAML)

func mustLoadLexicon(b []byte) *lexicon {
	lx, err := loadLexicon(b)
	if err != nil {
		panic(err)
	}
	return lx
}

var langs = []string{"zh", "en"}

// wordsRE matches any of words: ASCII words on word boundaries, other text
// anywhere, case-insensitively.
func wordsRE(words []string) (*regexp.Regexp, error) {
	if len(words) == 0 {
		return nil, nil
	}
	words = slices.Clone(words)
	slices.SortFunc(words, func(a, b string) int { return len(b) - len(a) })
	alts := make([]string, 0, len(words))
	for _, w := range words {
		q := regexp.QuoteMeta(w)
		if w != "" && strings.IndexFunc(w, func(r rune) bool { return r > unicode.MaxASCII }) < 0 &&
			unicode.IsLetter(rune(w[0])) && unicode.IsLetter(rune(w[len(w)-1])) {
			q = `\b` + q + `\b`
		}
		alts = append(alts, q)
	}
	return regexp.Compile(`(?i)(?:` + strings.Join(alts, "|") + `)`)
}

func both(m map[string][]string) []string {
	var out []string
	for _, l := range langs {
		out = append(out, m[l]...)
	}
	return out
}

func loadLexicon(b []byte) (*lexicon, error) {
	var f lexiconFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("ingest: fact lexicon: %w", err)
	}
	lx := &lexicon{cats: map[string]*category{}, vague: map[string]bool{}}
	var err error
	for i, c := range f.Categories {
		cat := &category{name: c.Name, order: i, single: c.Single, tag: c.Tag, summary: c.Summary, negative: c.Negative, places: c.Places}
		if cat.vocab, err = wordsRE(both(c.Vocab)); err != nil {
			return nil, fmt.Errorf("ingest: fact lexicon: category %s vocab: %w", c.Name, err)
		}
		if c.SlotDrop != "" {
			if cat.slotDrop, err = regexp.Compile(c.SlotDrop); err != nil {
				return nil, fmt.Errorf("ingest: fact lexicon: category %s slot_drop: %w", c.Name, err)
			}
		}
		if len(c.Summary) == 0 {
			return nil, fmt.Errorf("ingest: fact lexicon: category %s has no summary", c.Name)
		}
		for _, k := range c.Kinds {
			ks, err := parseKindSense(k)
			if err != nil {
				return nil, fmt.Errorf("ingest: fact lexicon: category %s: %w", c.Name, err)
			}
			cat.kinds = append(cat.kinds, ks)
		}
		lx.cats[c.Name] = cat
		lx.order = append(lx.order, cat)
	}
	for i, r := range f.Rules {
		for _, c := range r.Ellipsis {
			if _, ok := lx.cats[c]; !ok {
				return nil, fmt.Errorf("ingest: fact lexicon: rule %d: ellipsis of unknown category %q", i, c)
			}
		}
		anteCategory := r.Category == "" && len(r.Ellipsis) > 0
		if anteCategory {
			r.Category = r.Ellipsis[0]
		}
		if _, ok := lx.cats[r.Category]; !ok {
			return nil, fmt.Errorf("ingest: fact lexicon: rule %d: unknown category %q", i, r.Category)
		}
		macros, ok := f.Macros[r.Lang]
		if !ok {
			return nil, fmt.Errorf("ingest: fact lexicon: rule %d: unknown language %q", i, r.Lang)
		}
		for _, to := range r.Reroute {
			if _, ok := lx.cats[to]; !ok {
				return nil, fmt.Errorf("ingest: fact lexicon: rule %d: reroute to unknown category %q", i, to)
			}
		}
		if r.Polarity != "" && r.Polarity != storage.PolarityPositive && r.Polarity != storage.PolarityNegative {
			return nil, fmt.Errorf("ingest: fact lexicon: rule %d: polarity %q", i, r.Polarity)
		}
		pat := r.Pattern
		for k, v := range macros {
			pat = strings.ReplaceAll(pat, "{"+k+"}", v)
		}
		pat = strings.ReplaceAll(pat, "{kin}", kinAlt(f.Kin[r.Lang]))
		kind := "" // one {kind:…} a rule
		for _, c := range f.Categories {
			if strings.Contains(pat, "{kind:"+c.Name+"}") {
				if len(c.Kinds) == 0 && len(c.Vocab) == 0 && !c.Places {
					return nil, fmt.Errorf("ingest: fact lexicon: rule %d: {kind:%s}, a category with no kinds, vocab or places", i, c.Name)
				}
				kind = c.Name
				pat = strings.ReplaceAll(pat, "{kind:"+c.Name+"}", kindSlot[r.Lang])
			}
			pat = strings.ReplaceAll(pat, "{vocab:"+c.Name+"}", kinAlt(c.Vocab[r.Lang]))
			pat = strings.ReplaceAll(pat, "{stems:"+c.Name+"}", stemAlt(c.Vocab[r.Lang]))
		}
		pat = strings.ReplaceAll(pat, "{self}", string(selfMark))
		flags := ""
		if r.Lang == "en" {
			flags = "(?i)"
		}
		anchor := `^`
		if r.Anywhere {
			anchor = ``
		}
		re, err := regexp.Compile(flags + anchor + `(?:` + pat + `)`)
		if err != nil {
			return nil, fmt.Errorf("ingest: fact lexicon: rule %d (%s): %w", i, r.Category, err)
		}
		if re.SubexpIndex("v") < 0 && len(r.Ellipsis) == 0 {
			return nil, fmt.Errorf("ingest: fact lexicon: rule %d (%s) has no group v", i, r.Category)
		}
		var ante *regexp.Regexp
		if r.Ante != "" {
			if ante, err = regexp.Compile(r.Ante); err != nil {
				return nil, fmt.Errorf("ingest: fact lexicon: rule %d (%s) ante: %w", i, r.Category, err)
			}
		}
		lx.rules = append(lx.rules, rule{ante: ante, category: r.Category, lang: r.Lang, polarity: r.Polarity, re: re, values: r.Values, reroute: r.Reroute,
			ellipsis: r.Ellipsis, anteCategory: anteCategory, other: r.Other, also: r.Also, inverted: r.Inverted, list: r.List, kind: kind, whole: r.Whole})
	}
	for _, l := range langs {
		for _, t := range f.Times[l] {
			re, err := regexp.Compile(t)
			if err != nil {
				return nil, fmt.Errorf("ingest: fact lexicon: time %q: %w", t, err)
			}
			lx.times = append(lx.times, re)
		}
	}
	lx.adverbs = both(f.Adverbs)
	slices.SortFunc(lx.adverbs, func(a, b string) int { return len(b) - len(a) })
	for _, w := range []struct {
		dst *(*regexp.Regexp)
		src map[string][]string
	}{{&lx.jokes, f.Jokes}, {&lx.botSelf, f.BotSelf}, {&lx.laughter, f.Laughter}, {&lx.leadWords, f.LeadWords}, {&lx.correction, f.Correction}, {&lx.questions, f.Questions}, {&lx.past, f.Past}, {&lx.placeOpen, f.PlaceOpen}} {
		if *w.dst, err = wordsRE(both(w.src)); err != nil {
			return nil, fmt.Errorf("ingest: fact lexicon: %w", err)
		}
	}
	lx.notSkip = f.NotSkip
	if lx.skip, err = wordsRE(append(both(f.Skip), f.NotSkip...)); err != nil {
		return nil, fmt.Errorf("ingest: fact lexicon: skip: %w", err)
	}
	if lx.others, err = regexp.Compile(`(?i)^\s*(?:的|['’]s\s+)?(?:` + kinAlt(both(f.Kin)) + `|` + kinAlt(both(f.Others)) + `)`); err != nil {
		return nil, fmt.Errorf("ingest: fact lexicon: others: %w", err)
	}
	if lx.we, err = regexp.Compile(`(?i)^(?:` + kinAlt(both(f.We)) + `)`); err != nil {
		return nil, fmt.Errorf("ingest: fact lexicon: we: %w", err)
	}
	if lx.dialect, err = dialectReplacer(f.Dialect); err != nil {
		return nil, err
	}
	if len(f.Particles) > 0 {
		if lx.particles, err = regexp.Compile(`(?:` + strings.Join(f.Particles, "|") + `)+[\s~～]*$`); err != nil {
			return nil, fmt.Errorf("ingest: fact lexicon: particles: %w", err)
		}
	}
	lx.alone = map[rune]rune{}
	for w, m := range f.Alone {
		a, b := []rune(w), []rune(m)
		if len(a) != 1 || len(b) != 1 {
			return nil, fmt.Errorf("ingest: fact lexicon: dialect_alone %q → %q: not one character each", w, m)
		}
		lx.alone[a[0]] = b[0]
	}
	if err := lx.compileNotes(f.NoteLabels, f.SelfNames); err != nil {
		return nil, err
	}
	lx.weOnly = f.WeOnly
	lx.selfLead = f.SelfLead
	for _, k := range f.Kin["zh"] {
		if utf8.RuneCountInString(k) >= 2 {
			lx.kinLead = append(lx.kinLead, k)
		}
	}
	slices.SortStableFunc(lx.kinLead, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	lx.selfNames = f.SelfNames
	var animals []string
	for _, c := range f.Categories {
		if c.Name == "pet" {
			animals = both(c.Vocab)
		}
	}
	people := slices.DeleteFunc(append(both(f.Kin), both(f.Others)...), func(w string) bool { return slices.Contains(animals, w) })
	people = append(append(append(people, both(f.Someone)...), both(f.We)...), f.NotSomeone...)
	if lx.someone, err = wordsRE(people); err != nil {
		return nil, fmt.Errorf("ingest: fact lexicon: someone: %w", err)
	}
	lx.notSomeone = f.NotSomeone
	lx.notStop = f.NotStop
	if lx.topicStop, err = wordsRE(append(both(f.TopicStop), f.NotStop...)); err != nil {
		return nil, fmt.Errorf("ingest: fact lexicon: topic_stop: %w", err)
	}
	if lx.topicTime, err = regexp.Compile(f.TopicTime); err != nil {
		return nil, fmt.Errorf("ingest: fact lexicon: topic_time: %w", err)
	}
	lx.pastLead = both(f.PastLead)
	slices.SortFunc(lx.pastLead, func(a, b string) int { return len(b) - len(a) })
	for _, v := range both(f.Vague) {
		lx.vague[strings.ToLower(v)] = true
	}
	lx.slotStrip = both(f.SlotStrip)
	for _, t := range f.Topics {
		re, err := wordsRE(t.Words)
		if err != nil || re == nil {
			return nil, fmt.Errorf("ingest: fact lexicon: topic %s: %v", t.Key, err)
		}
		lx.topics = append(lx.topics, topic{key: t.Key, labels: map[string]string{"zh": t.ZH, "en": t.EN}, re: re})
	}
	return lx, nil
}

// kinAlt is an alternation of words, longest first; ASCII words end on a
// word boundary.
func kinAlt(words []string) string {
	words = slices.Clone(words)
	slices.SortFunc(words, func(a, b string) int { return len(b) - len(a) })
	alts := make([]string, 0, len(words))
	for _, w := range words {
		q := regexp.QuoteMeta(w)
		if isASCIIWord(w) {
			q += `\b`
		}
		alts = append(alts, q)
	}
	if len(alts) == 0 {
		return `\x{FFFF}` // matches nothing in text
	}
	return strings.Join(alts, "|")
}

// stemAlt is an alternation of words, longest first, that may go on with
// a plural ending the pattern gives ("{stems:pet}s?\b" takes "kittens").
func stemAlt(words []string) string {
	words = slices.Clone(words)
	slices.SortFunc(words, func(a, b string) int { return len(b) - len(a) })
	alts := make([]string, 0, len(words))
	for _, w := range words {
		alts = append(alts, regexp.QuoteMeta(w))
	}
	if len(alts) == 0 {
		return `\x{FFFF}`
	}
	return strings.Join(alts, "|")
}

// enPrep are prepositions: a value that opens with one is a circumstance,
// not a thing ("never drinks on weekdays").
var enPrep = map[string]bool{"on": true, "in": true, "at": true, "with": true, "for": true, "during": true,
	"after": true, "before": true, "from": true, "by": true}

// selfMark stands for the subject inside a predicate ("walks Ann's dog"
// is matched as "walks \uE1FF's dog"), so that rules can name it as {self}.
const selfMark = '\uE1FF'

// laughMark ends a clause a laugh followed: what the clause claims the
// subject is, is the joke ("I'm Batman lol, live in Gotham"), not what
// the other clauses of the text say ("I'm a sous chef, live in Busan, and
// I can't stand cilantro lol").
const laughMark = '\uE1FE'

// clauseEnd splits a text into clauses: sentence and clause punctuation,
// emoji (chat's punctuation: "刚下夜班 🥱 我在医院当护士"), and the
// conjunctions that start a new statement.
var clauseEnd = regexp.MustCompile(`[，。；;！!？?\n]|[\p{So}\x{FE0F}\x{200D}]+|,|\.(?:\s|$)|\s+[—–]+\s+|\s+(?i:and|but|so|because|though|although|while|whereas)\s+|但是|而且|并且|同时|然后|不过|可是|所以|因为|只是|后来`)

// enAuxAdverb is an adverb after an auxiliary ("has recently gotten
// into"), dropped so that the frame matches.
var enAuxAdverb = regexp.MustCompile(`(?i)\b(has|have|is|was|had) (?:recently|just|finally|also|really|actually|lately|currently|now|still|even|always|already) `)

// asks reports whether a clause asks rather than states: it has a word
// of the questions lexicon, other than an English relative pronoun (which,
// who, where after a word that is no verb of asking: "loves hiking which
// keeps Alice sane", "moved to Denver where Alice's sister lives").
func (lx extraction) asks(s string) bool {
	if lx.questions == nil {
		return false
	}
	for _, m := range lx.questions.FindAllStringIndex(s, -1) {
		w := strings.ToLower(s[m[0]:m[1]])
		if w != "which" && w != "who" && w != "where" {
			return true
		}
		before := strings.Fields(strings.ToLower(s[:m[0]]))
		if len(before) == 0 || askingVerb[strings.Trim(before[len(before)-1], ",;:")] {
			return true
		}
	}
	return false
}

// askingVerb are the words after which which, who and where ask ("asked
// where to buy", "not sure which"), and a clause states nothing.
var askingVerb = map[string]bool{"ask": true, "asks": true, "asked": true, "asking": true, "wonder": true, "wonders": true,
	"wondered": true, "wondering": true, "know": true, "knows": true, "sure": true, "idea": true, "decide": true,
	"decides": true, "deciding": true, "choose": true, "chooses": true, "choosing": true, "about": true, "on": true}

// stripParticles drops the mood particles that end a clause ("我是药师啦",
// "我不喜欢喝咖啡㗎"): the rules end their values at the clause's end. A
// clause of particles alone stays as it is.
func (lx extraction) stripParticles(s string) string {
	if lx.particles == nil {
		return s
	}
	if t := lx.particles.ReplaceAllString(s, ""); strings.TrimSpace(t) != "" {
		return t
	}
	return s
}

// notQuestion rewrites what holds a question word without asking: 不怎么
// is 不太.
var notQuestion = strings.NewReplacer("不怎么", "不太", "没怎么", "没太")

// abbreviation ends a text with a word that a period does not end.
var abbreviation = regexp.MustCompile(`(?i)\b(?:st|mr|mrs|ms|dr|jr|sr|prof|mt|ave|vs|etc|inc|co|no)$`)

type clause struct {
	text     string
	question bool
	// and: the clause follows "and" (a list: "likes hiking and camping").
	and bool
}

func splitClauses(text string) []clause {
	text = alsoNot.ReplaceAllString(breakHan(text), "$1，$2")
	var out []clause
	last, and := 0, false
	for _, m := range clauseEnd.FindAllStringIndex(text, -1) {
		sep := text[m[0]:m[1]]
		if sep[0] == '.' && abbreviation.MatchString(text[last:m[0]]) {
			continue // "St. Mary's" goes on
		}
		out = append(out, clause{text: text[last:m[0]], question: sep == "?" || sep == "？", and: and})
		last = m[1]
		and = strings.EqualFold(strings.TrimSpace(sep), "and")
	}
	return append(out, clause{text: text[last:], and: and})
}

// zhDayLead opens a clause with a day of the week (周二, 星期四).
var zhDayLead = regexp.MustCompile(`(^|[，,；;。\s])(?:每)?((?:周|星期|礼拜)[一二三四五六日天])`)

// weekPlan reads a week laid out day by day ("周二壁球，周四普拉提，周六
// 去攀岩馆") as the routine it is: with two or more clauses that open with
// different days, each such day is every week's (每周二…). One day alone
// may be a plan ("周二去医院").
func weekPlan(text string) string {
	days := map[string]bool{}
	for _, m := range zhDayLead.FindAllStringSubmatch(text, -1) {
		days[m[2]] = true
	}
	if len(days) < 2 {
		return text
	}
	return zhDayLead.ReplaceAllString(text, "${1}每$2")
}

// alsoNot is a second negated verb after a first ("不吃香菜也不吃葱"): a
// clause of its own, whose value does not run into the first's.
var alsoNot = regexp.MustCompile(`(\p{Han})(也(?:不|没|从不|从没))`)

// breakHan puts a comma for each run of spaces between two Han
// characters: chat Chinese ends a clause with a space where writing puts
// one ("刚从成都搬来深圳 在南山一家游戏公司做测试"; "小王 上海人 在…", a
// clause of one character between two spaces too).
func breakHan(text string) string {
	rs := []rune(text)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		if !unicode.IsSpace(rs[i]) || i == 0 || !unicode.Is(unicode.Han, rs[i-1]) {
			b.WriteRune(rs[i])
			continue
		}
		j := i
		for j < len(rs) && unicode.IsSpace(rs[j]) {
			j++
		}
		if j < len(rs) && unicode.Is(unicode.Han, rs[j]) {
			b.WriteRune('，')
		} else {
			b.WriteString(string(rs[i:j]))
		}
		i = j - 1
	}
	return b.String()
}

var spaces = regexp.MustCompile(`\s+`)

// spanOnly is a value that is only a span of time (刚学两个月): how long,
// not what.
var spanOnly = regexp.MustCompile(`^(?:快|近|将近|差不多)?[一两二三四五六七八九十几半\d]+(?:个)?(?:年|个月|月|周|星期|礼拜|天)(?:了|多)?$`)

// birthdayThen is a birthday named, then its date in the clause after
// ("下周四是我生日，农历八月十五"): read as one clause, 生日是农历八月十五.
var birthdayThen = regexp.MustCompile(`(生日)(?:啦|了|哦|呀|哈)?[，,]\s*((?:农历|阴历|公历)?[一二三四五六七八九十正腊冬\d]{1,3}月[一二三四五六七八九十初廿\d]{1,3}[日号]?)`)

// andCounting is chat's "and still going" after a span ("6 yrs sober and
// counting"): no item of a list.
var andCounting = regexp.MustCompile(`(?i)\s+and counting\b`)

// stripTimes removes the absolute times the historian wrote.
func (lx extraction) stripTimes(s string) string {
	for _, re := range lx.times {
		ms := re.FindAllStringIndex(s, -1)
		if len(ms) == 0 {
			continue
		}
		var b strings.Builder
		last := 0
		for _, m := range ms {
			if birthAfter.MatchString(s[m[1]:]) || birthBefore.MatchString(s[:m[0]]) {
				continue // the value of a birthday ("是九月份的生日"), no circumstance
			}
			b.WriteString(s[last:m[0]])
			b.WriteString(" ")
			last = m[1]
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// birthBefore comes before a time that is when someone was born ("生日：
// 1998年2月14日", "born in March 1990").
var birthBefore = regexp.MustCompile(`(?:生日|出生|(?i:\b(?:birthday|bday|dob|born)))(?:是|在|为|于|日期|(?i:\s+(?:on|in|is)))?\s*[：:]?\s*$`)

// birthAfter follows a time that is when someone was born.
var birthAfter = regexp.MustCompile(`^\s*(?:的)?(?:生日|出生|生的|生人)`)

// hanSpace is a space next to a Han character: mixed text ("住在
// Vancouver", "在 Google 上海办公室上班") is matched without it.
var hanSpace = regexp.MustCompile(`(\p{Han})\s+|\s+(\p{Han})`)

func joinHan(s string) string { return hanSpace.ReplaceAllString(s, "$1$2") }

// stripAdverbs removes the adverbs at the start of s.
func (lx extraction) stripAdverbs(s string) string {
	for {
		s = strings.TrimLeft(s, " ,，:：")
		rest, ok := cutWord(s, lx.adverbs)
		if !ok {
			return s
		}
		s = rest
	}
}

// cutWord cuts the first of words (longest first) that opens s; an ASCII
// word must end at a word boundary.
func cutWord(s string, words []string) (string, bool) {
	for _, a := range words {
		rest, ok := cutPrefixFold(s, a)
		if !ok {
			continue
		}
		if isLatinPhrase(a) && rest != "" && rest[0] != ' ' {
			continue
		}
		return rest, true
	}
	return s, false
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// isLatinPhrase reports whether s is ASCII letters and spaces ("Most
// evenings").
func isLatinPhrase(s string) bool { return isASCIIWord(strings.ReplaceAll(s, " ", "")) }

func isASCIIWord(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsLetter(r) {
			return false
		}
	}
	return s != ""
}

// subjectForms are how the historian writes subj, longest first.
func subjectForms(subj Subject) []string {
	var forms []string
	if subj.Name != "" && subj.ID != "" {
		forms = append(forms, subj.Name+"("+subj.ID+")", subj.Name+" ("+subj.ID+")")
	}
	for _, f := range []string{subj.Name, subj.ID} {
		if f != "" && !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return forms
}

// otherSubject finds a clause about someone else: it opens with a third
// person.
var otherSubject = regexp.MustCompile(`^(?:他|她|它|他们|她们|我们|你们|大家|别人|(?i:he|she|they|we|his|her|their|our|someone|everyone|people)\b)`)

// possessive opens a predicate about something of the subject's.
var possessive = regexp.MustCompile(`^\s*(?:的|['’]s\b)`)

// pastVerb is a verb of experience ("学过" is "学" in the past); enUsedTo
// is "used to" before a verb.
var (
	pastVerb = regexp.MustCompile(`(学|养|住|工作|做|当|练|上|干|待|呆)过`)
	enUsedTo = regexp.MustCompile(`(?i)^used to ([a-z]+)`)
)

// meant returns what a text means to state: all of it without a joke
// marker (a laugh is none: chat laughs after plain facts, and extract
// drops only what a laughing text claims the subject is: claimsToBe);
// what follows a correction after the last joke marker or laugh ("开玩笑
// 的，其实我受不了榴莲", "jk, actually I teach science"); else nothing (ok
// false): a joke states no fact.
func (lx extraction) meant(text string) (string, bool) {
	if lx.botSelf != nil && lx.botSelf.MatchString(text) {
		return "", false // the assistant speaking of itself ("作为AI我没有生日")
	}
	if lx.jokes == nil {
		return text, true
	}
	jokes := lx.jokes.FindAllStringIndex(text, -1)
	if len(jokes) == 0 {
		return text, true
	}
	if lx.laughter != nil {
		jokes = append(jokes, lx.laughter.FindAllStringIndex(text, -1)...)
		slices.SortFunc(jokes, func(a, b []int) int { return a[1] - b[1] })
	}
	if lx.correction == nil {
		return "", false
	}
	after := jokes[len(jokes)-1][1]
	loc := lx.correction.FindStringIndex(text[after:])
	if loc == nil {
		return "", false
	}
	rest := strings.TrimLeftFunc(text[after+loc[1]:], func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	})
	// "seriously though, I…"
	for _, w := range []string{"though ", "tho ", "but "} {
		rest = strings.TrimPrefix(rest, w)
	}
	return strings.TrimLeftFunc(rest, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }), true
}

// statements counts the clauses of text that say something.
func statements(text string) int {
	n := 0
	for _, c := range splitClauses(text) {
		if strings.IndexFunc(c.text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// stripLead drops the words chat opens a clause with (lexicon
// lead_words: "anyway fyi I work at Google" is "I work at Google").
func (lx extraction) stripLead(s string) string {
	if lx.leadWords == nil {
		return s
	}
	for {
		t := strings.TrimLeftFunc(s, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(",，:：.~～…-—", r) })
		loc := lx.leadWords.FindStringIndex(t)
		if loc == nil || loc[0] != 0 || loc[1] == len(t) {
			return t
		}
		s = t[loc[1]:]
	}
}

// claimsToBe opens a predicate that says what the subject is ("是秦始
// 皇", "'s a wizard", "的职业是睡觉专家"): in a text that laughs it is the
// joke ("I'm a professional procrastinator lol") unless another fact
// comes between it and the laugh (laughedOff).
var claimsToBe = regexp.MustCompile(`^(?:就是|是|乃|的(?:职业|工作|身份|工资)是|(?i:is|'s|’s|am)\s+(?:a|an|the|basically|secretly|actually|literally|officially|like)\b)`)

// ExtractFacts returns the long-lived facts text states about subj, in the
// order it states them. text is an event in absolute form (the historian
// wrote subj as "Name(id)", its name or its id). The text is cut into
// clauses (punctuation and conjunctions); a clause counts when subj is its
// subject, or when it has none and follows one that had, or when its
// subject includes subj ("我们住在苏州": places and pets only). Its
// predicate, without times and adverbs, is matched against the verb frames
// of lexicon/facts.yaml. Questions, hypotheticals, wishes, moods and jokes
// state nothing, and neither do clauses about someone else (subj's
// relatives: "Ann's sister lives in Paris" says only that Ann has a
// sister). What used to be ("以前住在北京", "used to hate running") is not
// a fact, but a later clause may take it up ("现在不吃了", "now loves it").
//
// kinds, when not nil, tells what the things a clause names are: a value
// a frame wants to be a food, a drink, an animal… may be any such thing
// WordNet knows (山竹, a mangosteen, is a food), not only a word of the
// lexicon's lists.
func ExtractFacts(text string, subj Subject, kinds *Kinds) []Fact {
	lx := extraction{lexicon: facts, kinds: kinds}
	plain := lx.plain(text)
	if plain == text {
		return lx.extract(text, subj)
	}
	subj.Name = lx.plain(subj.Name)
	return restore(lx.extract(plain, subj), text, plain)
}

// extraction is the lexicon at work on one text, with the kinds of
// things it may know.
type extraction struct {
	*lexicon
	kinds *Kinds
}

func (lx extraction) extract(text string, subj Subject) []Fact {
	forms := subjectForms(subj)
	if len(forms) == 0 {
		return nil
	}
	text, ok := lx.meant(text)
	if !ok || text == "" {
		return nil
	}
	text = lx.readNotes(text)
	text = zhHearsay.ReplaceAllString(text, "$1$2")
	laughs := lx.laughter != nil && lx.laughter.MatchString(text)
	if laughs {
		// A laugh is no word of a value ("never cook lol"): it ends a
		// clause ("lol I play bass", "在杭州做前端 😂 以后请多指教").
		text = lx.laughter.ReplaceAllString(text, string(laughMark)+"，")
		// A one-liner that laughs is the joke ("张三住在月球，哈哈", "I'm
		// Batman haha"); a fact laughed at comes with more ("ngl I hate
		// cilantro with a passion 😂 tastes like soap").
		if statements(text) < 2 {
			return nil
		}
	}
	text = andCounting.ReplaceAllString(text, "")
	text = birthdayThen.ReplaceAllString(text, "${1}是$2")
	text = weekPlan(text)
	starts := append(slices.Clone(forms), lx.selfNames...)
	// implicit: the text names no one, and its first clause is the
	// sender's (en: its verb is put in the third person).
	implicit := lx.namesNoOne(text, starts)
	first := true
	var out []Fact
	about := false         // the clause before was about subj
	var ante *Fact         // the last fact stated or recalled, for an ellipsis
	prev := -1             // the fact of the clause before in out, or -1
	var spans []clauseSpan // a span of out for each clause
	for _, c := range sharedSubject(splitAtSubject(splitClauses(text), starts), starts) {
		laughed := strings.ContainsRune(c.text, laughMark)
		c.text = strings.ReplaceAll(c.text, string(laughMark), "")
		spans = append(spans, clauseSpan{from: len(out), laughed: laughed, remarks: laughed && remark(c.text)})
		s := lx.stripParticles(notQuestion.Replace(joinHan(lx.stripTimes(lx.stripLead(c.text)))))
		last := prev
		prev = -1
		if s == "" {
			continue
		}
		rest, explicit, we := "", false, false
		elided := false // the clause goes on about subj without naming it
		for _, f := range starts {
			if startsWithName(s, f) {
				rest, explicit = s[len(f):], true
				break
			}
		}
		// "Pizza is Ann's comfort food": subj is not the first word.
		var inverted []Fact
		if !explicit && !c.question {
			inverted = lx.invertedFacts(s, forms, starts, ante)
		}
		if !explicit && len(out) == 0 && !about {
			if _, ok := cutWord(s, lx.selfLead); ok {
				rest, explicit = s, true // "坐标上海": a statement about oneself
			} else if implicit && first && len(inverted) == 0 {
				rest, explicit = s, true // "刚搬到深圳": no one else is named
			} else if _, ok := cutWord(s, lx.kinLead); ok && first && len(inverted) == 0 && !c.question {
				// "儿子刚满月", "媳妇儿在医院当麻醉师": a relative named with no
				// one's before, first, is the sender's (one character, 妈,
				// also opens 妈的 and 妈呀).
				rest, explicit = s, true
			}
		}
		first = false
		topic := ""
		if !explicit && !c.question {
			if fs := inverted; len(fs) > 0 {
				a := fs[len(fs)-1]
				ante = &a
				out = append(out, fs...)
				prev, about = len(out)-1, true
				continue
			}
			if t, r, ok := lx.cutTopic(s, starts); ok {
				rest, explicit = r, true
				if isLatinPhrase(t) {
					rest = strings.TrimSpace(r) + " " + strings.ToLower(t) // "Most evenings Ann plays poker": Ann plays poker most evenings
				} else if lx.topicTime.MatchString(t) {
					rest = t + r // "下班后张三…": a circumstance, read in order
				} else {
					topic = t // "奶茶张三一周能喝五杯": the object, put first
				}
			}
		}
		switch {
		case explicit:
			about = true
		case lx.we.MatchString(s):
			rest, we = s[len(lx.we.FindString(s)):], true
			rest = enThird(rest)
		case about && !otherSubject.MatchString(s):
			rest, elided = s, true
			// "我是火星人 来地球出差的 哈哈哈": the joke goes on; its laugh
			// is at the claim.
			spans[len(spans)-1].remarks = false
		default:
			about = false
			continue
		}
		if c.question || lx.asks(s) || lx.skips(s) {
			about = false
			continue
		}
		spans[len(spans)-1].claim = laughs && explicit && claimsToBe.MatchString(strings.TrimSpace(rest))
		for _, f := range forms {
			rest = strings.ReplaceAll(rest, f, string(selfMark))
		}
		rest = enAuxAdverb.ReplaceAllString(rest, "$1 ")
		if lx.reportsOther(rest) {
			about = false
			continue
		}
		rest = enReported(rest)
		rest = lx.zhReported(rest)
		pred := lx.stripAdverbs(strings.TrimSpace(rest))
		if (implicit || elided && enGoesOn(pred)) && textLang(pred) == "en" {
			pred = enImplicit(pred) // "I'm a sous chef, live in Busan"
		}
		pred, past := lx.cutPast(pred)
		var fs []Fact
		other := false
		if topic != "" {
			// The object said first goes back after the verb ("一周能
			// 喝五杯奶茶", "把葱花挑出来").
			for _, p := range []string{strings.TrimRight(pred, "了啦呢") + topic, "把" + topic + pred} {
				if fs, other = lx.match(p, ante); len(fs) > 0 || other {
					break
				}
			}
		}
		if len(fs) == 0 && !other {
			fs, other = lx.match(pred, ante)
		}
		if full := strings.TrimSpace(rest); len(fs) == 0 && !other && full != pred {
			// The adverbs may carry the fact: 平时上班骑电动车 is a routine.
			if full, _ = lx.cutPast(full); full != pred {
				fs, other = lx.match(full, ante)
			}
		}
		if loc := zhSince.FindStringIndex(pred); len(fs) == 0 && !other && loc != nil {
			// "退伍以后一直做保安": what follows the time clause.
			fs, other = lx.match(lx.stripAdverbs(pred[loc[1]:]), ante)
		}
		if implicit && len(fs) == 0 && !other && textLang(pred) == "en" {
			// "Allergic to shellfish", "Vegan for three years": no verb.
			fs, other = lx.match("is "+pred, ante)
		}
		if other {
			// A relative: the family fact, and nothing else of the clause
			// or the ones after it is about subj.
			if !past && !we {
				out = append(out, fs...)
			}
			about = false
			continue
		}
		if we {
			fs = slices.DeleteFunc(fs, func(f Fact) bool { return !slices.Contains(lx.weOnly, f.Category) })
		}
		if len(fs) == 0 && !past && !we {
			if f, ok := lx.nextItem(out, last, pred, c); ok {
				fs = []Fact{f}
			} else if lx.extendHabit(out, last, pred) {
				prev = last
				continue
			}
		}
		// "和男朋友住在一起，在广州天河": a clause of living somewhere that
		// does not say where; the place the next clause names is where.
		opens := lx.placeOpen != nil && !past && !we && lx.placeOpen.MatchString(pred)
		if opens {
			ante = &Fact{Category: "location", Lang: textLang(pred)}
		}
		if len(fs) == 0 {
			// A clause that says nothing known about subj ends the chain
			// when it is about someone subj has ("Ann's colleague Bob is
			// a doctor, likes fishing") or opened without subj.
			about = explicit && !possessive.MatchString(rest) && !lx.others.MatchString(rest)
			continue
		}
		// A time the historian wrote ("现在" is "截至…") marks a change.
		timed := lx.stripTimes(c.text) != strings.TrimSpace(spaces.ReplaceAllString(c.text, " "))
		if !past && !timed {
			if more, ok := lx.narrows(out, last, strings.TrimSpace(rest), fs); ok && len(more) == 0 {
				a := out[last]
				ante, prev = &a, last
				continue
			} else if ok {
				fs = more // "刚搬来深圳 在南山一家游戏公司做测试": the job is new
			}
		}
		if a := fs[len(fs)-1]; !opens {
			ante = &a
		}
		if past {
			continue // what used to be is not a fact, only an antecedent
		}
		out = append(out, fs...)
		prev = len(out) - 1
	}
	out = laughedOff(out, spans)
	name := cmp.Or(subj.Name, subj.ID)
	for i := range out {
		out[i].Value = strings.ReplaceAll(out[i].Value, string(selfMark), name)
		out[i].Slot = strings.ReplaceAll(out[i].Slot, string(selfMark), strings.ToLower(name))
	}
	return out
}

// clauseSpan is where a clause's facts start in a text's facts, whether a
// laugh followed the clause and whether it claims what the subject is.
type clauseSpan struct {
	from           int
	laughed, claim bool
	// remarks: the clause says something of its own before its laugh
	// ("我是桂林人，所以我俩吃饭老吵架哈哈"): the laugh is at that.
	remarks bool
}

// remark reports whether a clause says something of its own (所以我俩吃
// 饭老吵架, "and my cat agrees"), not a word or two (对吧, "right").
func remark(s string) bool {
	han := 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			han++
		}
	}
	return han >= 5 || len(strings.Fields(s)) >= 3
}

// laughedOff drops the facts of a clause that claims what the subject is
// when a laugh follows it before another clause states a fact: the laugh
// is at the claim ("我是火星人 来地球出差的 哈哈哈"), not at a fact said
// between ("I'm a sous chef, live in Busan, and I can't stand cilantro
// lol" laughs at the cilantro).
func laughedOff(out []Fact, spans []clauseSpan) []Fact {
	end := func(i int) int {
		if i+1 < len(spans) {
			return spans[i+1].from
		}
		return len(out)
	}
	var drop []int // clauses whose facts go
	for i, sp := range spans {
		if !sp.claim || sp.from == end(i) {
			continue
		}
		for j := i; j < len(spans); j++ {
			if j > i && (spans[j].from < end(j) && !spans[j].claim || spans[j].remarks) {
				break // a fact or a remark said after the claim: the laugh is at that
			}
			if spans[j].laughed {
				drop = append(drop, i)
				break
			}
		}
	}
	for _, i := range slices.Backward(drop) {
		out = slices.Delete(out, spans[i].from, end(i))
	}
	return out
}

// objectLead is what comes before the sender named as an object: 给张三,
// 跟张三, "for Ann", "to Ann".
// (The sender's id comes after the name: 给张三(qq:1).)
var objectLead = regexp.MustCompile(`(?:给|跟|对|让|帮|替|和|陪|催|问|(?i:\b(?:for|to|with|w|at|about|from)\s+))(?:[^\s()]{1,24}\s?\()?$`)

// jobLead is what makes a word for someone a job ("当老师", "as a
// teacher"), not a person named.
var jobLead = regexp.MustCompile(`(?:当|做|是|(?i:\bas an?\s+))$`)

// caredFor is what makes a relative named the one the sender looks after,
// not the subject ("每天下午接完儿子放学", "drop my son off"): the
// sender is.
var caredFor = regexp.MustCompile(`(?:接|送|接送|陪|哄|喂|照顾|(?i:\b(?:drop|pick|walk|feed)s?\s+(?:my\s+)?))(?:完|好|着)?$`)

// companionLead is what makes someone named company, not the subject
// ("Play basketball every Sunday with some coworkers", "跟同事打桌球"): the
// doer is still the one who speaks.
var companionLead = regexp.MustCompile(`(?:跟|陪|陪着|(?i:\bwith\s+(?:some\s+|a\s+few\s+|a\s+couple\s+of\s+|two\s+|three\s+|the\s+)?))$`)

// pronouns stay someone after companionLead: "Moved to Leeds with her"
// may be said of her companion.
var pronouns = map[string]bool{"he": true, "she": true, "him": true, "her": true, "they": true, "them": true, "他": true, "她": true, "他们": true, "她们": true}

// company reports whether who, found in text after before, is named as
// company (companionLead) and is no pronoun.
func company(before, who string) bool {
	return companionLead.MatchString(before) && !pronouns[strings.ToLower(who)]
}

// namesNoOne reports whether text names no one at all: not the sender
// (starts), nor anyone else, a relative, we or a pronoun, nor the
// assistant; and neither asks nor supposes anything. Its first clause
// is then the sender's, as chat writes it ("刚搬到深圳", "Moved to Berlin
// last spring").
func (lx extraction) namesNoOne(text string, starts []string) bool {
	// What the later clauses ask, suppose or say of others, or of the
	// sender by name, leaves the first one the sender's ("离了两年了 闺女判
	// 给我了", "每天下午接完儿子放学还得赶去菜市场，有没有十五分钟能搞定的晚
	// 饭推荐", "Born 30 Dec 1995, I always get combined presents").
	c := splitClauses(text)[0]
	lower := strings.ToLower(c.text)
	for _, f := range starts {
		if namedNotPossessive(lower, strings.ToLower(f)) {
			return false
		}
	}
	if text = c.text; c.question || strings.ContainsAny(text, "?？") || lx.asks(text) {
		return false
	}
	if lx.skips(text) {
		return false
	}
	for _, m := range lx.someone.FindAllStringIndex(text, -1) {
		if !slices.Contains(lx.notSomeone, text[m[0]:m[1]]) && !jobLead.MatchString(text[:m[0]]) && !company(text[:m[0]], text[m[0]:m[1]]) &&
			!caredFor.MatchString(text[:m[0]]) {
			return false
		}
	}
	return true
}

// namedNotPossessive reports whether lower names the sender (form f)
// other than as a possessive or an object inside the text: "Currently
// studying for Ann's real estate license" and "吃素快五年了 别再给张三推荐
// 红烧肉了" have no subject, and are still the sender's.
func namedNotPossessive(lower, f string) bool {
	for i := 0; ; {
		j := strings.Index(lower[i:], f)
		if j < 0 {
			return false
		}
		at := i + j
		// "Ann (qq:1)'s": past the id after the name, or the id's
		// closing parenthesis when f is the id.
		after := strings.TrimPrefix(lower[at+len(f):], ")")
		if loc := senderID.FindStringIndex(after); loc != nil {
			after = after[loc[1]:]
		}
		if at == 0 || !strings.HasPrefix(after, "'s ") && !strings.HasPrefix(after, "’s ") && !strings.HasPrefix(after, "的") &&
			!objectLead.MatchString(lower[:at]) {
			return true
		}
		i = at + len(f)
	}
}

// senderID is the id the rewrite writes after the sender's name.
var senderID = regexp.MustCompile(`^\s*\([^()]*\)`)

// enLeadAdverb are adverbs that may open a clause without a subject
// before its verb and change what it says ("Never been a fan of jazz",
// "Always hated olives"): they are kept, after the verb's auxiliary.
var enLeadAdverb = map[string]bool{"never": true, "always": true, "usually": true, "often": true, "rarely": true}

// enDropAdverb are adverbs that may open a clause without a subject and
// say nothing the frames read ("Currently studying for…", "Really into
// climbing"): they are dropped, as after a subject.
var enDropAdverb = map[string]bool{"currently": true, "really": true, "still": true, "just": true, "also": true, "totally": true, "basically": true, "actually": true, "honestly": true}

// enGoesOn reports whether a clause with no subject after one about the
// subject opens with the subject's next verb ("I'm a nurse, live in
// Leeds"): not chat's filler "like" ("I live on espresso, like four shots
// a day") nor the next item of a list ("love hiking and camping").
func enGoesOn(pred string) bool {
	verb, _, _ := strings.Cut(strings.ToLower(pred), " ")
	return verb != "like" && !strings.HasSuffix(verb, "ing")
}

// enImplicit puts the verb that opens a clause without a subject in the
// third person, as the rules expect: "Been living in" is "has been living
// in", "Working as" is "is working as", "Live in" is "lives in".
func enImplicit(pred string) string {
	verb, tail, _ := strings.Cut(pred, " ")
	lower := strings.ToLower(verb)
	switch {
	case verb == "" || !isASCIIWord(strings.NewReplacer("'", "", "’", "").Replace(verb)):
		return pred
	case enDropAdverb[lower]:
		// "Currently studying for…": the adverb says nothing the frames read.
		return enImplicit(tail)
	case enLeadAdverb[lower]:
		// "Never been a fan of jazz": has never been…
		r := enImplicit(tail)
		for _, aux := range []string{"has ", "is "} {
			if strings.HasPrefix(r, aux) && !strings.HasPrefix(strings.ToLower(tail), aux) {
				return aux + verb + " " + r[len(aux):]
			}
		}
		return verb + " " + r
	case lower == "been":
		return "has been " + tail
	case lower == "am":
		return "is " + tail
	case len(lower) > 4 && strings.HasSuffix(lower, "ing") && !notGerund[lower]:
		return "is " + pred
	}
	if t := thirdPerson(verb); t != verb {
		return t + " " + tail
	}
	return pred
}

// zhSince is a time clause that opens a predicate: 退伍以后, 结婚后,
// 这个月起, 从大学开始.
var zhSince = regexp.MustCompile(`^(?:\p{Han}{1,4}?(?:以后|之后|后|以来)|\p{Han}{2,4}?起|(?:从|自从|自)\p{Han}{1,6}?(?:开始|起|以来))`)

// reportVerbs are the verbs a note reports the user's words with.
const reportVerbs = `says|said|mentioned|mentions|explained|explains|shared|shares|noted|notes|added|adds|admitted|admits|revealed|reveals|told (?:me|us|the assistant|the bot)`

// enReport is what a bot writes when it reports the sender's words
// ("mentioned she's a paralegal", "said that they live in Leeds").
var enReport = regexp.MustCompile(`(?i)^\s*(?:` + reportVerbs + `)(?: that)? (?:she|he|they)(['’]s been|['’]s|['’]ve|['’]re| )`)

// enReportOf opens what a note reports the user said or knows, up to
// whose it is ("said their roommate", "knows the neighbour").
var enReportOf = regexp.MustCompile(`(?i)^\s*(?:` + reportVerbs + `|knows|thinks)(?: that)? (?:their|his|her|the|a|an) `)

// reportsOther reports whether rest reports what someone the user has is
// or does ("said their roommate is allergic to cats", "提到他同事对海鲜过
// 敏"): a third party's fact, not the user's.
func (lx extraction) reportsOther(rest string) bool {
	if loc := enReportOf.FindStringIndex(rest); loc != nil {
		return lx.others.MatchString(rest[loc[1]:])
	}
	// "提到他同事对海鲜过敏": the colleague's. A relative stays: "说他哥哥
	// 在新加坡做投行" tells of the user's brother.
	tail, him := zhReportHim(rest)
	if _, kin := cutWord(tail, lx.kinLead); !him || kin {
		return false
	}
	return lx.others.MatchString(tail)
}

// zhReportHim returns what follows a bot's report of the user's words
// (zhReport) and whether the report ends in a pronoun (提到他, 说她): the
// words after it may be of the user or of someone the user has.
func zhReportHim(rest string) (tail string, him bool) {
	m := zhReport.FindString(rest)
	return rest[len(m):], strings.HasSuffix(m, "他") || strings.HasSuffix(m, "她")
}

// enReportPoss opens what a note reports about something of the user's
// ("mentioned their birthday is…", "said her favourite tea is…").
var enReportPoss = regexp.MustCompile(`(?i)^\s*(?:` + reportVerbs + `)(?: that)? (?:their|his|her) `)

// enReported drops the report around the sender's words: "mentioned
// she's a paralegal" is "is a paralegal", "said they live" is "lives",
// "mentioned their birthday is" is "'s birthday is".
func enReported(rest string) string {
	m := enReport.FindStringSubmatchIndex(rest)
	if m == nil {
		if loc := enReportPoss.FindStringIndex(rest); loc != nil {
			return "'s " + rest[loc[1]:]
		}
		return rest
	}
	tail := strings.TrimLeft(rest[m[1]:], " ")
	switch strings.ToLower(strings.ReplaceAll(rest[m[2]:m[3]], "’", "'")) {
	case "'s been":
		return " has been " + tail
	case "'s", "'re":
		return " is " + tail
	case "'ve":
		return " has " + tail
	}
	return enThird(" " + tail)
}

// noteLabel is a label of a bot's notes (lexicon note_labels) and the
// sentence its value is read in, per language.
type noteLabel struct {
	ZH []string `yaml:"zh"`
	EN []string `yaml:"en"`
	// Bare are the zh labels that may stand right before their value
	// ("职业护士长；坐标青岛"): nouns no sentence opens with.
	Bare  []string          `yaml:"bare"`
	Say   map[string]string `yaml:"say"`
	After map[string]string `yaml:"after"`
}

func (lx *lexicon) compileNotes(labels []noteLabel, selfNames []string) error {
	if len(labels) == 0 {
		return nil
	}
	lx.noteSay, lx.noteAfter = map[string]map[string]string{}, map[string]map[string]string{}
	var alts, bare []string
	for _, l := range labels {
		for _, w := range append(slices.Clone(l.ZH), l.EN...) {
			w = strings.ToLower(w)
			alts = append(alts, regexp.QuoteMeta(w))
			lx.noteSay[w], lx.noteAfter[w] = l.Say, l.After
		}
		for _, w := range l.Bare {
			if !slices.Contains(l.ZH, w) {
				return fmt.Errorf("ingest: fact lexicon: note_labels: bare label %q is not one of its zh labels", w)
			}
			bare = append(bare, regexp.QuoteMeta(w))
		}
	}
	slices.SortFunc(bare, func(a, b string) int { return len(b) - len(a) })
	var owners []string
	for _, n := range selfNames {
		// 用户的生日, 用户生日, "User's birthday"
		owners = append(owners, regexp.QuoteMeta(strings.ToLower(n))+`(?:的|['’]s)?\s*`)
	}
	slices.SortFunc(alts, func(a, b string) int { return len(b) - len(a) })
	var err error
	lx.notes, err = regexp.Compile(`(?i)^\s*(?:[-•*·]\s*)?` + noteHeading + `(?:` + strings.Join(owners, "|") + `)?(` + strings.Join(alts, "|") + `)\s*[:：=]\s*`)
	if err != nil {
		return fmt.Errorf("ingest: fact lexicon: note_labels: %w", err)
	}
	if len(bare) > 0 {
		if lx.notesBare, err = regexp.Compile(`^\s*(?:[-•*·]\s*)?` + noteHeading + `(` + strings.Join(bare, "|") + `)\p{Han}`); err != nil {
			return fmt.Errorf("ingest: fact lexicon: note_labels: bare: %w", err)
		}
	}
	return nil
}

// noteHeading is a bracketed heading before a note's first label
// ("【用户画像】职业：…", "[profile] job: …").
const noteHeading = `(?:[【\[][^】\]]{1,12}[】\]]\s*)?`

// readNotes reads a bot's labelled notes ("职业：麻醉科医生；爱好：攀岩")
// as sentences ("用户是麻醉科医生。用户喜欢攀岩"): each part, between
// semicolons and line breaks, that opens with a label is read as the
// label's sentence. A text with no labelled part is returned as it is.
func (lx extraction) readNotes(text string) string {
	if lx.notes == nil {
		return text
	}
	parts := notePart.Split(text, -1)
	found := false
	labelled := 0 // parts that open with a label, with or without a colon
	for _, p := range parts {
		if lx.noteLabel(p, true) != nil {
			labelled++
		}
	}
	// "职业护士长；坐标青岛": in notes of several labelled parts, a Chinese
	// label may stand right before its value.
	bare := labelled >= 2
	for i, p := range parts {
		m := lx.noteLabel(p, bare)
		if m == nil {
			continue
		}
		value := strings.TrimSpace(p[m[1]:])
		if value == "" {
			continue
		}
		label := strings.ToLower(p[m[2]:m[3]])
		if lx.noteSay[label] == nil {
			// A label of the notes as a whole before a labelled part
			// ("note: 所在地=无锡"): the part's own label reads it.
			if n := lx.noteLabel(value, bare); n != nil && strings.TrimSpace(value[n[1]:]) != "" {
				label, value = strings.ToLower(value[n[2]:n[3]]), strings.TrimSpace(value[n[1]:])
			}
		}
		lang := textLang(value)
		if lang != "en" {
			lang = "zh"
		}
		parts[i] = lx.noteSay[label][lang] + value + lx.noteAfter[label][lang]
		found = true
	}
	if !found {
		return text
	}
	sep := "。"
	if textLang(text) == "en" {
		sep = ". "
	}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return strings.TrimSpace(p) == "" }), sep)
}

// noteLabel finds the label a part of a bot's notes opens with: the
// indexes of the whole label (with its colon) and of the label itself, as
// FindStringSubmatchIndex gives them, or nil. With bare, a Chinese label
// right before its value counts too (lexicon notesBare).
func (lx extraction) noteLabel(p string, bare bool) []int {
	if m := lx.notes.FindStringSubmatchIndex(p); m != nil || !bare || lx.notesBare == nil {
		return m
	}
	if b := lx.notesBare.FindStringSubmatchIndex(p); b != nil {
		return []int{b[0], b[3], b[2], b[3]}
	}
	return nil
}

// notePart separates the parts of a bot's notes
// ("职业：幼师；所在地：无锡", "Occupation: welder / Location: Gdańsk").
var notePart = regexp.MustCompile(`\s*[；;\n]+\s*|\s+/\s+`)

// zhHearsay is a bot's note that opens by whose word it is ("据用户说，他
// 老家是鹤岗的"): the user's, and the pronoun after it is the user.
var zhHearsay = regexp.MustCompile(`(^|[，。；;\s])据((?:该|这位)?用户|对方)(?:所|自己)?(?:说|讲|称|介绍|透露|反馈|描述)[，,：:]?\s*(?:他|她|TA|自己)?`)

// zhReport is what a bot writes in Chinese when it reports the sender's
// words ("用户提到他在宁波港做调度", "对方称自己在腾讯做策划").
var zhReport = regexp.MustCompile(`^(?:提到过?|提及|表示|说过?|称|讲到|透露|告诉我|提了一句|自称|自述)[，,:：]?\s*(?:他|她|自己|TA)?`)

// zhReported drops the report around the sender's words: "提到他在宁波港
// 做调度" is "在宁波港做调度". A pronoun before one of the sender's
// people stays theirs ("说他哥哥在新加坡做投行" is about the brother).
func (lx extraction) zhReported(rest string) string {
	tail, him := zhReportHim(rest)
	if tail == rest || strings.TrimSpace(tail) == "" || him && lx.others.MatchString(tail) {
		return rest
	}
	return tail
}

// subordinator opens a clause inside a sentence ("…before Ann moved
// out to Phoenix"); the sentence is cut there when subj follows it.
var subordinator = regexp.MustCompile(`(?i)\s+(?:before|after|when|until|since|once|ever since)\s+`)

// leadBreak is what chat writes between a preamble and the statement
// after it: a colon, a dash, an ellipsis or a tilde ("先自我介绍一下：我在
// 武汉当护士", "fyi for context — I work as a nurse"). It ends a clause
// only before subj (splitAtSubject): a colon also opens a list ("爱玩的
// 几样：桌游、剧本杀", "three pets: a parrot, a beagle").
var leadBreak = regexp.MustCompile(`\s*(?:[：:]|—+|–|-{2,}|…+|\.{3,}|[~～]+)\s*`)

// splitAtSubject cuts each clause where a subordinator or a lead break
// is followed by one of starts, the ways of naming subj.
func splitAtSubject(cs []clause, starts []string) []clause {
	var out []clause
	for _, c := range cs {
		last := 0
		cuts := append(subordinator.FindAllStringIndex(c.text, -1), leadBreak.FindAllStringIndex(c.text, -1)...)
		slices.SortFunc(cuts, func(a, b []int) int { return a[0] - b[0] })
		for _, m := range cuts {
			after := c.text[m[1]:]
			if m[0] < last || !slices.ContainsFunc(starts, func(f string) bool { return startsWithName(after, f) }) {
				continue
			}
			out = append(out, clause{text: c.text[last:m[0]], question: c.question, and: c.and && last == 0})
			last = m[1]
		}
		out = append(out, clause{text: c.text[last:], question: c.question, and: c.and && last == 0})
	}
	return out
}

// sharedSubject gives a Chinese clause that opens with 自从, 自打 or 打从
// and names no one the subject of the clause after it, when that clause
// opens with a way of naming subj: "自从三月份搬到厦门，我每天傍晚都去
// 骑车" says that subj moved to Xiamen.
func sharedSubject(cs []clause, starts []string) []clause {
	for i := 0; i+1 < len(cs); i++ {
		lead := zhSinceLead.FindString(cs[i].text)
		if lead == "" || cs[i].question || slices.ContainsFunc(starts, func(f string) bool { return strings.Contains(cs[i].text, f) }) {
			continue
		}
		next := strings.TrimLeftFunc(cs[i+1].text, unicode.IsSpace)
		for _, f := range starts {
			if isCJKName(f) && startsWithName(next, f) {
				cs[i].text = lead + f + cs[i].text[len(lead):]
				break
			}
		}
	}
	return cs
}

// zhSinceLead opens a clause of the time since which something holds.
var zhSinceLead = regexp.MustCompile(`^\s*(?:自从|自打|打从)`)

// isCJKName reports whether a way of naming subj is written in Han
// characters (我, 张三).
func isCJKName(f string) bool {
	r, _ := utf8.DecodeRuneInString(f)
	return unicode.Is(unicode.Han, r)
}

// startsWithName reports whether s starts with the name f, not with a
// longer word of which f is the start ("Ann" is not the start of "Anna").
func startsWithName(s, f string) bool {
	r, ok := strings.CutPrefix(s, f)
	if !ok {
		return false
	}
	next, _ := utf8.DecodeRuneInString(r)
	return !isASCIIWord(f[len(f)-1:]) || !unicode.IsLetter(next) && !unicode.IsDigit(next)
}

// topicWord is a topic said before the subject: a few Han characters,
// letters or digits.
var topicWord = regexp.MustCompile(`^[\p{Han}A-Za-z0-9]{1,8}$`)

// cutTopic finds a clause that names something before subj ("奶茶张三一
// 周能喝五杯", "下班后张三…"): the topic and what follows subj. A topic
// holds no one else and no verb of saying or giving (lexicon topic_stop).
func (lx extraction) cutTopic(s string, starts []string) (topic, rest string, ok bool) {
	for _, f := range starts {
		i := strings.Index(s, f)
		if i <= 0 {
			continue
		}
		t := s[:i]
		if en := strings.TrimRight(t, " ,"); isLatinPhrase(en) {
			// "Most evenings Ann plays poker": a time only.
			if !lx.topicTime.MatchString(en) {
				return "", "", false
			}
			return en, s[i+len(f):], true
		}
		if !topicWord.MatchString(t) || utf8.RuneCountInString(t) > 8 || !unicode.Is(unicode.Han, []rune(t)[0]) ||
			lx.stops(t) || lx.others.MatchString(t) || lx.we.MatchString(t) {
			return "", "", false
		}
		return t, s[i+len(f):], true
	}
	return "", "", false
}

// stops reports whether a text before the sender holds a word of
// topic_stop (someone else, a verb of saying, giving or asking) that is
// not inside a compound of not_topic_stop (说 of 小说).
func (lx extraction) stops(t string) bool { return holds(lx.topicStop, lx.notStop, t) }

// skips reports whether s holds a word of skip (a hypothetical, a plan, a
// feeling) that is not inside a compound of not_skip (准备 of 准备考研).
func (lx extraction) skips(s string) bool { return holds(lx.skip, lx.notSkip, s) }

// holds reports whether re, which finds both its words and the compounds
// of not (longest first), finds one of its words in s outside them.
func holds(re *regexp.Regexp, not []string, s string) bool {
	if re == nil {
		return false
	}
	for _, m := range re.FindAllString(s, -1) {
		if !slices.Contains(not, m) {
			return true
		}
	}
	return false
}

// invertedFacts matches the inverted rules against a clause in which subj
// is named but not first ("Shellfish makes Ann break out in hives").
func (lx extraction) invertedFacts(s string, forms, starts []string, ante *Fact) []Fact {
	i := -1
	for _, f := range starts {
		if j := strings.Index(s, f); j > 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i < 0 || otherSubject.MatchString(s) || lx.stops(s[:i]) {
		return nil // nobody else speaks or acts in the clause
	}
	for _, f := range forms {
		s = strings.ReplaceAll(s, f, string(selfMark))
	}
	for _, f := range lx.selfNames {
		s = strings.ReplaceAll(s, f, string(selfMark))
	}
	for _, r := range lx.rules {
		if !r.inverted {
			continue
		}
		if f, _, ok := lx.apply(r, s, ante); ok {
			return []Fact{f}
		}
	}
	return nil
}

// cutPast reports whether pred tells what used to be, and returns it as
// if it were present ("以前住在北京" → "住在北京", "学过小提琴" →
// "学小提琴", "used to live in" → "lives in").
func (lx extraction) cutPast(pred string) (string, bool) {
	past := false
	if rest, ok := cutWord(pred, lx.pastLead); ok {
		pred, past = lx.stripAdverbs(rest), true
	}
	if m := enUsedTo.FindStringSubmatchIndex(pred); m != nil {
		verb := pred[m[2]:m[3]]
		third := thirdPerson(verb)
		if strings.EqualFold(verb, "be") {
			third = "is"
		}
		return third + pred[m[3]:], true
	}
	if lx.past != nil && lx.past.MatchString(pred) {
		pred, past = pastVerb.ReplaceAllString(pred, "$1"), true
	}
	return pred, past
}

// enThird puts the verb of a "we" clause in the third person, as the
// rules expect ("live in" → "lives in").
func enThird(rest string) string {
	trimmed := strings.TrimLeft(rest, " ")
	verb, tail, _ := strings.Cut(trimmed, " ")
	if verb == "" || trimmed == rest {
		return rest
	}
	return " " + thirdPerson(verb) + " " + tail
}

// listItem is a bare noun phrase of a few words: the next item of a list
// ("likes hiking and camping").
var listItem = regexp.MustCompile(`^(?i:[a-z][a-z'-]*(?: [a-z][a-z'-]*){0,2})$`)

// narrowLead opens a clause that only says where ("在高新区", "is in
// the Zurich office").
var narrowLead = regexp.MustCompile(`^(?:在|(?i:is (?:in|at|based in)) )`)

// narrows adds the place of a clause that only says where (rest, with
// no adverb before it) to the fact of the same one-value category the
// clause before stated ("住在成都，在高新区" lives in 成都高新区; "是腾讯的员
// 工，在IEG" works at 腾讯IEG), where it would otherwise replace it. What
// used to be is no antecedent here, and an adverb marks a change
// ("以前在北京，现在在上海" and "家在郑州，现在在北京" still move). The
// clause's other facts are returned ("刚搬来深圳 在南山一家游戏公司做测试"
// lives in 深圳南山 and has a new job), ok when it narrowed.
func (lx extraction) narrows(out []Fact, last int, rest string, fs []Fact) (more []Fact, ok bool) {
	if last < 0 || !narrowLead.MatchString(rest) {
		return fs, false
	}
	o := &out[last]
	i := slices.IndexFunc(fs, func(f Fact) bool { return f.Category == o.Category })
	if i < 0 || !lx.cats[o.Category].single || strings.Contains(o.Value, fs[i].Value) {
		return fs, false
	}
	sep := ""
	if o.Lang == "en" {
		sep = ", "
	}
	o.Value += sep + fs[i].Value
	o.Slot = lx.slot(lx.cats[o.Category], o.Value)
	return slices.Delete(slices.Clone(fs), i, i+1), true
}

// nextItem is the fact of a clause that only names the next item of the
// list the clause before began ("likes hiking and camping").
func (lx extraction) nextItem(out []Fact, last int, pred string, c clause) (Fact, bool) {
	if last < 0 || !c.and || lx.vague[pred] || !listItem.MatchString(pred) {
		return Fact{}, false
	}
	f := out[last]
	if f.Lang != "en" || lx.cats[f.Category].single || f.Category == "habit" {
		return Fact{}, false
	}
	f.Value = pred
	f.Slot = lx.slot(lx.cats[f.Category], pred)
	return f, true
}

// extendHabit adds a clause that states nothing of its own to the routine
// of the clause before ("每天通勤要一个半小时，坐地铁").
func (lx extraction) extendHabit(out []Fact, last int, pred string) bool {
	if last < 0 || pred == "" || lx.others.MatchString(pred) || out[last].Category != "habit" ||
		utf8.RuneCountInString(out[last].Value)+utf8.RuneCountInString(pred) > 60 {
		return false
	}
	sep := "，"
	if out[last].Lang == "en" {
		sep = ", "
	}
	out[last].Value += sep + pred
	out[last].Slot = lx.slot(lx.cats["habit"], out[last].Value)
	return true
}

// match finds the first rule that matches the start of predicate and
// returns its facts: a rule with a rest group matches the rest again ("在字
// 节跳动做产品经理"). other reports a relative: the rest of the clause is
// about them. ante is the fact of an earlier clause, for an ellipsis.
func (lx extraction) match(predicate string, ante *Fact) (fs []Fact, other bool) {
	if predicate == "" {
		return nil, false
	}
	// A predicate that opens with someone subj has is about them: only
	// the rules that say who they are apply.
	theirs := lx.others.MatchString(predicate)
	fs, other = lx.first(predicate, ante, theirs)
	if other || theirs {
		return fs, other
	}
	for _, r := range lx.rules {
		if !r.also || r.inverted {
			continue
		}
		if f, _, ok := lx.apply(r, predicate, ante); ok && !slices.ContainsFunc(fs, func(g Fact) bool { return g.Category == f.Category }) {
			if r.list {
				fs = append(fs, lx.items(r, f)...) // "跟爸妈还有奶奶住一块儿"
			} else {
				fs = append(fs, f)
			}
		}
	}
	return fs, false
}

// first returns the facts of the first rule that matches predicate.
func (lx extraction) first(predicate string, ante *Fact, theirs bool) (fs []Fact, other bool) {
	for _, r := range lx.rules {
		if r.also || r.inverted || theirs && !r.other {
			continue
		}
		f, rest, ok := lx.apply(r, predicate, ante)
		if !ok {
			continue
		}
		if r.list {
			fs = append(fs, lx.items(r, f)...)
		} else {
			fs = append(fs, f)
		}
		if rest != "" {
			more, _ := lx.match(rest, &f)
			fs = append(fs, more...)
		}
		return fs, r.other
	}
	return nil, false
}

// apply matches one rule: its fact, and the rest of the predicate to
// match again when the rule has a rest group.
func (lx extraction) apply(r rule, predicate string, ante *Fact) (Fact, string, bool) {
	if len(r.ellipsis) > 0 && (ante == nil || !slices.Contains(r.ellipsis, ante.Category) || r.ante != nil && !r.ante.MatchString(ante.Value)) {
		return Fact{}, "", false
	}
	m := r.re.FindStringSubmatch(predicate)
	if m == nil {
		return Fact{}, "", false
	}
	v := ""
	if i := r.re.SubexpIndex("v"); i >= 0 {
		v = strings.Trim(m[i], " \t\"'“”‘’「」《》.")
		// "can't function without Ann's morning espresso": the espresso.
		v = strings.TrimPrefix(strings.TrimPrefix(v, string(selfMark)+"'s "), string(selfMark)+"’s ")
	}
	if mapped, ok := r.values[v]; ok {
		v = mapped
	} else if mapped, ok := r.values[strings.ToLower(v)]; ok {
		v = mapped
	}
	if r.kind != "" {
		whole := v
		var ok bool
		if v, ok = lx.kindValue(r.kind, v, r.lang); !ok || r.whole && v != whole {
			return Fact{}, "", false
		}
	}
	cat, pol, lang := r.category, r.polarity, r.lang
	switch {
	case len(r.ellipsis) > 0:
		if r.anteCategory {
			cat = ante.Category
		}
		if v == "" {
			v = ante.Value
		}
	case v == "" || lx.vague[strings.ToLower(v)]:
		// "loves it": it is what an earlier clause named.
		if v == "" || ante == nil || ante.Category != cat && !slices.Contains(r.reroute, ante.Category) {
			return Fact{}, "", false
		}
		cat, v = ante.Category, ante.Value
	default:
		cat = lx.reroute(r, v)
	}
	if first, _, _ := strings.Cut(v, " "); lx.vague[strings.ToLower(v)] || v == "" || lang == "en" && enPrep[strings.ToLower(first)] || spanOnly.MatchString(v) {
		return Fact{}, "", false
	}
	f := Fact{Category: cat, Value: v, Polarity: pol, Lang: lang}
	f.Slot = lx.slot(lx.cats[cat], v)
	rest := ""
	if i := r.re.SubexpIndex("rest"); i >= 0 {
		rest = strings.TrimSpace(m[i])
	}
	return f, rest, true
}

// notGerund are words in -ing that name no activity ("morning
// espresso" is a drink).
var notGerund = map[string]bool{"morning": true, "evening": true, "spring": true, "something": true, "everything": true}

// listSep separates the items of a list.
var listSep = regexp.MustCompile(`[、,，]\s*|\s*(?:和|跟|与|以及|还有|及)\s*|(?i:\s+and\s+|\s+or\s+)`)

// items cuts the value of a list rule into one fact per item, each in
// the category its own words give it.
func (lx extraction) items(r rule, f Fact) []Fact {
	var fs []Fact
	for _, v := range listSep.Split(f.Value, -1) {
		if v = strings.TrimSpace(v); v == "" || lx.vague[strings.ToLower(v)] {
			continue
		}
		g := f
		g.Value, g.Category = v, lx.reroute(r, v)
		g.Slot = lx.slot(lx.cats[g.Category], v)
		fs = append(fs, g)
	}
	return fs
}

// reroute is the category of a value a rule found: a like of food or
// drink moves there when the value is the food or drink itself ("吃辣",
// "spicy food"), not something done with it ("做手冲咖啡", "cooking Thai
// food").
func (lx extraction) reroute(r rule, v string) string {
	for _, to := range r.reroute {
		c := lx.cats[to]
		if c.vocab == nil {
			continue
		}
		s := lx.slot(lx.cats[r.category], v)
		loc := c.vocab.FindStringIndex(s)
		if loc == nil {
			continue
		}
		if r.lang == "zh" && loc[0] > 0 {
			continue
		}
		if first, _, _ := strings.Cut(s, " "); r.lang == "en" && loc[0] > 0 && strings.HasSuffix(first, "ing") && !notGerund[first] {
			continue
		}
		return to
	}
	// A one-value category's slot is its name: the kinds read the value.
	what := lx.slot(lx.cats[r.category], v)
	if lx.cats[r.category].single {
		what = strings.ToLower(strings.TrimSpace(v))
	}
	if to := lx.kinds.category(what, r.lang); to != "" && slices.Contains(r.reroute, to) {
		return to
	}
	return r.category
}

// slot is where a value goes in its category: the category itself for a
// one-value category, else the value lowercased without the verbs and
// articles that do not change what it is about.
func (lx extraction) slot(c *category, v string) string {
	if c.single {
		return c.name
	}
	s := strings.ToLower(v)
	for changed := true; changed; {
		changed = false
		for _, p := range lx.slotStrip {
			rest, ok := strings.CutPrefix(s, p)
			if !ok || strings.TrimSpace(rest) == "" {
				continue
			}
			if isASCIIWord(p) {
				if rest[0] != ' ' {
					continue
				}
			}
			s, changed = strings.TrimSpace(rest), true
			break
		}
	}
	if c.slotDrop != nil {
		s = c.slotDrop.ReplaceAllString(s, "")
	}
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	if s == "" {
		return strings.ToLower(v)
	}
	return s
}

// GroupTopics returns the topics a group's event text touches (category
// topic, one fact per topic, labelled in the text's language).
func GroupTopics(text string) []Fact {
	lang := textLang(text)
	var out []Fact
	for _, t := range facts.topics {
		if t.re.MatchString(text) {
			out = append(out, Fact{Category: "topic", Slot: t.key, Value: t.labels[lang], Lang: lang})
		}
	}
	return out
}

// textLang is zh when text has Han characters, else en.
func textLang(text string) string {
	for _, r := range text {
		if unicode.Is(unicode.Han, r) {
			return "zh"
		}
	}
	return "en"
}
