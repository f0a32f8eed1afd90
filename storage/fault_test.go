//go:build linux

package storage_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// TestFaultClassification: errors of the store itself wrap storage.ErrFault
// (a full disk, a closed store); a client's mistake, a missing row, a
// conflict, a cancelled call and one row's bad data never do.
func TestFaultClassification(t *testing.T) {
	if storagetest.Isolated(t) {
		return // it fills the disk: run in a child process
	}
	dir := t.TempDir()
	s := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	ctx := t.Context()
	mustInsert(t, s, "u1", msg("m1", "user", "hello", 0))
	if _, _, err := s.AddMemory(ctx, "bad", storage.Memory{ID: "pin", Content: "remember this"}); err != nil {
		t.Fatal(err)
	}
	// One user's row the store cannot read, written behind its back.
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "recalld.db")+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `UPDATE memories SET tags = 'not json' WHERE user_id = 'bad'`); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	tests := []struct {
		name  string
		call  func() error
		fault bool
	}{
		{"invalid argument", func() error {
			_, _, err := s.LexicalSearch(ctx, "u1", storage.LexicalQuery{Text: "hello"})
			return err
		}, false},
		{"not found", func() error { _, err := s.Get(ctx, "u1", "absent"); return err }, false},
		{"conflict", func() error {
			_, err := s.Insert(ctx, "u1", []storage.Message{msg("m1", "user", "other", 0)})
			return err
		}, false},
		{"cancelled", func() error { _, err := s.Get(cancelled, "u1", "m1"); return err }, false},
		{"one user's bad row", func() error {
			_, err := s.ListMemories(ctx, "bad", storage.MemoryFilter{})
			return err
		}, false},
		{"disk full", func() error {
			defer storagetest.DiskFull(t)()
			_, err := s.Insert(ctx, "u1", []storage.Message{msg("m2", "user", "a longer message that needs a new page "+string(make([]byte, 8000)), 1)})
			return err
		}, true},
		{"closed", func() error {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			_, err := s.Get(ctx, "u1", "m1")
			if !errors.Is(err, storage.ErrClosed) {
				t.Errorf("after Close: %v, want ErrClosed", err)
			}
			return err
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			t.Log(err)
			if err == nil {
				t.Fatal("no error")
			}
			if got := errors.Is(err, storage.ErrFault); got != tt.fault {
				t.Errorf("errors.Is(%v, ErrFault) = %v, want %v", err, got, tt.fault)
			}
		})
	}
}
