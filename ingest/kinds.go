package ingest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/internal/wordnet"
)

// Kinds tells the fact extractor what the things a clause names are, with
// the nouns of WordNet and, for Chinese, the senses of CC-CEDICT: a
// mangosteen (山竹) is a food, a guinea pig (荷兰猪) an animal, badminton
// a sport. Each category of lexicon/facts.yaml may list the WordNet
// senses its things are kinds of (kinds: [beverage#1]); a frame that wants
// a thing of a category ({kind:pet}) then takes any such thing, not only a
// word of the category's list, and a like rerouted to food or drink by its
// value (reroute) goes there when the value is such a thing. A nil *Kinds
// knows only the lists.
type Kinds struct {
	wn   *wordnet.WordNet
	dict *bilingual.Dict
	// cats[i] is the category whose kinds include kinds[i].
	cats  []string
	kinds []*wordnet.Kind
}

// NewKinds returns the kinds of the lexicon's categories in wn, and dict
// to read Chinese (nil: Chinese values are read by the lists only). It is
// nil when wn is.
func NewKinds(wn *wordnet.WordNet, dict *bilingual.Dict) *Kinds {
	if wn == nil {
		return nil
	}
	k := &Kinds{wn: wn, dict: dict}
	for _, c := range facts.order {
		for _, s := range c.kinds {
			if kd := wn.Sense(s.noun, s.n); kd != nil {
				k.cats = append(k.cats, c.name)
				k.kinds = append(k.kinds, kd)
			}
		}
	}
	return k
}

// kindSense is a WordNet noun's sense, written noun#n (food#2).
type kindSense struct {
	noun string
	n    int
}

func parseKindSense(s string) (kindSense, error) {
	noun, n, ok := strings.Cut(s, "#")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || i < 1 || noun == "" {
		return kindSense{}, fmt.Errorf("kind %q: want noun#sense (food#2)", s)
	}
	return kindSense{noun: strings.ToLower(strings.ReplaceAll(noun, "_", " ")), n: i}, nil
}

// kindSlot is what {kind:category} stands for in a rule: the words up to
// the end of the clause, of which kindValue keeps the thing named.
var kindSlot = map[string]string{
	"zh": `[^，。,;；！!？?、\s]{1,12}`,
	"en": `[a-z][a-z'-]*(?: [a-z][a-z'-]*){0,5}`,
}

// kindSenses is how many of a Chinese word's English senses are read, the
// most common first (荷兰猪: guinea pig).
const kindSenses = 3

// maxKindStart is how many words may come before a thing's name in a
// value, not counting articles and numbers (two retired racing
// greyhounds); in English the thing is in the value's first noun phrase
// (in a rec soccer league; not "a big fan of chef Ramsay").
const maxKindStart = 2

// maxKindWords bounds the words of a thing's name (guinea pig, jellied
// tofu; 虎皮 鹦鹉).
const maxKindWords = 3

// A Chinese value may open with a number and a measure word (一只, 两条,
// 几缸, 一场), an English one with articles, numbers, possessives and words
// of quantity (a couple of, a pair of, a pet): they are no part of the
// thing's name.
var (
	quantityZH = regexp.MustCompile(`^(?:[一两二三四五六七八九十几半\d]+|这|那)?[只条个匹头缸杯瓶碗份盘块罐壶种场局把]`)
	quantityEN = map[string]bool{"a": true, "an": true, "the": true, "some": true, "my": true, "our": true, "two": true, "three": true,
		"four": true, "few": true, "couple": true, "of": true, "pet": true, "little": true, "lot": true, "lots": true, "pair": true}
)

// kindValue returns the thing of category cat the value v of a rule names:
// the first word of the category's list in it, or else (with kinds) the
// first run of up to maxKindWords words that names a thing of one of the
// category's kinds (一只荷兰猪，… → 荷兰猪; a pet iguana named Rex → iguana).
func (lx extraction) kindValue(cat, v, lang string) (string, bool) {
	c := lx.cats[cat]
	if c.vocab != nil {
		if loc := c.vocab.FindStringIndex(v); loc != nil {
			return lx.wholeWord(v, loc, lang), true
		}
	}
	if c.places {
		return lx.kinds.leadingPlaces(v, lang)
	}
	if lx.kinds == nil || len(c.kinds) == 0 {
		return "", false
	}
	if lang == "zh" {
		v = quantityZH.ReplaceAllString(v, "")
		if lx.kinds.dict == nil {
			return "", false
		}
		words := lx.kinds.dict.Segment(v)
		for i := range words[:min(len(words), maxKindStart+1)] {
			for j := min(len(words), i+maxKindWords); j > i; j-- {
				w := strings.Join(words[i:j], "")
				if utf8.RuneCountInString(w) < 2 {
					continue
				}
				if lx.kinds.chineseIs(cat, w) || j-i > 1 && lx.kinds.chineseIs(cat, words[j-1]) {
					return w, true
				}
			}
		}
		return "", false
	}
	words := strings.FieldsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '-' })
	before := 0 // words before i that are no article or number
	for i := range words {
		lower := strings.ToLower(words[i])
		if (enPrep[lower] || lower == "of") && before > 0 {
			break // the thing is in the first noun phrase: not "fan of chef Ramsay"
		}
		if quantityEN[lower] || enPrep[lower] {
			continue
		}
		if before > maxKindStart {
			break
		}
		before++
		for j := min(len(words), i+maxKindWords); j > i; j-- {
			w := strings.Join(words[i:j], " ")
			if lx.kinds.englishIs(cat, strings.ToLower(w)) {
				if cat == "occupation" {
					i = lx.kinds.compound(words, i)
				}
				return strings.Join(words[i:j], " "), true
			}
		}
	}
	return "", false
}

