package storage_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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
