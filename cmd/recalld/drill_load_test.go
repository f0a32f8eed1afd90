package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loadUsers is how many users the load drill's clients share.
const loadUsers = 10

// loadTopics are the texts the load drill stores and searches.
var loadTopics = []string{
	"我们周五去吃火锅，记得订位", "I really love spicy noodles from the place near the office",
	"周末我要去杭州出差，下周一回来", "project Atlas ships in March, the budget review is on Friday",
	"我对花生过敏，点菜的时候注意", "my sister lives in Paris and visits in July",
	"明天下午三点开会讨论预算", "we booked the hotel in Kyoto for the autumn trip",
}

// loadOp is one request of the load mix.
type loadOp struct {
	route, method, path string
	body                any
	want                int
}

// nextLoadOp picks a request of the mix for user u: about a fifth writes
// (messages and ended turns), the rest searches, recall, context, events
// and lists. seq makes written ids unique.
func nextLoadOp(r *rand.Rand, u int, seq int64) loadOp {
	topic := loadTopics[r.IntN(len(loadTopics))]
	switch n := r.IntN(100); {
	case n < 15:
		msgs := make([]map[string]any, 5)
		for i := range msgs {
			msgs[i] = msgJSON(fmt.Sprintf("w%d-%d", seq, i), []string{"user", "assistant"}[i%2], fmt.Sprintf("%s (%d)", topic, seq), int(seq%100000))
		}
		return loadOp{"POST /messages", "POST", "/messages", map[string]any{"messages": msgs}, http.StatusOK}
	case n < 20:
		return loadOp{"POST /turns/end", "POST", "/turns/end", map[string]any{"request_id": fmt.Sprintf("lt%d", seq), "memo": "聊了 " + topic,
			"observations": []string{"I like oolong tea", "我住在杭州"}, "sender_id": "10001", "sender_name": "Ann"}, http.StatusAccepted}
	case n < 38:
		return loadOp{"POST /search/lexical", "POST", "/search/lexical", map[string]any{"query_text": string([]rune(topic)[:len([]rune(topic))/2]), "match": "any", "page_size": 20}, http.StatusOK}
	case n < 52:
		return loadOp{"POST /search/semantic", "POST", "/search/semantic", map[string]any{"query_text": topic, "top_k": 10}, http.StatusOK}
	case n < 62:
		q := []string{"我对什么过敏？", "when does project Atlas ship?", "我周末去哪里出差", "where does my sister live?"}[r.IntN(4)]
		return loadOp{"POST /recall", "POST", "/recall", map[string]any{"question": q}, http.StatusOK}
	case n < 77:
		return loadOp{"POST /context", "POST", "/context", map[string]any{"message": topic, "sender_id": "10001", "sender_name": "Ann"}, http.StatusOK}
	case n < 89:
		return loadOp{"POST /events/search", "POST", "/events/search", map[string]any{"query": "Ann 杭州 tea " + topic, "top_k": 10}, http.StatusOK}
	case n < 95:
		return loadOp{"GET /messages", "GET", "/messages" + q("page_size", "50"), nil, http.StatusOK}
	}
	return loadOp{"GET /memories", "GET", "/memories", nil, http.StatusOK}
}

