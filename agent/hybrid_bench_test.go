package agent_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
)

// BenchmarkHybrid measures one fused ranking (three rankings and the
// neighbours of the ten best) at 10k and 100k messages of one user,
// reporting p95 latency.
func BenchmarkHybrid(b *testing.B) {
	questions := []string{
		"What did we decide about project atlas?", "你记得我周末喜欢做什么吗？", "Do I like coffee?",
		"what did my sister say about paris", "这周的预算设计评审怎么样了",
	}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			tools, err := queryapitest.Seeded(b, n).Bind(queryapitest.User)
			if err != nil {
				b.Fatal(err)
			}
			var d []time.Duration
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				start := time.Now()
				if _, err := queryapi.Hybrid(b.Context(), tools, agent.ParseQuestion(questions[i%len(questions)], time.Time{}), queryapi.HybridOptions{}); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(start))
				i++
			}
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
}
