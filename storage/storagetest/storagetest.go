// Package storagetest helps the tests of every package use a real store
// (SQLite, sqlite-vec and Bleve in a temporary directory, as STYLE.md §13
// asks): Open opens one (OpenQueue its job table alone), Clock is a time the test sets, CrashLoop kills
// child processes writing to a data dir at random moments, and DiskFull
// (Linux) makes writes fail the way a full disk does.
package storagetest

import (
	"sync"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
)

// Open opens a store with cfg, in a fresh tb.TempDir() when cfg.Dir is
// empty, and closes it when the test ends (a test may close it earlier).
func Open(tb testing.TB, cfg storage.Config) *storage.Store {
	tb.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tb.TempDir()
	}
	s, err := storage.Open(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Error(err)
		}
	})
	return s
}

// OpenQueue opens a data dir's job table (storage.OpenQueue) with cfg, in a
// fresh tb.TempDir() when cfg.Dir is empty, and closes it when the test
// ends.
func OpenQueue(tb testing.TB, cfg storage.QueueConfig) *storage.Queue {
	tb.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tb.TempDir()
	}
	q, err := storage.OpenQueue(tb.Context(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := q.Close(); err != nil {
			tb.Error(err)
		}
	})
	return q
}

// Clock is a time source the test moves, for storage.Config.Now (the job
// table's leases and backoffs, the memos' and profiles' times).
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock that stands at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
