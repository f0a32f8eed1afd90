package eval

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi"
)

// Question is what a runner is asked: the case's question and clock. It
// carries no evidence, so a runner cannot peek at the answer.
type Question struct {
	CaseID string
	Text   string
	Now    time.Time
	// Depth is how many ranked messages the runner should return at most.
	Depth int
}

// Answer is a runner's reply to one question.
type Answer struct {
	// Ranked are the messages the runner found, best first. A ranker
	// returns up to Question.Depth; an agent returns the ones it cites.
	Ranked []queryapi.Evidence
	// NoEvidence is set when the runner concludes that nothing in the
	// user's history answers the question. An empty Ranked implies it.
	NoEvidence bool
	// View is what a runner that answers with a memory view (the agent)
	// says besides the evidence it cites; nil for a ranker.
	View *View
}

// View is one answer of the recall agent besides its citations, kept per
// case in report.json and used by the agent metrics.
type View struct {
	// Answer is the answer sentence(s) for the bot.
	Answer string `json:"answer"`
	// Statements are the memory view's item statements, preferences,
	// profile and constraints in that order.
	Statements []string `json:"statements,omitempty"`
	// StopReason is the agent's limits.stop_reason.
	StopReason         string   `json:"stop_reason"`
	Brain              string   `json:"brain"`
	Rounds             int      `json:"rounds"`
	ToolsCalled        int      `json:"tools_called"`
	MessagesConsidered int      `json:"messages_considered"`
	Notes              []string `json:"notes,omitempty"`
	// Stages are the agent's timings per stage of the recall, in
	// milliseconds (observe, search, tools, synthesize, verify).
	Stages map[string]float64 `json:"stages_ms,omitempty"`
	// Cut lists the ids of quotes (cited or context) whose content is a
	// marked cut of the message, a prefix of its text.
	Cut []string `json:"cut,omitempty"`
	// Context are the neighbour messages returned with the citations.
	// They are checked for leaks like the citations and not reported.
	Context []queryapi.Evidence `json:"-"`
}

// Runner answers questions for one user through tools bound to that user.
// The retrieval runners rank messages; an agent runner (the recall agent,
// once it exists) plugs in through the same interface.
type Runner interface {
	// Name is the runner's key in reports ("lexical", "hybrid", …).
	Name() string
	// Ask answers q with tools bound to the case's user.
	Ask(ctx context.Context, tools *queryapi.Tools, q Question) (Answer, error)
}

// Names of the built-in runners.
const (
	RunnerLexical  = "lexical"
	RunnerSemantic = "semantic"
	RunnerHybrid   = "hybrid"
)

// BuiltinRunners lists the names NewRunner accepts.
func BuiltinRunners() []string { return []string{RunnerLexical, RunnerSemantic, RunnerHybrid} }

// NewRunner returns the built-in runner called name.
func NewRunner(name string) (Runner, error) {
	switch name {
	case RunnerLexical:
		return LexicalRunner{}, nil
	case RunnerSemantic:
		return SemanticRunner{}, nil
	case RunnerHybrid:
		return HybridRunner{}, nil
	}
	return nil, fmt.Errorf("eval: unknown runner %q (have %s)", name, strings.Join(BuiltinRunners(), ", "))
}

// LexicalRunner ranks by plain BM25 (lexical_search, match any) over the
// question's keywords (agent.KeywordQuery).
type LexicalRunner struct{}

// Name returns "lexical".
func (LexicalRunner) Name() string { return RunnerLexical }

// Ask runs one lexical search.
func (LexicalRunner) Ask(ctx context.Context, tools *queryapi.Tools, q Question) (Answer, error) {
	kw := agent.KeywordQuery(q.Text)
	if kw == "" {
		return Answer{NoEvidence: true}, nil
	}
	page, err := tools.LexicalSearch(ctx, queryapi.LexicalParams{
		QueryText: kw, Match: "any", PageSize: min(q.Depth, queryapi.MaxPageSize),
	})
	if err != nil {
		return Answer{}, err
	}
	return Answer{Ranked: page.Hits, NoEvidence: len(page.Hits) == 0}, nil
}

// SemanticRunner ranks by cosine similarity of the store's embedder
// (semantic_search) to the whole question.
type SemanticRunner struct{}

// Name returns "semantic".
func (SemanticRunner) Name() string { return RunnerSemantic }

// Ask runs one semantic search.
func (SemanticRunner) Ask(ctx context.Context, tools *queryapi.Tools, q Question) (Answer, error) {
	page, err := tools.SemanticSearch(ctx, queryapi.SemanticParams{
		QueryText: q.Text, TopK: min(q.Depth, queryapi.MaxTopK),
	})
	if err != nil {
		return Answer{}, err
	}
	return Answer{Ranked: page.Hits, NoEvidence: len(page.Hits) == 0}, nil
}

// HybridRunner ranks with queryapi.Hybrid, the fusion the recall agent
// uses, over the question as agent.ParseQuestion reads it. Options left
// zero take queryapi's defaults; Limit comes from the question.
type HybridRunner struct {
	Options queryapi.HybridOptions
}

// Name returns "hybrid".
func (HybridRunner) Name() string { return RunnerHybrid }

// Ask runs the fused ranking.
func (r HybridRunner) Ask(ctx context.Context, tools *queryapi.Tools, q Question) (Answer, error) {
	opts := r.Options
	opts.Limit = q.Depth
	hits, err := queryapi.Hybrid(ctx, tools, agent.ParseQuestion(q.Text, q.Now), opts)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Ranked: hits, NoEvidence: len(hits) == 0}, nil
}
