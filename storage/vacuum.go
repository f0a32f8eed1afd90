package storage

import (
	"context"
	"fmt"
	"time"
)

// Space policy. Deleted rows leave free pages in recalld.db. A store made
// by this version has auto_vacuum=INCREMENTAL (set before its first table),
// and DeleteUser returns the free pages to the file system at once with
// PRAGMA incremental_vacuum. A store made before has auto_vacuum=NONE,
// which only a VACUUM can change: Open runs one when it rebuilds the vector
// tables of such a store (migrateVecLayout), which also gives back the
// space of their old 1024-slot chunks. A VACUUM rewrites the whole file and
// needs as much free disk again while it runs.

// setAutoVacuum makes a new, empty database incremental; on a database with
// tables it does nothing until the next VACUUM.
func (s *Store) setAutoVacuum(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return fmt.Errorf("storage: auto_vacuum: %w", err)
	}
	return nil
}

// vacuum rewrites the database (applying auto_vacuum=INCREMENTAL) and
// truncates the WAL.
func (s *Store) vacuum(ctx context.Context) error {
	start := time.Now()
	if err := s.setAutoVacuum(ctx); err != nil {
		return err
	}
	if _, err := s.w.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("storage: vacuum: %w", err)
	}
	if _, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		return fmt.Errorf("storage: checkpoint: %w", err)
	}
	s.log.Info("database vacuumed", "took", time.Since(start))
	return nil
}

// freePages returns the database's free pages to the file system, when it
// has auto_vacuum=INCREMENTAL (a no-op otherwise).
func (s *Store) freePages(ctx context.Context) error {
	// The pragma frees a page per step: Exec would take one step.
	rows, err := s.w.QueryContext(ctx, `PRAGMA incremental_vacuum`)
	if err != nil {
		return fmt.Errorf("storage: incremental vacuum: %w", err)
	}
	for rows.Next() {
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("storage: incremental vacuum: %w", err)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("storage: incremental vacuum: %w", err)
	}
	return nil
}
