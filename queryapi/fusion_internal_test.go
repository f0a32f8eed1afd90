package queryapi

import (
	"context"
	"testing"
)

func TestKeywordCoverage(t *testing.T) {
	for _, tc := range []struct {
		keywords, text string
		want           float64
	}{
		{"race getting ready", "I'm training for a half marathon in October", 0},
		{"race getting ready", "Getting ready for the race!", 1},
		{"menu redesign", "the new MENU is up", 0.5},
		{"of a", "anything", 1}, // no terms: nothing to cover
	} {
		if got := keywordCoverage(tc.keywords, tc.text); got != tc.want {
			t.Errorf("keywordCoverage(%q, %q) = %v, want %v", tc.keywords, tc.text, got, tc.want)
		}
	}
}

// fixedSearcher answers every lexical search with lex and every semantic
// search with sem: a fake for how Hybrid weighs the rankings.
type fixedSearcher struct{ lex, sem []Evidence }

func (f fixedSearcher) User() string { return "qq:1" }

func (f fixedSearcher) LexicalSearch(context.Context, LexicalParams) (Page, error) {
	return Page{Hits: f.lex}, nil
}

func (f fixedSearcher) SemanticSearch(context.Context, SemanticParams) (Page, error) {
	return Page{Hits: f.sem}, nil
}

func (f fixedSearcher) Neighbors(context.Context, NeighborsParams) (NeighborsResult, error) {
	return NeighborsResult{}, nil
}

// TestHybridParaphrase: when the best BM25 hit holds few of the keywords,
// semantic similarity weighs Paraphrase and a paraphrase can lead.
func TestHybridParaphrase(t *testing.T) {
	msg := func(id, text string, score float64) Evidence {
		return Evidence{MessageID: id, Role: "user", SenderID: "1", Content: text, Score: score}
	}
	weights := Weights{Lexical: 0.8, Semantic: 0.2, Paraphrase: 0.5}
	for _, tc := range []struct {
		name     string
		keywords string
		lex      []Evidence
		weights  Weights
		want     string
	}{
		{"few keywords found: meaning leads", "race getting ready",
			[]Evidence{msg("a", "ready for dinner", 3), msg("b", "I'm training for a half marathon", 2.4), msg("x", "whatever", 1)}, weights, "b"},
		{"most keywords found: words lead", "race getting ready",
			[]Evidence{msg("a", "getting ready for the race", 3), msg("b", "I'm training for a half marathon", 2.4), msg("x", "whatever", 1)}, weights, "a"},
		{"no paraphrase weight", "race getting ready",
			[]Evidence{msg("a", "ready for dinner", 3), msg("b", "I'm training for a half marathon", 2.4), msg("x", "whatever", 1)},
			Weights{Lexical: 0.8, Semantic: 0.2}, "a"},
	} {
		// b scores on meaning, a not at all; BM25 leaves a ahead by .24
		// (.8 × (1 − .7)), which a semantic weight of .5 overturns and .2
		// does not.
		sem := []Evidence{msg("b", tc.lex[1].Content, 0.9), msg("c", "something else", 0.5), msg("a", tc.lex[0].Content, 0.1)}
		got, err := Hybrid(t.Context(), fixedSearcher{lex: tc.lex, sem: sem},
			Question{Text: tc.keywords + "?", Keywords: tc.keywords}, HybridOptions{Weights: tc.weights})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].MessageID != tc.want {
			t.Errorf("%s: ranked %v, want %s first", tc.name, ids(got), tc.want)
		}
	}
}

func ids(hits []Evidence) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.MessageID
	}
	return out
}
