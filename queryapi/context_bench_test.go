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

// BenchmarkContext measures what a bot waits for every turn (POST /context
// in-process): profiles, the auto-injected events, memos and pinned
// memories, in a group and in a private chat. Goal: p95 ≤ 20 ms.
func BenchmarkContext(b *testing.B) {
	messages := []string{"<content>你还记得我吃不吃辣吗</content>", "what did we decide about project atlas?", "周末 电影", "在吗", "doctor appointment friday"}
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			s := storagetest.Open(b, storage.Config{NoIndexer: true, IndexBatch: 1000})
			evs := queryapitest.Events(rand.New(rand.NewPCG(uint64(n), 9)), n)
			for i := 0; i < n; i += 1000 {
				queryapitest.StoreEvents(b, s, "bench", evs[i:min(i+1000, n)]...)
			}
			if err := s.Drain(b.Context(), nil); err != nil {
				b.Fatal(err)
			}
			ctx := b.Context()
			for i := range 50 {
				if _, _, err := s.EnqueueJob(ctx, storage.NewJob{UserID: "bench", Kind: "bench_turn", Key: fmt.Sprintf("t%d", i),
					Payload: []byte(`{}`), Memo: &storage.NewMemo{GroupID: "g1", SenderID: evs[i].SenderID, RequestType: "group",
						Content: fmt.Sprintf("memo %d of the group", i), Timestamp: queryapitest.T0.Add(time.Duration(i) * time.Hour)}}); err != nil {
					b.Fatal(err)
				}
			}
			for i := range 10 {
				if _, _, err := s.AddMemory(ctx, "bench", storage.Memory{Content: fmt.Sprintf("pinned fact %d", i)}); err != nil {
					b.Fatal(err)
				}
			}
			svc := queryapi.New(s, queryapi.WithClock(func() time.Time { return queryapitest.T0.Add(time.Duration(n) * time.Hour) }))
			tools, err := svc.Bind("bench")
			if err != nil {
				b.Fatal(err)
			}
			cfg := queryapi.ContextConfig{Events: queryapi.DefaultEventSearchConfig(), Memos: 5, LineMax: 240}
			for _, scope := range []struct{ name, group string }{{"group", "g1"}, {"private", ""}} {
				b.Run(scope.name, func(b *testing.B) {
					var d []time.Duration
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						p := queryapi.ContextParams{Message: messages[i%len(messages)], GroupID: scope.group, SenderID: evs[i%n].SenderID, SenderName: "Ann"}
						start := time.Now()
						if _, err := tools.Context(ctx, p, cfg); err != nil {
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
