package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Vector tiers. vec0 gives each user's partition whole chunks, and its KNN
// pays for every chunk it reads: with chunk_size=8 a light user costs
// kilobytes, but the binary-code scan of a 100k-message user reads 12,500
// chunks (semantic search 14 ms -> 33 ms mean, p95 19 -> 48 ms, measured
// with BenchmarkTools at n=100000). So each of vec_messages and vec_events
// has a twin with large chunks (bigSuffix, vecBigChunkSize), and a user
// moves there, in the transaction that stores the vector that takes their
// count to promoteAt, with all of their vectors. vec_big_users records who
// moved; the user stays there (deleting messages does not move them back).
// Isolation is the same in both: the partition key, inside vec0. The move
// finds the user's rows in vec0's shadow chunks (partitionChunks), copies
// them one point read and insertion at a time, and drops the user's
// partition of the small table whole (dropPartition): it costs less than
// storing those vectors did (50–70 ms beside 100–1,600 other users in
// BenchmarkPromote, against about 100 ms for 255 new vectors), where
// selecting them by user_id scanned every user's rows (0.1 s beside 100
// users, 1.5 s beside 1,600, 3 s at 1,000 users of 255 vectors).
const (
	bigSuffix       = "_big"
	vecBigChunkSize = 1024
	promoteAt       = 256
)

// chunkSizeOf is the vec0 chunk_size of the vector table named name.
func chunkSizeOf(name string) int {
	if strings.HasSuffix(name, bigSuffix) {
		return vecBigChunkSize
	}
	return vecChunkSize
}

// tierTables are the vector tables with a large-chunk twin.
func (s *Store) tierTables() []vecTable {
	var out []vecTable
	for _, t := range s.vecTables() {
		if t.rescore != "" {
			out = append(out, t)
		}
	}
	return out
}

// ensureBigTables creates the large-chunk twins that do not exist yet, and
// on every vector table the index of vec0's chunks by partition: vec0 finds
// a user's latest chunk on each insert (max(rowid) WHERE partition00 = ?)
// and a user's chunks on each KNN query with statements on its _chunks
// shadow table that otherwise scan every user's chunks.
func (s *Store) ensureBigTables(ctx context.Context, tx *sql.Tx) error {
	for _, t := range s.tierTables() {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, t.name+bigSuffix).Scan(&n); err != nil {
			return fmt.Errorf("storage: vector tiers: %w", err)
		}
		if n == 0 {
			if _, err := tx.ExecContext(ctx, t.ddl(t.name+bigSuffix)); err != nil {
				return fmt.Errorf("storage: vector tiers: %w", err)
			}
		}
	}
	for _, t := range s.vecTables() {
		for _, name := range []string{t.name, t.name + bigSuffix} {
			if t.rescore == "" && name != t.name {
				continue
			}
			if _, err := tx.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS "`+name+`_chunks_partition" ON "`+name+`_chunks" (partition00)`); err != nil {
				return fmt.Errorf("storage: vector tiers: %w", err)
			}
		}
	}
	return nil
}

// isBig reports whether user's vectors of corpus c are in its large-chunk twin.
func isBig(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, c corpus, user string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM vec_big_users WHERE vec = ? AND user_id = ?`, c.vec, user).Scan(&n)
	return n > 0, err
}

// promote moves user's vectors of corpus c into its large-chunk twin once
// they number promoteAt, in tx.
func (s *Store) promote(ctx context.Context, tx *sql.Tx, c corpus, user string) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT indexed FROM `+c.stats+` WHERE user_id = ?`, user).Scan(&n); err != nil {
		return err
	}
	if n < promoteAt {
		return nil
	}
	big := c.vec + bigSuffix
	chunks, ids, err := partitionChunks(ctx, tx, c.vec, user)
	if err != nil {
		return fmt.Errorf("storage: promote %s vectors: %w", c.rows, err)
	}
	cols := append(append([]string{"rowid", "user_id"}, c.meta...), "embedding", "coarse")
	sel := make([]string, len(cols))
	for i, col := range cols {
		switch col {
		case "embedding":
			sel[i] = "vec_int8(embedding)"
		case "coarse":
			sel[i] = "vec_bit(coarse)"
		case "user_id":
			sel[i] = "?2" // vec0 reads a row's partition key with a statement it prepares for it
		default:
			sel[i] = col
		}
	}
	// One point read and insertion a row: vec0 plans `WHERE user_id = ?`
	// and `rowid IN (…)` as full scans of the table (partitionChunks).
	move, err := tx.PrepareContext(ctx, `INSERT INTO `+big+` (`+strings.Join(cols, ", ")+`) SELECT `+strings.Join(sel, ", ")+` FROM `+c.vec+` WHERE rowid = ?1`)
	if err != nil {
		return fmt.Errorf("storage: promote %s vectors: %w", c.rows, err)
	}
	defer move.Close()
	for _, id := range ids {
		if _, err := move.ExecContext(ctx, id, user); err != nil {
			return fmt.Errorf("storage: promote %s vector %d: %w", c.rows, id, err)
		}
	}
	if err := dropPartition(ctx, tx, c.vec, chunks, ids); err != nil {
		return fmt.Errorf("storage: promote %s vectors: %w", c.rows, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO vec_big_users (vec, user_id) VALUES (?, ?)`, c.vec, user); err != nil {
		return fmt.Errorf("storage: promote %s vectors: %w", c.rows, err)
	}
	s.log.Info("user's vectors moved to large chunks", "table", big, "vectors", len(ids))
	return nil
}

// tierOf returns c as it reads user's vectors: with its large-chunk twin
// as the vec0 table once user moved there.
func (s *Store) tierOf(ctx context.Context, c corpus, user string) (corpus, error) {
	big, err := isBig(ctx, s.r, c, user)
	if err != nil {
		return c, fmt.Errorf("storage: vector tier: %w", err)
	}
	if big {
		c.vec += bigSuffix
	}
	return c, nil
}

// promoteHeavy moves, at open, the users of stores written before the tiers
// (or whose move a crash cut short: it is one transaction, so it either
// happened or not) who already have promoteAt vectors.
func (s *Store) promoteHeavy(ctx context.Context) error {
	for _, c := range []corpus{messageCorpus, eventCorpus} {
		rows, err := s.w.QueryContext(ctx, `SELECT user_id FROM `+c.stats+` WHERE indexed >= ?
			AND user_id NOT IN (SELECT user_id FROM vec_big_users WHERE vec = ?)`, promoteAt, c.vec)
		if err != nil {
			return fmt.Errorf("storage: vector tiers: %w", err)
		}
		var users []string
		for rows.Next() {
			var u string
			if err := rows.Scan(&u); err != nil {
				rows.Close()
				return fmt.Errorf("storage: vector tiers: %w", err)
			}
			users = append(users, u)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("storage: vector tiers: %w", err)
		}
		for _, u := range users {
			if err := s.update(ctx, func(tx *sql.Tx) error { return s.promote(ctx, tx, c, u) }); err != nil {
				return err
			}
		}
	}
	return nil
}
