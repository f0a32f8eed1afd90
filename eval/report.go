package eval

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Report is the outcome of Run: every number of every runner on every suite.
// Its JSON form is report.json.
type Report struct {
	// Runners pools all cases of all suites, per runner: overall at
	// runners.<runner>.overall, per category at runners.<runner>.by_category.<category>.
	Runners map[string]*RunnerReport `json:"runners"`
	// RunnerOrder is the order the runners were given in.
	RunnerOrder []string `json:"runner_order"`
	// Suites holds each suite's numbers and every case's ranked ids.
	Suites   []*SuiteReport `json:"suites"`
	Depth    int            `json:"depth"`
	Embedder string         `json:"embedder"`
	// Kernel is the sentence models' matrix kernel (Config.Kernel).
	Kernel string `json:"kernel,omitempty"`
	// Degraded lists what the run went without that a default run has
	// (Config.Degraded): its figures do not compare with such a run's.
	Degraded []string `json:"degraded,omitempty"`
}

// SuiteReport is one suite's results.
type SuiteReport struct {
	Key        string                   `json:"key"`
	Name       string                   `json:"name"`
	Source     string                   `json:"source"`
	Format     string                   `json:"format"`
	Messages   int                      `json:"messages"`
	Cases      int                      `json:"cases"`
	Notes      []string                 `json:"notes,omitempty"`
	Categories []string                 `json:"categories"`
	Runners    map[string]*RunnerReport `json:"runners"`
	// cases are the suite's cases, in the order of every runner's results.
	cases []Case
}

// RunnerReport is one runner's results on a set of cases.
type RunnerReport struct {
	// Overall summarises all cases: the recall metrics over the cases
	// with gold evidence, the rest (leaks, latency, citations, abstaining…)
	// over every case.
	Overall Scores `json:"overall"`
	// ByCategory summarises each category; a category of cases that should
	// find nothing has no_evidence_cases and abstain_rate instead of recall.
	ByCategory map[string]Scores `json:"by_category"`
	// NoEvidence summarises the cases that should find nothing, if any.
	NoEvidence Scores `json:"no_evidence,omitempty"`
	// BySplit summarises each half (SplitTune, SplitReport): tune rules on
	// the tune half, report them on the report half.
	BySplit map[string]Scores `json:"by_split,omitempty"`
	// ByLanguage summarises each question language (LangZH, LangEN,
	// LangMixed) over all cases ("all") and over each half.
	ByLanguage map[string]map[string]Scores `json:"by_language,omitempty"`
	// Agent is set for a runner that answers with a memory view (the
	// recall agent); report.md shows it in the agent table.
	Agent bool `json:"agent,omitempty"`
	// StopReasons counts the agent's stop reasons over the cases.
	StopReasons map[string]int `json:"stop_reasons,omitempty"`
	// RecallCurve is mean recall@k for k = 1..depth, for the plots.
	RecallCurve []float64 `json:"recall_curve,omitempty"`
	// Cases are the per-case results (only in a suite's report).
	Cases []CaseResult `json:"cases,omitempty"`
	// latencies of every case, for the latency plot.
	latencies []float64
}

// CaseResult is one runner's answer to one case.
type CaseResult struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Split    string `json:"split,omitempty"`
	// Language is the question's script (Language).
	Language string `json:"language,omitempty"`
	// Ranked are the returned message ids, best first, without repeats.
	Ranked []string `json:"ranked"`
	// NoEvidence is set when the runner found nothing.
	NoEvidence bool    `json:"no_evidence,omitempty"`
	Scores     Scores  `json:"scores"`
	LatencyMS  float64 `json:"latency_ms"`
	Leaks      int     `json:"leaks,omitempty"`
	Error      string  `json:"error,omitempty"`
	// View is the rest of an agent's answer: text, statements, limits.
	View *View `json:"view,omitempty"`
}

func newReport(runners []Runner, depth int, embedder string) *Report {
	r := &Report{Runners: make(map[string]*RunnerReport), Depth: depth, Embedder: embedder}
	for _, rn := range runners {
		r.RunnerOrder = append(r.RunnerOrder, rn.Name())
	}
	return r
}