// wholeWord is the word of the list at loc in v, or in Chinese, with the
// dictionary, the whole dictionary word it lies in (鱼 in 生鱼片 is the
// 生鱼片).
func (lx extraction) wholeWord(v string, loc []int, lang string) string {
	if lang != "zh" || lx.kinds == nil || lx.kinds.dict == nil {
		return v[loc[0]:loc[1]]
	}
	at := 0
	for _, w := range lx.kinds.dict.Segment(v) {
		i := strings.Index(v[at:], w)
		if i < 0 {
			break
		}
		start, end := at+i, at+i+len(w)
		if start <= loc[0] && loc[1] <= end && len(lx.kinds.dict.English(w)) > 0 {
			return w
		}
		at = end
	}
	return v[loc[0]:loc[1]]
}

// compound is where the job whose head starts at words[i] starts: the
// nouns right before the head that name what kind of one it is (an air
// traffic controller, a software engineer), not articles, numbers or
// words more often adjectives or verbs (a really good cook is a cook).
func (k *Kinds) compound(words []string, i int) int {
	start := i
	for start > 0 && i-start < maxKindWords-1 {
		lower := strings.ToLower(words[start-1])
		if quantityEN[lower] || enPrep[lower] || !k.wn.Noun(lower) {
			break
		}
		start--
	}
	return start
}

// englishIs reports whether an English noun (lower case) names a thing of
// one of cat's kinds: one of its senses has a kind of cat nearest above it
// among all categories' kinds (espresso is a drink, not a food; chicken
// both). A word more often a verb or an adjective names none (same,
// general), and neither does a word that names a kind itself (drink, a
// beverage; food; pets).
func (k *Kinds) englishIs(cat, noun string) bool {
	if !k.wn.Noun(noun) {
		return false
	}
	for _, kd := range k.kinds {
		if kd.Is(noun) {
			return false
		}
	}
	for i := range k.kinds {
		if k.cats[i] == cat && k.wn.NearestIs(noun, k.kinds, i) {
			return true
		}
	}
	return false
}

// chineseIs reports whether a Chinese word names a thing of one of cat's
// kinds by one of its first English senses.
func (k *Kinds) chineseIs(cat, word string) bool {
	for _, en := range firstSenses(k.dict.English(word)) {
		if k.englishIs(cat, en) {
			return true
		}
	}
	return false
}

// leadingPlaces returns the places a Chinese value opens with, the
// dictionary's words that are places one after another (嘉兴南湖区 of
// "嘉兴南湖区", 广州 of "广州一家粤菜馆"): a place and where in it. ok is
// false when the value opens with none (or k is nil, or v is English).
func (k *Kinds) leadingPlaces(v, lang string) (string, bool) {
	if k == nil || k.dict == nil || lang != "zh" {
		return "", false
	}
	if k.dict.Place(v) {
		return v, true
	}
	var b strings.Builder
	for _, w := range k.dict.Segment(v) {
		if !k.dict.Place(w) {
			break
		}
		b.WriteString(w)
	}
	return b.String(), b.Len() > 0
}

// category returns the category a value names a thing of as a whole (an
// English noun; a Chinese word of the dictionary), by the most common of
// its first senses (rerouteSenses) that is a thing of any category's
// kinds and the kind nearest above it (soda: a soft drink, so a drink
// before a food); "" when none or k is nil.
func (k *Kinds) category(v, lang string) string {
	if k == nil {
		return ""
	}
	// A place the dictionary names (成都) is where one lives, for a rule
	// that may send its value there (在成都跑滴滴).
	if lang == "zh" {
		if p, _ := k.leadingPlaces(v, lang); p == v {
			return "location"
		}
	}
	senses := []string{strings.ToLower(strings.TrimSpace(v))}
	if lang == "zh" {
		senses = firstSenses(k.dict.English(v))
	}
	for _, en := range senses {
		if !k.wn.Noun(en) {
			continue
		}
		if i := k.wn.Nearest(en, k.kinds, rerouteSenses); i >= 0 {
			return k.cats[i]
		}
	}
	return ""
}

// rerouteSenses is how many of an English word's WordNet senses, the most
// frequent first, may move a like to food or drink: a mangosteen is a
// fruit tree, then a fruit; rock is no food for its rock candy.
const rerouteSenses = 2

func firstSenses(s []string) []string { return s[:min(kindSenses, len(s))] }
