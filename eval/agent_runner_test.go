package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/skills"
)

func mustAgent(t *testing.T) *agent.Agent {
	t.Helper()
	skill, err := agent.LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		t.Fatal(err)
	}
	return agent.New(nil, skill)
}

func TestAgentAnswer(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	resp := &agent.Response{
		Answer: "You do not eat spicy food.",
		MemoryView: agent.MemoryView{
			Preferences: []agent.Item{{Statement: "likes tea", EvidenceIDs: []string{"m9"}}},
			Constraints: []agent.Item{{Statement: "不吃辣", EvidenceIDs: []string{"m1"}}},
		},
		Evidence: []agent.EvidenceRef{
			{MessageID: "m1", Role: "user", Content: "我不吃辣", CreatedAt: at, ConversationID: "c1",
				Context: []agent.EvidenceRef{{MessageID: "m2", Content: "好的", Cut: true}}},
			{MessageID: "m9", Content: "I like te", Cut: true},
		},
		Limits:  agent.Limits{StopReason: agent.StopEnough, Brain: "offline", Rounds: 2, ToolsCalled: 5, MessagesConsidered: 40},
		Timings: agent.Timings{Observe: 0.1, Search: 3, Tools: 4.5, Synthesize: 0.7, Verify: 0.4, Total: 4.2},
	}
	got := agentAnswer(resp)
	want := Answer{
		Ranked: []queryapi.Evidence{
			{MessageID: "m1", Role: "user", Content: "我不吃辣", CreatedAt: at, ConversationID: "c1"},
			{MessageID: "m9", Content: "I like te"},
		},
		View: &View{
			Answer: "You do not eat spicy food.", Statements: []string{"likes tea", "不吃辣"},
			StopReason: agent.StopEnough, Brain: "offline", Rounds: 2, ToolsCalled: 5, MessagesConsidered: 40,
			Cut: []string{"m2", "m9"}, Context: []queryapi.Evidence{{MessageID: "m2", Content: "好的"}},
			Stages: map[string]float64{StageObserve: 0.1, StageSearch: 3, StageTools: 4.5, StageSynthesize: 0.7, StageVerify: 0.4},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	resp = &agent.Response{Answer: "nothing", Limits: agent.Limits{StopReason: agent.StopNoEvidence}}
	if got := agentAnswer(resp); !got.NoEvidence || len(got.Ranked) != 0 {
		t.Errorf("no_evidence answer = %+v", got)
	}
}

func TestCountLeaks(t *testing.T) {
	own := map[string]string{"m1": "我不吃辣，一点都不行", "m2": "Atlas ships in May"}
	ev := func(id, content string) queryapi.Evidence { return queryapi.Evidence{MessageID: id, Content: content} }
	for _, tc := range []struct {
		name string
		ans  Answer
		want int
	}{
		{"own messages", Answer{Ranked: []queryapi.Evidence{ev("m1", own["m1"]), ev("m2", own["m2"])}}, 0},
		{"another user's id", Answer{Ranked: []queryapi.Evidence{ev("n2", "My password hint is the violin")}}, 1},
		{"same id, other text", Answer{Ranked: []queryapi.Evidence{ev("m1", "I love spicy hotpot")}}, 1},
		{"unmarked prefix", Answer{Ranked: []queryapi.Evidence{ev("m2", "Atlas ships")}}, 1},
		{"marked cut", Answer{Ranked: []queryapi.Evidence{ev("m2", "Atlas ships")}, View: &View{Cut: []string{"m2"}}}, 0},
		{"cut that is no prefix", Answer{Ranked: []queryapi.Evidence{ev("m2", "Atlas slips")}, View: &View{Cut: []string{"m2"}}}, 1},
		{"repeats count once", Answer{Ranked: []queryapi.Evidence{ev("x", "a"), ev("x", "a")}}, 1},
		{"context is checked", Answer{Ranked: []queryapi.Evidence{ev("m1", own["m1"])},
			View: &View{Context: []queryapi.Evidence{ev("m2", own["m2"]), ev("n2", "My password hint is the violin")}}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := countLeaks(own, tc.ans); got != tc.want {
				t.Errorf("leaks = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestAgentRunner runs the recall agent (offline brain) with the lexical
// ranking on the smoke suite, which has an absent case, a cross-user case
// and forbidden ids, and checks the agent metrics in report.json and
// report.md.
func TestAgentRunner(t *testing.T) {
	out := t.TempDir()
	cfg := Config{Suites: testSuites[:1], Runners: []string{RunnerLexical}, Extra: []Runner{AgentRunner{Agent: mustAgent(t)}}, OutDir: out}
	rep := mustRun(t, cfg)

	b, err := os.ReadFile(filepath.Join(out, ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runners map[string]struct {
			Overall     map[string]float64            `json:"overall"`
			ByCategory  map[string]map[string]float64 `json:"by_category"`
			Agent       bool                          `json:"agent"`
			StopReasons map[string]int                `json:"stop_reasons"`
		} `json:"runners"`
		Suites []struct {
			Runners map[string]struct {
				Cases []struct {
					ID     string   `json:"id"`
					Ranked []string `json:"ranked"`
					View   *View    `json:"view"`
				} `json:"cases"`
			} `json:"runners"`
		} `json:"suites"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	ag := doc.Runners[RunnerAgent]
	rates := []string{
		"recall@1", "recall@5", "recall@10", "recall@25", "ndcg@10", "mrr",
		MetricCitedRecall, MetricCitedPrecision, MetricForbiddenRate, MetricAbsentCorrect, MetricKeywordHits,
	}
	for _, k := range rates {
		v, ok := ag.Overall[k]
		if !ok || v < 0 || v > 1 {
			t.Errorf("runners.agent.overall.%s = %v, %v; want a rate", k, v, ok)
		}
	}
	for _, k := range []string{MetricCitations, MetricLeaks, MetricP50, MetricP95} {
		if v, ok := ag.Overall[k]; !ok || v < 0 {
			t.Errorf("runners.agent.overall.%s = %v, %v", k, v, ok)
		}
	}
	if ag.Overall[MetricLeaks] != 0 || ag.Overall[MetricErrors] != 0 {
		t.Errorf("agent leaks %v errors %v, want 0", ag.Overall[MetricLeaks], ag.Overall[MetricErrors])
	}
	if ag.Overall[MetricP50] > ag.Overall[MetricP95] {
		t.Errorf("p50 %v > p95 %v", ag.Overall[MetricP50], ag.Overall[MetricP95])
	}
	for _, st := range Stages() {
		p50, ok50 := ag.Overall[st+"_p50_ms"]
		p95, ok95 := ag.Overall[st+"_p95_ms"]
		// A stage's time is the sum of its calls, and tool calls run in
		// parallel (the second round is fetched with the first), so on a
		// loaded machine a stage may take longer than the whole recall: no
		// bound against the recall's own time.
		if !ok50 || !ok95 || p50 < 0 || p50 > p95 {
			t.Errorf("stage %s: p50 %v (%v) p95 %v (%v), whole recall p95 %v", st, p50, ok50, p95, ok95, ag.Overall[MetricP95])
		}
		if _, ok := doc.Runners[RunnerLexical].Overall[st+"_p50_ms"]; ok {
			t.Errorf("the lexical runner reports agent stage %s", st)
		}
	}
	if ag.Overall["search_p95_ms"] <= 0 || ag.Overall["tools_p95_ms"] <= 0 {
		t.Errorf("search p95 %v, tools p95 %v: the agent's searching took no time", ag.Overall["search_p95_ms"], ag.Overall["tools_p95_ms"])
	}

	// The agent cites at most the skill's max_evidence (8) per case.
	if c := ag.Overall[MetricCitations]; c <= 0 || c > 8 {
		t.Errorf("citations per case = %v", c)
	}
	if !ag.Agent || doc.Runners[RunnerLexical].Agent {
		t.Errorf("agent flag: agent %v, lexical %v", ag.Agent, doc.Runners[RunnerLexical].Agent)
	}
	if n := ag.StopReasons[agent.StopNoEvidence] + ag.StopReasons[agent.StopEnough] + ag.StopReasons[agent.StopLowGain] +
		ag.StopReasons[agent.StopNoise] + ag.StopReasons[agent.StopBudget]; n != 6 {
		t.Errorf("stop reasons %v, want 6 cases", ag.StopReasons)
	}
	for cat, keys := range map[string][]string{
		CategoryPreference: {MetricCitedRecall, MetricCitedPrecision, MetricKeywordHits, MetricLeaks},
		CategoryConflict:   {MetricCitedRecall, MetricForbiddenRate},
		CategoryAbsent:     {MetricAbsentCorrect, MetricLeaks},
		CategoryCrossUser:  {MetricAbstain, MetricLeaks},
	} {
		for _, k := range keys {
			if _, ok := ag.ByCategory[cat][k]; !ok {
				t.Errorf("runners.agent.by_category.%s.%s missing", cat, k)
			}
		}
	}
	// The agent metrics are consistent with the per-case answers.
	cases := doc.Suites[0].Runners[RunnerAgent].Cases
	absent := -1.0
	for _, c := range cases {
		if c.View == nil || c.View.StopReason == "" || c.View.Brain != "offline" {
			t.Errorf("case %s: view %+v", c.ID, c.View)
			continue
		}
		if (c.View.StopReason == agent.StopNoEvidence) != (len(c.Ranked) == 0) {
			t.Errorf("case %s: stop %s with %d citations", c.ID, c.View.StopReason, len(c.Ranked))
		}
		if c.ID == "absent-pet" { // the suite's only absent case
			absent = b2f(c.View.StopReason == agent.StopNoEvidence)
		}
	}
	if got := ag.Overall[MetricAbsentCorrect]; got != absent {
		t.Errorf("absent_correct = %v, want %v", got, absent)
	}
	// Smoke-suite floors, just under what the offline brain reaches: it
	// finds the Chinese preference and the violin and skips u_2's messages.
	if err := rep.CheckFloors([]Floor{
		{Runner: RunnerAgent, Metric: MetricCitedRecall, Value: 0.75},
		{Runner: RunnerAgent, Metric: MetricLeaks, AtMost: true, Value: 0},
	}); err != nil {
		t.Error(err)
	}

	md, err := os.ReadFile(filepath.Join(out, ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	head := "| agent | cases | cited_recall | cited_precision | citations | forbidden_rate | absent_correct | keyword_hit_rate | leaks | errors | p50_ms | p95_ms |"
	if n := strings.Count(string(md), head); n != 1 {
		t.Errorf("report.md has %d agent tables, want 1:\n%s", n, md)
	}
	if !strings.Contains(string(md), "\n| agent | 4 |") || strings.Contains(string(md), "\n| lexical | 4 | 1.000 |") {
		t.Errorf("agent table rows wrong:\n%s", md)
	}
	if !strings.Contains(string(md), "Stop reasons of agent: ") {
		t.Errorf("report.md lacks the stop reasons:\n%s", md)
	}
	if !strings.Contains(string(md), "Latency per stage of the recall") {
		t.Errorf("report.md lacks the stage latency table:\n%s", md)
	}

	// Same inputs, same numbers.
	cfg.OutDir = ""
	again := mustRun(t, cfg)
	opts := cmp.Options{
		cmpopts.IgnoreUnexported(RunnerReport{}, SuiteReport{}),
		cmpopts.IgnoreFields(CaseResult{}, "LatencyMS"),
		cmpopts.IgnoreMapEntries(func(k string, _ float64) bool { return strings.HasSuffix(k, "_ms") }),
		cmpopts.IgnoreFields(View{}, "Stages"),
	}
	if diff := cmp.Diff(rep, again, opts); diff != "" {
		t.Errorf("two runs differ (-first +second):\n%s", diff)
	}
}