// summarize builds a runner's report from its case results.
func summarize(results []CaseResult, cases []Case, depth int) *RunnerReport {
	rr := &RunnerReport{ByCategory: make(map[string]Scores), BySplit: make(map[string]Scores), ByLanguage: make(map[string]map[string]Scores)}
	var withGold, without []CaseResult
	var goldCases, emptyCases []Case
	byCat := make(map[string][]int)
	bySplit := make(map[string][]int)
	byLang := make(map[[2]string][]int)
	for i, r := range results {
		if cases[i].Split != "" {
			bySplit[cases[i].Split] = append(bySplit[cases[i].Split], i)
		}
		lang := Language(cases[i].Question)
		for _, half := range []string{"all", cases[i].Split} {
			if half != "" {
				byLang[[2]string{half, lang}] = append(byLang[[2]string{half, lang}], i)
			}
		}
		if cases[i].NoEvidence() {
			without, emptyCases = append(without, r), append(emptyCases, cases[i])
		} else {
			withGold, goldCases = append(withGold, r), append(goldCases, cases[i])
		}
		byCat[cases[i].Category] = append(byCat[cases[i].Category], i)
		rr.latencies = append(rr.latencies, r.LatencyMS)
		if r.View != nil {
			rr.Agent = true
			if rr.StopReasons == nil {
				rr.StopReasons = make(map[string]int)
			}
			rr.StopReasons[r.View.StopReason]++
		}
	}
	rr.Overall = aggregate(results, cases)
	if len(without) > 0 {
		rr.NoEvidence = aggregate(without, emptyCases)
	}
	for cat, idx := range byCat {
		rs, cs := make([]CaseResult, len(idx)), make([]Case, len(idx))
		for j, i := range idx {
			rs[j], cs[j] = results[i], cases[i]
		}
		rr.ByCategory[cat] = aggregate(rs, cs)
	}
	for half, idx := range bySplit {
		rs, cs := make([]CaseResult, len(idx)), make([]Case, len(idx))
		for j, i := range idx {
			rs[j], cs[j] = results[i], cases[i]
		}
		rr.BySplit[half] = aggregate(rs, cs)
	}
	for key, idx := range byLang {
		rs, cs := make([]CaseResult, len(idx)), make([]Case, len(idx))
		for j, i := range idx {
			rs[j], cs[j] = results[i], cases[i]
		}
		if rr.ByLanguage[key[0]] == nil {
			rr.ByLanguage[key[0]] = make(map[string]Scores)
		}
		rr.ByLanguage[key[0]][key[1]] = aggregate(rs, cs)
	}
	rr.RecallCurve = recallCurve(withGold, goldCases, depth)
	rr.Cases = results
	return rr
}

// pool fills r.Runners from all suites' cases.
func (r *Report) pool() {
	for _, name := range r.RunnerOrder {
		var results []CaseResult
		var cases []Case
		for _, s := range r.Suites {
			rr := s.Runners[name]
			results = append(results, rr.Cases...)
			cases = append(cases, s.cases...)
		}
		pooled := summarize(results, cases, r.Depth)
		pooled.Cases = nil
		r.Runners[name] = pooled
	}
}

// Files Write creates in its directory.
const (
	ReportJSON    = "report.json"
	ReportMD      = "report.md"
	RecallPlot    = "recall.svg"
	LatencyPlot   = "latency.svg"
	suitePlotBase = "recall-"
)

// Write writes report.json, report.md, recall.svg and latency.svg (and a
// recall plot per suite when there are several) to dir, creating it.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("eval: report dir: %w", err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("eval: encode report: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ReportJSON), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("eval: write report: %w", err)
	}
	plots := map[string][]byte{}
	if plots[RecallPlot], err = r.recallSVG("Turn-level evidence recall@k, all suites", r.Runners); err != nil {
		return err
	}
	if plots[LatencyPlot], err = r.latencySVG(); err != nil {
		return err
	}
	if len(r.Suites) > 1 {
		for _, s := range r.Suites {
			if plots[suitePlotBase+s.Key+".svg"], err = r.recallSVG("Recall@k, "+s.Name, s.Runners); err != nil {
				return err
			}
		}
	}
	for name, b := range plots {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("eval: write plot: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ReportMD), r.Markdown(), 0o644); err != nil {
		return fmt.Errorf("eval: write report: %w", err)
	}
	return nil
}