// seedLoad stores msgsPerUser messages per user, three ended turns and
// a pinned memory, and waits until the index and the historian are done.
func seedLoad(tb testing.TB, ts *testServer, msgsPerUser int) {
	tb.Helper()
	hc := newDrillHTTP(time.Minute)
	var wg sync.WaitGroup
	for u := range loadUsers {
		wg.Go(func() {
			c := drillClient{hc: hc, base: ts.base, user: fmt.Sprintf("load:%d", u)}
			for b := 0; b < msgsPerUser; b += 100 {
				var msgs []map[string]any
				for i := b; i < min(b+100, msgsPerUser); i++ {
					msgs = append(msgs, msgJSON(fmt.Sprintf("s%d", i), []string{"user", "assistant"}[i%2], fmt.Sprintf("%s #%d", loadTopics[i%len(loadTopics)], i), i))
				}
				if r := c.send(tb.Context(), "POST", "/messages", map[string]any{"messages": msgs}); r.status != http.StatusOK {
					tb.Errorf("seed messages: %s", r)
				}
			}
			for i := range 3 {
				if r := c.send(tb.Context(), "POST", "/turns/end", map[string]any{"request_id": fmt.Sprintf("seed%d", i), "memo": "聊了 " + loadTopics[i],
					"observations": []string{loadTopics[i]}, "sender_id": "10001", "sender_name": "Ann"}); r.status != http.StatusAccepted {
					tb.Errorf("seed turn: %s", r)
				}
			}
			if r := c.send(tb.Context(), "POST", "/memories", map[string]any{"content": "以后用中文回复"}); r.status != http.StatusCreated {
				tb.Errorf("seed memory: %s", r)
			}
		})
	}
	wg.Wait()
	if tb.Failed() {
		tb.FailNow()
	}
	ts.waitIndexed()
}

// TestDrillLoad runs 20 concurrent clients for 5 s (long: 60 s) against one
// server, mixing writes, searches, recall, context and events over ten
// users, and asserts that no request fails: no transport error, no 5xx,
// every answer the status it should have. It reports p95 per route.
func TestDrillLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("drill")
	}
	const clients = 20
	dur := drillScale(5*time.Second, 60*time.Second)
	ts := startServer(t, fastQueue)
	seedLoad(t, ts, drillScale(20, 400))
	hc := newDrillHTTP(30 * time.Second)
	var (
		lat              latencies
		requests, failed atomic.Int64
		seq              atomic.Int64
		wg               sync.WaitGroup
	)
	deadline := time.Now().Add(dur)
	start := time.Now()
	for c := range clients {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), 7))
			dc := drillClient{hc: hc, base: ts.base, user: fmt.Sprintf("load:%d", c%loadUsers)}
			for time.Now().Before(deadline) {
				op := nextLoadOp(r, c%loadUsers, seq.Add(1))
				resp := dc.send(t.Context(), op.method, op.path, op.body)
				requests.Add(1)
				lat.add(op.route, resp.dur)
				if resp.err != nil || resp.status != op.want {
					if failed.Add(1) <= 10 {
						t.Errorf("%s as %s: %s", op.route, dc.user, resp)
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	drillFigure(t, "load", "%d clients, %s: %d requests (%.0f/s), %d failed", clients, elapsed.Round(time.Millisecond),
		requests.Load(), float64(requests.Load())/elapsed.Seconds(), failed.Load())
	lat.report(t, "load")
}

// BenchmarkMixedLoad runs the load drill's mix with b.RunParallel, 10 ×
// GOMAXPROCS clients (20 on two cores), and reports its p95 over all routes.
func BenchmarkMixedLoad(b *testing.B) {
	ts := startServer(b, fastQueue)
	seedLoad(b, ts, 200)
	hc := newDrillHTTP(30 * time.Second)
	var (
		lat    latencies
		seq    atomic.Int64
		failed atomic.Int64
	)
	b.SetParallelism(10)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		n := seq.Add(1)
		r := rand.New(rand.NewPCG(uint64(n), 3))
		dc := drillClient{hc: hc, base: ts.base, user: fmt.Sprintf("load:%d", n%loadUsers)}
		for pb.Next() {
			op := nextLoadOp(r, int(n%loadUsers), seq.Add(1)+1<<20)
			resp := dc.send(b.Context(), op.method, op.path, op.body)
			lat.add("all", resp.dur)
			if resp.err != nil || resp.status != op.want {
				failed.Add(1)
			}
		}
	})
	b.StopTimer()
	if failed.Load() > 0 {
		b.Errorf("%d requests failed", failed.Load())
	}
	lat.mu.Lock()
	b.ReportMetric(float64(percentile(lat.by["all"], 95).Microseconds())/1000, "p95-ms")
	lat.mu.Unlock()
}
