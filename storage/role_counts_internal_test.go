package storage

import (
	"fmt"
	"testing"
	"time"
)

// TestRoleCountMigration: a store written before user_role_stats (migration
// 0011) opens and counts each user's messages by role from it, and the
// count follows inserts, deletes and a forgotten user, as counting the
// rows does.
func TestRoleCountMigration(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	s, err := Open(ctx, Config{Dir: dir, NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	insert := func(s *Store, user string, from, n int) {
		t.Helper()
		var msgs []Message
		for j := from; j < from+n; j++ {
			msgs = append(msgs, Message{ID: fmt.Sprintf("m%d", j), Role: []string{"user", "assistant", "user", "system"}[j%4],
				Content: fmt.Sprintf("note %d", j), CreatedAt: time.Unix(int64(j), 0)})
		}
		if _, err := s.Insert(ctx, user, msgs); err != nil {
			t.Fatal(err)
		}
	}
	users := []string{"a", "b", "c"}
	for i, u := range users {
		insert(s, u, 0, 3+7*i)
	}
	// the layout before 0011
	for _, q := range []string{`DROP TRIGGER messages_role_insert`, `DROP TRIGGER messages_role_delete`, `DROP TRIGGER messages_role_update`,
		`DROP TABLE user_role_stats`, `DELETE FROM schema_migrations WHERE name = 'migrations/0011_role_counts.sql'`} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	insert(s, "a", 100, 5) // written by the old version
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, Config{Dir: dir, NoIndexer: true}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check := func(step string) {
		t.Helper()
		for _, u := range append(users, "nobody") {
			for _, role := range []string{"user", "assistant", "system", "tool"} {
				var want int
				if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE user_id = ? AND role = ?`, u, role).Scan(&want); err != nil {
					t.Fatal(err)
				}
				got, err := s.Count(ctx, u, Filter{Role: role})
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Errorf("%s: user %s role %s: Count %d, rows %d", step, u, role, got, want)
				}
			}
		}
	}
	check("after the migration")
	insert(s, "b", 200, 6)
	if err := s.Delete(ctx, "a", "m0"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "c", "m3"); err != nil {
		t.Fatal(err)
	}
	check("after inserts and deletes")
	if _, err := s.DeleteUser(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	check("after forgetting b")
	var left int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM user_role_stats WHERE user_id = 'b'`).Scan(&left); err != nil || left != 0 {
		t.Errorf("forgotten user b: %d role counts left (%v)", left, err)
	}
}

// TestCountHalfOpen: a window open at one end (since or until, with or
// without a role) counts what counting the rows counts, whichever side of
// its edge the store counts, and for users with one message or none.
func TestCountHalfOpen(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, Config{Dir: t.TempDir(), NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Uneven times: most messages late, so the span's middle is not the
	// messages' median.
	var msgs []Message
	for j := range 200 {
		sec := int64(j * j)
		msgs = append(msgs, Message{ID: fmt.Sprintf("m%d", j), Role: []string{"user", "assistant", "user"}[j%3],
			Content: "x", CreatedAt: time.Unix(1000+sec, 0)})
	}
	if _, err := s.Insert(ctx, "many", msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert(ctx, "one", []Message{{ID: "m5", Role: "user", Content: "x", CreatedAt: time.Unix(1025, 0)}}); err != nil {
		t.Fatal(err)
	}
	edges := []time.Time{time.Unix(0, 0), time.Unix(1000, 0), time.Unix(1001, 0), time.Unix(1000+100*100, 0),
		time.Unix(1000+150*150, 0), time.Unix(1000+190*190, 0), time.Unix(1000+199*199, 0), time.Unix(1000+199*199+1, 0), time.Unix(1e9, 0)}
	for _, user := range []string{"many", "one", "nobody"} {
		for _, role := range []string{"", "user", "assistant", "system"} {
			for _, e := range edges {
				for _, f := range []Filter{{Role: role, Since: e}, {Role: role, Until: e}} {
					where, args := filterSQL(f, []string{"user_id = ?"}, []any{user})
					var want int
					q := `SELECT count(*) FROM messages WHERE ` + where[0]
					for _, w := range where[1:] {
						q += " AND " + w
					}
					if err := s.r.QueryRowContext(ctx, q, args...).Scan(&want); err != nil {
						t.Fatal(err)
					}
					got, err := s.Count(ctx, user, f)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Errorf("user %s role %q since %v until %v: Count %d, rows %d", user, role, f.Since.Unix(), f.Until.Unix(), got, want)
					}
				}
			}
		}
	}
}
