package eval

import (
	"context"
	"slices"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi"
)

// RunnerAgent is the name of the recall agent's runner.
const RunnerAgent = "agent"

// AgentRunner asks the recall agent, the full POST /recall path in-process.
// Its ranking is the evidence it cites, in citation order, so recall@k
// measures cited recall; a no_evidence stop counts as abstaining. The rest
// of the answer (text, item statements, limits) goes into Answer.View for
// the agent metrics.
type AgentRunner struct {
	Agent *agent.Agent
	// Options bound each recall; zero values take the skill's limits.
	Options agent.Options
}

// Name returns "agent".
func (AgentRunner) Name() string { return RunnerAgent }

// Ask runs one recall with the case's clock.
func (r AgentRunner) Ask(ctx context.Context, tools *queryapi.Tools, q Question) (Answer, error) {
	req := agent.Request{Question: q.Text, Options: r.Options}
	if !q.Now.IsZero() {
		req.Context.Now = q.Now.Format(time.RFC3339Nano)
	}
	resp, err := r.Agent.RecallBound(ctx, tools, req)
	if err != nil {
		return Answer{}, err
	}
	return agentAnswer(resp), nil
}

// agentAnswer converts a recall response to an Answer.
func agentAnswer(resp *agent.Response) Answer {
	v := &View{
		Answer: resp.Answer, StopReason: resp.Limits.StopReason, Brain: resp.Limits.Brain,
		Rounds: resp.Limits.Rounds, ToolsCalled: resp.Limits.ToolsCalled,
		MessagesConsidered: resp.Limits.MessagesConsidered, Notes: resp.Limits.Notes,
		Stages: map[string]float64{
			StageObserve: resp.Timings.Observe, StageSearch: resp.Timings.Search, StageTools: resp.Timings.Tools,
			StageSynthesize: resp.Timings.Synthesize, StageVerify: resp.Timings.Verify,
		},
	}
	for _, items := range [][]agent.Item{resp.MemoryView.Preferences, resp.MemoryView.Profile, resp.MemoryView.Constraints} {
		for _, it := range items {
			v.Statements = append(v.Statements, it.Statement)
		}
	}
	ans := Answer{NoEvidence: resp.Limits.StopReason == agent.StopNoEvidence, View: v}
	for _, e := range resp.Evidence {
		ans.Ranked = append(ans.Ranked, quote(e, v))
		for _, n := range e.Context {
			v.Context = append(v.Context, quote(n, v))
		}
	}
	return ans
}

// quote converts a cited or context message, noting a cut in v.
func quote(e agent.EvidenceRef, v *View) queryapi.Evidence {
	if e.Cut && !slices.Contains(v.Cut, e.MessageID) {
		v.Cut = append(v.Cut, e.MessageID)
	}
	return queryapi.Evidence{
		MessageID: e.MessageID, Role: e.Role, Content: e.Content, CreatedAt: e.CreatedAt,
		ConversationID: e.ConversationID, SenderName: e.SenderName,
	}
}
