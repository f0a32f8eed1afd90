package storage_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/recalld/recalld/queryapi/queryapitest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// synthMessages is the shared synthetic chat (Zipf-distributed words).
var synthMessages = queryapitest.Messages

// BenchmarkInsert measures acknowledged writes: batches of 1000 committed to SQLite.
func BenchmarkInsert(b *testing.B) {
	s := storagetest.Open(b, storage.Config{NoIndexer: true})
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
		s := storagetest.Open(b, storage.Config{NoIndexer: true, IndexBatch: 500})
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
