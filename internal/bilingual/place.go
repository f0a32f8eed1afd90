package bilingual

import (
	"cmp"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Places: CC-CEDICT marks a proper noun by capitalized pinyin (Shen1 zhen4)
// and describes a place by what kind of place it is ("Qingshen County in
// Meishan", "Nara, an old capital of Japan", "Vancouver (city in
// Canada)"), or points to its full name with an administrative suffix
// ("see 深圳市"). Those descriptions also name the countries and
// provinces they lie in, which are then places as well when they are an
// entry's whole sense ("Japan", "Singapore").
var (
	// kindOfPlace is a word that says what kind of place a sense describes.
	kindOfPlace = `(place|city|capital|province|county|country|island|islands|prefecture|municipality|district|town|village|state|region|republic|kingdom|peninsula|township|borough|port)\b`
	// placeHead: the kind comes in the sense's first clause, before any
	// comma or note ("Qindu District in Xianyang City", "Shanghai
	// municipality"), but not as a modifier of a person or thing after a
	// note ("Sun Jian (155-191), famous general … kingdom of Wu").
	placeHead = regexp.MustCompile(`^[A-Z][^,;()]*?\b` + kindOfPlace)
	// placeApposition: "Nara, an old capital of Japan", "Lianjiang, a county
	// in Fuzhou", "Changyi, a county-level city".
	placeApposition = regexp.MustCompile(`^[A-Z][^,;()]*, (an? |the )?([a-z-]+ ){0,3}` + kindOfPlace)
	// placeNote: "Vancouver (city in Canada)", "Bali (island province of
	// Indonesia)", "Oxfordshire (English county)".
	placeNote = regexp.MustCompile(`^[A-Z][^,;()]*\([^()]*?\b` + kindOfPlace)
	// placeWithin: "Kyoto, Japan", "Hokkaidō, Japan": a name and the place
	// it is in (checked against the places found).
	placeWithin = regexp.MustCompile(`^[A-Z][^,;()]*, ([A-Z][^,;()]*)$`)
	// placeRefers: the names a place's description puts it in ("… in
	// Japan", "capital of France", "…, Shandong").
	placeRefers = regexp.MustCompile(`(?:\bin|\bof|,) ([A-Z][\p{L}'-]*(?: [A-Z][\p{L}'-]*)?)`)
	// kindWord is a word that is a kind of place (District in "Qindu
	// District"), not part of its name.
	kindWord = regexp.MustCompile(`(?i)^` + kindOfPlace)
	// placeSee: "see 深圳市[Shen1 zhen4 Shi4]", "see 青島市|青岛市[…]".
	placeSee = regexp.MustCompile(`^see (?:[^|\[]*\|)?(\p{Han}+)\[`)
)

// placeSuffixes end the full name a place's entry points to (深圳市,
// 云南省, 南山区, 大理白族自治州).
const placeSuffixes = "市省区县州镇岛国"

// placeFinder collects places while the dictionary is parsed: the
// entries described as places at once, and the proper nouns whose whole
// sense is a name a place's description puts another in, at the end.
type placeFinder struct {
	places map[string]bool       // simplified headword → a place
	named  map[string]bool       // English names of places: those descriptions put places in ("japan") and their own ("boston")
	proper map[string]properName // proper nouns decided in done
}

// properName is a proper noun's English name (lower case) and, for
// "Name, Place", the place it is in: it is a place when the place is
// (or, without one, when the name is).
type properName struct{ name, within string }

func newPlaceFinder() *placeFinder {
	return &placeFinder{places: make(map[string]bool), named: make(map[string]bool), proper: make(map[string]properName)}
}

// add reads one entry: its simplified headword, raw pinyin and first sense.
func (p *placeFinder) add(zh, pinyin, first string) {
	r, _ := utf8.DecodeRuneInString(pinyin)
	if !unicode.IsUpper(r) {
		return // not a proper noun
	}
	first = fold(strings.TrimSpace(first))
	if m := placeSee.FindStringSubmatch(first); m != nil {
		if last, _ := utf8.DecodeLastRuneInString(m[1]); strings.ContainsRune(placeSuffixes, last) {
			p.places[zh] = true
		}
		return
	}
	if placeHead.MatchString(first) || placeApposition.MatchString(first) || placeNote.MatchString(first) {
		p.places[zh] = true
		for _, m := range placeRefers.FindAllStringSubmatch(first, -1) {
			p.named[strings.ToLower(m[1])] = true
		}
		if name := leadingName(first); name != "" {
			p.named[name] = true
		}
		return
	}
	if m := placeWithin.FindStringSubmatch(first); m != nil {
		p.proper[zh] = properName{name: leadingName(first), within: strings.ToLower(m[1])}
		return
	}
	if isName(first) {
		p.proper[zh] = properName{name: strings.ToLower(first)}
	}
}

// done decides the entries that waited for the names found: a bare name
// that a place's description puts another in, and "Name, Place". It
// returns the places and the English names of places.
func (p *placeFinder) done() (places, names map[string]bool) {
	var found []string
	for zh, pn := range p.proper {
		if p.named[cmp.Or(pn.within, pn.name)] {
			p.places[zh] = true
			found = append(found, pn.name)
		}
	}
	for _, name := range found {
		if name != "" {
			p.named[name] = true
		}
	}
	return p.places, p.named
}

// fold spells the accented vowels of pinyin names plainly (Hokkaidō →
// Hokkaido), as chat writes them.
var fold = strings.NewReplacer("ā", "a", "á", "a", "ǎ", "a", "à", "a", "ē", "e", "é", "e", "ě", "e", "è", "e",
	"ī", "i", "í", "i", "ǐ", "i", "ì", "i", "ō", "o", "ó", "o", "ǒ", "o", "ò", "o",
	"ū", "u", "ú", "u", "ǔ", "u", "ù", "u", "ǖ", "u", "ǘ", "u", "ǚ", "u", "ǜ", "u", "ü", "u").Replace

// leadingName is the English name a place's description opens with, in
// lower case: "Boston, capital of Massachusetts" → boston, "Shanghai
// municipality" → shanghai, "Vancouver (city in Canada)" → vancouver;
// "" when it is longer than two words.
func leadingName(desc string) string {
	end := len(desc)
	for _, stop := range []string{",", "(", " in ", " of "} {
		if i := strings.Index(desc, stop); i >= 0 && i < end {
			end = i
		}
	}
	fs := strings.Fields(desc[:end])
	for len(fs) > 0 {
		last := fs[len(fs)-1]
		r, _ := utf8.DecodeRuneInString(last)
		if unicode.IsUpper(r) && !kindWord.MatchString(last) {
			break
		}
		fs = fs[:len(fs)-1]
	}
	if len(fs) == 0 || len(fs) > 2 || !isName(strings.Join(fs, " ")) {
		return ""
	}
	return strings.ToLower(strings.Join(fs, " "))
}

// isName reports whether a sense is a bare proper name of one or two
// capitalized words ("Japan", "New Zealand").
func isName(s string) bool {
	fs := strings.Fields(s)
	if len(fs) == 0 || len(fs) > 2 {
		return false
	}
	for _, f := range fs {
		r, _ := utf8.DecodeRuneInString(f)
		if !unicode.IsUpper(r) || !latinWord(strings.ToLower(f)) {
			return false
		}
	}
	return true
}

// Place reports whether a Chinese word (simplified) names a place: a
// city, province, district, country or island (深圳, 奈良, 巴厘, 日本).
func (d *Dict) Place(zh string) bool {
	if d == nil {
		return false
	}
	_, ok := d.places[zh]
	return ok
}

// Places returns the places a text names: its Chinese words that are
// places (Segment), and its capitalized English words or pairs of words
// not opening a sentence that are the English name of one ("Bali", "New
// York"; "Nice weather" opens a sentence and is not Nice).
func (d *Dict) Places(text string) []string {
	if d == nil || len(d.places) == 0 {
		return nil
	}
	var out []string
	for _, w := range d.Segment(text) {
		if d.Place(w) {
			out = append(out, w)
		}
	}
	words, opens := latinNames(text)
	for i := 0; i < len(words); i++ {
		if opens[i] || words[i] == "" {
			continue
		}
		if i+1 < len(words) && words[i+1] != "" {
			if two := words[i] + " " + words[i+1]; d.placeName(two) {
				out = append(out, two)
				i++
				continue
			}
		}
		if d.placeName(words[i]) {
			out = append(out, words[i])
		}
	}
	return out
}

// PlaceName reports whether en, in any case, is the English name of a
// place the dictionary knows (placeName): "lijiang", "Kunming".
func (d *Dict) PlaceName(en string) bool {
	if d == nil {
		return false
	}
	return d.placeName(en)
}

// placeName reports whether en is the English name of a place; a single
// word of three letters or fewer is not taken for one (Lin is a county
// and a user's name).
func (d *Dict) placeName(en string) bool {
	if len(en) < 4 {
		return false
	}
	_, ok := d.placeNames[strings.ToLower(en)]
	return ok
}

// latinNames splits text into its Latin words, keeping the capitalized
// ones (others become ""), and whether each opens a sentence: it is the
// text's first word or follows ., !, ?, a newline or Chinese text's end
// of sentence.
func latinNames(text string) (words []string, opens []bool) {
	open := true
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := string(cur)
		if !unicode.IsUpper(cur[0]) || len(cur) < 2 || strings.ToUpper(w) == w {
			w = "" // lower case, or an acronym (OK, USA)
		}
		words = append(words, w)
		opens = append(opens, open)
		open = false
		cur = cur[:0]
	}
	for _, r := range text {
		switch {
		case r < unicode.MaxASCII && unicode.IsLetter(r), r == '\'' && len(cur) > 0:
			cur = append(cur, r)
		default:
			flush()
			if strings.ContainsRune(".!?\n。！？", r) {
				open = true
			}
		}
	}
	flush()
	return words, opens
}
