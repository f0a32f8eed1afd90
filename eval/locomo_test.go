package eval

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

func TestParseLoCoMoTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		err  bool
	}{
		{"1:56 pm on 8 May, 2023", time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), false},
		{"10:04 am on 19 June, 2023", time.Date(2023, 6, 19, 10, 4, 0, 0, time.UTC), false},
		{"12:09 am on 13 September, 2023", time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC), false},
		{"12:30 pm on 1 January, 2024", time.Date(2024, 1, 1, 12, 30, 0, 0, time.UTC), false},
		{" 1:56  pm on 8 May, 2023 ", time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC), false},
		{"8 May 2023", time.Time{}, true},
		{"13:56 on 8 May, 2023", time.Time{}, true},
		{"", time.Time{}, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseLoCoMoTime(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if !got.Equal(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNormalizeEvidence(t *testing.T) {
	turns := map[string]bool{"D1:3": true, "D8:6": true, "D9:17": true, "D11:26": true, "D1:18": true, "D1:20": true}
	for _, tc := range []struct {
		name         string
		in           []string
		ids, dropped []string
	}{
		{"clean", []string{"D1:3"}, []string{"D1:3"}, nil},
		{"two ids in one string", []string{"D8:6; D9:17"}, []string{"D8:6", "D9:17"}, nil},
		{"space separated", []string{"D8:6 D9:17", "D1:3;D1:18"}, []string{"D8:6", "D9:17", "D1:3", "D1:18"}, nil},
		{"bare D", []string{"D1:18", "D", "D1:20"}, []string{"D1:18", "D1:20"}, []string{"D"}},
		{"extra colon", []string{"D:11:26"}, nil, []string{"D:11:26"}},
		{"missing turn", []string{"D10:19", "D1:3"}, []string{"D1:3"}, []string{"D10:19"}},
		{"repeats", []string{"D1:3", "D1:3; D1:3"}, []string{"D1:3"}, nil},
		{"lowercase or junk", []string{"d1:3", "D1-3", "D1:3a"}, nil, []string{"d1:3", "D1-3", "D1:3a"}},
		{"empty", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, dropped := NormalizeEvidence(tc.in, turns)
			if diff := cmp.Diff(tc.ids, ids, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.dropped, dropped, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
		})
	}
}

// recordHandler keeps the messages of the records it sees.
type recordHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.msgs = append(h.msgs, r.Level.String()+" "+r.Message)
	return nil
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

func TestLoadLoCoMoSlice(t *testing.T) {
	h := &recordHandler{}
	s, err := LoadSuite("testdata/loader/locomo_slice.json", slog.New(h))
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != FormatLoCoMo || s.Key != "locomo_slice" || s.Name != "LoCoMo locomo_slice" {
		t.Errorf("header = %q %q %q", s.Format, s.Key, s.Name)
	}
	if len(s.Users) != 1 || s.Users[0].UserID != "conv-x" {
		t.Fatalf("users = %+v", s.Users)
	}
	may8 := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	sep13 := time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC)
	jun19 := time.Date(2023, 6, 19, 10, 4, 0, 0, time.UTC)
	msg := func(id, speaker, text string, at time.Time, session string) Message {
		return Message{ID: id, Role: "user", Content: text, CreatedAt: at, ConversationID: "conv-x/" + session,
			SenderID: speaker, SenderName: speaker}
	}
	want := []Message{
		msg("D1:1", "Ada", "Hi Ben! How was the climbing trip?", may8, "session_1"),
		msg("D1:2", "Ben", "Great, we reached the top of Mount Tam on Sunday.", may8.Add(time.Second), "session_1"),
		msg("D1:3", "Ada", "I signed up for a pottery class yesterday.", may8.Add(2*time.Second), "session_1"),
		msg("D1:4", "Ben", "Look at what I made last week. [image: a photo of a blue ceramic bowl on a table]", may8.Add(3*time.Second), "session_1"),
		// Sessions go by number (2 before 10), not by key order or date.
		msg("D2:1", "Ada", "The pottery class moved to Thursdays.", sep13, "session_2"),
		msg("D2:2", "Ben", "Thursdays work for me too.", sep13.Add(time.Second), "session_2"),
		msg("D10:1", "Ben", "I adopted a cat named Miso.", jun19, "session_10"),
		msg("D10:2", "Ada", "Miso is such a cute name!", jun19.Add(time.Second), "session_10"),
	}
	if diff := cmp.Diff(want, s.Users[0].Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	// The clock of every question is a day after the last session with turns.
	now := sep13.Add(24 * time.Hour)
	wantCases := []Case{
		{ID: "conv-x/qa0", UserID: "conv-x", Question: "When did Ada sign up for a pottery class?", Now: now,
			Category: CategoryTemporal, GoldEvidence: []string{"D1:3"}, Note: "answer: 7 May 2023", Split: SplitReport},
		{ID: "conv-x/qa1", UserID: "conv-x", Question: "What did Ben make and adopt?", Now: now,
			Category: CategoryMultiHop, GoldEvidence: []string{"D1:4", "D10:1"}, Note: "answer: 2023", Split: SplitTune},
		{ID: "conv-x/qa2", UserID: "conv-x", Question: "Which ids are broken?", Now: now,
			Category: CategorySingleHop, GoldEvidence: []string{"D1:2"}, Note: "answer: x", Split: SplitReport},
		// qa3 has no evidence and qa5 only a broken id: both skipped.
		{ID: "conv-x/qa4", UserID: "conv-x", Question: "What did Ada name her cat?", Now: now,
			Category: CategoryAdversarial, AcceptableEvidence: []string{"D10:1"}, Note: "adversarial answer: Miso", Split: SplitReport},
	}
	if diff := cmp.Diff(wantCases, s.Cases); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
	if !s.Cases[3].NoEvidence() {
		t.Error("an adversarial case should find nothing")
	}
	wantLog := []string{
		"WARN locomo: dropped evidence id", "WARN locomo: dropped evidence id", "WARN locomo: dropped evidence id",
		"WARN locomo: skipped question without evidence",
		"WARN locomo: dropped evidence id", "WARN locomo: skipped question without evidence",
	}
	if diff := cmp.Diff(wantLog, h.msgs); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, w := range []string{"Evidence ids dropped (unparsable or naming no turn): 4.", "Questions skipped for lack of evidence: 2.", "1 multi-hop, 2 temporal"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}

func TestParseLoCoMoErrors(t *testing.T) {
	turn := `{"speaker": "A", "dia_id": "D1:1", "text": "hi"}`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty array", `[]`, "no samples"},
		{"no sample id", `[{"conversation": {}}]`, "has no sample_id"},
		{"no sessions", `[{"sample_id": "s", "conversation": {"speaker_a": "A"}}]`, "no sessions"},
		{"no date", `[{"sample_id": "s", "conversation": {"session_1": [` + turn + `]}}]`, "has no session_1_date_time"},
		{"bad date", `[{"sample_id": "s", "conversation": {"session_1_date_time": "yesterday", "session_1": [` + turn + `]}}]`, `session time "yesterday"`},
		{"repeated dia_id", `[{"sample_id": "s", "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [` + turn + `,` + turn + `]}}]`, "repeated dia_id"},
		{"unknown category", `[{"sample_id": "s", "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [` + turn + `]},
			"qa": [{"question": "q", "evidence": ["D1:1"], "category": 7}]}]`, "unknown category 7"},
		{"twice", `[{"sample_id": "s", "conversation": {"session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": [` + turn + `]}},
			{"sample_id": "s", "conversation": {}}]`, `sample_id "s" used twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLoCoMo([]byte(tc.in), "x", nil)
			if !errors.Is(err, ErrInvalidSuite) {
				t.Fatalf("err = %v, want ErrInvalidSuite", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error lacks %q: %v", tc.want, err)
			}
		})
	}
}
