// Package queryapitest builds stores of synthetic chat for the benchmarks of
// queryapi, agent and eval.
package queryapitest

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/synthchat"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

var benchWords = strings.Fields(`coffee project atlas budget meeting friday spicy noodles hiking trip
	deadline review design launch weekend movie dinner sister doctor gym running book guitar paris
	火锅 辣 会议 周末 项目 咖啡 电影 晚饭 医生 跑步 吉他 旅行 预算 设计 上线 妹妹 北京 上海 喜欢 不吃`)

// T0 is the time of the first synthetic message.
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// vocabulary is benchWords among made-up words (synthchat.Vocabulary).
var vocabulary = synthchat.Vocabulary(benchWords)

// Messages makes n synthetic chat turns of 8-20 words drawn from a Zipf
// distribution over vocabulary.
func Messages(r *rand.Rand, start, n int) []storage.Message {
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(vocabulary)-1))
	out := make([]storage.Message, n)
	for i := range out {
		k := start + i
		words := make([]string, 8+r.IntN(13))
		for j := range words {
			words[j] = vocabulary[zipf.Uint64()]
		}
		out[i] = storage.Message{
			ID: fmt.Sprintf("m%d", k), Role: []string{"user", "assistant"}[k%2], ConversationID: fmt.Sprintf("c%d", k/200),
			SenderName: []string{"Ann", "Bot"}[k%2], Content: strings.Join(words, " "), CreatedAt: T0.Add(time.Duration(k) * time.Second),
		}
	}
	return out
}

var (
	seedMu   sync.Mutex
	seedDirs = map[[2]int]string{}
)

// User is the user whose n messages Seeded stores.
const User = "bench"

// Seeded returns a service over a store of n indexed messages of User (plus
// a tenth as many of user "other"), built once and kept in the temporary
// directory between runs.
func Seeded(b *testing.B, n int) *queryapi.Service {
	b.Helper()
	return seeded(b, n, 0)
}

// LightUsers is how many messages each light user of SeededTenants has.
const LightUsers = 20

// LightUser is the name of light user i of SeededTenants.
func LightUser(i int) string { return fmt.Sprintf("light-%05d", i) }

// SeededTenants is Seeded with light more users (LightUser(i)) of
// LightUsers messages each in the same store: a heavy user among many
// light ones.
func SeededTenants(b *testing.B, n, light int) *queryapi.Service {
	b.Helper()
	return seeded(b, n, light)
}

func seeded(b *testing.B, n, light int) *queryapi.Service {
	seedMu.Lock()
	defer seedMu.Unlock()
	// The seeded store is kept between runs (it takes minutes to build at
	// 100k); bump the version when the generator or the schema changes.
	// v4: int8 vectors in vec0 (a store of v3 would be migrated in place,
	// under the feet of a checkout that still reads v3).
	dir, ok := seedDirs[[2]int{n, light}]
	if _, err := os.Stat(filepath.Join(dir, "complete")); !ok || err != nil {
		name := fmt.Sprintf("recalld-bench-v4-%d", n)
		if light > 0 {
			name += fmt.Sprintf("-light%d", light)
		}
		dir = filepath.Join(os.TempDir(), name)
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
			if _, err := s.Insert(b.Context(), "bench", Messages(r, i, min(1000, n-i))); err != nil {
				b.Fatal(err)
			}
			// A second user, so that partitions and filters matter.
			if _, err := s.Insert(b.Context(), "other", Messages(r, i, min(100, n-i))); err != nil {
				b.Fatal(err)
			}
		}
		for u := range light {
			if _, err := s.Insert(b.Context(), LightUser(u), Messages(r, 0, LightUsers)); err != nil {
				b.Fatal(err)
			}
		}
		start := time.Now()
		if err := s.Drain(b.Context(), nil); err != nil {
			b.Fatal(err)
		}
		total := n + n/10 + light*LightUsers
		b.Logf("indexed %d messages in %s (%.0f msg/s)", total, time.Since(start), float64(total)/time.Since(start).Seconds())
		s.Close()
		if err := os.WriteFile(filepath.Join(dir, "complete"), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	seedDirs[[2]int{n, light}] = dir
	s, err := storage.Open(b.Context(), storage.Config{Dir: dir, NoIndexer: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return queryapi.New(s)
}
