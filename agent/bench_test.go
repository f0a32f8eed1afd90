package agent_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
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
			var d []time.Duration
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				start := time.Now()
				if _, err := a.Recall(b.Context(), queryapitest.User, agent.Request{Question: questions[i%len(questions)], Context: agent.RequestContext{Now: now}}); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(start))
				i++
			}
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
			// The process's resident memory after serving: anonymous (Go
			// heap, SQLite caches) and file-backed (mmapped Bleve segments
			// and recalld.db), in MB, on Linux.
			if st, err := os.ReadFile("/proc/self/status"); err == nil {
				for _, l := range strings.Split(string(st), "\n") {
					if f := strings.Fields(l); len(f) == 3 && (f[0] == "RssAnon:" || f[0] == "RssFile:" || f[0] == "VmHWM:") {
						if kb, err := strconv.Atoi(f[1]); err == nil {
							b.ReportMetric(float64(kb)/1024, strings.TrimSuffix(f[0], ":")+"-MB")
						}
					}
				}
			}
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
			var d []time.Duration
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				start := time.Now()
				if _, err := a.Recall(b.Context(), tc.user(i), agent.Request{Question: questions[i%len(questions)], Context: agent.RequestContext{Now: now}}); err != nil {
					b.Fatal(err)
				}
				d = append(d, time.Since(start))
				i++
			}
			slices.Sort(d)
			b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
			// The process's resident memory after serving: anonymous (Go
			// heap, SQLite caches) and file-backed (mmapped Bleve segments
			// and recalld.db), in MB, on Linux.
			if st, err := os.ReadFile("/proc/self/status"); err == nil {
				for _, l := range strings.Split(string(st), "\n") {
					if f := strings.Fields(l); len(f) == 3 && (f[0] == "RssAnon:" || f[0] == "RssFile:" || f[0] == "VmHWM:") {
						if kb, err := strconv.Atoi(f[1]); err == nil {
							b.ReportMetric(float64(kb)/1024, strings.TrimSuffix(f[0], ":")+"-MB")
						}
					}
				}
			}
		})
	}
}
