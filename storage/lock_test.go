package storage_test

import (
	"errors"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// TestOpenLockedDataDir: a data dir another store holds open (another
// recalld process) fails Open with ErrLocked after a short wait instead of
// blocking forever, and opens once the holder closes.
func TestOpenLockedDataDir(t *testing.T) {
	dir := t.TempDir()
	first := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	start := time.Now()
	if s, err := storage.Open(t.Context(), storage.Config{Dir: dir, NoIndexer: true}); !errors.Is(err, storage.ErrLocked) {
		if s != nil {
			s.Close()
		}
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	if waited := time.Since(start); waited > 30*time.Second {
		t.Fatalf("second open took %v", waited)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := storage.Open(t.Context(), storage.Config{Dir: dir, NoIndexer: true})
	if err != nil {
		t.Fatalf("open after the holder closed: %v", err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
}
