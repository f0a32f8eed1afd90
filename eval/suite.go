package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/recalld/recalld/storage"
)

// ErrInvalidSuite is returned for a suite file that cannot be used: bad
// JSON, unknown fields, or cases that point at messages that do not exist.
var ErrInvalidSuite = errors.New("eval: invalid suite")

// Suite formats.
const (
	FormatFixture = "fixture"
	FormatLoCoMo  = "locomo"
)

// Categories of the project's fixture format.
const (
	CategoryPreference     = "preference"
	CategoryBackground     = "background"
	CategoryConstraint     = "constraint"
	CategoryConflict       = "conflict"
	CategoryParaphrase     = "paraphrase"
	CategoryExactPhrase    = "exact_phrase"
	CategoryRecentWindow   = "recent_window"
	CategoryProjectThread  = "project_thread"
	CategoryAssistantNoise = "assistant_noise"
	// CategoryPreamble: a question asked after a chatty preamble with no
	// turn marker ("早上地铁又挤爆了，烦死。我每天通勤多久？").
	CategoryPreamble  = "preamble"
	CategoryAbsent    = "absent"
	CategoryCrossUser = "cross_user"
)

// FixtureCategories lists the categories a fixture case may have, in report order.
func FixtureCategories() []string {
	return []string{
		CategoryPreference, CategoryBackground, CategoryConstraint, CategoryConflict, CategoryParaphrase,
		CategoryExactPhrase, CategoryRecentWindow, CategoryProjectThread, CategoryAssistantNoise,
		CategoryPreamble, CategoryAbsent, CategoryCrossUser,
	}
}

// Suite is one evaluation data set in memory: users' messages to ingest and
// the cases asked about them. Both file formats load into it.
type Suite struct {
	// Name is the suite's own name ("name" of a fixture; "LoCoMo <file>").
	Name string `json:"name"`
	// Key is the short name reports and floors use: the file's base name
	// without its extension.
	Key string `json:"key"`
	// Source is the path the suite was loaded from.
	Source string `json:"source"`
	// Format is FormatFixture or FormatLoCoMo.
	Format string `json:"format"`
	Users  []User `json:"users"`
	Cases  []Case `json:"cases"`
	// Notes are what the loader normalised or dropped, for the report.
	Notes []string `json:"notes,omitempty"`
}

// User is one user scope and its messages.
type User struct {
	UserID   string    `json:"user_id"`
	Messages []Message `json:"messages"`
}

// Message is one message of a fixture, as the bot would send it.
type Message struct {
	ID             string    `json:"id"`
	Role           string    `json:"role"`
	Content        string    `json:"content"`
	CreatedAt      time.Time `json:"created_at"`
	ConversationID string    `json:"conversation_id"`
	GroupID        string    `json:"group_id"`
	SenderID       string    `json:"sender_id"`
	SenderName     string    `json:"sender_name"`
}

// Case is one question with the evidence a good answer cites.
type Case struct {
	ID       string    `json:"id"`
	UserID   string    `json:"user_id"`
	Question string    `json:"question"`
	Now      time.Time `json:"now"` // the clock at which the question is asked
	Category string    `json:"category"`
	// GoldEvidence are the ids that must be found; none means the case
	// should find nothing.
	GoldEvidence []string `json:"gold_evidence"`
	// AcceptableEvidence may be cited without counting against precision.
	AcceptableEvidence []string `json:"acceptable_evidence"`
	// ForbiddenEvidence must not be cited (superseded, other users', jokes).
	ForbiddenEvidence []string `json:"forbidden_evidence"`
	// ExpectedKeywords are strings a correct view of the evidence contains.
	ExpectedKeywords []string `json:"expected_keywords"`
	Note             string   `json:"note"`
	// Split is SplitTune or SplitReport: rules are tuned on the tune half
	// and reported on the report half. A fixture case may set it; else
	// SplitOf(ID) decides.
	Split string `json:"split"`
}

// Halves of a suite (Case.Split).
const (
	SplitTune   = "tune"
	SplitReport = "report"
)

// Splits lists the halves in report order.
func Splits() []string { return []string{SplitTune, SplitReport} }

// SplitOf is the deterministic half of a case id without an explicit
// split: FNV-1a of the id, even to tune, odd to report.
func SplitOf(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	if h.Sum32()%2 == 0 {
		return SplitTune
	}
	return SplitReport
}

// Question languages (Language), by the script of the question.
const (
	LangZH    = "zh"
	LangEN    = "en"
	LangMixed = "mixed"
)

// Languages lists the question languages in report order.
func Languages() []string { return []string{LangZH, LangEN, LangMixed} }

