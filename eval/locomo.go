package eval

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LoCoMo categories, numbered as in the official evaluation code
// (snap-research/locomo task_eval). The mem0 paper and its forks number them
// differently (1 single-hop, 3 multi-hop, 4 open-domain).
const (
	CategoryMultiHop    = "multi-hop"   // 1
	CategoryTemporal    = "temporal"    // 2
	CategoryOpenDomain  = "open-domain" // 3
	CategorySingleHop   = "single-hop"  // 4
	CategoryAdversarial = "adversarial" // 5: false premise, should find nothing
)

// LoCoMoCategories maps LoCoMo's category numbers to names.
func LoCoMoCategories() map[int]string {
	return map[int]string{
		1: CategoryMultiHop, 2: CategoryTemporal, 3: CategoryOpenDomain, 4: CategorySingleHop, 5: CategoryAdversarial,
	}
}

// LoCoMoCategoryNote states the numbering the reports use.
const LoCoMoCategoryNote = "LoCoMo categories follow the official evaluation code: 1 multi-hop, 2 temporal, " +
	"3 open-domain, 4 single-hop, 5 adversarial (the mem0 paper calls 1 single-hop, 3 multi-hop, 4 open-domain). " +
	"Category 5 is scored as should-find-nothing; its evidence counts as acceptable, not gold."

// LoCoMoTimeLayout is the layout of session_N_date_time ("1:56 pm on 8 May, 2023").
const LoCoMoTimeLayout = "3:04 pm on 2 January, 2006"

// ParseLoCoMoTime parses a session_N_date_time value as UTC.
func ParseLoCoMoTime(s string) (time.Time, error) {
	t, err := time.Parse(LoCoMoTimeLayout, strings.Join(strings.Fields(s), " "))
	if err != nil {
		return time.Time{}, fmt.Errorf("session time %q is not like %q", s, LoCoMoTimeLayout)
	}
	return t, nil
}

type locomoSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

type locomoQA struct {
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	Category int      `json:"category"`
	// Answer is a string or a number; AdversarialAnswer is what a model
	// fooled by the false premise of a category 5 question would say.
	Answer            json.RawMessage `json:"answer"`
	AdversarialAnswer string          `json:"adversarial_answer"`
}

var (
	sessionKey  = regexp.MustCompile(`^session_(\d+)$`)
	diaID       = regexp.MustCompile(`^D(\d+):(\d+)$`)
	evidenceSep = regexp.MustCompile(`[;\s]+`)
)

// ParseLoCoMo loads a LoCoMo file (an array of samples). Each sample becomes
// one user scope (user_id = sample_id) whose messages are its turns:
// id = dia_id, role user, sender_name = speaker, conversation
// "<sample>/session_<N>", created_at the session's date and time plus one
// second per turn, and an image turn's blip_caption appended to its text.
// Each question becomes a case (id "<sample>/qa<index>"): evidence strings
// are split on ';' and spaces, ids that do not parse or name no turn are
// dropped with a warning, and questions of categories 1-4 left without
// evidence are skipped with a warning. Category 5 cases should find nothing.
func ParseLoCoMo(b []byte, name string, log *slog.Logger) (*Suite, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var samples []locomoSample
	if err := json.Unmarshal(b, &samples); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidSuite, jsonErr(b, err))
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("%w: no samples", ErrInvalidSuite)
	}
	s := &Suite{Name: "LoCoMo " + name, Format: FormatLoCoMo}
	cats := LoCoMoCategories()
	var dropped, skipped int
	seenSample := make(map[string]bool)
	for si, smp := range samples {
		if smp.SampleID == "" {
			return nil, fmt.Errorf("%w: sample %d has no sample_id", ErrInvalidSuite, si)
		}
		if seenSample[smp.SampleID] {
			return nil, fmt.Errorf("%w: sample_id %q used twice", ErrInvalidSuite, smp.SampleID)
		}
		seenSample[smp.SampleID] = true
		u, last, err := locomoUser(smp)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrInvalidSuite, smp.SampleID, err)
		}
		s.Users = append(s.Users, u)
		turns := make(map[string]bool, len(u.Messages))
		for _, m := range u.Messages {
			turns[m.ID] = true
		}
		now := last.Add(24 * time.Hour)
		for qi, qa := range smp.QA {
			cat, ok := cats[qa.Category]
			if !ok {
				return nil, fmt.Errorf("%w: %s qa#%d: unknown category %d", ErrInvalidSuite, smp.SampleID, qi, qa.Category)
			}
			ids, bad := NormalizeEvidence(qa.Evidence, turns)
			for _, e := range bad {
				log.Warn("locomo: dropped evidence id", "sample", smp.SampleID, "qa", qi, "evidence", e)
			}
			dropped += len(bad)
			c := Case{
				ID: fmt.Sprintf("%s/qa%d", smp.SampleID, qi), UserID: smp.SampleID, Question: qa.Question,
				Now: now, Category: cat, Note: locomoNote(qa),
			}
			if qa.Category == 5 {
				c.AcceptableEvidence = ids
			} else {
				if len(ids) == 0 {
					log.Warn("locomo: skipped question without evidence", "sample", smp.SampleID, "qa", qi, "category", qa.Category)
					skipped++
					continue
				}
				c.GoldEvidence = ids
			}
			s.Cases = append(s.Cases, c)
		}
	}
	s.Notes = append(s.Notes, LoCoMoCategoryNote,
		fmt.Sprintf("Evidence ids dropped (unparsable or naming no turn): %d. Questions skipped for lack of evidence: %d.", dropped, skipped))
	return s, nil
}

