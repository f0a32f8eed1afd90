package storage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
)

// metaNormless is the meta key recorded once the store holds no vector
// without a norm (dropNormlessVectors).
const metaNormless = "normless_vectors_dropped"

func setNormlessDropped(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, '1')
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, metaNormless)
	return err
}

// dropNormlessVectors removes the vectors without a norm (hasNorm) that
// stores written before writeVectors refused them hold: the hashing
// embedder's zero vector of a text such as "ok", "!!!" or "👍". sqlite-vec
// gives them a NULL (NaN) cosine distance, which knn now skips, but they
// would still be counted in the user's stats (the coarse threshold, the
// query's idf), and on the binary-code path their all-zero code makes them
// candidates that rescore to 0 and come back as hits. So they go, once per
// store (recorded in meta): the message or event becomes vecNone and the
// statistics lose its share, as if writeVectors had seen it; a profile's
// vector is deleted (its indexed_rev already says it is up to date).
//
// This is Go at open rather than a file under migrations/: the vector
// tables are made by Go for the embedder's dimension after the migrations
// ran (a new store has none while they run, a lexical-only one may never),
// and the terms to subtract come from the embedder.
func (s *Store) dropNormlessVectors(ctx context.Context) error {
	done, err := s.metaGet(ctx, s.w, metaNormless)
	if err != nil || done != "" {
		return err
	}
	type normless struct {
		seq             int64
		user            string
		sender, content string
	}
	var dropped int
	err = s.update(ctx, func(tx *sql.Tx) error {
		for _, c := range []corpus{messageCorpus, eventCorpus} {
			// quantize gives a zero vector scale 0 and an infinite one an
			// infinite scale; NaN could not be stored (scale is NOT NULL).
			rows, err := tx.QueryContext(ctx, `SELECT r.seq, t.user_id, `+c.textCols+` FROM `+c.rescore+` r
				JOIN `+c.rows+` t ON t.seq = r.seq WHERE r.scale = 0 OR r.scale >= 9e999`)
			if err != nil {
				return fmt.Errorf("%s: %w", c.rescore, err)
			}
			var found []normless
			for rows.Next() {
				var n normless
				if err := rows.Scan(&n.seq, &n.user, &n.sender, &n.content); err != nil {
					rows.Close()
					return fmt.Errorf("%s: %w", c.rescore, err)
				}
				found = append(found, n)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return fmt.Errorf("%s: %w", c.rescore, err)
			}
			for _, n := range found {
				if err := s.unindexVector(ctx, tx, c, n.user, n.seq, embedText(n.sender, n.content)); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `UPDATE `+c.rows+` SET indexed = ? WHERE seq = ?`, vecNone, n.seq); err != nil {
					return err
				}
			}
			dropped += len(found)
		}
		n, err := dropNormlessProfiles(ctx, tx)
		if err != nil {
			return err
		}
		dropped += n
		return setNormlessDropped(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("storage: drop vectors without a norm: %w", err)
	}
	if dropped > 0 {
		s.log.Info("dropped vectors without a norm; those texts are found lexically", "vectors", dropped)
	}
	return nil
}

// dropNormlessProfiles deletes the profile vectors without a norm.
func dropNormlessProfiles(ctx context.Context, tx *sql.Tx) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT rowid, embedding FROM vec_profiles`)
	if err != nil {
		return 0, fmt.Errorf("vec_profiles: %w", err)
	}
	var bad []int64
	var v []float32
	for rows.Next() {
		var (
			seq  int64
			blob []byte
		)
		if err := rows.Scan(&seq, &blob); err != nil {
			rows.Close()
			return 0, fmt.Errorf("vec_profiles: %w", err)
		}
		v = v[:0]
		for i := 0; i+4 <= len(blob); i += 4 {
			v = append(v, math.Float32frombits(binary.LittleEndian.Uint32(blob[i:])))
		}
		if !hasNorm(v) {
			bad = append(bad, seq)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("vec_profiles: %w", err)
	}
	for _, seq := range bad {
		if _, err := tx.ExecContext(ctx, `DELETE FROM vec_profiles WHERE rowid = ?`, seq); err != nil {
			return 0, fmt.Errorf("vec_profiles: %w", err)
		}
	}
	return len(bad), nil
}
