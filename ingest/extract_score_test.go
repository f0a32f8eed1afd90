package ingest_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/internal/wordnet"
	"github.com/recalld/recalld/storage"
)

// The extraction scorer: every observation of testdata/observations.json
// goes through the offline historian as the only observation of a private
// turn, and the traits its merge writes into an empty user profile are
// matched against the labels.
//
// Matching: a trait matches a labelled fact when its category is one of the
// fact's categories, its polarity is the fact's (when the label gives one),
// and every key of the fact occurs in the trait's value, both normalized
// (lower case, without spaces and punctuation). Each labelled fact matches
// at most one trait. A trait that matches a required fact is a true
// positive of its category; one that matches an optional fact counts
// nowhere; any other trait is a false positive of its category. A required
// fact left unmatched is a miss of its first category.

// extractMisses prints the misses and false facts of a split besides the
// tune split's (go test -run TestExtractionReport -v ./ingest
// -extract.misses=report). Reading them is for the README's "what it
// misses"; the report split is not tuned on.
var extractMisses = flag.String("extract.misses", "tune", "splits whose misses TestExtractionReport prints (comma-separated)")

// extractSince scores only the observations numbered from it on (zh1020,
// en1021… for 1020), to measure one batch (go test -run
// TestExtractionReport -v ./ingest -extract.since=1020); the floors are
// not enforced then.
var extractSince = flag.Int("extract.since", 0, "score only observations numbered from this on (a batch)")

type labelledFact struct {
	Category []string `json:"category"`
	Polarity string   `json:"polarity,omitempty"`
	Keys     []string `json:"keys"`
	Optional bool     `json:"optional,omitempty"`
}

type labelledObservation struct {
	ID    string `json:"id"`
	Split string `json:"split"`
	Lang  string `json:"lang"`
	Kind  string `json:"kind"`
	// Sender is the name the bot knows the user by ("Priya said she's
	// originally from Pune"); empty: 张三 for zh, Alice for en.
	Sender string         `json:"sender,omitempty"`
	Text   string         `json:"text"`
	Facts  []labelledFact `json:"facts"`
}

// extractKinds scores the extractor as serve runs it, with WordNet and
// CC-CEDICT (make setup); -extract.kinds=false scores the lexicon's word
// lists alone.
var extractKinds = flag.Bool("extract.kinds", true, "score with WordNet and CC-CEDICT (models/wordnet, models/cc-cedict)")

var (
	kindsOnce sync.Once
	kinds     *ingest.Kinds
	kindsErr  error
)

// testKinds returns the kinds serve gives the historian, loaded once; the
// test is skipped without the model files.
func testKinds(tb testing.TB) *ingest.Kinds {
	tb.Helper()
	if !*extractKinds {
		return nil
	}
	kindsOnce.Do(func() {
		w, err := wordnet.Load("../models/wordnet")
		if err != nil {
			kindsErr = err
			return
		}
		d, err := bilingual.Load("../models/cc-cedict")
		if err != nil {
			kindsErr = err
			return
		}
		kinds = ingest.NewKinds(w, d)
	})
	if kindsErr != nil {
		tb.Skipf("WordNet or CC-CEDICT not found (run make setup): %v", kindsErr)
	}
	return kinds
}

// number is the observation's number (1020 for zh1020).
func (o labelledObservation) number() int {
	n, _ := strconv.Atoi(strings.TrimLeft(o.ID, "abcdefghijklmnopqrstuvwxyz"))
	return n
}

