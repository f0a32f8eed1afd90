package eval

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLoadFixture(t *testing.T) {
	s, err := LoadSuite("testdata/loader/ok.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "loader smoke suite" || s.Key != "ok" || s.Format != FormatFixture || s.Source != "testdata/loader/ok.json" {
		t.Errorf("header = %q %q %q %q", s.Name, s.Key, s.Format, s.Source)
	}
	if got := s.MessageCount(); got != 8 {
		t.Errorf("MessageCount = %d, want 8", got)
	}
	wantMsg := Message{
		ID: "m1", Role: "user", Content: "我不吃辣，一点都不行", CreatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC),
		ConversationID: "c1", SenderID: "qq:1", SenderName: "小王",
	}
	if diff := cmp.Diff(wantMsg, s.Users[0].Messages[0]); diff != "" {
		t.Errorf("first message (-want +got):\n%s", diff)
	}
	if got := s.Users[1].Messages[0].GroupID; got != "g1" {
		t.Errorf("group_id = %q", got)
	}
	wantCase := Case{
		ID: "pref-zh", UserID: "u_1", Question: "我能吃辣吗？", Now: time.Date(2026, 4, 1, 4, 0, 0, 0, time.UTC),
		Category: CategoryPreference, GoldEvidence: []string{"m1"}, AcceptableEvidence: []string{"m2"},
		ForbiddenEvidence: []string{}, ExpectedKeywords: []string{"不吃辣"}, Note: "Chinese preference",
		Split: SplitReport,
	}
	if diff := cmp.Diff(wantCase, s.Cases[0], cmp.Comparer(time.Time.Equal)); diff != "" {
		t.Errorf("first case (-want +got):\n%s", diff)
	}
	var ids, empty []string
	for _, c := range s.Cases {
		ids = append(ids, c.ID)
		if c.NoEvidence() {
			empty = append(empty, c.ID)
		}
	}
	if diff := cmp.Diff([]string{"pref-zh", "background-en", "conflict-atlas", "phrase-violin", "absent-pet", "cross-hotpot"}, ids); diff != "" {
		t.Errorf("case ids (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"absent-pet", "cross-hotpot"}, empty); diff != "" {
		t.Errorf("no-evidence cases (-want +got):\n%s", diff)
	}
}

func TestLoadSuiteErrors(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		want       []string // substrings of the error
	}{
		{"unknown field", "testdata/loader/unknown_field.json", []string{`unknown field "gold_evidnce"`}},
		{"bad references", "testdata/loader/bad_refs.json", []string{
			`user "u" message "m1": id used twice`,
			`role "robot" is not user, assistant, system or tool`,
			`content is empty`,
			`created_at: "March 1st" is not an RFC 3339 time`,
			`case "c1": gold_evidence "v1" is not a message of user "u"`,
			`case "c1": id used twice`,
			`user_id "w" is not a user of the suite`,
			`question is empty`,
			`now: missing`,
			`category "favourite" is not one of`,
			`case "c3": an absent case has no gold_evidence`,
			`forbidden_evidence "zz" is not a message of any user`,
			`"m1" is both forbidden and gold or acceptable`,
			`case "c4": gold_evidence is empty`,
		}},
		{"missing file", "testdata/loader/nope.json", []string{"no such file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadSuite(tc.path, nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestParseFixtureErrors(t *testing.T) {
	const user = `"users": [{"user_id": "u", "messages": [{"id": "m1", "role": "user", "content": "hi", "created_at": "2026-03-01T09:00:00Z"}]}]`
	for _, tc := range []struct {
		name, in, want string
	}{
		{"syntax error has a position", "{\n\"name\": \"x\",\n\"users\": [}", "line 3 column"},
		{"wrong type has a position", `{"name": 3}`, "line 1 column"},
		{"trailing data", `{"name": "x", ` + user + `, "cases": []} {}`, "data after the suite object"},
		{"no name or cases", `{"name": " ", ` + user + `, "cases": []}`, "name is empty"},
		{"no cases", `{"name": "x", ` + user + `, "cases": []}`, "no cases"},
		{"no users", `{"name": "x", "users": [], "cases": []}`, "no users"},
		{"not an object", `"suite"`, "cannot unmarshal"},
		{"duplicate evidence", `{"name": "x", ` + user + `, "cases": [{"id": "c", "user_id": "u", "question": "q",
			"now": "2026-03-02T00:00:00Z", "category": "background", "gold_evidence": ["m1", "m1"]}]}`, `evidence id "m1" listed twice`},
		{"empty keyword", `{"name": "x", ` + user + `, "cases": [{"id": "c", "user_id": "u", "question": "q",
			"now": "2026-03-02T00:00:00Z", "category": "background", "gold_evidence": ["m1"], "expected_keywords": [""]}]}`, "an expected keyword is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFixture([]byte(tc.in))
			if !errors.Is(err, ErrInvalidSuite) {
				t.Fatalf("err = %v, want ErrInvalidSuite", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error lacks %q: %v", tc.want, err)
			}
		})
	}
}

func TestLoadSuiteNeitherFormat(t *testing.T) {
	path := t.TempDir() + "/x.json"
	if err := writeFile(path, "  42"); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSuite(path, nil); !errors.Is(err, ErrInvalidSuite) {
		t.Errorf("err = %v, want ErrInvalidSuite", err)
	}
}

func TestSplit(t *testing.T) {
	s, err := LoadSuite("testdata/core.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, c := range s.Cases {
		if c.Split != SplitOf(c.ID) && c.Split == "" {
			t.Errorf("case %s has no split", c.ID)
		}
		n[c.Split]++
	}
	if n[SplitTune] == 0 || n[SplitReport] == 0 || len(n) != 2 {
		t.Errorf("halves %v: want both tune and report, nothing else", n)
	}
	if a, b := SplitOf("zh-absent-car"), SplitOf("zh-absent-car"); a != b {
		t.Error("SplitOf is not deterministic")
	}
	_, err = ParseFixture([]byte(`{"name":"x","users":[{"user_id":"u","messages":[{"id":"m1","role":"user","content":"hi","created_at":"2026-01-01T00:00:00Z"}]}],
"cases":[{"id":"c","user_id":"u","question":"q","now":"2026-01-02T00:00:00Z","category":"absent","split":"train"}]}`))
	if !errors.Is(err, ErrInvalidSuite) {
		t.Errorf("split train: got %v, want ErrInvalidSuite", err)
	}
}

func TestLanguage(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"我现在住在哪个城市？", LangZH},
		{"我最近 3 天说了什么？", LangZH},
		{"Where do I live now?", LangEN},
		{"Kite 上线时间后来改了吗？", LangMixed},
		{"Café déjà vu?", LangEN},
		{"", LangEN},
	} {
		if got := Language(tc.q); got != tc.want {
			t.Errorf("Language(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}
