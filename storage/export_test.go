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
	Small, Big int  // rows of the user in vec_messages and vec_messages_big
	Both       int  // rowids in both tables
	Promoted   bool // the user is in vec_big_users
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
	return p, nil
}
