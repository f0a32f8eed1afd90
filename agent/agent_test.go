package agent_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/skills"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

type scenarioFile struct {
	Users []struct {
		UserID   string `json:"user_id"`
		Messages []struct {
			ID             string    `json:"id"`
			Role           string    `json:"role"`
			SenderID       string    `json:"sender_id"`
			SenderName     string    `json:"sender_name"`
			ConversationID string    `json:"conversation_id"`
			GroupID        string    `json:"group_id"`
			CreatedAt      time.Time `json:"created_at"`
			Content        string    `json:"content"`
		} `json:"messages"`
	} `json:"users"`
	Cases []scenario `json:"cases"`
}

type scenario struct {
	ID        string            `json:"id"`
	User      string            `json:"user"`
	Question  string            `json:"question"`
	Now       string            `json:"now"`
	Cited     []string          `json:"cited"`     // must be cited
	Forbidden []string          `json:"forbidden"` // must not be cited
	Statuses  map[string]string `json:"statuses"`  // id → status of the item citing it
	Stop      string            `json:"stop"`      // stop_reason, or "!x" for "not x"
	LLM       *llmScript        `json:"llm"`       // what the model does (TestLLMScenarios)
}

// loadScenarios stores testdata/scenarios.json in a real store and returns
// its service and cases.
func loadScenarios(t testing.TB) (*queryapi.Service, []scenario) {
	t.Helper()
	b, err := os.ReadFile("testdata/scenarios.json")
	if err != nil {
		t.Fatal(err)
	}
	var f scenarioFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	s := storagetest.Open(t, storage.Config{})
	for _, u := range f.Users {
		var msgs []storage.Message
		for _, m := range u.Messages {
			msgs = append(msgs, storage.Message{ID: m.ID, Role: m.Role, SenderID: m.SenderID, SenderName: m.SenderName,
				ConversationID: m.ConversationID, GroupID: m.GroupID, CreatedAt: m.CreatedAt, Content: m.Content})
		}
		if _, err := s.Insert(t.Context(), u.UserID, msgs); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return queryapi.New(s), f.Cases
}

func mustSkill(t testing.TB) *agent.Skill {
	t.Helper()
	sk, err := agent.LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	return sk
}

// serviceWith stores msgs as user's in a real store, indexes them and
// returns its service.
func serviceWith(t testing.TB, user string, msgs []storage.Message) *queryapi.Service {
	t.Helper()
	s := storagetest.Open(t, storage.Config{})
	if _, err := s.Insert(t.Context(), user, msgs); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return queryapi.New(s)
}

// checkScenario asserts a response against a case.
func checkScenario(t *testing.T, sc scenario, resp *agent.Response) {
	t.Helper()
	var cited []string
	for _, e := range resp.Evidence {
		cited = append(cited, e.MessageID)
	}
	for _, id := range sc.Cited {
		if !slices.Contains(cited, id) {
			t.Errorf("%s not cited; cited %v; notes %v", id, cited, resp.Limits.Notes)
		}
	}
	for _, id := range sc.Forbidden {
		if slices.Contains(cited, id) {
			t.Errorf("forbidden %s cited; cited %v", id, cited)
		}
	}
	for id, want := range sc.Statuses {
		got := ""
		for _, it := range allItems(resp.MemoryView) {
			if slices.Contains(it.EvidenceIDs, id) {
				got = it.Status
			}
		}
		if got != want {
			t.Errorf("status of the item citing %s = %q, want %q", id, got, want)
		}
	}
	switch {
	case strings.HasPrefix(sc.Stop, "!"):
		if resp.Limits.StopReason == sc.Stop[1:] {
			t.Errorf("stop_reason = %s", resp.Limits.StopReason)
		}
	case sc.Stop != "":
		if resp.Limits.StopReason != sc.Stop {
			t.Errorf("stop_reason = %s, want %s", resp.Limits.StopReason, sc.Stop)
		}
	}
	// The evidence contract: every item cites evidence that is returned.
	for _, it := range allItems(resp.MemoryView) {
		if len(it.EvidenceIDs) == 0 {
			t.Errorf("item %q has no evidence", it.Statement)
		}
		for _, id := range it.EvidenceIDs {
			if !slices.Contains(cited, id) {
				t.Errorf("item cites %s, which is not in evidence", id)
			}
		}
	}
	if resp.Limits.StopReason == agent.StopNoEvidence && len(allItems(resp.MemoryView)) > 0 {
		t.Errorf("no_evidence with items")
	}
	if resp.Answer == "" {
		t.Error("empty answer")
	}
}

func allItems(v agent.MemoryView) []agent.Item {
	return slices.Concat(v.Preferences, v.Profile, v.Constraints)
}

func TestOfflineScenarios(t *testing.T) {
	svc, cases := loadScenarios(t)
	a := agent.New(svc, mustSkill(t))
	for _, sc := range cases {
		t.Run(sc.ID, func(t *testing.T) {
			resp, err := a.Recall(t.Context(), sc.User, agent.Request{Question: sc.Question,
				Context: agent.RequestContext{Now: sc.Now}, Options: agent.Options{Trace: true}})
			if err != nil {
				t.Fatal(err)
			}
			checkScenario(t, sc, resp)
			if t.Failed() {
				out, _ := json.MarshalIndent(resp, "", "  ")
				t.Logf("response: %s", out)
			}
			if resp.Limits.Brain != "offline" || resp.Limits.ToolsCalled == 0 || resp.Limits.Rounds == 0 || len(resp.Trace) == 0 {
				t.Errorf("limits = %+v, %d trace steps", resp.Limits, len(resp.Trace))
			}
			checkTrace(t, resp.Trace)
			checkTimings(t, resp.Timings)
			// A cited message was a candidate, and the trace shows it with
			// its support and rank.
			for _, e := range resp.Evidence {
				if !slices.ContainsFunc(resp.Trace, func(s agent.TraceStep) bool {
					return strings.HasPrefix(s.Decision, "candidate "+e.MessageID+" support ")
				}) {
					t.Errorf("cited %s, but the trace shows no candidate %s", e.MessageID, e.MessageID)
				}
			}
		})
	}
}

// checkTrace checks that each phase means one thing (agent.TraceStep): one
// observe step first, decide exactly for the tool calls, reflect for the rest.
func checkTrace(t *testing.T, trace []agent.TraceStep) {
	t.Helper()
	for i, s := range trace {
		ok := false
		switch s.Phase {
		case "observe":
			ok = i == 0 && s.Tool == ""
		case "decide":
			ok = s.Tool != ""
		case "reflect":
			ok = s.Tool == ""
		}
		if !ok {
			t.Errorf("trace step %d: phase %q, tool %q, decision %q", i, s.Phase, s.Tool, s.Decision)
		}
	}
	if len(trace) > 0 && trace[0].Phase != "observe" {
		t.Errorf("trace starts with %q, want observe", trace[0].Phase)
	}
}

// checkTimings checks that the stages of an offline recall took time and
// fit in the whole.
func checkTimings(t *testing.T, tm agent.Timings) {
	t.Helper()
	// Hybrid runs at most three tool calls at once.
	stages := []float64{tm.Observe, tm.Search, tm.Tools / 3, tm.Synthesize, tm.Verify}
	if slices.ContainsFunc(stages, func(ms float64) bool { return ms < 0 || ms > tm.Total }) ||
		tm.Search <= 0 || tm.Tools <= 0 || tm.Total <= 0 ||
		tm.Observe+tm.Search+tm.Synthesize+tm.Verify > tm.Total*1.001 {
		t.Errorf("timings = %+v", tm)
	}
}

// TestIsolation asks every question as every user and checks that no cited
// message belongs to another user.
func TestIsolation(t *testing.T) {
	svc, cases := loadScenarios(t)
	a := agent.New(svc, mustSkill(t))
	owner := map[string]string{}
	b, _ := os.ReadFile("testdata/scenarios.json")
	var f scenarioFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, u := range f.Users {
		for _, m := range u.Messages {
			owner[m.Content] = u.UserID
		}
	}
	for _, u := range f.Users {
		for _, sc := range cases {
			resp, err := a.Recall(t.Context(), u.UserID, agent.Request{Question: sc.Question, Context: agent.RequestContext{Now: sc.Now}})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range resp.Evidence {
				for _, x := range append([]agent.EvidenceRef{e}, e.Context...) {
					if owner[x.Content] != u.UserID {
						t.Fatalf("%s asking %q got %s of %s", u.UserID, sc.Question, x.MessageID, owner[x.Content])
					}
				}
			}
		}
	}
}

func TestRecallRejects(t *testing.T) {
	svc, _ := loadScenarios(t)
	a := agent.New(svc, mustSkill(t))
	tests := []struct {
		name string
		user string
		req  agent.Request
	}{
		{"empty question", "qq:1", agent.Request{Question: "  "}},
		{"no user", "", agent.Request{Question: "hi"}},
		{"bad now", "qq:1", agent.Request{Question: "hi", Context: agent.RequestContext{Now: "today"}}},
		{"bad range", "qq:1", agent.Request{Question: "hi", Context: agent.RequestContext{TimeRange: &agent.TimeRange{Since: "2026-02-01T00:00:00Z", Until: "2026-01-01T00:00:00Z"}}}},
		{"bad role", "qq:1", agent.Request{Question: "hi", Context: agent.RequestContext{RolePref: "bot"}}},
		{"rounds", "qq:1", agent.Request{Question: "hi", Options: agent.Options{MaxRounds: 99}}},
		{"long", "qq:1", agent.Request{Question: strings.Repeat("长", agent.MaxQuestionRunes+1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := a.Recall(t.Context(), tt.user, tt.req); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestSkillFormat(t *testing.T) {
	sk := mustSkill(t)
	if sk.Name != "recall" || sk.Description == "" || !strings.Contains(sk.Body, "Observe") {
		t.Fatalf("skill = %+v", sk)
	}
	if sk.Params.Limits.MaxRounds == 0 || len(sk.Params.Intents) == 0 || len(sk.Params.TimeSignals) == 0 {
		t.Fatalf("params = %+v", sk.Params)
	}
}

// skillWith loads the recall skill with the first from in its params.yaml
// replaced by to.
func skillWith(t *testing.T, from, to string) (*agent.Skill, error) {
	t.Helper()
	skillMD, err := fs.ReadFile(skills.FS, skills.Recall+"/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	params, err := fs.ReadFile(skills.FS, skills.Recall+"/params.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(params, []byte(from)) {
		t.Fatalf("params.yaml has no %q", from)
	}
	return agent.LoadSkill(fstest.MapFS{
		"recall/SKILL.md":    {Data: skillMD},
		"recall/params.yaml": {Data: bytes.Replace(params, []byte(from), []byte(to), 1)},
	}, "recall")
}

// TestSkillParamsRejected checks that LoadSkill refuses the recall skill's
// parameters with one stop rule out of range, naming the rule.
func TestSkillParamsRejected(t *testing.T) {
	tests := []struct{ name, from, to, want string }{
		{"cite_max zero", "cite_max: 4", "cite_max: 0", "stop.cite_max"},
		{"gloss_weight negative", "gloss_weight: 1", "gloss_weight: -1", "stop.gloss_weight"},
		{"gloss_similarity over 1", "gloss_similarity: 0.25", "gloss_similarity: 1.5", "stop.gloss_similarity"},
		{"cite_max over max_evidence", "cite_max: 4", "cite_max: 9", "stop.cite_max"},
		{"aggregate_cite_max over max_evidence", "aggregate_cite_max: 5", "aggregate_cite_max: 9", "stop.aggregate_cite_max"},
		{"thread_cite_max over max_evidence", "thread_cite_max: 7", "thread_cite_max: 9", "stop.thread_cite_max"},
		{"negative unsupported_cite_max", "unsupported_cite_max: 1", "unsupported_cite_max: -1", "stop.unsupported_cite_max"},
		{"question_weight over 1", "question_weight: 0.7", "question_weight: 1.5", "stop.question_weight"},
		{"negative speaker", "speaker: 2", "speaker: -1", "weights"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := skillWith(t, tt.from, tt.to)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("LoadSkill err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}
