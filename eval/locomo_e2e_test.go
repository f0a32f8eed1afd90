package eval

import (
	"os"
	"testing"
)

// locomoPath is the LoCoMo subset in the workspace's shared folder, next to
// the repository. It is not part of the repository (CC BY-NC 4.0).
const locomoPath = "../../shared/eval/locomo/conv0-4.json"

// TestLoCoMoConv04 runs the three retrieval runners on LoCoMo conv0-4 with
// floors just under what they reach, so a retrieval regression fails.
func TestLoCoMoConv04(t *testing.T) {
	if testing.Short() {
		t.Skip("LoCoMo run skipped in -short mode")
	}
	if _, err := os.Stat(locomoPath); err != nil {
		t.Skipf("LoCoMo subset not available: %v", err)
	}
	floors := []Floor{
		{Runner: RunnerLexical, Metric: "recall@10", Value: 0.61},
		{Runner: RunnerSemantic, Metric: "recall@10", Value: 0.52},
		{Runner: RunnerHybrid, Metric: "recall@10", Value: 0.72},
		{Runner: RunnerHybrid, Metric: "recall@5", Value: 0.62},
		{Metric: MetricLeaks, AtMost: true, Value: 0},
		{Metric: MetricErrors, AtMost: true, Value: 0},
	}
	rep := mustRun(t, Config{Suites: []string{locomoPath}, Floors: floors})
	for _, name := range rep.RunnerOrder {
		o := rep.Runners[name].Overall
		t.Logf("%-8s cases %v  R@1 %.3f  R@5 %.3f  R@10 %.3f  R@25 %.3f  nDCG@10 %.3f  MRR %.3f",
			name, o[MetricCases], o["recall@1"], o["recall@5"], o["recall@10"], o["recall@25"], o[MetricNDCG10], o[MetricMRR])
	}
	// Categories 1-4 minus the two questions without evidence; category 5 apart.
	if got := rep.Runners[RunnerHybrid].Overall[MetricCases]; got != 760 {
		t.Errorf("%v scored questions, want 760", got)
	}
	if got := rep.Runners[RunnerHybrid].NoEvidence[MetricNoEvidence]; got != 237 {
		t.Errorf("%v adversarial questions, want 237", got)
	}
}