// Language names the script of a question: zh when it has Han characters
// and no Latin letters, en when it has no Han characters, mixed when it has
// both ("Kite 上线时间后来改了吗？").
func Language(question string) string {
	han, latin := false, false
	for _, r := range question {
		switch {
		case unicode.Is(unicode.Han, r):
			han = true
		case r < 0x250 && unicode.IsLetter(r):
			latin = true
		}
	}
	switch {
	case !han:
		return LangEN
	case latin:
		return LangMixed
	}
	return LangZH
}

// NoEvidence reports whether the case should find nothing.
func (c Case) NoEvidence() bool { return len(c.GoldEvidence) == 0 }

// Absent reports whether the case asks about something never said: a
// fixture `absent` case or a LoCoMo adversarial (category 5) question. The
// right answer is no_evidence. Other cases without gold (cross_user) may
// cite acceptable evidence, such as the user's own opposite statement.
func (c Case) Absent() bool {
	return c.NoEvidence() && (c.Category == CategoryAbsent || c.Category == CategoryAdversarial)
}

// MessageCount returns the number of messages of all users.
func (s *Suite) MessageCount() int {
	n := 0
	for _, u := range s.Users {
		n += len(u.Messages)
	}
	return n
}

// LoadSuite reads a suite file: a JSON object is the project's fixture
// format, a JSON array a LoCoMo file. LoCoMo normalisation warnings go to
// log (nil discards them).
func LoadSuite(path string, log *slog.Logger) (*Suite, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: read suite: %w", err)
	}
	key := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var s *Suite
	switch t := bytes.TrimLeft(b, " \t\r\n\ufeff"); {
	case len(t) > 0 && t[0] == '[':
		s, err = ParseLoCoMo(b, key, log)
	case len(t) > 0 && t[0] == '{':
		s, err = ParseFixture(b)
	default:
		err = fmt.Errorf("%w: neither a fixture object nor a LoCoMo array", ErrInvalidSuite)
	}
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", path, err)
	}
	s.Key, s.Source = key, path
	for i := range s.Cases {
		if s.Cases[i].Split == "" {
			s.Cases[i].Split = SplitOf(s.Cases[i].ID)
		}
	}
	return s, nil
}

// fixtureFile mirrors the fixture JSON with times as text, so that a bad
// time is reported with the message or case it belongs to.
type fixtureFile struct {
	Name  string        `json:"name"`
	Users []fixtureUser `json:"users"`
	Cases []fixtureCase `json:"cases"`
}

type fixtureUser struct {
	UserID   string           `json:"user_id"`
	Messages []fixtureMessage `json:"messages"`
}

type fixtureMessage struct {
	ID             string `json:"id"`
	Role           string `json:"role"`
	Content        string `json:"content"`
	CreatedAt      string `json:"created_at"`
	ConversationID string `json:"conversation_id"`
	GroupID        string `json:"group_id"`
	SenderID       string `json:"sender_id"`
	SenderName     string `json:"sender_name"`
}

type fixtureCase struct {
	ID                 string   `json:"id"`
	UserID             string   `json:"user_id"`
	Question           string   `json:"question"`
	Now                string   `json:"now"`
	Category           string   `json:"category"`
	GoldEvidence       []string `json:"gold_evidence"`
	AcceptableEvidence []string `json:"acceptable_evidence"`
	ForbiddenEvidence  []string `json:"forbidden_evidence"`
	ExpectedKeywords   []string `json:"expected_keywords"`
	Note               string   `json:"note"`
	Split              string   `json:"split"`
}

// maxSuiteErrors bounds how many problems one validation reports.
const maxSuiteErrors = 20

