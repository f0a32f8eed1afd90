package ingest

import (
	"bytes"
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
	Jokes      map[string][]string          `yaml:"jokes"`
	Vague      map[string][]string          `yaml:"vague"`
	Questions  map[string][]string          `yaml:"questions"`
	Categories []struct {
		Name     string              `yaml:"name"`
		Single   bool                `yaml:"single"`
		Tag      bool                `yaml:"tag"`
		Summary  map[string]string   `yaml:"summary"`
		Negative map[string]string   `yaml:"negative"`
		Vocab    map[string][]string `yaml:"vocab"`
		SlotDrop string              `yaml:"slot_drop"`
	} `yaml:"categories"`
	SlotStrip map[string][]string `yaml:"slot_strip"`
	Rules     []struct {
		Category string            `yaml:"category"`
		Lang     string            `yaml:"lang"`
		Polarity string            `yaml:"polarity"`
		Pattern  string            `yaml:"pattern"`
		Values   map[string]string `yaml:"values"`
		Reroute  []string          `yaml:"reroute"`
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
}

type rule struct {
	category string
	lang     string
	polarity string
	re       *regexp.Regexp
	values   map[string]string
	reroute  []string
}

type topic struct {
	key    string
	labels map[string]string
	re     *regexp.Regexp
}

// lexicon is facts.yaml compiled.
type lexicon struct {
	cats      map[string]*category
	rules     []rule
	times     []*regexp.Regexp
	adverbs   []string // longest first
	skip      *regexp.Regexp
	jokes     *regexp.Regexp
	questions *regexp.Regexp
	vague     map[string]bool
	slotStrip []string
	topics    []topic
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
		cat := &category{name: c.Name, order: i, single: c.Single, tag: c.Tag, summary: c.Summary, negative: c.Negative}
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
		lx.cats[c.Name] = cat
	}
	for i, r := range f.Rules {
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
		flags := ""
		if r.Lang == "en" {
			flags = "(?i)"
		}
		re, err := regexp.Compile(flags + `^(?:` + pat + `)`)
		if err != nil {
			return nil, fmt.Errorf("ingest: fact lexicon: rule %d (%s): %w", i, r.Category, err)
		}
		if re.SubexpIndex("v") < 0 {
			return nil, fmt.Errorf("ingest: fact lexicon: rule %d (%s) has no group v", i, r.Category)
		}
		lx.rules = append(lx.rules, rule{category: r.Category, lang: r.Lang, polarity: r.Polarity, re: re, values: r.Values, reroute: r.Reroute})
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
	}{{&lx.skip, f.Skip}, {&lx.jokes, f.Jokes}, {&lx.questions, f.Questions}} {
		if *w.dst, err = wordsRE(both(w.src)); err != nil {
			return nil, fmt.Errorf("ingest: fact lexicon: %w", err)
		}
	}
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

// clauseEnd splits a text into clauses: sentence and clause punctuation,
// and the conjunctions that start a new statement.
var clauseEnd = regexp.MustCompile(`[，。；;！!？?\n]|,|\.(?:\s|$)|\s+(?i:and|but)\s+|但是|而且|并且|同时`)

type clause struct {
	text     string
	question bool
}

func splitClauses(text string) []clause {
	var out []clause
	last := 0
	for _, m := range clauseEnd.FindAllStringIndex(text, -1) {
		sep := text[m[0]:m[1]]
		out = append(out, clause{text: text[last:m[0]], question: sep == "?" || sep == "？"})
		last = m[1]
	}
	return append(out, clause{text: text[last:]})
}

var spaces = regexp.MustCompile(`\s+`)

// stripTimes removes the absolute times the historian wrote.
func (lx *lexicon) stripTimes(s string) string {
	for _, re := range lx.times {
		s = re.ReplaceAllString(s, " ")
	}
	return strings.TrimSpace(spaces.ReplaceAllString(s, " "))
}

// stripAdverbs removes the adverbs at the start of s.
func (lx *lexicon) stripAdverbs(s string) string {
	for {
		s = strings.TrimLeft(s, " ,，:：")
		cut := false
		for _, a := range lx.adverbs {
			rest, ok := cutPrefixFold(s, a)
			if !ok {
				continue
			}
			if isASCIIWord(a) {
				if rest != "" && rest[0] != ' ' {
					continue
				}
			}
			s, cut = rest, true
			break
		}
		if !cut {
			return s
		}
	}
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

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

// ExtractFacts returns the long-lived facts text states about subj, in the
// order it states them. text is an event in absolute form (the historian
// wrote subj as "Name(id)", its name or its id); a clause counts when subj
// is its subject, or when it has none and follows one that had. Questions,
// hypotheticals, wishes, moods and jokes state nothing, and neither do
// clauses about someone else (including subj's relatives: "Ann's sister
// lives in Paris").
func ExtractFacts(text string, subj Subject) []Fact {
	return facts.extract(text, subj)
}

func (lx *lexicon) extract(text string, subj Subject) []Fact {
	forms := subjectForms(subj)
	if len(forms) == 0 || lx.jokes != nil && lx.jokes.MatchString(text) {
		return nil
	}
	var out []Fact
	about := false // the clause before was about subj
	for _, c := range splitClauses(text) {
		s := lx.stripTimes(c.text)
		if s == "" {
			continue
		}
		rest, explicit := "", false
		for _, f := range forms {
			if r, ok := strings.CutPrefix(s, f); ok {
				if next, _ := utf8.DecodeRuneInString(r); isASCIIWord(f[len(f)-1:]) && (unicode.IsLetter(next) || unicode.IsDigit(next)) {
					continue // "Ann" is not the start of "Anna"
				}
				rest, explicit = r, true
				break
			}
		}
		switch {
		case explicit:
			about = true
		case about && !otherSubject.MatchString(s):
			rest = s
		default:
			about = false
			continue
		}
		if c.question || lx.questions != nil && lx.questions.MatchString(s) || lx.skip != nil && lx.skip.MatchString(s) {
			about = false
			continue
		}
		f, ok := lx.match(lx.stripAdverbs(strings.TrimSpace(rest)))
		if !ok {
			// A clause that says nothing known about subj ends the chain
			// when it is about someone subj has ("Ann's colleague Bob is
			// a doctor, likes fishing") or opened without subj.
			about = explicit && !possessive.MatchString(rest)
			continue
		}
		out = append(out, f)
	}
	return out
}

// match finds the first rule that matches the start of predicate.
func (lx *lexicon) match(predicate string) (Fact, bool) {
	if predicate == "" {
		return Fact{}, false
	}
	for _, r := range lx.rules {
		m := r.re.FindStringSubmatch(predicate)
		if m == nil {
			continue
		}
		v := strings.Trim(m[r.re.SubexpIndex("v")], " \t\"'“”‘’「」《》.")
		if mapped, ok := r.values[v]; ok {
			v = mapped
		} else if mapped, ok := r.values[strings.ToLower(v)]; ok {
			v = mapped
		}
		if v == "" || lx.vague[strings.ToLower(v)] {
			continue
		}
		cat := r.category
		for _, to := range r.reroute {
			if c := lx.cats[to]; c.vocab != nil && c.vocab.MatchString(v) {
				cat = to
				break
			}
		}
		f := Fact{Category: cat, Value: v, Polarity: r.polarity, Lang: r.lang}
		f.Slot = lx.slot(lx.cats[cat], v)
		return f, true
	}
	return Fact{}, false
}

// slot is where a value goes in its category: the category itself for a
// one-value category, else the value lowercased without the verbs and
// articles that do not change what it is about.
func (lx *lexicon) slot(c *category, v string) string {
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
