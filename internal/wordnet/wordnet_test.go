package wordnet_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/wordnet"
)

func mini(t *testing.T) *wordnet.WordNet {
	t.Helper()
	w, err := wordnet.Load("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestKind: a noun names a kind when one of its senses is a kind of thing
// with enough below it; its things are found by any of their senses and
// in the plural.
func TestKind(t *testing.T) {
	w := mini(t)
	if got := w.Len(); got != 27 {
		t.Fatalf("Len = %d, want 27", got)
	}
	for _, tc := range []struct {
		noun, word string
		kind, has  bool
	}{
		{"race", "marathon", true, true},
		{"races", "marathon", true, true}, // a plural asks for the kind too
		{"race", "marathons", true, true},
		{"race", "relay race", true, true},
		{"race", "foot race", true, true},
		{"race", "harmonica", true, false},
		{"race", "race", true, false}, // the kind itself is no thing of it
		{"musical instrument", "harmonica", true, true},
		{"musical instrument", "harmonicas", true, true},
		{"instrument", "uke", true, true},
		{"musical instrument", "free-reed instrument", true, true},
		{"month", "may", false, false},    // a time is no kind of thing
		{"work", "project", false, false}, // more often a verb
		{"pet", "lapdog", false, false},   // too few below it
		{"violin", "", false, false},      // unknown
	} {
		k := w.Kind(tc.noun)
		if (k != nil) != tc.kind {
			t.Errorf("Kind(%q) = %v, want a kind: %v", tc.noun, k, tc.kind)
			continue
		}
		if got := k.Has(tc.word); got != tc.has {
			t.Errorf("Kind(%q).Has(%q) = %v, want %v", tc.noun, tc.word, got, tc.has)
		}
	}
}

// TestNearest: a word is read by its most frequent sense that is a thing
// of one of the kinds, and the kind nearest above that sense is its kind.
func TestNearest(t *testing.T) {
	w := mini(t)
	food, drink, pet := w.Sense("food", 1), w.Sense("beverage", 1), w.Sense("pet", 1)
	if food == nil || drink == nil || pet == nil || w.Sense("food", 2) != nil || w.Sense("violin", 1) != nil {
		t.Fatal("Sense: want food#1, beverage#1 and pet#1 only")
	}
	kinds := []*wordnet.Kind{food, drink, pet}
	for _, tc := range []struct {
		word string
		want int
	}{
		{"soda", 1},      // its first sense is no kind of these; a soft drink is a beverage before a food
		{"pop", 1},       //
		{"chicken", 0},   // food by its first sense
		{"chickens", 0},  // and in the plural
		{"lapdog", 2},    //
		{"marathon", -1}, // none of them
		{"violin", -1},   // unknown
	} {
		if got := w.Nearest(tc.word, kinds, 3); got != tc.want {
			t.Errorf("Nearest(%q) = %d, want %d", tc.word, got, tc.want)
		}
	}
	if got := w.Nearest("chicken", []*wordnet.Kind{pet}, 3); got != 0 {
		t.Errorf("Nearest(chicken, pet) = %d, want 0: its second sense is a pet", got)
	}
	if got := w.Nearest("soda", kinds, 1); got != -1 {
		t.Errorf("Nearest(soda, first sense only) = %d, want -1", got)
	}
	for _, tc := range []struct {
		word string
		kind int
		want bool
	}{
		{"chicken", 0, true}, {"chicken", 2, true}, // a food by one sense, a pet by another
		{"soda", 1, true}, {"soda", 0, false}, // a beverage before it is a food
		{"violin", 0, false},
	} {
		if got := w.NearestIs(tc.word, kinds, tc.kind); got != tc.want {
			t.Errorf("NearestIs(%q, %d) = %v, want %v", tc.word, tc.kind, got, tc.want)
		}
	}
	for word, want := range map[string]bool{"soda": true, "chickens": true, "same": false, "violin": false} {
		if got := w.Noun(word); got != want {
			t.Errorf("Noun(%q) = %v, want %v", word, got, want)
		}
	}
	if !drink.Is("beverage") || !pet.Is("pets") || drink.Is("soda") || food.Is("beverage") {
		t.Error("Is: want the kind's own words only")
	}
	if !pet.Has("chicken") || !food.Has("soda") {
		t.Error("Has: want any sense read")
	}
}

func TestParseErrors(t *testing.T) {
	for name, data := range map[string]string{
		"word count":    "00000010 11 n zz race 0 000 | x\n",
		"pointer count": "00000010 11 n 01 race 0 0x1 | x\n",
		"short":         "00000010 11\n",
		"empty":         "  1 licence only\n",
	} {
		_, err := wordnet.Parse(strings.NewReader(data), strings.NewReader(""), strings.NewReader(""), strings.NewReader(""))
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := wordnet.Load(t.TempDir()); err == nil {
		t.Error("Load of an empty folder: no error")
	}
}

// TestVerbForms: the irregular forms of a verb, each once and never the
// verb itself (bet: betted, not bet); none for a regular verb, and none
// at all from a folder without the forms file.
func TestVerbForms(t *testing.T) {
	w := mini(t)
	for verb, want := range map[string][]string{
		"grow": {"grew", "grown"}, "bet": {"betted"}, "buy": {"bought"}, "walk": nil, "race": nil,
	} {
		if got := w.VerbForms(verb); !slices.Equal(got, want) {
			t.Errorf("VerbForms(%q) = %v, want %v", verb, got, want)
		}
	}
	dir := t.TempDir()
	for _, name := range []string{wordnet.DataFile, wordnet.IndexFile, wordnet.VerbFile, wordnet.AdjFile} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bare, err := wordnet.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := bare.VerbForms("grow"); got != nil {
		t.Errorf("without %s: VerbForms(grow) = %v", wordnet.VerbFormsFile, got)
	}
	if err := os.MkdirAll(filepath.Join(dir, "irregular"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, wordnet.VerbFormsFile), []byte(`{"grow": [["grew"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wordnet.Load(dir); err == nil {
		t.Errorf("a broken %s: no error", wordnet.VerbFormsFile)
	}
}

// TestWordNet31: the kinds a chat's questions ask for, in the installed
// WordNet 3.1 (scripts/fetch-wordnet.sh; skipped without it).
func TestWordNet31(t *testing.T) {
	dir := filepath.Join("..", "..", "models", "wordnet")
	if _, err := os.Stat(filepath.Join(dir, wordnet.DataFile)); err != nil {
		t.Skip("models/wordnet not installed (make setup)")
	}
	w, err := wordnet.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		noun, word string
		has        bool
	}{
		{"race", "marathon", true},
		{"musical instrument", "ukulele", true},
		{"musical instrument", "harmonica", true},
		{"sport", "rock climbing", true},
		{"sport", "badminton", true},
		{"medication", "penicillin", true},
		{"language", "german", true},
		{"drink", "latte", true},
		{"sport", "harmonica", false},
	} {
		if got := w.Kind(tc.noun).Has(tc.word); got != tc.has {
			t.Errorf("Kind(%q).Has(%q) = %v, want %v", tc.noun, tc.word, got, tc.has)
		}
	}
	for verb, form := range map[string]string{"grow": "grew", "buy": "bought", "meet": "met", "win": "won", "choose": "chose"} {
		if !slices.Contains(w.VerbForms(verb), form) {
			t.Errorf("VerbForms(%q) = %v, want %s among them (scripts/fetch-wordnet.sh fetches %s)", verb, w.VerbForms(verb), form, wordnet.VerbFormsFile)
		}
	}
	for _, noun := range []string{"work", "month", "friend", "activity", "food"} {
		if k := w.Kind(noun); k != nil {
			t.Errorf("Kind(%q) is a kind, want none", noun)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	dir := filepath.Join("..", "..", "models", "wordnet")
	if _, err := os.Stat(filepath.Join(dir, wordnet.DataFile)); err != nil {
		b.Skip("models/wordnet not installed (make setup)")
	}
	for b.Loop() {
		if _, err := wordnet.Load(dir); err != nil {
			b.Fatal(err)
		}
	}
}
