package storage

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	sqlitevec "github.com/asg017/sqlite-vec-go-bindings/cgo"
)

// TestOldNormlessVectorsDropped: a store written before vectors without a
// norm were refused holds zero vectors of messages, events and profiles
// (as writeVectors and syncProfiles wrote them then), whose KNN distance is
// NULL. Search skips them instead of failing; Open drops them once, marks
// the rows and corrects the counts.
func TestOldNormlessVectorsDropped(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s, err := Open(ctx, Config{Dir: dir, NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	user := "u1"
	var msgs []Message
	for i, id := range []string{"z1", "z2", "z3", "z4", "z5", "z6", "z7", "z8"} {
		msgs = append(msgs, Message{ID: id, ConversationID: "c", Role: "user", Content: "ok", CreatedAt: time.Unix(int64(i), 0)})
	}
	real := []string{"the car is on level three", "car park level three", "my car is parked on level 3",
		"level three of the car park", "which level is the car on"}
	for i, c := range real {
		msgs = append(msgs, Message{ID: "m" + string(rune('1'+i)), ConversationID: "c", Role: "user", Content: c, CreatedAt: time.Unix(int64(100+i), 0)})
	}
	if _, err := s.Insert(ctx, user, msgs); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Such a store had vec0's default chunks (a NaN distance would break
	// the per-chunk selection of small chunks, which no store holds: Open
	// drops these vectors right after it rebuilt the tables).
	toOldVecLayout(t, s)
	// What the old writeVectors stored for each "ok": a zero vector, its
	// all-zero code and a rescore row of scale 0, counted in user_stats.
	zero := make([]float32, s.emb.Dim())
	blob, err := sqlitevec.SerializeFloat32(zero)
	if err != nil {
		t.Fatal(err)
	}
	err = s.update(ctx, func(tx *sql.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO vec_messages (rowid, user_id, role, created_ms, conversation_id, group_id, embedding, coarse)
				SELECT seq, user_id, role, created_ms, conversation_id, group_id, ?, vec_bit(?) FROM messages WHERE content = 'ok'`,
				[]any{blob, s.proj.code(zero)}},
			{`INSERT INTO vec_rescore (seq, scale, v) SELECT seq, 0, zeroblob(?) FROM messages WHERE content = 'ok'`, []any{len(zero)}},
			{`UPDATE messages SET indexed = 1 WHERE content = 'ok'`, nil},
			{`UPDATE user_stats SET indexed = indexed + 8 WHERE user_id = ?`, []any{user}},
			{`INSERT INTO vec_profiles (rowid, user_id, entity_type, embedding) VALUES (999, ?, 'user', ?)`, []any{user, blob}},
			{`DELETE FROM meta WHERE key = ?`, []any{metaNormless}},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	search := func(s *Store) ([]Hit, error) {
		return s.SemanticSearch(ctx, user, SemanticQuery{Text: "car level", TopK: 5})
	}
	if got := nullDistances(t, s); got != 8 {
		t.Fatalf("the simulated old store has %d NULL distances, want 8", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, Config{Dir: dir, NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hits, err := search(s)
	if err != nil || len(hits) != len(real) {
		t.Fatalf("after reopen: %v %v", hits, err)
	}
	if got := nullDistances(t, s); got != 0 {
		t.Fatalf("after reopen: %d NULL distances", got)
	}
	var vectors, none, indexed, profiles int
	for _, q := range []struct {
		sql string
		dst *int
	}{
		{`SELECT count(*) FROM vec_rescore`, &vectors},
		{`SELECT count(*) FROM messages WHERE indexed = 2`, &none},
		{`SELECT indexed FROM user_stats WHERE user_id = 'u1'`, &indexed},
		{`SELECT count(*) FROM vec_profiles`, &profiles},
	} {
		if err := s.r.QueryRowContext(ctx, q.sql).Scan(q.dst); err != nil {
			t.Fatal(err)
		}
	}
	if vectors != len(real) || none != 8 || indexed != len(real) || profiles != 0 {
		t.Fatalf("after reopen: %d rescore rows, %d messages without a vector, user_stats.indexed %d, %d profile vectors; want %d, 8, %[5]d, 0",
			vectors, none, indexed, profiles, len(real))
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatalf("drain: %v", err)
	}
}

// nullDistances counts the vectors of u1 whose cosine distance to a query
// is NULL, in the old layout (float vectors) or the current one (int8).
func nullDistances(t *testing.T, s *Store) int {
	t.Helper()
	vec, err := s.queryVector(t.Context(), messageCorpus, "u1", SemanticQuery{Text: "car level"})
	if err != nil {
		t.Fatal(err)
	}
	var ddl string
	if err := s.r.QueryRowContext(t.Context(), `SELECT sql FROM sqlite_master WHERE name = 'vec_messages'`).Scan(&ddl); err != nil {
		t.Fatal(err)
	}
	match, arg := "vec_int8(?)", any(nil)
	if _, q := quantize(vec); strings.Contains(ddl, "int8[") {
		arg = q
	} else if arg, err = sqlitevec.SerializeFloat32(vec); err != nil {
		t.Fatal(err)
	} else {
		match = "?"
	}
	var n int
	err = s.r.QueryRowContext(t.Context(), `SELECT count(*) FROM (SELECT distance FROM vec_messages
		WHERE embedding MATCH `+match+` AND k = 100 AND user_id = 'u1') WHERE distance IS NULL`, arg).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
