package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFloor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Floor
		err  string
	}{
		{"0.8", Floor{Metric: "recall@10", Value: 0.8}, ""},
		{"hybrid:recall@10=0.8", Floor{Runner: "hybrid", Metric: "recall@10", Value: 0.8}, ""},
		{"core/hybrid:mrr>=0.5", Floor{Suite: "core", Runner: "hybrid", Metric: "mrr", Value: 0.5}, ""},
		{"conv0-4/recall@25>=.7", Floor{Suite: "conv0-4", Metric: "recall@25", Value: 0.7}, ""},
		{"leaks<=0", Floor{Metric: "leaks", AtMost: true, Value: 0}, ""},
		{"hybrid:recall@10", Floor{}, "want [suite/][runner:]metric>=value"},
		{"recall@10>=high", Floor{}, `"high" is not a number`},
		{"hybrid:=0.5", Floor{Runner: "hybrid", Value: 0.5}, "names no metric"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseFloor(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			again, err := ParseFloor(got.String())
			if err != nil || again != got {
				t.Errorf("String() = %q does not parse back: %v %v", got.String(), again, err)
			}
		})
	}
}

func TestCheckFloors(t *testing.T) {
	rep := &Report{
		RunnerOrder: []string{"lexical", "hybrid"},
		Runners: map[string]*RunnerReport{
			"lexical": {Overall: Scores{"recall@10": 0.6, "leaks": 0}, NoEvidence: Scores{"abstain_rate": 0.1}},
			"hybrid":  {Overall: Scores{"recall@10": 0.74, "leaks": 0}, NoEvidence: Scores{"abstain_rate": 0.2}},
		},
		Suites: []*SuiteReport{{Key: "core", Runners: map[string]*RunnerReport{
			"lexical": {Overall: Scores{"recall@10": 0.9}},
			"hybrid":  {Overall: Scores{"recall@10": 0.95}},
		}}},
	}
	for _, tc := range []struct {
		name   string
		floors []string
		misses []string
	}{
		{"all hold", []string{"0.6", "hybrid:recall@10=0.74", "core/recall@10>=0.9", "leaks<=0", "abstain_rate>=0.1"}, nil},
		{"one runner misses", []string{"0.7"}, []string{"recall@10>=0.7: runner lexical has 0.6000"}},
		{"suite floor", []string{"core/hybrid:recall@10>=0.96"}, []string{"runner hybrid has 0.9500"}},
		{"upper bound", []string{"hybrid:recall@10<=0.5"}, []string{"hybrid:recall@10<=0.5: runner hybrid has 0.7400"}},
		{"unknown suite", []string{"nope/recall@10>=0"}, []string{`no suite "nope"`}},
		{"unknown runner", []string{"agent:recall@10>=0"}, []string{`no runner "agent"`}},
		{"unknown metric", []string{"hybrid:recal@10>=0"}, []string{"runner hybrid reports no recal@10"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var floors []Floor
			for _, s := range tc.floors {
				f, err := ParseFloor(s)
				if err != nil {
					t.Fatal(err)
				}
				floors = append(floors, f)
			}
			err := rep.CheckFloors(floors)
			if tc.misses == nil {
				if err != nil {
					t.Errorf("err = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrBelowFloor) {
				t.Fatalf("err = %v, want ErrBelowFloor", err)
			}
			for _, m := range tc.misses {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error lacks %q: %v", m, err)
				}
			}
		})
	}
}
