package storage

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
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
//
// The large-chunk twins are sharded. vec0 (0.1.6) picks each chunk's k
// nearest rows by k passes over the chunk, so a KNN query costs about
// vectors × k: for a 100k-vector user at k=90 (a recall's 30 hits) that
// was most of a 10 ms semantic search. Each twin has a second partition
// key, shard, and a user's i-th vector (from 0, in the order they are
// stored) goes to shardOf(i): the first shardBlock vectors to shard 0, and
// from then on in turn over one more shard each shardBlock vectors, up to
// vecShards. A shard so holds a random-enough sample of the user's
// vectors, and the binary-code search asks each shard for its share of
// the candidates, twice over (shardK), at vectors × 2k/vecShards: 100k
// vectors at k=64 took 7.6 ms in one partition, 3.5 ms in 8 shards
// asking 16 each. A shard's chunks are allocated when it gets its first
// vector, so a user pays for new shards only as they grow (at most
// vecShards chunks of 1024 slots partly filled, once past 7,168 vectors).
// The exact search of a user below the coarse threshold reads all shards
// at once (no shard constraint).
const (
	bigSuffix       = "_large"
	legacyBigSuffix = "_big" // the twins before they were sharded
	vecBigChunkSize = 1024
	promoteAt       = 256
	vecShards       = 8
	shardBlock      = 1024
)

// chunkSizeOf is the vec0 chunk_size of the vector table named name.
func chunkSizeOf(name string) int {
	if strings.HasSuffix(name, bigSuffix) || strings.HasSuffix(name, legacyBigSuffix) {
		return vecBigChunkSize
	}
	return vecChunkSize
}

// shardColumn is the shard partition key of the vector table named name
// (its DDL's line), empty for the small-chunk tables.
func shardColumn(name string) string {
	if strings.HasSuffix(name, bigSuffix) {
		return "shard integer partition key,"
	}
	return ""
}

// shardOf is the shard of a user's i-th vector in a large-chunk twin.
func shardOf(i int) int { return i % min(vecShards, 1+i/shardBlock) }

// shardSizes is how many of a user's n vectors each shard holds when they
// were stored in order (deletions make the counts estimates).
func shardSizes(n int) []int {
	sizes := make([]int, vecShards)
	for lo := 0; lo < n; lo += shardBlock {
		hi := min(n, lo+shardBlock)
		m := min(vecShards, 1+lo/shardBlock)
		// Any m consecutive integers hold each residue mod m once.
		full := (hi - lo) / m
		for r := range m {
			sizes[r] += full
		}
		for i := lo + full*m; i < hi; i++ {
			sizes[i%m]++
		}
	}
	return sizes
}