// Markdown renders the report as tables that compare the runners side by
// side, with the plots Write makes embedded.
func (r *Report) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# recalld eval\n\n")
	if len(r.Degraded) > 0 {
		fmt.Fprintf(&b, "**Degraded run**, not comparable with a run that has what it went without: %s.\n\n", strings.Join(r.Degraded, "; "))
	}
	kernel := ""
	if r.Kernel != "" {
		kernel = fmt.Sprintf(" (kernel %s)", r.Kernel)
	}
	fmt.Fprintf(&b, "Runners: %s. Embedder: `%s`%s. Each runner ranks up to %d messages per question; ", strings.Join(r.RunnerOrder, ", "), r.Embedder, kernel, r.Depth)
	fmt.Fprintf(&b, "recall@k is the mean share of a case's gold evidence ids among its first k, over the cases that have gold evidence; MRR looks %d deep. ", r.Depth)
	fmt.Fprintf(&b, "Cases that should find nothing (fixture `absent` and gold-less `cross_user`, LoCoMo category 5) are scored separately: abstain rate is the share where the runner returned nothing.\n\n")
	if len(r.Suites) > 1 {
		fmt.Fprintf(&b, "## All suites\n\n")
		r.overallTable(&b, r.Runners)
		r.agentTable(&b, r.Runners)
	}
	fmt.Fprintf(&b, "![recall@k per runner](%s)\n\n![latency per runner](%s)\n\n", RecallPlot, LatencyPlot)
	for _, s := range r.Suites {
		fmt.Fprintf(&b, "## %s (`%s`, %s)\n\n", s.Name, s.Key, s.Format)
		fmt.Fprintf(&b, "%d messages, %d cases.\n\n", s.Messages, s.Cases)
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		if len(s.Notes) > 0 {
			b.WriteString("\n")
		}
		r.overallTable(&b, s.Runners)
		r.agentTable(&b, s.Runners)
		r.splitTable(&b, s.Runners)
		r.languageTable(&b, s.Runners)
		if len(r.Suites) > 1 {
			fmt.Fprintf(&b, "![recall@k on %s](%s%s.svg)\n\n", s.Key, suitePlotBase, s.Key)
		}
		r.categoryTable(&b, s)
		r.noEvidenceTable(&b, s)
	}
	return b.Bytes()
}

