package eval

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Scores are named metrics, as they appear in report.json. Keys:
//
//	cases               cases with gold evidence in the group
//	recall@1 … recall@25 mean share of gold ids among the first k ranked
//	ndcg@10             binary-gain nDCG of the first 10 against gold
//	mrr                 mean reciprocal rank of the first gold id (0 if none is ranked)
//	forbidden@10        share of cases with forbidden ids that rank one in the first 10
//	keywords@10         share of expected keywords found in the first 10 messages
//	no_evidence_cases   cases that should find nothing
//	abstain_rate        share of those where the runner returned nothing
//	leaks               ranked messages that are not the case user's
//	errors              cases the runner failed on
//	p50_ms, p95_ms      latency percentiles of the runner over the group
//
// Keys over everything a runner returned, meant for the agent, whose
// ranking is the evidence it cites (for a ranker they cover its whole list):
//
//	cited_recall        mean share of gold ids cited, over the cases with gold
//	cited_precision     mean share of cited ids that are gold or acceptable, over cases citing any
//	citations           mean number of cited messages per case
//	forbidden_rate      share of cases with forbidden ids that cite one
//	absent_correct      share of absent cases (fixture `absent`, LoCoMo category 5)
//	                    answered with no evidence (the agent's stop_reason no_evidence)
//	keyword_hit_rate    mean share of expected keywords found, case-insensitively, in the
//	                    answer, the view's item statements and the cited messages, over
//	                    the cases with expected keywords
//
// Rates over a subset of cases (forbidden, keywords, precision) are absent
// when no case of the group is in the subset. Every count and rate except
// the recall metrics, ndcg@10, mrr and cited_recall covers all cases of the
// group, the ones that should find nothing included.
type Scores map[string]float64

// Metric names of a retrieval runner.
const (
	MetricCases       = "cases"
	MetricNDCG10      = "ndcg@10"
	MetricMRR         = "mrr"
	MetricForbidden10 = "forbidden@10"
	MetricKeywords10  = "keywords@10"
	MetricNoEvidence  = "no_evidence_cases"
	MetricAbstain     = "abstain_rate"
	MetricLeaks       = "leaks"
	MetricErrors      = "errors"
	MetricP50         = "p50_ms"
	MetricP95         = "p95_ms"

	MetricCitedRecall    = "cited_recall"
	MetricCitedPrecision = "cited_precision"
	MetricCitations      = "citations"
	MetricForbiddenRate  = "forbidden_rate"
	MetricAbsentCorrect  = "absent_correct"
	MetricKeywordHits    = "keyword_hit_rate"
)

// RecallCutoffs are the k of the reported recall@k.
var recallCutoffs = [...]int{1, 5, 10, 25}

// DefaultDepth is how many ranked messages a runner returns by default; it
// is the largest recall cutoff, and MRR looks no deeper.
const DefaultDepth = 25

func recallKey(k int) string { return "recall@" + strconv.Itoa(k) }

// RecallKeys returns the recall metric names, smallest k first.
func RecallKeys() []string {
	out := make([]string, len(recallCutoffs))
	for i, k := range recallCutoffs {
		out[i] = recallKey(k)
	}
	return out
}

// recallAt is |gold ∩ ranked[:k]| / |gold|; 0 for no gold.
func recallAt(ranked, gold []string, k int) float64 {
	if len(gold) == 0 {
		return 0
	}
	found := 0
	for _, id := range ranked[:min(k, len(ranked))] {
		if slices.Contains(gold, id) {
			found++
		}
	}
	return float64(found) / float64(len(gold))
}