// ParseFixture decodes and validates a suite in the project's fixture format.
// Unknown fields are errors, so a misspelt key cannot silently empty a case.
// Every problem found (up to 20) is reported, each naming its user, message
// or case; all wrap ErrInvalidSuite.
func ParseFixture(b []byte) (*Suite, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f fixtureFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidSuite, jsonErr(b, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the suite object", ErrInvalidSuite)
	}
	var errs []error
	bad := func(format string, args ...any) {
		if len(errs) < maxSuiteErrors {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	s := &Suite{Name: f.Name, Format: FormatFixture}
	if strings.TrimSpace(f.Name) == "" {
		bad("name is empty")
	}
	if len(f.Users) == 0 {
		bad("no users")
	}
	if len(f.Cases) == 0 {
		bad("no cases")
	}
	ids := make(map[string]map[string]bool) // user → message ids
	anyUser := make(map[string]bool)
	for i, u := range f.Users {
		where := fmt.Sprintf("users[%d]", i)
		if strings.TrimSpace(u.UserID) == "" {
			bad("%s: user_id is empty", where)
			continue
		}
		where = fmt.Sprintf("user %q", u.UserID)
		if ids[u.UserID] != nil {
			bad("%s: listed twice", where)
			continue
		}
		ids[u.UserID] = make(map[string]bool)
		out := User{UserID: u.UserID, Messages: make([]Message, 0, len(u.Messages))}
		if len(u.Messages) == 0 {
			bad("%s: no messages", where)
		}
		for j, m := range u.Messages {
			mwhere := fmt.Sprintf("%s messages[%d]", where, j)
			if m.ID != "" {
				mwhere = fmt.Sprintf("%s message %q", where, m.ID)
			}
			switch {
			case strings.TrimSpace(m.ID) == "":
				bad("%s: id is empty", mwhere)
			case ids[u.UserID][m.ID]:
				bad("%s: id used twice", mwhere)
			}
			ids[u.UserID][m.ID] = true
			anyUser[m.ID] = true
			if !storage.ValidRole(m.Role) {
				bad("%s: role %q is not user, assistant, system or tool", mwhere, m.Role)
			}
			if strings.TrimSpace(m.Content) == "" {
				bad("%s: content is empty", mwhere)
			}
			at, err := parseRFC3339(m.CreatedAt)
			if err != nil {
				bad("%s: created_at: %v", mwhere, err)
			}
			out.Messages = append(out.Messages, Message{
				ID: m.ID, Role: m.Role, Content: m.Content, CreatedAt: at, ConversationID: m.ConversationID,
				GroupID: m.GroupID, SenderID: m.SenderID, SenderName: m.SenderName,
			})
		}
		s.Users = append(s.Users, out)
	}
	validCat := make(map[string]bool)
	for _, c := range FixtureCategories() {
		validCat[c] = true
	}
	seen := make(map[string]bool)
	for i, c := range f.Cases {
		where := fmt.Sprintf("cases[%d]", i)
		if c.ID != "" {
			where = fmt.Sprintf("case %q", c.ID)
		}
		switch {
		case strings.TrimSpace(c.ID) == "":
			bad("%s: id is empty", where)
		case seen[c.ID]:
			bad("%s: id used twice", where)
		}
		seen[c.ID] = true
		own, ok := ids[c.UserID]
		if !ok {
			bad("%s: user_id %q is not a user of the suite", where, c.UserID)
		}
		if strings.TrimSpace(c.Question) == "" {
			bad("%s: question is empty", where)
		}
		now, err := parseRFC3339(c.Now)
		if err != nil {
			bad("%s: now: %v", where, err)
		}
		if !validCat[c.Category] {
			bad("%s: category %q is not one of %s", where, c.Category, strings.Join(FixtureCategories(), ", "))
		}
		switch {
		case c.Category == CategoryAbsent && len(c.GoldEvidence) > 0:
			bad("%s: an absent case has no gold_evidence", where)
		case validCat[c.Category] && c.Category != CategoryAbsent && c.Category != CategoryCrossUser && len(c.GoldEvidence) == 0:
			bad("%s: gold_evidence is empty (only absent and cross_user cases may find nothing)", where)
		}
		if ok {
			for _, list := range []struct {
				name string
				ids  []string
			}{{"gold_evidence", c.GoldEvidence}, {"acceptable_evidence", c.AcceptableEvidence}} {
				for _, id := range list.ids {
					if !own[id] {
						bad("%s: %s %q is not a message of user %q", where, list.name, id, c.UserID)
					}
				}
			}
		}
		for _, id := range c.ForbiddenEvidence {
			if !anyUser[id] {
				bad("%s: forbidden_evidence %q is not a message of any user", where, id)
			}
			if slices.Contains(c.GoldEvidence, id) || slices.Contains(c.AcceptableEvidence, id) {
				bad("%s: %q is both forbidden and gold or acceptable", where, id)
			}
		}
		for _, list := range [][]string{c.GoldEvidence, c.AcceptableEvidence, c.ForbiddenEvidence} {
			if dup := firstDuplicate(list); dup != "" {
				bad("%s: evidence id %q listed twice", where, dup)
			}
		}
		if c.Split != "" && !slices.Contains(Splits(), c.Split) {
			bad("%s: split %q is not %s", where, c.Split, strings.Join(Splits(), " or "))
		}
		for _, k := range c.ExpectedKeywords {
			if strings.TrimSpace(k) == "" {
				bad("%s: an expected keyword is empty", where)
			}
		}
		s.Cases = append(s.Cases, Case{
			ID: c.ID, UserID: c.UserID, Question: c.Question, Now: now, Category: c.Category,
			GoldEvidence: c.GoldEvidence, AcceptableEvidence: c.AcceptableEvidence,
			ForbiddenEvidence: c.ForbiddenEvidence, ExpectedKeywords: c.ExpectedKeywords, Note: c.Note,
			Split: c.Split,
		})
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidSuite, errors.Join(errs...))
	}
	return s, nil
}

func parseRFC3339(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, errors.New("missing")
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time", v)
	}
	return t, nil
}

func firstDuplicate(ids []string) string {
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return id
		}
		seen[id] = true
	}
	return ""
}

// jsonErr adds the line and column to a JSON syntax or type error.
func jsonErr(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return err.Error()
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Sprintf("line %d column %d: %v", line, col, err)
}
