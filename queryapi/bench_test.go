package queryapi_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

var benchWords = strings.Fields(`coffee project atlas budget meeting friday spicy noodles hiking trip
	deadline review design launch weekend movie dinner sister doctor gym running book guitar paris
	火锅 辣 会议 周末 项目 咖啡 电影 晚饭 医生 跑步 吉他 旅行 预算 设计 上线 妹妹 北京 上海 喜欢 不吃`)

var benchT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// synthMessages makes n synthetic chat turns of 8-20 words.
func synthMessages(r *rand.Rand, start, n int) []storage.Message {
	out := make([]storage.Message, n)
	for i := range out {
		k := start + i
		words := make([]string, 8+r.IntN(13))
		for j := range words {
			words[j] = benchWords[r.IntN(len(benchWords))]
		}
		out[i] = storage.Message{
			ID: fmt.Sprintf("m%d", k), Role: []string{"user", "assistant"}[k%2], ConversationID: fmt.Sprintf("c%d", k/200),
			SenderName: []string{"Ann", "Bot"}[k%2], Content: strings.Join(words, " "), CreatedAt: benchT0.Add(time.Duration(k) * time.Second),
		}
	}
	return out
}

var (
	seedMu   sync.Mutex
	seedDirs = map[int]string{}
)

// seeded returns tools bound to user "bench" over a store of n indexed
// messages, built once per process and size.
func seeded(b *testing.B, n int) *queryapi.Tools {
	b.Helper()
	seedMu.Lock()
	defer seedMu.Unlock()
	// The seeded store is kept between runs (it takes minutes to build at
	// 100k); bump the version when the generator or the schema changes.
	dir, ok := seedDirs[n]
	if _, err := os.Stat(filepath.Join(dir, "complete")); !ok || err != nil {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("recalld-bench-v2-%d", n))
		ok = true
	}
	if _, err := os.Stat(filepath.Join(dir, "complete")); err != nil {
		if err := os.RemoveAll(dir); err != nil {
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
			// A second user, so that partitions and filters matter.
			if _, err := s.Insert(b.Context(), "other", synthMessages(r, i, min(100, n-i))); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if err := s.Drain(b.Context(), nil); err != nil {
			b.Fatal(err)
		}
		b.Logf("indexed %d messages in %s (%.0f msg/s)", n, time.Since(start), float64(n)/time.Since(start).Seconds())
		s.Close()
		if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	seedDirs[n] = dir
	s, err := storage.Open(b.Context(), storage.Config{Dir: dir, NoIndexer: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	t, err := queryapi.New(s).Bind("bench")
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkTools measures each tool as the agent and the HTTP routes call
// it (the "considered" count included), reporting p95 latency.
func BenchmarkTools(b *testing.B) {
	queries := []string{"spicy noodles", "project atlas", "火锅 辣", "meeting friday", "周末 电影", "doctor", "咖啡"}
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			t := seeded(b, n)
			ctx := b.Context()
			bench := func(name string, fn func(i int) error) {
				b.Run(name, func(b *testing.B) {
					var d []time.Duration
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						start := time.Now()
						if err := fn(i); err != nil {
							b.Fatal(err)
						}
						d = append(d, time.Since(start))
						i++
					}
					slices.Sort(d)
					b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
				})
			}
			since := func(i int) string {
				return benchT0.Add(time.Duration((i*7919)%n) * time.Second).Format(time.RFC3339)
			}
			bench("messages_list", func(i int) error {
				_, err := t.MessagesList(ctx, queryapi.ListParams{Since: since(i), PageSize: 50})
				return err
			})
			bench("messages_list_role", func(i int) error {
				_, err := t.MessagesList(ctx, queryapi.ListParams{Since: since(i), Role: "user", PageSize: 50})
				return err
			})
			bench("lexical_search", func(i int) error {
				_, err := t.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: queries[i%len(queries)], PageSize: 20})
				return err
			})
			bench("lexical_search_any_role", func(i int) error {
				_, err := t.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: queries[i%len(queries)], Match: "any", Filter: queryapi.Filter{Role: "user"}, PageSize: 20})
				return err
			})
			bench("semantic_search", func(i int) error {
				_, err := t.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: queries[i%len(queries)], TopK: 10})
				return err
			})
			bench("semantic_search_role", func(i int) error {
				_, err := t.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: queries[i%len(queries)], TopK: 10, Filter: queryapi.Filter{Role: "user"}})
				return err
			})
			bench("neighbors", func(i int) error {
				_, err := t.Neighbors(ctx, queryapi.NeighborsParams{MessageID: fmt.Sprintf("m%d", (i*7919)%n), Before: 5, After: 5})
				return err
			})
		})
	}
}