func (r *Report) overallTable(b *bytes.Buffer, runners map[string]*RunnerReport) {
	cols := append([]string{MetricCases}, RecallKeys()...)
	cols = append(cols, MetricNDCG10, MetricMRR, MetricForbidden10, MetricKeywords10, MetricLeaks, MetricErrors, MetricP50, MetricP95)
	var shown []string
	for _, c := range cols {
		for _, name := range r.RunnerOrder {
			if _, ok := runners[name].Overall[c]; ok {
				shown = append(shown, c)
				break
			}
		}
	}
	fmt.Fprintf(b, "| runner | %s |\n|---|%s\n", strings.Join(shown, " | "), strings.Repeat("---:|", len(shown)))
	for _, name := range r.RunnerOrder {
		fmt.Fprintf(b, "| %s |", name)
		for _, c := range shown {
			fmt.Fprintf(b, " %s |", formatMetric(c, runners[name].Overall))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// agentColumns are the columns of the agent table.
var agentColumns = []string{
	MetricCases, MetricCitedRecall, MetricCitedPrecision, MetricCitations, MetricForbiddenRate,
	MetricAbsentCorrect, MetricKeywordHits, MetricLeaks, MetricErrors, MetricP50, MetricP95,
}

// agentTable shows the metrics of the runners that answer with a memory
// view (the recall agent) over the evidence they cite, with their stop
// reasons; nothing when there is none.
func (r *Report) agentTable(b *bytes.Buffer, runners map[string]*RunnerReport) {
	var names []string
	for _, name := range r.RunnerOrder {
		if rr := runners[name]; rr != nil && rr.Agent {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(b, "Agent, over the evidence it cites: cited_recall is the mean share of gold ids cited (cases with gold); ")
	fmt.Fprintf(b, "cited_precision the mean share of cited ids that are gold or acceptable (cases citing any); citations the mean per case; ")
	fmt.Fprintf(b, "forbidden_rate the share of cases with forbidden ids that cite one; absent_correct the share of cases that should find nothing answered with `no_evidence`; ")
	fmt.Fprintf(b, "keyword_hit_rate the mean share of expected keywords found in the answer, item statements and cited text; ")
	fmt.Fprintf(b, "leaks the cited or quoted messages that are not the case user's (must be 0); latency is the whole recall per question.\n\n")
	fmt.Fprintf(b, "| agent | %s |\n|---|%s\n", strings.Join(agentColumns, " | "), strings.Repeat("---:|", len(agentColumns)))
	for _, name := range names {
		fmt.Fprintf(b, "| %s |", name)
		for _, c := range agentColumns {
			fmt.Fprintf(b, " %s |", formatMetric(c, runners[name].Overall))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "Latency per stage of the recall, p50 / p95 in ms: observe parses the question; search is the brain's loop; ")
	fmt.Fprintf(b, "tools the time inside tool calls (parallel calls add up); synthesize builds the view; verify re-reads the cited messages.\n\n")
	fmt.Fprintf(b, "| agent | %s |\n|---|%s\n", strings.Join(Stages(), " | "), strings.Repeat("---:|", len(Stages())))
	for _, name := range names {
		fmt.Fprintf(b, "| %s |", name)
		for _, st := range Stages() {
			o := runners[name].Overall
			fmt.Fprintf(b, " %.1f / %.1f |", o[st+"_p50_ms"], o[st+"_p95_ms"])
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	for _, name := range names {
		reasons := runners[name].StopReasons
		keys := slices.Sorted(maps.Keys(reasons))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %d", cmp.Or(k, "none"), reasons[k])
		}
		fmt.Fprintf(b, "Stop reasons of %s: %s.\n\n", name, strings.Join(parts, ", "))
	}
}

// splitColumns are the columns of the split table.
var splitColumns = []string{
	MetricCases, "recall@10", MetricCitedRecall, MetricCitedPrecision, MetricCitations,
	MetricNoEvidence, MetricAbstain, MetricAbsentCorrect, MetricForbiddenRate,
}

// splitTable shows each runner on the tune and the report half side by
// side; nothing when the cases carry no split.
func (r *Report) splitTable(b *bytes.Buffer, runners map[string]*RunnerReport) {
	if len(runners[r.RunnerOrder[0]].BySplit) == 0 {
		return
	}
	fmt.Fprintf(b, "By half: rules are tuned on `tune` and reported on `report` (a case's `split`, else FNV-1a of its id).\n\n")
	fmt.Fprintf(b, "| runner | half | %s |\n|---|---|%s\n", strings.Join(splitColumns, " | "), strings.Repeat("---:|", len(splitColumns)))
	for _, name := range r.RunnerOrder {
		for _, half := range Splits() {
			sc, ok := runners[name].BySplit[half]
			if !ok {
				continue
			}
			fmt.Fprintf(b, "| %s | %s |", name, half)
			for _, c := range splitColumns {
				fmt.Fprintf(b, " %s |", formatMetric(c, sc))
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
}

// languageTable shows each runner by question language (zh, en, mixed)
// on all cases and on each half; nothing when a suite has one language.
func (r *Report) languageTable(b *bytes.Buffer, runners map[string]*RunnerReport) {
	all := runners[r.RunnerOrder[0]].ByLanguage["all"]
	if len(all) < 2 {
		return
	}
	fmt.Fprintf(b, "By question language (zh: Han characters only; en: no Han characters; mixed: both).\n\n")
	fmt.Fprintf(b, "| runner | half | language | %s |\n|---|---|---|%s\n", strings.Join(splitColumns, " | "), strings.Repeat("---:|", len(splitColumns)))
	for _, name := range r.RunnerOrder {
		for _, half := range append([]string{"all"}, Splits()...) {
			for _, lang := range Languages() {
				sc, ok := runners[name].ByLanguage[half][lang]
				if !ok {
					continue
				}
				fmt.Fprintf(b, "| %s | %s | %s |", name, half, lang)
				for _, c := range splitColumns {
					fmt.Fprintf(b, " %s |", formatMetric(c, sc))
				}
				b.WriteString("\n")
			}
		}
	}
	b.WriteString("\n")
}

func (r *Report) categoryTable(b *bytes.Buffer, s *SuiteReport) {
	for _, metric := range []string{"recall@10", "recall@5", MetricMRR} {
		var rows []string
		for _, cat := range s.Categories {
			first := s.Runners[r.RunnerOrder[0]].ByCategory[cat]
			if _, ok := first[metric]; !ok {
				continue
			}
			row := fmt.Sprintf("| %s | %d |", cat, int(first[MetricCases]))
			for _, name := range r.RunnerOrder {
				row += fmt.Sprintf(" %s |", formatMetric(metric, s.Runners[name].ByCategory[cat]))
			}
			rows = append(rows, row)
		}
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(b, "### %s by category\n\n| category | cases | %s |\n|---|---:|%s\n", metric, strings.Join(r.RunnerOrder, " | "), strings.Repeat("---:|", len(r.RunnerOrder)))
		b.WriteString(strings.Join(rows, "\n"))
		b.WriteString("\n\n")
	}
}

func (r *Report) noEvidenceTable(b *bytes.Buffer, s *SuiteReport) {
	var rows []string
	for _, cat := range s.Categories {
		first := s.Runners[r.RunnerOrder[0]].ByCategory[cat]
		if _, ok := first[MetricNoEvidence]; !ok {
			continue
		}
		row := fmt.Sprintf("| %s | %d |", cat, int(first[MetricNoEvidence]))
		for _, name := range r.RunnerOrder {
			sc := s.Runners[name].ByCategory[cat]
			row += fmt.Sprintf(" %s |", formatMetric(MetricAbstain, sc))
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "### Should find nothing: abstain rate\n\n| category | cases | %s |\n|---|---:|%s\n", strings.Join(r.RunnerOrder, " | "), strings.Repeat("---:|", len(r.RunnerOrder)))
	b.WriteString(strings.Join(rows, "\n"))
	b.WriteString("\n\n")
}

func formatMetric(name string, s Scores) string {
	v, ok := s[name]
	switch {
	case !ok:
		return "–"
	case name == MetricCases || name == MetricLeaks || name == MetricErrors || name == MetricNoEvidence:
		return fmt.Sprintf("%d", int(v))
	case name == MetricP50 || name == MetricP95:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
