package storage

import (
	"fmt"
	"testing"
	"time"
)

// TestVectorTiers: a user whose vectors reach promoteAt moves, with all of
// them, to the large-chunk table, and later vectors go there too; searches
// find the same messages on either side; a light user beside them stays in
// the small table and never sees the heavy user's messages; deleting a
// message and forgetting the user clear the large table.
func TestVectorTiers(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	batch := func(user string, from, n int) {
		var msgs []Message
		for i := from; i < from+n; i++ {
			msgs = append(msgs, Message{ID: fmt.Sprintf("m%d", i), ConversationID: "c", Role: RoleUser,
				Content: fmt.Sprintf("note %d about topic%d and token%d", i, i%17, i), CreatedAt: at.Add(time.Duration(i) * time.Minute)})
		}
		if _, err := s.Insert(ctx, user, msgs); err != nil {
			t.Fatal(err)
		}
		if err := s.Drain(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(table, user string) int {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE user_id = ?`, user).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	batch("heavy", 0, promoteAt-1)
	batch("light", 0, 5)
	if big, _ := isBig(ctx, s.r, messageCorpus, "heavy"); big || rows("vec_messages", "heavy") != promoteAt-1 {
		t.Fatalf("below the threshold: big %v, %d small rows", big, rows("vec_messages", "heavy"))
	}
	search := func(user, text string) []Hit {
		hits, err := s.SemanticSearch(ctx, user, SemanticQuery{Text: text, TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	before := search("heavy", "note 42 about topic8 and token42")
	batch("heavy", promoteAt-1, 40)
	if big, _ := isBig(ctx, s.r, messageCorpus, "heavy"); !big {
		t.Fatal("heavy not moved at the threshold")
	}
	if small, bigRows := rows("vec_messages", "heavy"), rows("vec_messages_big", "heavy"); small != 0 || bigRows != promoteAt+39 {
		t.Fatalf("after the move: %d small rows, %d large, want 0 and %d", small, bigRows, promoteAt+39)
	}
	if rows("vec_messages", "light") != 5 || rows("vec_messages_big", "light") != 0 {
		t.Fatal("light user moved")
	}
	after := search("heavy", "note 42 about topic8 and token42")
	if len(before) == 0 || len(after) == 0 || before[0].ID != after[0].ID || after[0].ID != "m42" {
		t.Fatalf("top hit before %v, after %v, want m42", before, after)
	}
	if hits := search("heavy", "note 280 about topic8 and token280"); len(hits) == 0 || hits[0].ID != "m280" {
		t.Fatalf("a vector stored after the move: %v", hits)
	}
	for _, h := range search("light", "note 42 about topic8 and token42") {
		if h.UserID != "light" {
			t.Fatalf("light user found %s of %s", h.ID, h.UserID)
		}
	}
	if err := s.Delete(ctx, "heavy", "m42"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := rows("vec_messages_big", "heavy"); n != promoteAt+38 {
		t.Fatalf("after deleting one: %d large rows", n)
	}
	if _, err := s.DeleteUser(ctx, "heavy"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if big, _ := isBig(ctx, s.r, messageCorpus, "heavy"); big || rows("vec_messages_big", "heavy") != 0 {
		t.Fatal("forgotten user still in the large table")
	}
	// A returning user starts small again.
	batch("heavy", 0, 3)
	if rows("vec_messages", "heavy") != 3 {
		t.Fatal("returning user not in the small table")
	}
}
