package agent_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/llmtest"
)

// llmScript is what the model does in one scenario case: the "llm" object
// of the case in testdata/scenarios.json.
type llmScript struct {
	About    string    `json:"about"`     // the behaviour the case exercises
	BudgetMS int       `json:"budget_ms"` // options.budget_ms; 0 is the skill's
	Turns    []llmTurn `json:"turns"`     // the model's replies, one per request
	Notes    []string  `json:"notes"`     // substrings limits.notes must hold
}

// llmTurn is one reply of the model: tool calls, an answer (alone or
// wrapped in other text), a message that is no answer, an HTTP error or a
// hang.
type llmTurn struct {
	Calls  []llmCall       `json:"calls"`
	Answer json.RawMessage `json:"answer"` // the final answer object
	Wrap   string          `json:"wrap"`   // the message around the answer; {{answer}} marks it
	Say    string          `json:"say"`
	Status int             `json:"status"`
	Hang   bool            `json:"hang"` // no reply until the client gives up
}

// llmCall is one tool call of a turn.
type llmCall struct {
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args"`      // a JSON object
	AsString bool            `json:"as_string"` // sent as a JSON string holding the object
	Raw      *string         `json:"raw"`       // sent verbatim instead, e.g. malformed
}

func (c llmCall) arguments(t *testing.T) string {
	t.Helper()
	if c.Raw != nil {
		return *c.Raw
	}
	var b bytes.Buffer
	if err := json.Compact(&b, c.Args); err != nil {
		t.Fatalf("%s args: %v", c.Name, err)
	}
	if !c.AsString {
		return b.String()
	}
	s, _ := json.Marshal(b.String())
	return string(s)
}

// replies turns the script into the local server's replies.
func (s *llmScript) replies(t *testing.T) []llmtest.Reply {
	t.Helper()
	var out []llmtest.Reply
	for _, tn := range s.Turns {
		var r llmtest.Reply
		switch {
		case tn.Status != 0:
			r.Status = tn.Status
		case tn.Hang:
			r.Delay = time.Minute
		case len(tn.Calls) > 0:
			for _, c := range tn.Calls {
				r.Calls = append(r.Calls, llmtest.Call{Name: c.Name, Args: c.arguments(t)})
			}
		case tn.Answer != nil:
			var b bytes.Buffer
			if err := json.Compact(&b, tn.Answer); err != nil {
				t.Fatalf("answer: %v", err)
			}
			r.Content = b.String()
			if tn.Wrap != "" {
				r.Content = strings.Replace(tn.Wrap, "{{answer}}", r.Content, 1)
			}
		default:
			r.Content = tn.Say
		}
		out = append(out, r)
	}
	return out
}

// fails reports whether the model fails in this script, which the offline
// brain must then answer.
func (s *llmScript) fails() bool {
	return slices.ContainsFunc(s.Turns, func(tn llmTurn) bool { return tn.Status != 0 || tn.Hang })
}

// calls counts the model's tool calls and the turns that made them.
func (s *llmScript) calls() (calls, rounds int) {
	for _, tn := range s.Turns {
		if len(tn.Calls) > 0 {
			calls += len(tn.Calls)
			rounds++
		}
	}
	return calls, rounds
}