func loadObservations(tb testing.TB) []labelledObservation {
	tb.Helper()
	b, err := os.ReadFile("testdata/observations.json")
	if err != nil {
		tb.Fatal(err)
	}
	var f struct {
		Observations []labelledObservation `json:"observations"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		tb.Fatal(err)
	}
	return f.Observations
}

// normFact is s in lower case without spaces and punctuation.
func normFact(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (f labelledFact) matches(t storage.Trait) bool {
	if !slices.Contains(f.Category, t.Category) || f.Polarity != "" && f.Polarity != t.Polarity {
		return false
	}
	v := normFact(t.Value)
	for _, k := range f.Keys {
		if !strings.Contains(v, normFact(k)) {
			return false
		}
	}
	return true
}

// profileTraits runs text through the offline historian as a private turn
// of the subject and returns the traits of the user profile it makes.
func profileTraits(tb testing.TB, h *ingest.Historian, text string, subj ingest.Subject) []storage.Trait {
	tb.Helper()
	turn := ingest.TurnEnd{Observations: []string{text}, SenderID: subj.ID, SenderName: subj.Name,
		RequestType: ingest.RequestPrivate, Timestamp: time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)}
	res, err := h.Process(tb.Context(), ingest.Job{Job: storage.Job{ID: "j1", UserID: "u1"}, Turn: turn})
	if err != nil {
		tb.Fatal(err)
	}
	for _, m := range res.Profiles {
		if m.EntityType == storage.EntityUser && m.EntityID == subj.ID {
			return m.Apply(storage.Profile{EntityType: storage.EntityUser, EntityID: subj.ID}).Traits
		}
	}
	return nil
}

type extractCount struct{ tp, fp, fn int }

func (c extractCount) precision() float64 { return ratio(c.tp, c.tp+c.fp) }
func (c extractCount) recall() float64    { return ratio(c.tp, c.tp+c.fn) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

type extractScore struct {
	byCat  map[string]*extractCount
	byLang map[string]*extractCount
	total  extractCount
	misses []string
	// kinds counts the observations of each kind, and wrong those that
	// wrote a false fact into the profile.
	kinds, wrong map[string]int
}

// scoreExtraction scores the observations of one split.
func scoreExtraction(tb testing.TB, obs []labelledObservation, split string) extractScore {
	h := ingest.NewHistorian(ingest.HistorianConfig{Kinds: testKinds(tb)})
	subjects := map[string]ingest.Subject{"zh": {ID: "qq:10001", Name: "张三"}, "en": {ID: "qq:20002", Name: "Alice"}}
	sc := extractScore{byCat: map[string]*extractCount{}, byLang: map[string]*extractCount{}, kinds: map[string]int{}, wrong: map[string]int{}}
	count := func(cat string) *extractCount {
		if sc.byCat[cat] == nil {
			sc.byCat[cat] = &extractCount{}
		}
		return sc.byCat[cat]
	}
	for _, o := range obs {
		if o.Split != split || o.number() < *extractSince {
			continue
		}
		subj := subjects[o.Lang]
		if o.Sender != "" {
			subj.Name = o.Sender
		}
		traits := profileTraits(tb, h, o.Text, subj)
		used := make([]bool, len(o.Facts))
		if sc.byLang[o.Lang] == nil {
			sc.byLang[o.Lang] = &extractCount{}
		}
		lang := sc.byLang[o.Lang]
		sc.kinds[o.Kind]++
		wrong := false
		for _, t := range traits {
			i := -1
			for j := range o.Facts {
				if !used[j] && o.Facts[j].matches(t) {
					i = j
					break
				}
			}
			switch {
			case i >= 0 && !o.Facts[i].Optional:
				used[i] = true
				count(t.Category).tp++
				sc.total.tp++
				lang.tp++
			case i >= 0:
				used[i] = true
			default:
				count(t.Category).fp++
				sc.total.fp++
				lang.fp++
				wrong = true
				sc.misses = append(sc.misses, fmt.Sprintf("%s %-9s false %s:%s %q  <- %s", o.ID, o.Kind, t.Category, t.Polarity, t.Value, o.Text))
			}
		}
		for j, f := range o.Facts {
			if used[j] || f.Optional {
				continue
			}
			count(f.Category[0]).fn++
			sc.total.fn++
			lang.fn++
			sc.misses = append(sc.misses, fmt.Sprintf("%s %-9s miss  %s:%s %v  <- %s", o.ID, o.Kind, strings.Join(f.Category, "/"), f.Polarity, f.Keys, o.Text))
		}
		if wrong {
			sc.wrong[o.Kind]++
		}
	}
	return sc
}

// extractFloors are just under what the extractor reaches; a change that
// lowers a split's precision or recall past them fails.
var extractFloors = map[string]struct{ precision, recall float64 }{
	"tune":   {0.94, 0.87},
	"report": {0.88, 0.63},
}

// TestExtractionReport prints precision and recall per category on each
// split of the labelled observations and enforces the floors:
//
//	go test -run TestExtractionReport -v ./ingest
func TestExtractionReport(t *testing.T) {
	obs := loadObservations(t)
	splits := []string{"tune", "report"}
	scores := map[string]extractScore{}
	cats := map[string]bool{}
	for _, s := range splits {
		scores[s] = scoreExtraction(t, obs, s)
		for c := range scores[s].byCat {
			cats[c] = true
		}
	}
	var names []string
	for c := range cats {
		names = append(names, c)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "\n| category | tune P | tune R | tune n | report P | report R | report n |\n|---|---|---|---|---|---|---|\n")
	row := func(name string, cs []extractCount) {
		fmt.Fprintf(&b, "| %s |", name)
		for _, c := range cs {
			fmt.Fprintf(&b, " %.2f | %.2f | %d |", c.precision(), c.recall(), c.tp+c.fn)
		}
		b.WriteString("\n")
	}
	for _, c := range names {
		var cs []extractCount
		for _, s := range splits {
			if n := scores[s].byCat[c]; n != nil {
				cs = append(cs, *n)
			} else {
				cs = append(cs, extractCount{})
			}
		}
		row(c, cs)
	}
	// A batch in one language has no count of the other.
	lang := func(s, l string) extractCount {
		if n := scores[s].byLang[l]; n != nil {
			return *n
		}
		return extractCount{}
	}
	for _, l := range []string{"zh", "en"} {
		row("*"+l+"*", []extractCount{lang("tune", l), lang("report", l)})
	}
	row("**all**", []extractCount{scores["tune"].total, scores["report"].total})
	fmt.Fprintf(&b, "\n| kind | tune: observations with a false fact | report: observations with a false fact |\n|---|---|---|\n")
	for _, k := range []string{"fact", "neg", "used", "mood", "joke", "hypo", "question", "third", "assistant"} {
		fmt.Fprintf(&b, "| %s | %d / %d | %d / %d |\n", k, scores["tune"].wrong[k], scores["tune"].kinds[k], scores["report"].wrong[k], scores["report"].kinds[k])
	}
	for _, s := range splits {
		sc := scores[s]
		fmt.Fprintf(&b, "\n%s: P %.3f R %.3f (zh %.3f/%.3f, en %.3f/%.3f)", s, sc.total.precision(), sc.total.recall(),
			lang(s, "zh").precision(), lang(s, "zh").recall(), lang(s, "en").precision(), lang(s, "en").recall())
	}
	t.Log(b.String())
	for _, s := range strings.Split(*extractMisses, ",") {
		if sc, ok := scores[s]; ok {
			t.Logf("%s misses and false facts:\n%s", s, strings.Join(sc.misses, "\n"))
		}
	}
	if *extractSince > 0 {
		return
	}
	for _, s := range splits {
		tot, floor := scores[s].total, extractFloors[s]
		if tot.precision() < floor.precision || tot.recall() < floor.recall {
			t.Errorf("%s: precision %.3f recall %.3f, floors %.2f %.2f", s, tot.precision(), tot.recall(), floor.precision, floor.recall)
		}
	}
}

// TestObservationSet keeps the labelled set what the README says it is.
func TestObservationSet(t *testing.T) {
	obs := loadObservations(t)
	n := map[string]int{}
	ids := map[string]bool{}
	for _, o := range obs {
		n[o.Split]++
		n[o.Lang]++
		if ids[o.ID] {
			t.Errorf("duplicate id %s", o.ID)
		}
		ids[o.ID] = true
		if o.Split != "tune" && o.Split != "report" || o.Text == "" {
			t.Errorf("%s: split %q text %q", o.ID, o.Split, o.Text)
		}
		for _, f := range o.Facts {
			if len(f.Category) == 0 || len(f.Keys) == 0 {
				t.Errorf("%s: fact without category or keys: %+v", o.ID, f)
			}
		}
	}
	if len(obs) < 100 || n["zh"]*10 < len(obs)*6 || max(n["tune"]-n["report"], n["report"]-n["tune"]) > max(2, len(obs)/100) {
		t.Fatalf("%d observations, %d zh, %d tune, %d report", len(obs), n["zh"], n["tune"], n["report"])
	}
}
