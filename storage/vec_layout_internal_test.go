package storage

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

var chunkOption = regexp.MustCompile(`,\s*chunk_size=\d+`)

// toOldVecLayout rebuilds s's vector tables as stores written before
// vecChunkSize had them (vec0's default chunk of 1024 slots, float
// embeddings), keeping their rows, and forgets auto_vacuum: an old store
// as it was on disk. A float embedding holds the values of the int8 one,
// unscaled: the same direction.
func toOldVecLayout(t *testing.T, s *Store) {
	t.Helper()
	ctx := t.Context()
	for _, tb := range s.vecTables() {
		old := func(name string) string {
			return strings.Replace(chunkOption.ReplaceAllString(tb.ddl(name), ""), "int8[", "float[", 1)
		}
		if strings.Contains(old(tb.name), "chunk_size") {
			t.Fatalf("%s: chunk_size left in %s", tb.name, old(tb.name))
		}
		sel := []string{"rowid"}
		for _, c := range tb.cols {
			if c == "coarse" {
				c = "vec_bit(coarse)"
			}
			sel = append(sel, c)
		}
		first := slices.Clone(sel)
		if tb.rescore != "" {
			first[slices.Index(first, "embedding")] = "vec_f32(vec_to_json(vec_int8(embedding)))"
		}
		cols := "rowid, " + strings.Join(tb.cols, ", ")
		err := s.update(ctx, func(tx *sql.Tx) error {
			for _, q := range []string{
				old("old_tmp"),
				`INSERT INTO old_tmp (` + cols + `) SELECT ` + strings.Join(first, ", ") + ` FROM ` + tb.name,
				`DROP TABLE ` + tb.name,
				old(tb.name),
				`INSERT INTO ` + tb.name + ` (` + cols + `) SELECT ` + strings.Join(sel, ", ") + ` FROM old_tmp`,
				`DROP TABLE old_tmp`,
			} {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("%s: %w", q, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{`PRAGMA auto_vacuum = NONE`, `VACUUM`} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestVecLayoutMigration: a store written with vec0's default chunks opens,
// rebuilds its vector tables with small chunks and shrinks, losing no
// vector: the same searches give the same hits, and the database takes
// auto_vacuum=INCREMENTAL.
func TestVecLayoutMigration(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s, err := Open(ctx, Config{Dir: dir, NoIndexer: true, CoarseThreshold: 10})
	if err != nil {
		t.Fatal(err)
	}
	users := []string{"light", "heavy", "other"}
	for i, u := range users {
		var msgs []Message
		for j := range 1 + 20*i {
			msgs = append(msgs, Message{ID: fmt.Sprintf("m%d", j), ConversationID: "c", Role: []string{"user", "assistant"}[j%2],
				Content: fmt.Sprintf("%s note %d about the car park level %d", u, j, j%4), CreatedAt: time.Unix(int64(j), 0)})
		}
		if _, err := s.Insert(ctx, u, msgs); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	search := func(s *Store) map[string][]string {
		out := map[string][]string{}
		for _, u := range users {
			hits, err := s.SemanticSearch(ctx, u, SemanticQuery{Text: "car park level 2", TopK: 5})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				out[u] = append(out[u], fmt.Sprintf("%s %.4f", h.ID, h.Score))
			}
		}
		return out
	}
	want := search(s)
	toOldVecLayout(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "recalld.db")
	before := fileSize(t, db)

	s, err = Open(ctx, Config{Dir: dir, NoIndexer: true, CoarseThreshold: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tb := range s.vecTables() {
		var ddl string
		if err := s.r.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE name = ?`, tb.name).Scan(&ddl); err != nil {
			t.Fatal(err)
		}
		if !tb.current(ddl) || !strings.Contains(ddl, fmt.Sprintf("chunk_size=%d", vecChunkSize)) ||
			(tb.rescore != "") != strings.Contains(ddl, "int8[") {
			t.Errorf("%s not rebuilt: %s", tb.name, ddl)
		}
	}
	got := search(s)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hits after the migration:\n%v\nbefore:\n%v", got, want)
	}
	var float int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM vec_messages WHERE vec_type(embedding) != 'int8'`).Scan(&float); err != nil || float != 0 {
		t.Errorf("after the migration: %d float vectors (%v)", float, err)
	}
	var vectors, av int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM vec_messages`).Scan(&vectors); err != nil {
		t.Fatal(err)
	}
	if err := s.w.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&av); err != nil {
		t.Fatal(err)
	}
	after := fileSize(t, db)
	t.Logf("recalld.db: %d bytes before, %d after", before, after)
	if vectors != 1+21+41 || av != 2 || after*4 > before {
		t.Errorf("after the migration: %d vectors, auto_vacuum %d, %d bytes (from %d); want %d, 2, a quarter at most", vectors, av, after, before, 1+21+41)
	}
}

// TestDeleteUserFreesSpace: forgetting users removes their vec0 chunks and
// gives the pages back to the file system (auto_vacuum=INCREMENTAL), and a
// forgotten user who comes back gets new chunks.
func TestDeleteUserFreesSpace(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s, err := Open(ctx, Config{Dir: dir, NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkpoint := func() int64 {
		if _, err := s.w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		return fileSize(t, filepath.Join(dir, "recalld.db"))
	}
	empty := checkpoint() // the tables of an empty store
	const users = 60
	insert := func(u int) {
		var msgs []Message
		for j := range 1 + u%12 {
			msgs = append(msgs, Message{ID: fmt.Sprintf("m%d", j), ConversationID: "c", Role: "user",
				Content: fmt.Sprintf("user %d keeps the spare key under the mat %d", u, j), CreatedAt: time.Unix(int64(j), 0)})
		}
		if _, err := s.Insert(ctx, fmt.Sprintf("u%d", u), msgs); err != nil {
			t.Fatal(err)
		}
	}
	for u := range users {
		insert(u)
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	full := checkpoint()
	for u := 1; u < users; u++ {
		if _, err := s.DeleteUser(ctx, fmt.Sprintf("u%d", u)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	left := checkpoint()
	var chunks int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM vec_messages_chunks`).Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	t.Logf("recalld.db: %d bytes with %d users, %d after deleting all but one", full, users, left)
	if chunks != 1 || (left-empty)*4 > full-empty {
		t.Errorf("after deleting %d of %d users: %d chunks, %d bytes of %d (empty: %d); want 1 chunk and a quarter of the users' bytes at most", users-1, users, chunks, left, full, empty)
	}
	insert(5)
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"u0", "u5"} {
		hits, err := s.SemanticSearch(ctx, u, SemanticQuery{Text: "spare key mat", TopK: 10})
		if err != nil || len(hits) == 0 {
			t.Fatalf("%s after the deletions: %d hits, %v", u, len(hits), err)
		}
		for _, h := range hits {
			if h.UserID != u {
				t.Fatalf("%s got a hit of %s", u, h.UserID)
			}
		}
	}
}
