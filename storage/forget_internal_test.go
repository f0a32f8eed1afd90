package storage

import (
	"errors"
	"fmt"
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

// TestDeleteUserRemovesEventIndex checks that forgetting a user leaves none
// of their event vectors, int8 vectors, statistics or lexical documents.
func TestDeleteUserRemovesEventIndex(t *testing.T) {
	s, err := Open(t.Context(), Config{Dir: t.TempDir(), NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	for _, u := range []string{"u1", "u2"} {
		if _, _, err := s.EnqueueJob(ctx, NewJob{UserID: u, Kind: "seed", Payload: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		j, _, err := s.ClaimJob(ctx, "seed", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CompleteJob(ctx, j, JobResult{Events: []Event{{ID: j.ID + ":0:sender", UserID: u, JobID: j.ID, Perspective: PerspectiveSender,
			RequestType: "private", Content: "Ann likes spicy noodles", Timestamp: at}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]int{
		`vec_events`: 1, `event_vec_rescore`: 1, `event_stats`: 1,
		`event_term_df WHERE user_id = 'u1'`: 0, `event_term_df WHERE user_id = 'u2'`: -1,
	} {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if (want >= 0 && n != want) || (want < 0 && n == 0) {
			t.Errorf("%s: %d rows", table, n)
		}
	}
	n, err := s.eindex.DocCount()
	if err != nil || n != 1 {
		t.Fatalf("event lexical documents: %d %v, want 1 (u2's)", n, err)
	}
}

// TestLexicalPagingBound pages through a ranking deeper than the paging
// bound: every cursor handed out is accepted, and the page that starts at
// the bound is the last, with no cursor.
func TestLexicalPagingBound(t *testing.T) {
	s, err := Open(t.Context(), Config{Dir: t.TempDir(), NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.lexOffsetMax = 10 // stands for maxLexicalOffset
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	var msgs []Message
	for i := range 30 {
		msgs = append(msgs, Message{ID: fmt.Sprint("m", i), Role: RoleUser, Content: "spicy noodles", CreatedAt: at.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := s.Insert(t.Context(), "u1", msgs); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{3, 4, 5, 10, 11} {
		t.Run(fmt.Sprint("size ", size), func(t *testing.T) {
			seen, cursor := 0, ""
			for pages := 0; ; pages++ {
				hits, next, err := s.LexicalSearch(t.Context(), "u1", LexicalQuery{Text: "noodles", Size: size, Cursor: cursor})
				if err != nil {
					t.Fatalf("page %d (cursor %q): %v", pages, cursor, err)
				}
				seen += len(hits)
				if next == "" {
					break
				}
				cursor = next
			}
			// Pages start at 0, size, 2·size … ≤ 10; the last one is whole.
			if want := (10/size + 1) * size; seen != want {
				t.Fatalf("saw %d hits, want %d", seen, want)
			}
		})
	}
	if _, _, err := s.LexicalSearch(t.Context(), "u1", LexicalQuery{Text: "noodles", Size: 5, Cursor: encodeLexCursor(11)}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("cursor past the bound: %v, want ErrInvalid", err)
	}
}
