package eval

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recalld/recalld/queryapi"
)

var testSuites = []string{"testdata/loader/ok.json", "testdata/loader/locomo_slice.json"}

func mustRun(t *testing.T, cfg Config) *Report {
	t.Helper()
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	rep, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestRunWritesReports(t *testing.T) {
	out := t.TempDir()
	data := t.TempDir()
	mustRun(t, Config{Suites: testSuites, OutDir: out, DataDir: data, Kernel: "scalar"})

	for _, f := range []string{ReportJSON, ReportMD, RecallPlot, LatencyPlot, "recall-ok.svg", "recall-locomo_slice.svg"} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if left, _ := os.ReadDir(data); len(left) != 0 {
		t.Errorf("data dir not cleaned up: %v", left)
	}

	var doc map[string]any
	b, err := os.ReadFile(filepath.Join(out, ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) any {
		var v any = doc
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[p]
		}
		return v
	}
	if got := get("kernel"); got != "scalar" {
		t.Errorf("kernel = %v, want the one the run was given", got)
	}
	if md, err := os.ReadFile(filepath.Join(out, ReportMD)); err != nil || !strings.Contains(string(md), "(kernel scalar)") {
		t.Errorf("report.md does not name the kernel (err %v)", err)
	}
	for _, r := range BuiltinRunners() {
		for _, k := range []string{"recall@1", "recall@5", "recall@10", "recall@25", "ndcg@10", "mrr"} {
			if _, ok := get("runners", r, "overall", k).(float64); !ok {
				t.Errorf("runners.%s.overall.%s missing", r, k)
			}
		}
		for _, cat := range []string{"preference", "conflict", "absent", "cross_user", "temporal", "multi-hop", "single-hop", "adversarial"} {
			if _, ok := get("runners", r, "by_category", cat).(map[string]any); !ok {
				t.Errorf("runners.%s.by_category.%s missing", r, cat)
			}
		}
		if _, ok := get("runners", r, "by_category", "temporal", "recall@10").(float64); !ok {
			t.Errorf("runners.%s.by_category.temporal.recall@10 missing", r)
		}
		if _, ok := get("runners", r, "by_category", "adversarial", "abstain_rate").(float64); !ok {
			t.Errorf("runners.%s.by_category.adversarial.abstain_rate missing", r)
		}
		for _, lang := range []string{LangZH, LangEN} {
			if _, ok := get("runners", r, "by_language", "all", lang, "cases").(float64); !ok {
				t.Errorf("runners.%s.by_language.all.%s missing", r, lang)
			}
		}
		if _, ok := get("runners", r, "no_evidence", "abstain_rate").(float64); !ok {
			t.Errorf("runners.%s.no_evidence.abstain_rate missing", r)
		}
	}
	suites, _ := get("suites").([]any)
	if len(suites) != 2 {
		t.Fatalf("suites = %d, want 2", len(suites))
	}
	first := suites[0].(map[string]any)
	cases := first["runners"].(map[string]any)["hybrid"].(map[string]any)["cases"].([]any)
	if len(cases) != 6 {
		t.Fatalf("ok suite has %d hybrid cases, want 6", len(cases))
	}
	c0 := cases[0].(map[string]any)
	if c0["id"] != "pref-zh" || c0["language"] != LangZH || len(c0["ranked"].([]any)) == 0 {
		t.Errorf("first case = %v", c0)
	}

	md, err := os.ReadFile(filepath.Join(out, ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"![recall@k per runner](recall.svg)", "![latency per runner](latency.svg)", "(recall-ok.svg)",
		"| runner | cases | recall@1 | recall@5 | recall@10 | recall@25 | ndcg@10 | mrr |",
		"### recall@10 by category", "| category | cases | lexical | semantic | hybrid |",
		"### Should find nothing: abstain rate", "| adversarial | 1 |", "1 multi-hop, 2 temporal",
		"By question language", "| hybrid | all | zh |", "| hybrid | all | en |",
	} {
		if !strings.Contains(string(md), w) {
			t.Errorf("report.md lacks %q", w)
		}
	}
	for _, f := range []string{RecallPlot, LatencyPlot} {
		svg, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(svg), "<?xml") || !strings.Contains(string(svg), "<svg") {
			t.Errorf("%s is not SVG: %.80s", f, svg)
		}
	}
	recall, _ := os.ReadFile(filepath.Join(out, RecallPlot))
	for _, r := range BuiltinRunners() {
		if !strings.Contains(string(recall), r+" (R@10") {
			t.Errorf("recall plot has no legend for %s", r)
		}
	}
}

func TestRunFixtureScores(t *testing.T) {
	rep := mustRun(t, Config{Suites: testSuites[:1]})
	s := rep.Suites[0]
	for _, name := range rep.RunnerOrder {
		rr := s.Runners[name]
		if rr.Overall[MetricLeaks] != 0 || rr.Overall[MetricErrors] != 0 {
			t.Errorf("%s: leaks %v errors %v", name, rr.Overall[MetricLeaks], rr.Overall[MetricErrors])
		}
		if got := rr.Overall[MetricCases]; got != 4 {
			t.Errorf("%s: %v cases with gold, want 4", name, got)
		}
		if got := rr.NoEvidence[MetricNoEvidence]; got != 2 {
			t.Errorf("%s: %v cases without gold, want 2", name, got)
		}
	}
	// The hybrid ranking finds every gold message of this small suite in
	// its first ten, and all but one first: no ranking can know that the
	// older Atlas date (m4) is superseded; that is the agent's job.
	h := s.Runners[RunnerHybrid]
	if diff := cmp.Diff(Scores{"recall@1": 0.75, "recall@10": 1, "mrr": 0.875}, Scores{
		"recall@1": h.Overall["recall@1"], "recall@10": h.Overall["recall@10"], "mrr": h.Overall["mrr"],
	}); diff != "" {
		t.Errorf("hybrid on ok.json (-want +got):\n%s", diff)
	}
	// The pooled numbers of a single suite are the suite's numbers.
	if diff := cmp.Diff(s.Runners[RunnerHybrid].Overall, rep.Runners[RunnerHybrid].Overall); diff != "" {
		t.Errorf("pooled overall differs (-suite +pooled):\n%s", diff)
	}
}

func TestRunDeterministic(t *testing.T) {
	a := mustRun(t, Config{Suites: testSuites})
	b := mustRun(t, Config{Suites: testSuites})
	opts := cmp.Options{
		cmpopts.IgnoreUnexported(RunnerReport{}, SuiteReport{}),
		cmpopts.IgnoreFields(CaseResult{}, "LatencyMS"),
		cmpopts.IgnoreMapEntries(func(k string, _ float64) bool { return strings.HasSuffix(k, "_ms") }),
		cmpopts.IgnoreFields(View{}, "Stages"),
	}
	if diff := cmp.Diff(a, b, opts); diff != "" {
		t.Errorf("two runs differ (-first +second):\n%s", diff)
	}
}

func TestRunFloors(t *testing.T) {
	floors := []Floor{
		{Runner: RunnerHybrid, Metric: "recall@10", Value: 0.99},
		{Suite: "ok", Runner: RunnerLexical, Metric: "recall@10", Value: 0.7},
		{Metric: MetricLeaks, AtMost: true, Value: 0},
	}
	mustRun(t, Config{Suites: testSuites[:1], Floors: floors})

	out := t.TempDir()
	rep, err := Run(t.Context(), Config{Suites: testSuites[:1], OutDir: out, DataDir: t.TempDir(), Floors: []Floor{{Runner: RunnerSemantic, Metric: "recall@1", Value: 1.01}}})
	if !errors.Is(err, ErrBelowFloor) {
		t.Fatalf("err = %v, want ErrBelowFloor", err)
	}
	if rep == nil {
		t.Fatal("no report with a missed floor")
	}
	if _, err := os.Stat(filepath.Join(out, ReportJSON)); err != nil {
		t.Errorf("report not written when a floor is missed: %v", err)
	}
}

func TestRunConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no suite", Config{}, "no suite"},
		{"unknown runner", Config{Suites: testSuites, Runners: []string{"bm25"}}, `unknown runner "bm25"`},
		{"runner twice", Config{Suites: testSuites, Runners: []string{"lexical", "lexical"}}, "given twice"},
		{"shallow", Config{Suites: testSuites, Depth: 10}, "depth 10 is below 25"},
		{"bad floor", Config{Suites: testSuites, Floors: []Floor{{Value: 1}}}, "names no metric"},
		{"bad suite", Config{Suites: []string{"testdata/loader/bad_refs.json"}}, "invalid suite"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(t.Context(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// fakeRunner stands in for the agent runner: it answers from a fixed map
// and can fail.
type fakeRunner struct {
	answers map[string][]queryapi.Evidence
}

func (fakeRunner) Name() string { return "fake" }

func (f fakeRunner) Ask(_ context.Context, tools *queryapi.Tools, q Question) (Answer, error) {
	if q.CaseID == "background-en" {
		return Answer{}, errors.New("model unavailable")
	}
	return Answer{Ranked: f.answers[q.CaseID]}, nil
}

func TestRunExtraRunner(t *testing.T) {
	fake := fakeRunner{answers: map[string][]queryapi.Evidence{
		"pref-zh": {{MessageID: "m1", Content: "我不吃辣，一点都不行"}, {MessageID: "m1", Content: "我不吃辣，一点都不行"}},
		// u_2's m1 has the same id as u_1's but other content: a leak.
		"cross-hotpot": {{MessageID: "m1", Content: "I love spicy hotpot"}},
	}}
	rep := mustRun(t, Config{Suites: testSuites[:1], Runners: []string{RunnerLexical}, Extra: []Runner{fake}})
	if diff := cmp.Diff([]string{RunnerLexical, "fake"}, rep.RunnerOrder); diff != "" {
		t.Errorf("runner order (-want +got):\n%s", diff)
	}
	rr := rep.Suites[0].Runners["fake"]
	i := slices.IndexFunc(rr.Cases, func(c CaseResult) bool { return c.ID == "pref-zh" })
	if diff := cmp.Diff([]string{"m1"}, rr.Cases[i].Ranked); diff != "" {
		t.Errorf("repeats not removed (-want +got):\n%s", diff)
	}
	// The overall leak count covers every case, the ones that should
	// find nothing (where a cross-user leak is likeliest) included.
	want := Scores{MetricErrors: 1, MetricLeaks: 1, "recall@1": 0.25}
	got := Scores{MetricErrors: rr.Overall[MetricErrors], MetricLeaks: rr.Overall[MetricLeaks], "recall@1": rr.Overall["recall@1"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fake overall (-want +got):\n%s", diff)
	}
	ne := rr.NoEvidence
	if ne[MetricLeaks] != 1 || ne[MetricAbstain] != 0.5 {
		t.Errorf("fake no_evidence = %v, want 1 leak and abstain 0.5", ne)
	}
}
