package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recalld/recalld/eval"
)

// evalSuite is the eval package's smoke suite: two users, an absent case,
// a cross-user case and forbidden ids.
const evalSuite = "../../eval/testdata/loader/ok.json"

// runEval runs `recalld eval` in-process with args and returns its stdout
// and stderr.
func runEval(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdout: &out, stderr: &errOut}
	err = a.run(t.Context(), append([]string{"eval"}, args...))
	return out.String(), errOut.String(), err
}

func TestEvalReports(t *testing.T) {
	out, data := t.TempDir(), t.TempDir()
	stdout, stderr, err := runEval(t, "--suite", evalSuite, "--runners", "lexical,agent", "--out", out, "--data", data,
		"--min-recall", "lexical:recall@10>=0.9", "--min-recall", "leaks<=0")
	if err != nil {
		t.Fatalf("eval: %v\nstderr:\n%s", err, stderr)
	}
	for _, f := range []string{eval.ReportJSON, eval.ReportMD, eval.RecallPlot, eval.LatencyPlot} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if left, _ := os.ReadDir(data); len(left) != 0 {
		t.Errorf("scratch stores left in -data: %v", left)
	}
	// The progress bars go to stderr, the summary to stdout.
	if !strings.Contains(stderr, "ask ok") || !strings.Contains(stderr, "brain=offline") {
		t.Errorf("stderr lacks the progress bar or the brain:\n%s", stderr)
	}
	for _, w := range []string{"ok (6 cases)", "  lexical   recall@1 ", "  agent     recall@1 ", "cited_recall ", "report.md"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}

	b, err := os.ReadFile(filepath.Join(out, eval.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Runners map[string]struct {
			Overall map[string]float64 `json:"overall"`
		} `json:"runners"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	agent := rep.Runners["agent"].Overall
	for _, k := range []string{"recall@10", "mrr", "cited_recall", "cited_precision", "citations", "forbidden_rate",
		"absent_correct", "keyword_hit_rate", "leaks", "p50_ms", "p95_ms"} {
		if _, ok := agent[k]; !ok {
			t.Errorf("runners.agent.overall.%s missing", k)
		}
	}
	if agent["leaks"] != 0 {
		t.Errorf("agent leaks = %v", agent["leaks"])
	}
	if _, ok := rep.Runners["semantic"]; ok {
		t.Error("semantic ran though not asked for")
	}
	md, err := os.ReadFile(filepath.Join(out, eval.ReportMD))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| agent | cases | cited_recall |") {
		t.Errorf("report.md has no agent table:\n%s", md)
	}
}

func TestEvalFloorMissed(t *testing.T) {
	out := t.TempDir()
	_, _, err := runEval(t, "--suite", evalSuite, "--runners", "lexical,agent", "--out", out, "--data", t.TempDir(), "--min-recall", "1.01")
	if !errors.Is(err, eval.ErrBelowFloor) {
		t.Fatalf("err = %v, want ErrBelowFloor", err)
	}
	if errors.Is(err, errUsage) {
		t.Error("a missed floor is reported as a usage error")
	}
	// The reports are written all the same, for CI to keep.
	if _, err := os.Stat(filepath.Join(out, eval.ReportMD)); err != nil {
		t.Error(err)
	}
}

func TestEvalUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no suite", []string{"--runners", "lexical"}},
		{"unknown runner", []string{"--suite", evalSuite, "--runners", "lexical,bm25"}},
		{"bad floor", []string{"--suite", evalSuite, "--min-recall", "recall@10>=high"}},
		{"stray argument", []string{"--suite", evalSuite, "extra"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runEval(t, append(tc.args, "--out", t.TempDir(), "--data", t.TempDir())...)
			if !errors.Is(err, errUsage) {
				t.Errorf("err = %v, want a usage error", err)
			}
		})
	}
}

// TestEvalSaysWhatItWentWithout: a run whose models or dictionaries cannot
// be loaded (run from outside the repository, where the relative model
// directories do not resolve) says so on stdout, in report.md and in
// report.json, since its figures differ from a full run's on the same
// code; a run configured without them is not degraded.
func TestEvalSaysWhatItWentWithout(t *testing.T) {
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want []string // in every degraded entry, in order
	}{
		{"missing", []string{"--embedder", "use", "--embedder-model-dir", empty, "--dictionary-dir", empty, "--wordnet-dir", empty, "--wordfreq-dir", empty},
			[]string{"embedder: USE-Lite not loaded", "agent: CC-CEDICT not loaded", "agent: WordNet not loaded", "agent: word frequencies not loaded"}},
		{"configured off", []string{"--embedder", "hash", "--dictionary-dir", "", "--wordnet-dir", "", "--wordfreq-dir", ""}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"--suite", evalSuite, "--runners", "lexical,agent", "--out", out, "--data", t.TempDir()}, tt.args...)
			stdout, stderr, err := runEval(t, args...)
			if err != nil {
				t.Fatalf("eval: %v\nstderr:\n%s", err, stderr)
			}
			b, err := os.ReadFile(filepath.Join(out, eval.ReportJSON))
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Degraded []string `json:"degraded"`
			}
			if err := json.Unmarshal(b, &rep); err != nil {
				t.Fatal(err)
			}
			if len(rep.Degraded) != len(tt.want) {
				t.Fatalf("degraded = %q, want %d entries like %q", rep.Degraded, len(tt.want), tt.want)
			}
			md, err := os.ReadFile(filepath.Join(out, eval.ReportMD))
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(rep.Degraded[i], w) {
					t.Errorf("degraded[%d] = %q, want it to start %q", i, rep.Degraded[i], w)
				}
				if !strings.Contains(stdout, "DEGRADED RUN, not comparable with a full one: "+w) {
					t.Errorf("stdout does not say %q:\n%s", w, stdout)
				}
			}
			if got := strings.Contains(string(md), "**Degraded run**"); got != (len(tt.want) > 0) {
				t.Errorf("report.md says degraded = %t, want %t", got, len(tt.want) > 0)
			}
			if strings.Contains(stdout, "DEGRADED") != (len(tt.want) > 0) {
				t.Errorf("stdout:\n%s", stdout)
			}
		})
	}
}
