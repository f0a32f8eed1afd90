package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/queryapi"
)

func TestCognitiveQueryConfig(t *testing.T) {
	if diff := cmp.Diff(queryapi.DefaultEventSearchConfig(), DefaultConfig().Cognitive.Query.events()); diff != "" {
		t.Fatalf("defaults differ from queryapi's (-queryapi +config):\n%s", diff)
	}
	file := writeFile(t, "recalld.toml", `
[cognitive.query]
auto_top_k = 5
tool_default_top_k = 20
time_decay_half_life_auto_days = 7
time_decay_half_life_tool_days = 30.5
time_decay_boost = 0.3
time_decay_min_similarity = 0.4
rerank_candidate_multiplier = 4
recent_end_summaries_inject_k = 2
context_line_max = 120
`)
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want CognitiveQuery
	}{
		{"defaults", nil, nil, CognitiveQuery{AutoTopK: 3, ToolDefaultTopK: 12, HalfLifeAutoDays: 14, HalfLifeToolDays: 60,
			Boost: 0.2, MinSimilarity: 0.35, CandidateMultiplier: 3, RecentMemosInjectK: 5, ContextLineMax: 240}},
		{"file", []string{"-config", file}, nil, CognitiveQuery{AutoTopK: 5, ToolDefaultTopK: 20, HalfLifeAutoDays: 7, HalfLifeToolDays: 30.5,
			Boost: 0.3, MinSimilarity: 0.4, CandidateMultiplier: 4, RecentMemosInjectK: 2, ContextLineMax: 120}},
		{"env over file", []string{"-config", file}, map[string]string{
			"RECALLD_QUERY_AUTO_TOP_K": "2", "RECALLD_QUERY_TOOL_TOP_K": "8", "RECALLD_QUERY_HALF_LIFE_AUTO_DAYS": "1.5",
			"RECALLD_QUERY_HALF_LIFE_TOOL_DAYS": "90", "RECALLD_QUERY_DECAY_BOOST": "0", "RECALLD_QUERY_DECAY_MIN_SIMILARITY": "0.5",
			"RECALLD_QUERY_CANDIDATE_MULTIPLIER": "1", "RECALLD_QUERY_MEMOS_INJECT_K": "0", "RECALLD_QUERY_CONTEXT_LINE_MAX": "80",
		}, CognitiveQuery{AutoTopK: 2, ToolDefaultTopK: 8, HalfLifeAutoDays: 1.5, HalfLifeToolDays: 90,
			Boost: 0, MinSimilarity: 0.5, CandidateMultiplier: 1, RecentMemosInjectK: 0, ContextLineMax: 80}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := loadConfig("serve", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Cognitive.Query); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := (CognitiveQuery{HalfLifeAutoDays: 1.5}).events().HalfLifeAuto; got != 36*time.Hour {
		t.Fatalf("1.5 days = %s", got)
	}
}

func TestCognitiveQueryConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"not a number", map[string]string{"RECALLD_QUERY_DECAY_BOOST": "much"}, "RECALLD_QUERY_DECAY_BOOST"},
		{"not an integer", map[string]string{"RECALLD_QUERY_AUTO_TOP_K": "2.5"}, "RECALLD_QUERY_AUTO_TOP_K"},
		{"zero top_k", map[string]string{"RECALLD_QUERY_AUTO_TOP_K": "0"}, "auto_top_k"},
		{"top_k too big", map[string]string{"RECALLD_QUERY_TOOL_TOP_K": "101"}, "tool_default_top_k"},
		{"zero half-life", map[string]string{"RECALLD_QUERY_HALF_LIFE_TOOL_DAYS": "0"}, "half-lives"},
		{"NaN half-life", map[string]string{"RECALLD_QUERY_HALF_LIFE_AUTO_DAYS": "NaN"}, "half-lives"},
		{"negative boost", map[string]string{"RECALLD_QUERY_DECAY_BOOST": "-1"}, "time_decay_boost"},
		{"similarity over 1", map[string]string{"RECALLD_QUERY_DECAY_MIN_SIMILARITY": "1.5"}, "time_decay_min_similarity"},
		{"zero multiplier", map[string]string{"RECALLD_QUERY_CANDIDATE_MULTIPLIER": "0"}, "rerank_candidate_multiplier"},
		{"negative memos", map[string]string{"RECALLD_QUERY_MEMOS_INJECT_K": "-1"}, "recent_end_summaries_inject_k"},
		{"line too short", map[string]string{"RECALLD_QUERY_CONTEXT_LINE_MAX": "5"}, "context_line_max"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadConfig("serve", nil, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}