// answerIDs returns the ids the script's last answer cites, in its items
// and conflicts, as a string or a list.
func (s *llmScript) answerIDs(t *testing.T) []string {
	t.Helper()
	var ans json.RawMessage
	for _, tn := range s.Turns {
		if tn.Answer != nil {
			ans = tn.Answer
		}
	}
	if ans == nil {
		return nil
	}
	var a struct {
		MemoryView map[string][]struct {
			EvidenceIDs json.RawMessage `json:"evidence_ids"`
		} `json:"memory_view"`
		Conflicts []struct {
			Kept       []string `json:"kept"`
			Superseded []string `json:"superseded"`
		} `json:"conflicts"`
	}
	if err := json.Unmarshal(ans, &a); err != nil {
		t.Fatalf("answer: %v", err)
	}
	var ids []string
	for _, items := range a.MemoryView {
		for _, it := range items {
			var one string
			if json.Unmarshal(it.EvidenceIDs, &one) == nil {
				ids = append(ids, one)
				continue
			}
			var many []string
			if err := json.Unmarshal(it.EvidenceIDs, &many); err != nil {
				t.Fatalf("evidence_ids %s: %v", it.EvidenceIDs, err)
			}
			ids = append(ids, many...)
		}
	}
	for _, c := range a.Conflicts {
		ids = append(append(ids, c.Kept...), c.Superseded...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// returnedIDs returns the message ids the tools showed the model in the
// run, from the tool results of the last request.
func returnedIDs(t *testing.T, f *llmtest.Server) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, r := range f.ToolResults() {
		var res struct {
			Hits []struct {
				ID string `json:"message_id"`
			} `json:"hits"`
		}
		if err := json.Unmarshal([]byte(r), &res); err != nil {
			t.Fatalf("tool result %s: %v", r, err)
		}
		for _, h := range res.Hits {
			out[h.ID] = true
		}
	}
	return out
}

// TestLLMScenarios runs every scenario case through the LLM brain: the
// real langchaingo client talks to a local chat server that replays the
// case's script, and the tools run on the real store. The response must
// pass the same checks as the offline brain's. A model that answers must
// be grounded: its evidence is what the scripted searches returned, and
// any id it cites that no tool returned is dropped and noted. A model that
// fails (an HTTP error, a hang past the budget) is replaced by the offline
// brain, which must still pass the case.
func TestLLMScenarios(t *testing.T) {
	svc, cases := loadScenarios(t)
	sk := mustSkill(t)
	for _, sc := range cases {
		t.Run(sc.ID, func(t *testing.T) {
			s := sc.LLM
			if s == nil {
				t.Fatal("the case has no llm script")
			}
			f := llmtest.New(t, s.replies(t)...)
			m, err := agent.NewOpenAIModel(f.URL, "", fakeModel, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := agent.New(svc, sk, agent.WithLLM(m, fakeModel))
			start := time.Now()
			resp, err := a.Recall(t.Context(), sc.User, agent.Request{Question: sc.Question,
				Context: agent.RequestContext{Now: sc.Now}, Options: agent.Options{Trace: true, BudgetMS: s.BudgetMS}})
			took := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			checkScenario(t, sc, resp)
			if n := len(f.Requests()); n != len(s.Turns) {
				t.Errorf("%d model requests, want %d", n, len(s.Turns))
			}
			for _, n := range s.Notes {
				if !strings.Contains(notes(resp), n) {
					t.Errorf("notes %q lack %q", resp.Limits.Notes, n)
				}
			}
			calls, rounds := s.calls()
			l := resp.Limits
			if s.fails() {
				if l.Brain != "offline" || !strings.Contains(notes(resp), "the language model failed") ||
					!strings.Contains(notes(resp), "answered by the offline brain") {
					t.Errorf("brain %q, notes %q: want the offline fallback, noted", l.Brain, l.Notes)
				}
				// tools_called counts the model's calls and the fallback's.
				if l.ToolsCalled <= calls {
					t.Errorf("tools_called = %d, want more than the model's %d", l.ToolsCalled, calls)
				}
				// It did not wait for a hung model: two budgets and the
				// verification at most, with room for a loaded machine.
				if took > 10*time.Second {
					t.Errorf("took %v", took)
				}
			} else {
				if l.Brain != "llm:"+fakeModel || l.ToolsCalled != calls || l.Rounds != rounds {
					t.Errorf("brain %q, tools_called %d, rounds %d; want llm:%s, %d, %d", l.Brain, l.ToolsCalled, l.Rounds, fakeModel, calls, rounds)
				}
				checkGrounded(t, s, resp, returnedIDs(t, f))
			}
			if t.Failed() {
				b, _ := json.MarshalIndent(resp, "", "  ")
				t.Logf("response: %s\ntool results: %q", b, f.ToolResults())
			}
		})
	}
}

// checkGrounded checks the evidence of an answer of the model against what
// the tools returned in the run: evidence is only what a tool returned, an
// id the model cites is kept if a tool returned it and otherwise dropped
// and noted.
func checkGrounded(t *testing.T, s *llmScript, resp *agent.Response, returned map[string]bool) {
	t.Helper()
	cited := citedIDs(resp)
	for _, id := range cited {
		if !returned[id] {
			t.Errorf("evidence %s: no tool returned it in this run", id)
		}
	}
	for _, id := range s.answerIDs(t) {
		switch {
		case returned[id] && !slices.Contains(cited, id):
			t.Errorf("the model cited %s, which a tool returned, but it is not in the evidence", id)
		case !returned[id] && !strings.Contains(notes(resp), `dropped citation "`+id+`"`):
			t.Errorf("the model cited %s, which no tool returned, and notes %q do not say it was dropped", id, resp.Limits.Notes)
		}
	}
}
