package agent_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi/queryapitest"
)

// BenchmarkRecall measures POST /recall's work with the offline brain at
// 10k and 100k messages of one user, reporting p95 latency.
func BenchmarkRecall(b *testing.B) {
	questions := []string{
		"你记得我周末喜欢做什么吗？", "What did we decide about project atlas?", "我不吃辣吗", "Do I like coffee?",
		"最近有什么会议安排？", "what did my sister say about paris", "这周的预算设计评审怎么样了",
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			a := agent.New(queryapitest.Seeded(b, n), mustSkill(b))
			now := queryapitest.T0.Add(time.Duration(n) * time.Second).Format(time.RFC3339)
			queryapitest.LoopP95(b, func(i int) error {
				_, err := a.Recall(b.Context(), queryapitest.User, agent.Request{Question: questions[i%len(questions)], Context: agent.RequestContext{Now: now}})
				return err
			})
			queryapitest.ReportRSS(b) // after serving
		})
	}
}

// BenchmarkRecallTenants measures POST /recall with the offline brain for
// the 100k-message user and for light users (20 messages) of one store
// that holds both (1,000 light users), reporting p95 latency.
func BenchmarkRecallTenants(b *testing.B) {
	questions := []string{
		"你记得我周末喜欢做什么吗？", "What did we decide about project atlas?", "我不吃辣吗", "Do I like coffee?",
		"最近有什么会议安排？", "what did my sister say about paris", "这周的预算设计评审怎么样了",
	}
	const n, light = 100_000, 1000
	svc := queryapitest.SeededTenants(b, n, light)
	a := agent.New(svc, mustSkill(b))
	for _, tc := range []struct {
		name string
		user func(i int) string
		now  time.Time
	}{
		{"heavy", func(int) string { return queryapitest.User }, queryapitest.T0.Add(n * time.Second)},
		{"light", func(i int) string { return queryapitest.LightUser(i * 7919 % light) }, queryapitest.T0.Add(queryapitest.LightUsers * time.Second)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			now := tc.now.Format(time.RFC3339)
			queryapitest.LoopP95(b, func(i int) error {
				_, err := a.Recall(b.Context(), tc.user(i), agent.Request{Question: questions[i%len(questions)], Context: agent.RequestContext{Now: now}})
				return err
			})
			queryapitest.ReportRSS(b) // after serving
		})
	}
}
