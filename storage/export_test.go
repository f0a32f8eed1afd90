package storage

import (
	"context"
	"database/sql"
	"fmt"
)

// VectorPlacement is where a user's message vectors are, for the tests of
// package storage_test.
type VectorPlacement struct {
	Stored     int  // messages whose vector is stored (indexed = vecStored)
	Small, Big int  // rows of the user in vec_messages and vec_messages_large
	Both       int  // rowids in both tables
	Promoted   bool // the user is in vec_big_users
	// Legacy is the user's rows in the unsharded twin of before
	// (vec_messages_big), which Open moves; LegacyTable whether it exists.
	Legacy      int
	LegacyTable bool
}

// VectorPlacement reports where user's message vectors are.
func (s *Store) VectorPlacement(ctx context.Context, user string) (VectorPlacement, error) {
	var p VectorPlacement
	tx, err := s.w.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return p, err
	}
	defer tx.Rollback()
	_, small, err := partitionChunks(ctx, tx, messageCorpus.vec, user)
	if err != nil {
		return p, err
	}
	_, big, err := partitionChunks(ctx, tx, messageCorpus.vec+bigSuffix, user)
	if err != nil {
		return p, err
	}
	p.Small, p.Big = len(small), len(big)
	in := map[int64]bool{}
	for _, id := range small {
		in[id] = true
	}
	for _, id := range big {
		if in[id] {
			p.Both++
		}
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE user_id = ? AND indexed = ?`, user, vecStored).Scan(&p.Stored); err != nil {
		return p, fmt.Errorf("messages: %w", err)
	}
	if p.Promoted, err = isBig(ctx, tx, messageCorpus, user); err != nil {
		return p, err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = ?`, messageCorpus.vec+legacyBigSuffix).Scan(&n); err != nil {
		return p, err
	}
	p.LegacyTable = n > 0
	if n > 0 {
		_, legacy, err := partitionChunks(ctx, tx, messageCorpus.vec+legacyBigSuffix, user)
		if err != nil {
			return p, err
		}
		p.Legacy = len(legacy)
	}
	return p, nil
}

// MakeLegacyBig puts user's message vectors back in the unsharded twin of
// before (vec_messages_big, made if missing), as an older version kept
// them: the store then looks like one written by that version.
func (s *Store) MakeLegacyBig(ctx context.Context, user string) error {
	legacy := messageCorpus.vec + legacyBigSuffix
	return s.update(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = ?`, legacy).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := tx.ExecContext(ctx, s.vecMessagesDDL(legacy)); err != nil {
				return err
			}
		}
		_, ids, err := partitionChunks(ctx, tx, messageCorpus.vec+bigSuffix, user)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+legacy+` (rowid, user_id, role, created_ms, conversation_id, group_id, embedding, coarse)
				SELECT rowid, ?2, role, created_ms, conversation_id, group_id, vec_int8(embedding), vec_bit(coarse) FROM `+messageCorpus.vec+bigSuffix+` WHERE rowid = ?1`, id, user); err != nil {
				return err
			}
		}
		_, err = deleteUserVectors(ctx, tx, messageCorpus.vec+bigSuffix, user)
		return err
	})
}
