package eval

import (
	"context"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi"
)

// RunnerAgent is the name of the recall agent's runner.
const RunnerAgent = "agent"

// AgentRunner asks the recall agent, the full POST /recall path in-process.
// Its ranking is the evidence it cites, in citation order, so recall@k
// measures cited recall; no_evidence answers count as abstaining.
type AgentRunner struct {
	Agent *agent.Agent
}

// Name returns "agent".
func (AgentRunner) Name() string { return RunnerAgent }

// Ask runs one recall with the case's clock.
func (r AgentRunner) Ask(ctx context.Context, tools *queryapi.Tools, q Question) (Answer, error) {
	req := agent.Request{Question: q.Text}
	if !q.Now.IsZero() {
		req.Context.Now = q.Now.Format(time.RFC3339Nano)
	}
	resp, err := r.Agent.RecallBound(ctx, tools, req)
	if err != nil {
		return Answer{}, err
	}
	ans := Answer{NoEvidence: resp.Limits.StopReason == agent.StopNoEvidence}
	for _, e := range resp.Evidence {
		ans.Ranked = append(ans.Ranked, queryapi.Evidence{
			MessageID: e.MessageID, Role: e.Role, Content: e.Content, CreatedAt: e.CreatedAt,
			ConversationID: e.ConversationID, SenderName: e.SenderName,
		})
	}
	return ans, nil
}
