package queryapi_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// BenchmarkSearchEvents measures search_events (tool mode, top_k 12, the
// default multiplier 3) over n synthetic events of one user, in the whole
// partition and in a group scope, reporting p95 latency.
func BenchmarkSearchEvents(b *testing.B) {
	queries := []string{"spicy noodles", "project atlas", "火锅 辣", "meeting friday", "周末 电影", "doctor", "咖啡"}
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := storagetest.Open(b, storage.Config{NoIndexer: true, IndexBatch: 1000})
			evs := queryapitest.Events(rand.New(rand.NewPCG(uint64(n), 9)), n)
			for i := 0; i < n; i += 1000 {
				queryapitest.StoreEvents(b, s, "bench", evs[i:min(i+1000, n)]...)
			}
			queryapitest.StoreEvents(b, s, "other", evs[:n/10]...)
			if err := s.Drain(b.Context(), nil); err != nil {
				b.Fatal(err)
			}
			svc := queryapi.New(s, queryapi.WithClock(func() time.Time { return queryapitest.T0.Add(time.Duration(n) * time.Hour) }))
			all, err := svc.Bind("bench")
			if err != nil {
				b.Fatal(err)
			}
			group, err := all.InGroup("g1")
			if err != nil {
				b.Fatal(err)
			}
			opts := queryapi.EventOptions{Mode: queryapi.ModeTool, Config: queryapi.DefaultEventSearchConfig()}
			for name, tools := range map[string]*queryapi.Tools{"partition": all, "group": group} {
				b.Run(name, func(b *testing.B) {
					var d []time.Duration
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						start := time.Now()
						if _, err := tools.SearchEvents(b.Context(), queryapi.SearchEventsParams{Query: queries[i%len(queries)]}, opts); err != nil {
							b.Fatal(err)
						}
						d = append(d, time.Since(start))
						i++
					}
					slices.Sort(d)
					b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
				})
			}
		})
	}
}
