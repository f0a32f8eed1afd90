package storage_test

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// dirBytes is the size on disk of everything under dir (the database, its
// WAL and the Bleve indexes).
func dirBytes(tb testing.TB, dir string) (total int64, parts map[string]int64) {
	tb.Helper()
	parts = map[string]int64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		top := rel
		if i := len(filepath.SplitList(rel)); i > 0 {
			if j := indexSep(rel); j >= 0 {
				top = rel[:j]
			}
		}
		parts[top] += fi.Size()
		total += fi.Size()
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return total, parts
}

func indexSep(p string) int {
	for i := range len(p) {
		if os.IsPathSeparator(p[i]) {
			return i
		}
	}
	return -1
}

// fillUsers stores k synthetic messages for each of n users, indexes them
// and returns the time indexing took.
func fillUsers(tb testing.TB, s *storage.Store, n, k int) time.Duration {
	tb.Helper()
	r := rand.New(rand.NewPCG(uint64(n), uint64(k)))
	for u := range n {
		if _, err := s.Insert(tb.Context(), fmt.Sprintf("user-%05d", u), synthMessages(r, 0, k)); err != nil {
			tb.Fatal(err)
		}
	}
	start := time.Now()
	if err := s.Drain(tb.Context(), nil); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkTenancyDisk measures the bytes on disk per user (database, WAL
// and Bleve indexes, after Close) for users × messages each, with the
// hashing embedder at its default dimension, and the indexing throughput.
// Run it once: go test -run '^$' -bench TenancyDisk -benchtime 1x ./storage
func BenchmarkTenancyDisk(b *testing.B) {
	for _, tc := range []struct{ users, msgs int }{{1, 1}, {200, 1}, {200, 20}, {1, 4000}, {4000, 1}, {1, 10_000}, {10_000, 1}, {10_000, 20}} {
		b.Run(fmt.Sprintf("users=%d/msgs=%d", tc.users, tc.msgs), func(b *testing.B) {
			for b.Loop() {
				base := b.TempDir()
				empty := filepath.Join(base, "empty")
				s := storagetest.Open(b, storage.Config{Dir: empty, NoIndexer: true})
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				emptyBytes, _ := dirBytes(b, empty)
				dir := filepath.Join(base, "full")
				s = storagetest.Open(b, storage.Config{Dir: dir, NoIndexer: true, IndexBatch: 500})
				took := fillUsers(b, s, tc.users, tc.msgs)
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
				total, parts := dirBytes(b, dir)
				per := float64(total-emptyBytes) / float64(tc.users)
				b.ReportMetric(per, "B/user")
				b.ReportMetric(float64(parts["recalld.db"]-0)/float64(tc.users), "dbB/user")
				b.ReportMetric(float64(tc.users*tc.msgs)/took.Seconds(), "indexed-msg/s")
				b.Logf("%d users × %d msgs: %d bytes (%v), empty store %d", tc.users, tc.msgs, total, parts, emptyBytes)
			}
		})
	}
}
