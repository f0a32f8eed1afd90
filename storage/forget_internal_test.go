package storage

import (
	"testing"
	"time"
)

// TestDeleteUserRemovesRescoreVectors checks that forgetting a user leaves
// no int8 vector behind (they are found through the vec0 rows).
func TestDeleteUserRemovesRescoreVectors(t *testing.T) {
	s, err := Open(t.Context(), Config{Dir: t.TempDir(), NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for _, u := range []string{"u1", "u2"} {
		if _, err := s.Insert(t.Context(), u, []Message{{ID: "m1", Role: RoleUser, Content: "spicy noodles", CreatedAt: at}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteUser(t.Context(), "u1"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.r.QueryRowContext(t.Context(), `SELECT count(*) FROM vec_rescore`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("%d rescore vectors left, want 1 (u2's)", n)
	}
}
