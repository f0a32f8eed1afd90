package storage_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
)

var benchWords = strings.Fields(`coffee project atlas budget meeting friday spicy noodles hiking trip
	deadline review design launch weekend movie dinner sister doctor gym running book guitar paris
	火锅 辣 会议 周末 项目 咖啡 电影 晚饭 医生 跑步 吉他 旅行 预算 设计 上线 妹妹 北京 上海 喜欢 不吃`)

// chatText makes a synthetic chat turn of 8-20 words.
func chatText(r *rand.Rand) string {
	n := 8 + r.IntN(13)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = benchWords[r.IntN(len(benchWords))]
	}
	return strings.Join(parts, " ")
}

func synthMessages(r *rand.Rand, start, n int) []storage.Message {
	out := make([]storage.Message, n)
	for i := range out {
		k := start + i
		out[i] = storage.Message{
			ID: fmt.Sprintf("m%d", k), Role: []string{"user", "assistant"}[k%2], ConversationID: fmt.Sprintf("c%d", k/200),
			SenderName: []string{"Ann", "Bot"}[k%2], Content: chatText(r), CreatedAt: t0.Add(time.Duration(k) * time.Second),
		}
	}
	return out
}

var (
	seedMu   sync.Mutex
	seedDirs = map[int]string{}
)

// seeded returns a store holding n indexed messages of user "bench", built
// once per process and size in a temporary directory.
func seeded(b *testing.B, n int) *storage.Store {
	b.Helper()
	seedMu.Lock()
	defer seedMu.Unlock()
	dir, ok := seedDirs[n]
	if !ok {
		var err error
		dir, err = os.MkdirTemp("", fmt.Sprintf("recalld-bench-%d-", n))
		if err != nil {
			b.Fatal(err)
		}
		s, err := storage.Open(b.Context(), storage.Config{Dir: dir, NoIndexer: true, IndexBatch: 1000})
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(n), 3))
		for i := 0; i < n; i += 1000 {
			if _, err := s.Insert(b.Context(), "bench", synthMessages(r, i, min(1000, n-i))); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if err := s.Drain(b.Context(), nil); err != nil {
			b.Fatal(err)
		}
		b.Logf("indexed %d messages in %s (%.0f msg/s)", n, time.Since(start), float64(n)/time.Since(start).Seconds())
		s.Close()
		seedDirs[n] = dir
	}
	s, err := storage.Open(b.Context(), storage.Config{Dir: dir, NoIndexer: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkInsert measures acknowledged writes: batches of 1000 committed to SQLite.
func BenchmarkInsert(b *testing.B) {
	s, err := storage.Open(b.Context(), storage.Config{Dir: b.TempDir(), NoIndexer: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := rand.New(rand.NewPCG(1, 1))
	batches := make([][]storage.Message, 20)
	for i := range batches {
		batches[i] = synthMessages(r, i*1000, 1000)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		msgs := slices.Clone(batches[i%len(batches)])
		for j := range msgs {
			msgs[j].ID = fmt.Sprintf("b%d-%d", i, j)
		}
		if _, err := s.Insert(b.Context(), "bench", msgs); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N*1000)/b.Elapsed().Seconds(), "msg/s")
}

// BenchmarkIndex measures the outbox indexer: embedding, Bleve and vec0 writes.
func BenchmarkIndex(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	msgs := synthMessages(r, 0, 2000)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		s, err := storage.Open(b.Context(), storage.Config{Dir: b.TempDir(), NoIndexer: true, IndexBatch: 500})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Insert(b.Context(), "bench", slices.Clone(msgs)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := s.Drain(b.Context(), nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N*len(msgs))/b.Elapsed().Seconds(), "msg/s")
}

func reportP95(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	if len(d) == 0 {
		return
	}
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
}

func BenchmarkTools(b *testing.B) {
	queries := []string{"spicy noodles", "project atlas", "火锅 辣", "meeting friday", "周末 电影", "doctor", "咖啡"}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			s := seeded(b, n)
			ctx := b.Context()
			bench := func(name string, fn func(i int) error) {
				b.Run(name, func(b *testing.B) {
					var d []time.Duration
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						t := time.Now()
						if err := fn(i); err != nil {
							b.Fatal(err)
						}
						d = append(d, time.Since(t))
						i++
					}
					reportP95(b, d)
				})
			}
			bench("messages_list", func(i int) error {
				_, _, err := s.List(ctx, "bench", storage.Filter{Since: t0.Add(time.Duration(i%n) * time.Second)}, 50, "")
				return err
			})
			bench("lexical", func(i int) error {
				_, _, err := s.LexicalSearch(ctx, "bench", storage.LexicalQuery{Text: queries[i%len(queries)], Size: 20})
				return err
			})
			bench("lexical_any", func(i int) error {
				_, _, err := s.LexicalSearch(ctx, "bench", storage.LexicalQuery{Text: queries[i%len(queries)], Any: true, Size: 20})
				return err
			})
			bench("semantic", func(i int) error {
				_, err := s.SemanticSearch(ctx, "bench", storage.SemanticQuery{Text: queries[i%len(queries)], TopK: 10})
				return err
			})
			bench("semantic_role", func(i int) error {
				_, err := s.SemanticSearch(ctx, "bench", storage.SemanticQuery{Text: queries[i%len(queries)], TopK: 10, Filter: storage.Filter{Role: "user"}})
				return err
			})
			bench("neighbors", func(i int) error {
				_, _, _, err := s.Neighbors(ctx, "bench", fmt.Sprintf("m%d", (i*7919)%n), 5, 5)
				return err
			})
		})
	}
}
