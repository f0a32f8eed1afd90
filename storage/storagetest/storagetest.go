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
	return open(tb, &cfg.Dir, func() (*storage.Store, error) { return storage.Open(tb.Context(), cfg) })
}

// OpenQueue opens a data dir's job table (storage.OpenQueue) with cfg, in a
// fresh tb.TempDir() when cfg.Dir is empty, and closes it when the test
// ends.
func OpenQueue(tb testing.TB, cfg storage.QueueConfig) *storage.Queue {
	tb.Helper()
	return open(tb, &cfg.Dir, func() (*storage.Queue, error) { return storage.OpenQueue(tb.Context(), cfg) })
}

// open sets an empty *dir to a fresh tb.TempDir(), opens with fn and closes
// what it opened when the test ends, failing the test if Close fails.
func open[T interface{ Close() error }](tb testing.TB, dir *string, fn func() (T, error)) T {
	tb.Helper()
	if *dir == "" {
		*dir = tb.TempDir()
	}
	v, err := fn()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := v.Close(); err != nil {
			tb.Error(err)
		}
	})
	return v
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
