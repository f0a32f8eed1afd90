package storage_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recalld/recalld/internal/embed"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

func msg(id, role, content string, minute int) storage.Message {
	return storage.Message{ID: id, ConversationID: "c1", Role: role, SenderName: "", Content: content,
		CreatedAt: t0.Add(time.Duration(minute) * time.Minute)}
}

func mustInsert(tb testing.TB, s *storage.Store, user string, msgs ...storage.Message) {
	tb.Helper()
	if _, err := s.Insert(tb.Context(), user, msgs); err != nil {
		tb.Fatal(err)
	}
}

func mustDrain(tb testing.TB, s *storage.Store) {
	tb.Helper()
	if err := s.Drain(tb.Context(), nil); err != nil {
		tb.Fatal(err)
	}
}

func hitIDs(hits []storage.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func msgIDs(ms []storage.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func TestInsertIdempotentAndConflict(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	ctx := t.Context()
	res, err := s.Insert(ctx, "u1", []storage.Message{msg("m1", "user", "hello", 0), msg("m2", "user", "world", 1)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted != 2 || res.Duplicate != 0 {
		t.Fatalf("first insert = %+v", res)
	}
	res, err = s.Insert(ctx, "u1", []storage.Message{msg("m1", "user", "hello", 0)})
	if err != nil || res.Duplicate != 1 || res.Inserted != 0 {
		t.Fatalf("re-send = %+v, %v; want one duplicate", res, err)
	}
	// A conflicting id fails the whole batch: m3 must not be stored either.
	_, err = s.Insert(ctx, "u1", []storage.Message{msg("m3", "user", "new", 2), msg("m1", "user", "changed", 0)})
	if !errors.Is(err, storage.ErrConflict) {
		t.Fatalf("conflict err = %v", err)
	}
	if _, err := s.Get(ctx, "u1", "m3"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("m3 stored despite the failed batch: %v", err)
	}
	// The same id under another user is another message.
	if res, err := s.Insert(ctx, "u2", []storage.Message{msg("m1", "user", "other", 0)}); err != nil || res.Inserted != 1 {
		t.Fatalf("other user insert = %+v, %v", res, err)
	}
	n, _ := s.Count(ctx, "u1", storage.Filter{})
	if n != 2 {
		t.Fatalf("count u1 = %d, want 2", n)
	}
	// Generated ids.
	m := []storage.Message{{Role: "user", Content: "no id", CreatedAt: t0}}
	if _, err := s.Insert(ctx, "u1", m); err != nil || len(m[0].ID) != 26 {
		t.Fatalf("generated id %q, %v", m[0].ID, err)
	}
}

func TestInsertRejects(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	tests := []struct {
		name string
		m    storage.Message
	}{
		{"unknown role", storage.Message{ID: "a", Role: "robot", Content: "x", CreatedAt: t0}},
		{"no created_at", storage.Message{ID: "a", Role: "user", Content: "x"}},
		{"other user", storage.Message{ID: "a", UserID: "u2", Role: "user", Content: "x", CreatedAt: t0}},
		{"bad meta", storage.Message{ID: "a", Role: "user", Content: "x", CreatedAt: t0, Meta: []byte("{")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := s.Insert(t.Context(), "u1", []storage.Message{tt.m}); !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
	if n, _ := s.Count(t.Context(), "u1", storage.Filter{}); n != 0 {
		t.Fatalf("stored %d messages from bad input", n)
	}
}

func TestListCursorAndFilter(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	var msgs []storage.Message
	for i := range 25 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, msg(fmt.Sprintf("m%02d", i), role, fmt.Sprintf("text %d", i), i))
	}
	// Insert in reverse to show the order is by time, not by insertion.
	slices.Reverse(msgs)
	mustInsert(t, s, "u1", msgs...)
	var got []string
	cursor := ""
	for {
		page, next, err := s.List(t.Context(), "u1", storage.Filter{Role: "user"}, 5, cursor)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, msgIDs(page)...)
		if next == "" {
			break
		}
		cursor = next
	}
	var want []string
	for i := 0; i < 25; i += 2 {
		want = append(want, fmt.Sprintf("m%02d", i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("paged list (-want +got):\n%s", diff)
	}
	page, _, err := s.List(t.Context(), "u1", storage.Filter{Since: t0.Add(10 * time.Minute), Until: t0.Add(13 * time.Minute)}, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m10", "m11", "m12"}, msgIDs(page)); diff != "" {
		t.Fatalf("window (-want +got):\n%s", diff)
	}
	if _, _, err := s.List(t.Context(), "u1", storage.Filter{}, 5, "garbage!"); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("bad cursor err = %v", err)
	}
}

func TestNeighbors(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	for i := range 10 {
		mustInsert(t, s, "u1", msg(fmt.Sprintf("m%d", i), "user", "x", i))
	}
	other := msg("o1", "user", "other conversation", 5)
	other.ConversationID = "c2"
	mustInsert(t, s, "u1", other)
	mustInsert(t, s, "u2", msg("b1", "user", "b's", 5))
	a, prev, next, err := s.Neighbors(t.Context(), "u1", "m5", 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "m5" || !slices.Equal(msgIDs(prev), []string{"m3", "m4"}) || !slices.Equal(msgIDs(next), []string{"m6", "m7", "m8"}) {
		t.Fatalf("neighbors = %s %v %v", a.ID, msgIDs(prev), msgIDs(next))
	}
	if _, _, _, err := s.Neighbors(t.Context(), "u1", "b1", 2, 2); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("another user's message: err = %v, want ErrNotFound", err)
	}
}

func TestLexicalSearch(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	mustInsert(t, s, "u1",
		msg("z1", "user", "我不吃辣，一点都不行", 0),
		msg("z2", "user", "辣的东西我不吃，但是甜的可以", 1),
		msg("z3", "assistant", "好的，记住了：你不吃辣。", 2),
		msg("z4", "user", "我喜欢吃火锅", 3),
		msg("e1", "user", "We decided to ship project Atlas in March", 4),
		msg("e2", "user", "The meeting about the budget moved to Friday", 5),
		msg("e3", "user", "Atlas decisions are documented in the wiki", 6),
	)
	mustInsert(t, s, "u2", msg("x1", "user", "我不吃辣 project Atlas", 0))
	mustDrain(t, s)
	tests := []struct {
		name string
		q    storage.LexicalQuery
		want []string // as a set
	}{
		{"phrase", storage.LexicalQuery{Text: `"不吃辣"`}, []string{"z1", "z3"}},
		{"single char", storage.LexicalQuery{Text: "辣"}, []string{"z1", "z2", "z3"}},
		{"implicit and", storage.LexicalQuery{Text: "Atlas decided"}, []string{"e1"}},
		{"stemmed", storage.LexicalQuery{Text: "shipping atlas"}, []string{"e1"}},
		{"any", storage.LexicalQuery{Text: "budget atlas", Any: true}, []string{"e1", "e2", "e3"}},
		{"role filter", storage.LexicalQuery{Text: "辣", Filter: storage.Filter{Role: "user"}}, []string{"z1", "z2"}},
		{"time filter", storage.LexicalQuery{Text: "辣", Filter: storage.Filter{Since: t0.Add(time.Minute), Until: t0.Add(2 * time.Minute)}}, []string{"z2"}},
		{"field syntax is text", storage.LexicalQuery{Text: "user_id:u2"}, nil},
		{"wildcard is text", storage.LexicalQuery{Text: "*"}, nil},
		{"unbalanced quote", storage.LexicalQuery{Text: `"Atlas`}, []string{"e1", "e3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.q
			q.Size = 20
			hits, _, err := s.LexicalSearch(t.Context(), "u1", q)
			if err != nil {
				t.Fatal(err)
			}
			got := hitIDs(hits)
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLexicalCursor(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	for i := range 23 {
		mustInsert(t, s, "u1", msg(fmt.Sprintf("m%02d", i), "user", fmt.Sprintf("coffee order number %d %s", i, string(rune('a'+i))), i))
	}
	mustDrain(t, s)
	seen := map[string]bool{}
	cursor := ""
	pages := 0
	for {
		hits, next, err := s.LexicalSearch(t.Context(), "u1", storage.LexicalQuery{Text: "coffee", Size: 5, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if seen[h.ID] {
				t.Fatalf("%s returned twice", h.ID)
			}
			seen[h.ID] = true
		}
		pages++
		if next == "" {
			break
		}
		cursor = next
	}
	if len(seen) != 23 || pages != 5 {
		t.Fatalf("saw %d hits in %d pages, want 23 in 5", len(seen), pages)
	}
}

func TestSemanticSearch(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	mustInsert(t, s, "u1",
		msg("e1", "user", "I really love spicy noodles", 0),
		msg("e2", "user", "The quarterly budget review is on Friday", 1),
		msg("z1", "user", "我最近在学做川菜，特别辣", 2),
		msg("z2", "assistant", "明天下午三点开会", 3),
	)
	mustInsert(t, s, "u2", msg("x1", "user", "I love spicy noodles too", 0))
	mustDrain(t, s)
	hits, err := s.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: "spices", TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ID != "e1" {
		t.Fatalf("semantic hits = %v, want e1 first", hitIDs(hits))
	}
	// The same paraphrase is not a BM25 hit.
	lex, _, err := s.LexicalSearch(t.Context(), "u1", storage.LexicalQuery{Text: "spices", Size: 5})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(hitIDs(lex), "e1") {
		t.Fatalf("lexical found the paraphrase; test does not show what semantic adds")
	}
	hits, err = s.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: "川菜辣不辣", TopK: 2, Filter: storage.Filter{Role: "user"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ID != "z1" {
		t.Fatalf("zh semantic hits = %v, want z1 first", hitIDs(hits))
	}
	for _, h := range hits {
		if h.UserID != "u1" || h.Role != "user" {
			t.Fatalf("hit %s of user %s role %s", h.ID, h.UserID, h.Role)
		}
	}
	if _, err := s.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Vector: []float32{1, 2}, TopK: 2}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("wrong-dim vector err = %v", err)
	}
}

func TestDeleteAndForgetUser(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	mustInsert(t, s, "u1", msg("m1", "user", "secret plan alpha", 0), msg("m2", "user", "secret plan beta", 1))
	mustInsert(t, s, "u2", msg("m1", "user", "secret plan gamma", 0))
	mustDrain(t, s)
	if err := s.Delete(t.Context(), "u1", "m1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(t.Context(), "u1", "m1"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("second delete err = %v", err)
	}
	// Before the outbox drains, the deleted message must already be gone from results.
	hits, _, err := s.LexicalSearch(t.Context(), "u1", storage.LexicalQuery{Text: "secret", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"m2"}, hitIDs(hits)); diff != "" {
		t.Fatalf("after delete (-want +got):\n%s", diff)
	}
	n, err := s.DeleteUser(t.Context(), "u1")
	if err != nil || n != 1 {
		t.Fatalf("DeleteUser = %d, %v", n, err)
	}
	mustDrain(t, s)
	for _, q := range []string{"secret", "plan"} {
		hits, _, _ := s.LexicalSearch(t.Context(), "u1", storage.LexicalQuery{Text: q, Size: 10})
		sem, _ := s.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: q, TopK: 10})
		if len(hits)+len(sem) != 0 {
			t.Fatalf("forgotten user still has hits for %q", q)
		}
	}
	hits, _, _ = s.LexicalSearch(t.Context(), "u2", storage.LexicalQuery{Text: "secret", Size: 10})
	if len(hits) != 1 {
		t.Fatalf("u2 lost data: %v", hitIDs(hits))
	}
}

func TestReopenResumesOutbox(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	mustInsert(t, s, "u1", msg("m1", "user", "remember the blue umbrella", 0))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = storagetest.Open(t, storage.Config{Dir: dir})
	mustDrain(t, s)
	hits, _, err := s.LexicalSearch(t.Context(), "u1", storage.LexicalQuery{Text: "umbrella", Size: 5})
	if err != nil || len(hits) != 1 {
		t.Fatalf("after reopen hits = %v, %v", hitIDs(hits), err)
	}
}

func TestEmbedderMismatchAndReindex(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.Open(t, storage.Config{Dir: dir})
	mustInsert(t, s, "u1", msg("m1", "user", "remember the blue umbrella", 0))
	mustDrain(t, s)
	s.Close()
	other := embedNew(512)
	if _, err := storage.Open(t.Context(), storage.Config{Dir: dir, Embedder: other}); !errors.Is(err, storage.ErrEmbedderMismatch) {
		t.Fatalf("open with another embedder: err = %v", err)
	}
	s = storagetest.Open(t, storage.Config{Dir: dir, Embedder: other, AllowEmbedderChange: true})
	if _, err := s.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: "umbrella", TopK: 1}); err == nil {
		t.Fatal("semantic search before reindex should fail")
	}
	var calls int
	if err := s.Reindex(t.Context(), func(done, left int) { calls++ }); err != nil {
		t.Fatal(err)
	}
	hits, err := s.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: "umbrella", TopK: 1})
	if err != nil || len(hits) != 1 || calls == 0 {
		t.Fatalf("after reindex: %v, %v, progress calls %d", hitIDs(hits), err, calls)
	}
}

// TestIsolation stores confusable messages for many users and checks that no
// query of one user ever returns another's message. Light users (a few
// messages: one partly filled vec0 chunk, the exact scan) sit beside heavy
// ones (many chunks, above the coarse threshold: the binary-code scan), and
// three of those are past the large-chunk tier (moved to vec_messages_large
// at 256): two with 300 vectors, one with 1,300, spread over two shards.
func TestIsolation(t *testing.T) {
	s := storagetest.Open(t, storage.Config{CoarseThreshold: 20})
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"spicy", "atlas", "project", "coffee", "辣", "火锅", "会议", "budget", "plan", "secret"}
	const users = 24
	count := func(u int) int { // light: 1-3 messages; heavy: 45, 300 or 1,300
		switch {
		case u%3 == 0:
			return 1 + u%4%3
		case u == 1:
			return 1300
		case u%8 == 1:
			return 300
		}
		return 45
	}
	for u := range users {
		var msgs []storage.Message
		for i := range count(u) {
			content := fmt.Sprintf("%s %s %s", words[r.IntN(len(words))], words[r.IntN(len(words))], words[r.IntN(len(words))])
			m := msg(fmt.Sprintf("m%d", i), []string{"user", "assistant"}[r.IntN(2)], content, r.IntN(600))
			m.ConversationID = fmt.Sprintf("c%d", r.IntN(3))
			msgs = append(msgs, m) // the same ids for every user on purpose
		}
		mustInsert(t, s, fmt.Sprintf("user-%02d", u), msgs...)
	}
	mustDrain(t, s)
	ctx := t.Context()
	check := func(user string, ms ...storage.Message) {
		t.Helper()
		for _, m := range ms {
			if m.UserID != user {
				t.Fatalf("query for %s returned a message of %s", user, m.UserID)
			}
		}
	}
	for u := range users {
		user := fmt.Sprintf("user-%02d", u)
		for _, w := range words {
			for cursor, first := "", true; first || cursor != ""; first = false {
				hits, next, err := s.LexicalSearch(ctx, user, storage.LexicalQuery{Text: w, Size: 7, Cursor: cursor, Any: true})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					check(user, h.Message)
				}
				cursor = next
			}
			for _, f := range []storage.Filter{{}, {Role: "user"}} {
				sem, err := s.SemanticSearch(ctx, user, storage.SemanticQuery{Text: w, TopK: 100, Filter: f})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range sem {
					check(user, h.Message)
				}
			}
		}
		for cursor, first := "", true; first || cursor != ""; first = false {
			page, next, err := s.List(ctx, user, storage.Filter{}, 9, cursor)
			if err != nil {
				t.Fatal(err)
			}
			check(user, page...)
			cursor = next
		}
		a, prev, next, err := s.Neighbors(ctx, user, fmt.Sprintf("m%d", r.IntN(count(u))), 50, 50)
		if err != nil {
			t.Fatal(err)
		}
		check(user, append(append(prev, a), next...)...)
	}
}

func embedNew(dim int) embed.Embedder { return embed.NewHashing(dim) }

var _ = context.Background

// TestCoarseSearchMatchesExact checks the binary-code path with int8
// rescoring against exact KNN on the same messages.
func TestCoarseSearchMatchesExact(t *testing.T) {
	exact := storagetest.Open(t, storage.Config{})
	coarse := storagetest.Open(t, storage.Config{CoarseThreshold: 5})
	topics := []string{"spicy noodles for dinner", "project Atlas launch review", "周末去爬山", "我对花生过敏", "budget meeting on Friday", "my sister lives in Paris"}
	var msgs []storage.Message
	for i := range 60 {
		msgs = append(msgs, msg(fmt.Sprintf("m%d", i), []string{"user", "assistant"}[(i/len(topics))%2], fmt.Sprintf("%s, note %d", topics[i%len(topics)], i), i))
	}
	for _, s := range []*storage.Store{exact, coarse} {
		mustInsert(t, s, "u1", slices.Clone(msgs)...)
		mustDrain(t, s)
	}
	for _, q := range []string{"noodles", "Atlas launch", "爬山", "过敏", "sister Paris"} {
		// With a role filter, applied after the code scan on this path.
		f := storage.Filter{Role: "assistant"}
		want, err := exact.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: q, TopK: 5, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		got, err := coarse.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: q, TopK: 5, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%q with role: %d hits, exact %d", q, len(got), len(want))
		}
		for _, h := range got {
			if h.Role != "assistant" {
				t.Fatalf("%q: role filter let %s (%s) through", q, h.ID, h.Role)
			}
		}
		want, err = exact.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: q, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		got, err = coarse.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: q, TopK: 5})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, want %d", q, len(got), len(want))
		}
		for i := range got {
			if math.Abs(got[i].Score-want[i].Score) > 0.02 {
				t.Fatalf("%q hit %d: score %.3f, exact %.3f", q, i, got[i].Score, want[i].Score)
			}
		}
	}
}

// TestCoarseRareRole checks that a role rare among the best binary-code
// matches still fills top_k: the search runs again with the role inside vec0.
func TestCoarseRareRole(t *testing.T) {
	s := storagetest.Open(t, storage.Config{CoarseThreshold: 5})
	var msgs []storage.Message
	for i := range 80 {
		role, text := "user", fmt.Sprintf("spicy noodles for dinner again, note %d", i)
		if i%20 == 0 {
			role, text = "assistant", fmt.Sprintf("the weather report for tomorrow, item %d", i)
		}
		msgs = append(msgs, msg(fmt.Sprintf("m%d", i), role, text, i))
	}
	mustInsert(t, s, "u1", msgs...)
	mustDrain(t, s)
	hits, err := s.SemanticSearch(t.Context(), "u1", storage.SemanticQuery{Text: "spicy noodles dinner", TopK: 4, Filter: storage.Filter{Role: "assistant"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 4 {
		t.Fatalf("got %d assistant hits, want all 4", len(hits))
	}
	for _, h := range hits {
		if h.Role != "assistant" {
			t.Errorf("role filter let %s (%s) through", h.ID, h.Role)
		}
	}
}