// ndcgAt is DCG@k over binary gains (1 for a gold id) divided by the DCG of
// the ideal ranking, which puts min(|gold|, k) gold ids first.
func ndcgAt(ranked, gold []string, k int) float64 {
	if len(gold) == 0 {
		return 0
	}
	var dcg, ideal float64
	for i, id := range ranked[:min(k, len(ranked))] {
		if slices.Contains(gold, id) {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := range min(k, len(gold)) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return dcg / ideal
}

// reciprocalRank is 1/rank of the first gold id, 0 if none is ranked.
func reciprocalRank(ranked, gold []string) float64 {
	for i, id := range ranked {
		if slices.Contains(gold, id) {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// keywordShare is the share of keywords found, case-insensitively, in texts.
func keywordShare(texts []string, keywords []string) float64 {
	if len(keywords) == 0 {
		return 0
	}
	all := strings.ToLower(strings.Join(texts, "\n"))
	n := 0
	for _, k := range keywords {
		if strings.Contains(all, strings.ToLower(k)) {
			n++
		}
	}
	return float64(n) / float64(len(keywords))
}

func containsAny(ids, set []string) bool {
	for _, id := range ids {
		if slices.Contains(set, id) {
			return true
		}
	}
	return false
}

// scoreCase scores one case's answer. ranked is deduplicated and cut to the
// depth; texts are the contents of ranked, in order; said is the rest of an
// agent's answer (its answer text and item statements), nil for a ranker.
func scoreCase(c Case, ranked, texts, said []string, abstained bool) Scores {
	s := Scores{MetricCitations: float64(len(ranked))}
	if len(ranked) > 0 {
		good := 0
		for _, id := range ranked {
			if slices.Contains(c.GoldEvidence, id) || slices.Contains(c.AcceptableEvidence, id) {
				good++
			}
		}
		s[MetricCitedPrecision] = float64(good) / float64(len(ranked))
	}
	if len(c.ForbiddenEvidence) > 0 {
		s[MetricForbiddenRate] = b2f(containsAny(ranked, c.ForbiddenEvidence))
	}
	if c.Absent() {
		s[MetricAbsentCorrect] = b2f(abstained)
	}
	if c.NoEvidence() {
		s[MetricAbstain] = b2f(abstained)
	} else {
		s[MetricCitedRecall] = recallAt(ranked, c.GoldEvidence, len(ranked))
		for _, k := range recallCutoffs {
			s[recallKey(k)] = recallAt(ranked, c.GoldEvidence, k)
		}
		s[MetricNDCG10] = ndcgAt(ranked, c.GoldEvidence, 10)
		s[MetricMRR] = reciprocalRank(ranked, c.GoldEvidence)
	}
	if len(c.ForbiddenEvidence) > 0 {
		s[MetricForbidden10] = b2f(containsAny(ranked[:min(10, len(ranked))], c.ForbiddenEvidence))
	}
	if len(c.ExpectedKeywords) > 0 {
		s[MetricKeywords10] = keywordShare(texts[:min(10, len(texts))], c.ExpectedKeywords)
		s[MetricKeywordHits] = keywordShare(append(slices.Clip(said), texts...), c.ExpectedKeywords)
	}
	return s
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// aggregate summarises case results: means of the recall metrics over the
// cases with gold, abstain_rate over the cases without, forbidden@10 and
// keywords@10 over the cases that define them, sums of leaks and errors, and
// latency percentiles over all.
func aggregate(results []CaseResult, cases []Case) Scores {
	out := Scores{}
	var answerable, empty, absent, forbidden, keywords, citing int
	var lat []float64
	for i, r := range results {
		c := cases[i]
		lat = append(lat, r.LatencyMS)
		out[MetricCitations] += r.Scores[MetricCitations]
		if p, ok := r.Scores[MetricCitedPrecision]; ok {
			citing++
			out[MetricCitedPrecision] += p
		}
		out[MetricLeaks] += float64(r.Leaks)
		if r.Error != "" {
			out[MetricErrors]++
		}
		if c.NoEvidence() {
			empty++
			out[MetricAbstain] += r.Scores[MetricAbstain]
		} else {
			answerable++
			for _, k := range RecallKeys() {
				out[k] += r.Scores[k]
			}
			out[MetricNDCG10] += r.Scores[MetricNDCG10]
			out[MetricMRR] += r.Scores[MetricMRR]
			out[MetricCitedRecall] += r.Scores[MetricCitedRecall]
		}
		if c.Absent() {
			absent++
			out[MetricAbsentCorrect] += r.Scores[MetricAbsentCorrect]
		}
		if len(c.ForbiddenEvidence) > 0 {
			forbidden++
			out[MetricForbidden10] += r.Scores[MetricForbidden10]
			out[MetricForbiddenRate] += r.Scores[MetricForbiddenRate]
		}
		if len(c.ExpectedKeywords) > 0 {
			keywords++
			out[MetricKeywords10] += r.Scores[MetricKeywords10]
			out[MetricKeywordHits] += r.Scores[MetricKeywordHits]
		}
	}
	if answerable > 0 {
		out[MetricCases] = float64(answerable)
		for _, k := range append(RecallKeys(), MetricNDCG10, MetricMRR, MetricCitedRecall) {
			out[k] /= float64(answerable)
		}
	}
	if len(results) > 0 {
		out[MetricCitations] /= float64(len(results))
	}
	if citing > 0 {
		out[MetricCitedPrecision] /= float64(citing)
	}
	if empty > 0 {
		out[MetricNoEvidence] = float64(empty)
		out[MetricAbstain] /= float64(empty)
	}
	if absent > 0 {
		out[MetricAbsentCorrect] /= float64(absent)
	}
	if forbidden > 0 {
		out[MetricForbidden10] /= float64(forbidden)
		out[MetricForbiddenRate] /= float64(forbidden)
	}
	if keywords > 0 {
		out[MetricKeywords10] /= float64(keywords)
		out[MetricKeywordHits] /= float64(keywords)
	}
	if _, ok := out[MetricErrors]; !ok {
		out[MetricErrors] = 0
	}
	if len(lat) > 0 {
		out[MetricP50] = percentile(lat, 50)
		out[MetricP95] = percentile(lat, 95)
	}
	stageLatency(out, results)
	return out
}

// Stages of an agent's recall whose latency the agent metrics report, as
// <stage>_p50_ms and <stage>_p95_ms.
const (
	StageObserve    = "observe"
	StageSearch     = "search"
	StageTools      = "tools"
	StageSynthesize = "synthesize"
	StageVerify     = "verify"
)

// Stages lists the stages in the order of a recall.
func Stages() []string {
	return []string{StageObserve, StageSearch, StageTools, StageSynthesize, StageVerify}
}

// stageLatency adds the latency percentiles of each stage over the results
// that report stages (the agent's), nothing for the others.
func stageLatency(out Scores, results []CaseResult) {
	for _, st := range Stages() {
		var xs []float64
		for _, r := range results {
			if r.View != nil && r.View.Stages != nil {
				xs = append(xs, r.View.Stages[st])
			}
		}
		if len(xs) > 0 {
			out[st+"_p50_ms"] = percentile(xs, 50)
			out[st+"_p95_ms"] = percentile(xs, 95)
		}
	}
}

// percentile is the nearest-rank percentile p of xs.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

// recallCurve is mean recall@k for k = 1..depth over the cases with gold.
func recallCurve(results []CaseResult, cases []Case, depth int) []float64 {
	curve := make([]float64, depth)
	n := 0
	for i, r := range results {
		c := cases[i]
		if c.NoEvidence() {
			continue
		}
		n++
		for k := 1; k <= depth; k++ {
			curve[k-1] += recallAt(r.Ranked, c.GoldEvidence, k)
		}
	}
	if n == 0 {
		return nil
	}
	for i := range curve {
		curve[i] /= float64(n)
	}
	return curve
}
