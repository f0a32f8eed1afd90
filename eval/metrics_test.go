package eval

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var approx = cmpopts.EquateApprox(0, 1e-9)

func TestRankingMetrics(t *testing.T) {
	for _, tc := range []struct {
		name         string
		ranked, gold []string
		want         Scores
	}{
		{
			// Gold at ranks 1, 3 and 6 of four gold ids.
			// nDCG@10 = (1 + 1/log2 4 + 1/log2 7) / (1 + 1/log2 3 + 1/log2 4 + 1/log2 5).
			name: "three of four", ranked: []string{"a", "x", "b", "y", "z", "c"}, gold: []string{"a", "b", "c", "d"},
			want: Scores{"recall@1": 0.25, "recall@5": 0.5, "recall@10": 0.75, "recall@25": 0.75, "ndcg@10": 0.7246262544989281, "mrr": 1,
				"cited_recall": 0.75, "citations": 6, "cited_precision": 0.5},
		},
		{
			name: "first gold at rank 3", ranked: []string{"x", "y", "g"}, gold: []string{"g"},
			want: Scores{"recall@1": 0, "recall@5": 1, "recall@10": 1, "recall@25": 1, "ndcg@10": 0.5, "mrr": 1.0 / 3,
				"cited_recall": 1, "citations": 3, "cited_precision": 1.0 / 3},
		},
		{
			name: "nothing ranked", ranked: nil, gold: []string{"g"},
			want: Scores{"recall@1": 0, "recall@5": 0, "recall@10": 0, "recall@25": 0, "ndcg@10": 0, "mrr": 0,
				"cited_recall": 0, "citations": 0},
		},
		{
			// Gold at rank 11 counts for recall@25 only.
			name: "beyond ten", ranked: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "g"}, gold: []string{"g"},
			want: Scores{"recall@1": 0, "recall@5": 0, "recall@10": 0, "recall@25": 1, "ndcg@10": 0, "mrr": 1.0 / 11,
				"cited_recall": 1, "citations": 11, "cited_precision": 1.0 / 11},
		},
		{
			// More gold than 10: the ideal DCG stops at 10.
			name: "perfect with many gold", ranked: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"},
			gold: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12"},
			want: Scores{"recall@1": 1.0 / 12, "recall@5": 5.0 / 12, "recall@10": 10.0 / 12, "recall@25": 1, "ndcg@10": 1, "mrr": 1,
				"cited_recall": 1, "citations": 12, "cited_precision": 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := scoreCase(Case{GoldEvidence: tc.gold}, tc.ranked, make([]string, len(tc.ranked)), nil, false)
			if diff := cmp.Diff(tc.want, got, approx); diff != "" {
				t.Errorf("scores (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScoreCaseExtras(t *testing.T) {
	c := Case{GoldEvidence: []string{"g"}, ForbiddenEvidence: []string{"f"}, ExpectedKeywords: []string{"may", "June"}}
	got := scoreCase(c, []string{"f", "g"}, []string{"Atlas ships in March", "Atlas ships in May"}, nil, false)
	want := Scores{"recall@1": 0, "recall@5": 1, "recall@10": 1, "recall@25": 1, "ndcg@10": 1 / math.Log2(3), "mrr": 0.5,
		"forbidden@10": 1, "keywords@10": 0.5, "cited_recall": 1, "citations": 2, "cited_precision": 0.5, "forbidden_rate": 1,
		"keyword_hit_rate": 0.5}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("scores (-want +got):\n%s", diff)
	}
	empty := Case{Category: CategoryAbsent, ForbiddenEvidence: []string{"f"}}
	if diff := cmp.Diff(Scores{"abstain_rate": 1, "forbidden@10": 0, "absent_correct": 1, "citations": 0, "forbidden_rate": 0}, scoreCase(empty, nil, nil, nil, true)); diff != "" {
		t.Errorf("abstained (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Scores{"abstain_rate": 0, "forbidden@10": 1, "absent_correct": 0, "citations": 1, "cited_precision": 0, "forbidden_rate": 1}, scoreCase(empty, []string{"f"}, []string{""}, nil, false)); diff != "" {
		t.Errorf("answered (-want +got):\n%s", diff)
	}
	// A cross-user case without gold may cite acceptable evidence: it is
	// scored for abstaining but is not an absent case.
	cross := Case{Category: CategoryCrossUser, AcceptableEvidence: []string{"a"}}
	if diff := cmp.Diff(Scores{"abstain_rate": 0, "citations": 1, "cited_precision": 1}, scoreCase(cross, []string{"a"}, []string{""}, nil, false)); diff != "" {
		t.Errorf("cross-user (-want +got):\n%s", diff)
	}
}

func TestKeywordHitRate(t *testing.T) {
	c := Case{GoldEvidence: []string{"g"}, ExpectedKeywords: []string{"JUNE", "may", "violin"}}
	// "June" is only in the answer, "May" only in the cited text, "violin" nowhere.
	got := scoreCase(c, []string{"g"}, []string{"Atlas ships in May"}, []string{"Atlas now ships in June.", "Atlas ships in june"}, false)
	if diff := cmp.Diff(Scores{"keywords@10": 1.0 / 3, "keyword_hit_rate": 2.0 / 3},
		Scores{"keywords@10": got["keywords@10"], "keyword_hit_rate": got["keyword_hit_rate"]}, approx); diff != "" {
		t.Errorf("keyword scores (-want +got):\n%s", diff)
	}
	if _, ok := scoreCase(Case{GoldEvidence: []string{"g"}}, nil, nil, []string{"x"}, false)["keyword_hit_rate"]; ok {
		t.Error("keyword_hit_rate set for a case without expected keywords")
	}
}

func TestAggregate(t *testing.T) {
	cases := []Case{
		{ID: "1", GoldEvidence: []string{"a", "b", "c", "d"}},
		{ID: "2", GoldEvidence: []string{"g"}, ExpectedKeywords: []string{"x"}},
		{ID: "3", GoldEvidence: []string{"g"}, ForbiddenEvidence: []string{"f"}},
		{ID: "4", Category: CategoryAbsent, ForbiddenEvidence: []string{"f"}},
		{ID: "5", Category: CategoryAdversarial},
		{ID: "6", Category: CategoryCrossUser},
	}
	results := []CaseResult{
		{Scores: scoreCase(cases[0], []string{"a", "x", "b", "y", "z", "c"}, make([]string, 6), nil, false), LatencyMS: 1},
		{Scores: scoreCase(cases[1], []string{"x", "y", "g"}, []string{"", "x", ""}, nil, false), LatencyMS: 2},
		{Scores: scoreCase(cases[2], nil, nil, nil, true), LatencyMS: 3, Error: "boom"},
		{Scores: scoreCase(cases[3], []string{"f"}, []string{""}, nil, false), LatencyMS: 4, Leaks: 1},
		{Scores: scoreCase(cases[4], nil, nil, nil, true), LatencyMS: 5},
		{Scores: scoreCase(cases[5], []string{"h"}, []string{""}, nil, false), LatencyMS: 6},
	}
	got := aggregate(results, cases)
	want := Scores{
		"cases":     3,
		"recall@1":  0.25 / 3,
		"recall@5":  (0.5 + 1 + 0) / 3,
		"recall@10": (0.75 + 1 + 0) / 3,
		"recall@25": (0.75 + 1 + 0) / 3,
		"ndcg@10":   (0.7246262544989281 + 0.5 + 0) / 3,
		"mrr":       (1 + 1.0/3 + 0) / 3,
		// Case 3 ranked nothing, case 4 ranked the forbidden id.
		"forbidden@10":      0.5,
		"keywords@10":       1,
		"keyword_hit_rate":  1,
		"no_evidence_cases": 3,
		"abstain_rate":      1.0 / 3,
		"leaks":             1,
		"errors":            1,
		"p50_ms":            3,
		"p95_ms":            6,
		// Over everything returned: precision over the four cases citing anything.
		"citations":       (6 + 3 + 0 + 1 + 0 + 1) / 6.0,
		"cited_precision": (0.5 + 1.0/3 + 0 + 0) / 4,
		"cited_recall":    (0.75 + 1 + 0) / 3,
		"forbidden_rate":  0.5,
		// Cases 4 (cited) and 5 (abstained) are absent; 6 is cross-user.
		"absent_correct": 0.5,
	}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("aggregate (-want +got):\n%s", diff)
	}
	wantCurve := []float64{0.25 / 3, 0.25 / 3, (0.5 + 1) / 3, (0.5 + 1) / 3, (0.5 + 1) / 3, (0.75 + 1) / 3}
	for i := range results {
		results[i].Ranked = [][]string{{"a", "x", "b", "y", "z", "c"}, {"x", "y", "g"}, nil, {"f"}, nil, {"h"}}[i]
	}
	curve := recallCurve(results, cases, 6)
	if diff := cmp.Diff(wantCurve, curve, approx); diff != "" {
		t.Errorf("recall curve (-want +got):\n%s", diff)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	for _, tc := range []struct{ p, want float64 }{{50, 5}, {95, 10}, {10, 1}, {0, 1}, {100, 10}} {
		if got := percentile(xs, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("empty p50 = %v", got)
	}
	if xs[0] != 10 {
		t.Error("percentile sorted its input in place")
	}
}
