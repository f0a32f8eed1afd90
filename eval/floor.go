package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBelowFloor is returned when a report misses a quality floor.
var ErrBelowFloor = errors.New("eval: below floor")

// Floor is a bound on one metric: at least (or, for metrics where lower is
// better, such as leaks, at most) a value.
type Floor struct {
	// Suite is a suite key; "" means all suites pooled.
	Suite string
	// Runner is a runner name; "" means every runner in the report.
	Runner string
	// Metric is a Scores key of the runner's overall scores, or of its
	// no_evidence scores for no_evidence_cases and abstain_rate.
	Metric string
	// AtMost makes Value an upper bound.
	AtMost bool
	Value  float64
}

// String formats f the way ParseFloor reads it.
func (f Floor) String() string {
	var b strings.Builder
	if f.Suite != "" {
		b.WriteString(f.Suite + "/")
	}
	if f.Runner != "" {
		b.WriteString(f.Runner + ":")
	}
	op := ">="
	if f.AtMost {
		op = "<="
	}
	fmt.Fprintf(&b, "%s%s%s", f.Metric, op, strconv.FormatFloat(f.Value, 'f', -1, 64))
	return b.String()
}

// ParseFloor reads a floor written as [suite/][runner:]metric(>=|<=|=)value,
// where = means >=, or as a bare number, which is a floor on recall@10 of
// every runner: "0.8", "hybrid:recall@10=0.8", "core/hybrid:mrr>=0.5",
// "leaks<=0".
func ParseFloor(s string) (Floor, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		f := Floor{Metric: "recall@10", Value: v}
		return f, f.check()
	}
	var f Floor
	lhs, rhs, op := "", "", ""
	for _, o := range []string{">=", "<=", "="} {
		if i := strings.Index(s, o); i >= 0 {
			lhs, rhs, op = s[:i], s[i+len(o):], o
			break
		}
	}
	if op == "" {
		return f, fmt.Errorf("eval: floor %q: want [suite/][runner:]metric>=value", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(rhs), 64)
	if err != nil {
		return f, fmt.Errorf("eval: floor %q: %q is not a number", s, rhs)
	}
	f.Value, f.AtMost = v, op == "<="
	if i := strings.Index(lhs, "/"); i >= 0 {
		f.Suite, lhs = lhs[:i], lhs[i+1:]
	}
	if i := strings.Index(lhs, ":"); i >= 0 {
		f.Runner, lhs = lhs[:i], lhs[i+1:]
	}
	f.Metric = strings.TrimSpace(lhs)
	return f, f.check()
}

func (f Floor) check() error {
	if f.Metric == "" {
		return fmt.Errorf("eval: floor %q names no metric", f.String())
	}
	return nil
}

// CheckFloors compares the report with floors. It returns nil when every
// floor holds, and otherwise an error wrapping ErrBelowFloor that lists
// each miss. A floor naming a suite, runner or metric the report lacks is
// a miss too, so a typo cannot pass silently.
func (r *Report) CheckFloors(floors []Floor) error {
	var misses []string
	for _, f := range floors {
		runners := r.Runners
		if f.Suite != "" {
			runners = nil
			for _, s := range r.Suites {
				if s.Key == f.Suite {
					runners = s.Runners
				}
			}
			if runners == nil {
				misses = append(misses, fmt.Sprintf("%s: no suite %q", f, f.Suite))
				continue
			}
		}
		names := r.RunnerOrder
		if f.Runner != "" {
			names = []string{f.Runner}
		}
		for _, name := range names {
			rr, ok := runners[name]
			if !ok {
				misses = append(misses, fmt.Sprintf("%s: no runner %q", f, name))
				continue
			}
			scores := rr.Overall
			if f.Metric == MetricAbstain || f.Metric == MetricNoEvidence {
				scores = rr.NoEvidence
			}
			v, ok := scores[f.Metric]
			switch {
			case !ok:
				misses = append(misses, fmt.Sprintf("%s: runner %s reports no %s", f, name, f.Metric))
			case f.AtMost && v > f.Value, !f.AtMost && v < f.Value:
				misses = append(misses, fmt.Sprintf("%s: runner %s has %.4f", f, name, v))
			}
		}
	}
	if len(misses) > 0 {
		return fmt.Errorf("%w: %s", ErrBelowFloor, strings.Join(misses, "; "))
	}
	return nil
}