// shardK is how many binary-code candidates to ask a shard holding size of
// total vectors for, when the search wants cands: twice its share (and a
// few more), so that the best cands of all shards are nearly always among
// the answers.
func shardK(cands, size, total int) int {
	if size == 0 || total == 0 {
		return 0
	}
	return min(size, cands, 2*cands*size/total+4)
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
	moved, err := moveUser(ctx, tx, c, c.vec, user)
	if err != nil {
		return fmt.Errorf("storage: promote %s vectors: %w", c.rows, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO vec_big_users (vec, user_id) VALUES (?, ?)`, c.vec, user); err != nil {
		return fmt.Errorf("storage: promote %s vectors: %w", c.rows, err)
	}
	s.log.Info("user's vectors moved to large chunks", "table", c.vec+bigSuffix, "vectors", moved)
	return nil
}

// moveUser moves user's vectors of corpus c from vec0 table from into c's
// large-chunk twin, each to the shard of its place in rowid order (the
// order they were stored), and drops user's partition of from whole
// (dropPartition). It returns how many it moved.
func moveUser(ctx context.Context, tx *sql.Tx, c corpus, from, user string) (int, error) {
	chunks, ids, err := partitionChunks(ctx, tx, from, user)
	if err != nil {
		return 0, err
	}
	slices.Sort(ids)
	cols := append(append([]string{"rowid", "user_id", "shard"}, c.meta...), "embedding", "coarse")
	sel := make([]string, len(cols))
	for i, col := range cols {
		switch col {
		case "embedding":
			sel[i] = "vec_int8(embedding)"
		case "coarse":
			sel[i] = "vec_bit(coarse)"
		case "user_id":
			sel[i] = "?2" // vec0 reads a row's partition key with a statement it prepares for it
		case "shard":
			sel[i] = "?3"
		default:
			sel[i] = col
		}
	}
	// One point read and insertion a row: vec0 plans `WHERE user_id = ?`
	// and `rowid IN (…)` as full scans of the table (partitionChunks).
	move, err := tx.PrepareContext(ctx, `INSERT INTO `+c.vec+bigSuffix+` (`+strings.Join(cols, ", ")+`) SELECT `+strings.Join(sel, ", ")+` FROM `+from+` WHERE rowid = ?1`)
	if err != nil {
		return 0, err
	}
	defer move.Close()
	for i, id := range ids {
		if _, err := move.ExecContext(ctx, id, user, shardOf(i)); err != nil {
			return 0, fmt.Errorf("vector %d: %w", id, err)
		}
	}
	return len(ids), dropPartition(ctx, tx, from, chunks, ids)
}

// tierOf returns c as it reads user's vectors, of which there are
// indexed: with its large-chunk twin as the vec0 table once user moved
// there, and the estimated size of each of user's shards in it.
func (s *Store) tierOf(ctx context.Context, c corpus, user string, indexed int) (corpus, error) {
	big, err := isBig(ctx, s.r, c, user)
	if err != nil {
		return c, fmt.Errorf("storage: vector tier: %w", err)
	}
	if big {
		c.vec += bigSuffix
		c.shards = shardSizes(indexed)
	}
	return c, nil
}

// promoteHeavy moves, at open, the users of stores written before the tiers
// (or whose move a crash cut short: it is one transaction, so it either
// happened or not) who already have promoteAt vectors.
func (s *Store) promoteHeavy(ctx context.Context) error {
	for _, c := range []corpus{messageCorpus, eventCorpus} {
		users, err := s.userIDs(ctx, `SELECT user_id FROM `+c.stats+` WHERE indexed >= ?
			AND user_id NOT IN (SELECT user_id FROM vec_big_users WHERE vec = ?)`, promoteAt, c.vec)
		if err != nil {
			return err
		}
		for _, u := range users {
			if err := s.update(ctx, func(tx *sql.Tx) error { return s.promote(ctx, tx, c, u) }); err != nil {
				return err
			}
		}
	}
	return nil
}

// migrateLegacyBig moves, once, the users of a store written before the
// large-chunk twins were sharded from the old twin (legacyBigSuffix) into
// the sharded one, then drops the old twin. Each user moves in a
// transaction of their own, which takes their rows out of the old twin as
// it stores them in the new one, so a crash leaves every user whole in one
// of the two and the next Open goes on where it stopped. Nothing is
// re-embedded.
func (s *Store) migrateLegacyBig(ctx context.Context) error {
	for _, c := range []corpus{messageCorpus, eventCorpus} {
		legacy := c.vec + legacyBigSuffix
		var n int
		if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, legacy).Scan(&n); err != nil {
			return fmt.Errorf("storage: vector shards: %w", err)
		}
		if n == 0 {
			continue
		}
		users, err := s.bigUsers(ctx, c)
		if err != nil {
			return err
		}
		s.log.Info("moving large users' vectors to sharded tables, once", "from", legacy, "to", c.vec+bigSuffix, "users", len(users))
		moved := 0
		for i, u := range users {
			err := s.update(ctx, func(tx *sql.Tx) error {
				n, err := moveUser(ctx, tx, c, legacy, u)
				moved += n
				return err
			})
			if err != nil {
				return fmt.Errorf("storage: vector shards: %w", err)
			}
			s.log.Info("moved to sharded table", "table", c.vec+bigSuffix, "users_done", i+1, "users", len(users), "vectors", moved)
		}
		if err := s.update(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `DROP TABLE `+legacy)
			return err
		}); err != nil {
			return fmt.Errorf("storage: vector shards: %w", err)
		}
		// The old twin's pages go back to the file system (a store of
		// before the tiers has auto_vacuum=INCREMENTAL since its rebuild).
		if err := s.freePages(ctx); err != nil {
			return err
		}
		if _, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return fmt.Errorf("storage: checkpoint: %w", err)
		}
	}
	return nil
}

// bigUsers returns the users whose vectors of c are in its large-chunk twin.
func (s *Store) bigUsers(ctx context.Context, c corpus) ([]string, error) {
	return s.userIDs(ctx, `SELECT user_id FROM vec_big_users WHERE vec = ? ORDER BY user_id`, c.vec)
}

// userIDs runs query, which selects user ids, on the writer connection.
func (s *Store) userIDs(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.w.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: vector tiers: %w", err)
	}
	defer rows.Close()
	var users []string
	for rows.Next() {
		var u string
		if err := rows.Scan(&u); err != nil {
			return nil, fmt.Errorf("storage: vector tiers: %w", err)
		}
		users = append(users, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: vector tiers: %w", err)
	}
	return users, nil
}