// locomoUser turns a sample's sessions into messages, and returns the time
// of its last session.
func locomoUser(smp locomoSample) (User, time.Time, error) {
	type session struct {
		n     int
		turns []locomoTurn
	}
	var sessions []session
	for k, raw := range smp.Conversation {
		m := sessionKey.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil {
			return User{}, time.Time{}, fmt.Errorf("%s: %w", k, err)
		}
		var turns []locomoTurn
		if err := json.Unmarshal(raw, &turns); err != nil {
			return User{}, time.Time{}, fmt.Errorf("%s: %w", k, err)
		}
		sessions = append(sessions, session{n, turns})
	}
	if len(sessions) == 0 {
		return User{}, time.Time{}, fmt.Errorf("no sessions")
	}
	slices.SortFunc(sessions, func(a, b session) int { return a.n - b.n })
	u := User{UserID: smp.SampleID}
	seen := make(map[string]bool)
	var last time.Time
	for _, ses := range sessions {
		var when string
		if raw, ok := smp.Conversation[fmt.Sprintf("session_%d_date_time", ses.n)]; !ok || json.Unmarshal(raw, &when) != nil {
			return User{}, time.Time{}, fmt.Errorf("session_%d has no session_%d_date_time", ses.n, ses.n)
		}
		start, err := ParseLoCoMoTime(when)
		if err != nil {
			return User{}, time.Time{}, fmt.Errorf("session_%d: %w", ses.n, err)
		}
		if start.After(last) {
			last = start
		}
		conv := fmt.Sprintf("%s/session_%d", smp.SampleID, ses.n)
		for i, t := range ses.turns {
			if t.DiaID == "" || seen[t.DiaID] {
				return User{}, time.Time{}, fmt.Errorf("session_%d turn %d: missing or repeated dia_id %q", ses.n, i, t.DiaID)
			}
			seen[t.DiaID] = true
			content := t.Text
			if c := strings.TrimSpace(t.BlipCaption); c != "" {
				content = strings.TrimSpace(content + " [image: " + c + "]")
			}
			u.Messages = append(u.Messages, Message{
				ID: t.DiaID, Role: "user", Content: content, CreatedAt: start.Add(time.Duration(i) * time.Second),
				ConversationID: conv, SenderID: t.Speaker, SenderName: t.Speaker,
			})
		}
	}
	return u, last, nil
}

// NormalizeEvidence splits LoCoMo evidence strings on ';' and white space and
// keeps the ids of the form D<session>:<turn> that name a turn in turns, in
// order and without repeats. It returns the dropped pieces too.
func NormalizeEvidence(raw []string, turns map[string]bool) (ids, dropped []string) {
	for _, r := range raw {
		for _, p := range evidenceSep.Split(r, -1) {
			switch {
			case p == "":
			case !diaID.MatchString(p) || !turns[p]:
				dropped = append(dropped, p)
			case !slices.Contains(ids, p):
				ids = append(ids, p)
			}
		}
	}
	return ids, dropped
}

// locomoNote keeps the reference answer with the case, for the agent runner.
func locomoNote(qa locomoQA) string {
	var parts []string
	if a := rawAnswer(qa.Answer); a != "" {
		parts = append(parts, "answer: "+a)
	}
	if qa.AdversarialAnswer != "" {
		parts = append(parts, "adversarial answer: "+qa.AdversarialAnswer)
	}
	return strings.Join(parts, "; ")
}

func rawAnswer(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw) // a number, kept as written
}
