package storage_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// ev is an event of a turn at t0 + days; group "" makes it a private one.
func ev(key, group, sender, content string, days int) storage.Event {
	e := storage.Event{
		ID: key, GroupID: group, SenderID: sender, SenderName: "name-" + sender, Perspective: storage.PerspectiveSender,
		RequestType: "private", Content: content, Original: content, IsAbsolute: true,
		Timestamp: t0.Add(time.Duration(days) * 24 * time.Hour),
	}
	if group != "" {
		e.Perspective, e.RequestType = storage.PerspectiveGroup, "group"
	}
	return e
}

// mustStoreEvents stores evs for user the way the historian does: through a
// claimed job that CompleteJob finishes.
func mustStoreEvents(tb testing.TB, s *storage.Store, user string, evs ...storage.Event) {
	tb.Helper()
	ctx := tb.Context()
	if _, _, err := s.EnqueueJob(ctx, storage.NewJob{UserID: user, Kind: "seed", Payload: json.RawMessage(`{}`)}); err != nil {
		tb.Fatal(err)
	}
	j, ok, err := s.ClaimJob(ctx, "seed", time.Minute)
	if err != nil || !ok {
		tb.Fatalf("claim: %v %v", ok, err)
	}
	for i := range evs {
		evs[i].UserID, evs[i].JobID = user, j.ID
		evs[i].ID = j.ID + ":" + evs[i].ID
	}
	if _, err := s.CompleteJob(ctx, j, storage.JobResult{Events: evs}); err != nil {
		tb.Fatal(err)
	}
}

// eventKeys are the hits' ids without the job prefix, sorted.
func eventKeys(hits []storage.EventHit) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.ID[len(h.JobID)+1:])
	}
	slices.Sort(out)
	return out
}

func seedEvents(tb testing.TB, s *storage.Store) {
	mustStoreEvents(tb, s, "u1",
		ev("hz", "", "10001", "小王(10001)2026年5月2日要去杭州出差", 0),
		ev("tea", "", "10001", "小王(10001)最喜欢喝乌龙茶", 1),
		ev("paris", "g1", "10002", "Ann (10002) flew to Paris on 2026-05-10 for the design review", 9),
		ev("atlas", "g1", "10001", "小王(10001) said project Atlas ships in March 2027", 20),
		ev("hotpot", "g2", "10003", "老李(10003)2026年6月1日在成都吃了火锅", 31),
	)
	mustStoreEvents(tb, s, "u2",
		ev("hz2", "", "20001", "小张(20001)2026年5月3日要去杭州出差", 0),
		ev("paris2", "g1", "20002", "Bob (20002) flew to Paris for the design review", 9),
	)
}

func TestSearchEvents(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	seedEvents(t, s)
	mustDrain(t, s)
	day := func(d int) time.Time { return t0.Add(time.Duration(d) * 24 * time.Hour) }
	for _, tc := range []struct {
		name string
		user string
		q    storage.EventQuery
		want []string // must be among the hits
		none []string // must not
		n    int      // considered
	}{
		{name: "zh", user: "u1", q: storage.EventQuery{Text: "杭州出差"}, want: []string{"hz"}, none: []string{"hz2"}, n: 5},
		{name: "en", user: "u1", q: storage.EventQuery{Text: "Paris design review"}, want: []string{"paris"}, none: []string{"paris2"}, n: 5},
		{name: "group filter", user: "u1", q: storage.EventQuery{Text: "火锅 Paris 杭州", GroupID: "g1"}, want: []string{"paris"}, none: []string{"hotpot", "hz"}, n: 2},
		{name: "other group", user: "u1", q: storage.EventQuery{Text: "Paris design review", GroupID: "g2"}, none: []string{"paris"}, n: 1},
		{name: "sender filter", user: "u1", q: storage.EventQuery{Text: "Atlas 乌龙茶 Paris", SenderID: "10001"}, want: []string{"atlas", "tea"}, none: []string{"paris"}, n: 3},
		{name: "time window inclusive", user: "u1", q: storage.EventQuery{Text: "杭州 Paris 火锅 Atlas", From: day(9), To: day(20)}, want: []string{"paris", "atlas"}, none: []string{"hz", "hotpot"}, n: 2},
		{name: "open end", user: "u1", q: storage.EventQuery{Text: "火锅 杭州", From: day(21)}, want: []string{"hotpot"}, none: []string{"hz"}, n: 1},
		{name: "user isolation", user: "u2", q: storage.EventQuery{Text: "杭州出差 乌龙茶 火锅 Atlas"}, want: []string{"hz2"}, none: []string{"hz", "tea", "hotpot", "atlas"}, n: 2},
		{name: "unknown user", user: "u3", q: storage.EventQuery{Text: "杭州出差"}, n: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.q.Size = 10
			res, err := s.SearchEvents(t.Context(), tc.user, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := eventKeys(res.Hits)
			for _, w := range tc.want {
				if !slices.Contains(got, w) {
					t.Errorf("missing %s in %v", w, got)
				}
			}
			for _, w := range tc.none {
				if slices.Contains(got, w) {
					t.Errorf("%s must not be in %v", w, got)
				}
			}
			if res.Considered != tc.n || !res.Semantic {
				t.Errorf("considered = %d, semantic = %v; want %d, true", res.Considered, res.Semantic, tc.n)
			}
			for _, h := range res.Hits {
				if h.UserID != tc.user {
					t.Fatalf("hit of user %s", h.UserID)
				}
				if tc.q.GroupID != "" && h.GroupID != tc.q.GroupID {
					t.Fatalf("hit of group %q", h.GroupID)
				}
			}
		})
	}
}

func TestSearchEventsScores(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	seedEvents(t, s)
	mustDrain(t, s)
	res, err := s.SearchEvents(t.Context(), "u1", storage.EventQuery{Text: "杭州出差", Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.LexicalRank == 0 && h.SemanticRank == 0 {
			t.Fatalf("hit %s in no ranking", h.ID)
		}
		if h.LexicalRank != 0 && h.Lexical <= 0 {
			t.Fatalf("lexical hit %s without a score", h.ID)
		}
		if h.Similarity <= 0 || h.Similarity > 1.0001 {
			t.Fatalf("hit %s similarity %v", h.ID, h.Similarity)
		}
	}
	// A word only the lexical index matches: the hit's similarity comes
	// from its stored vector and agrees with the semantic ranking's.
	lexOnly, err := s.SearchEvents(t.Context(), "u1", storage.EventQuery{Text: "Atlas", Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	sem := map[string]float64{}
	wide, err := s.SearchEvents(t.Context(), "u1", storage.EventQuery{Text: "Atlas", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range wide.Hits {
		if h.SemanticRank != 0 {
			sem[h.ID] = h.Similarity
		}
	}
	for _, h := range lexOnly.Hits {
		if h.LexicalRank == 0 {
			continue
		}
		want, ok := sem[h.ID]
		if !ok || h.Similarity == 0 || h.Similarity-want > 0.02 || want-h.Similarity > 0.02 {
			t.Fatalf("lexical hit %s similarity %v, semantic ranking says %v", h.ID, h.Similarity, want)
		}
	}
	for _, q := range []storage.EventQuery{{Text: " ", Size: 5}, {Text: "x"}, {Text: "x", Size: 5, From: t0.Add(time.Hour), To: t0}} {
		if _, err := s.SearchEvents(t.Context(), "u1", q); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", q, err)
		}
	}
}

// TestEventIndexResumesAfterReopen stores events while no indexer runs,
// closes the store with the outbox full and checks that the next open
// indexes them.
func TestEventIndexResumesAfterReopen(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	mustStoreEvents(t, s, "u1", ev("umb", "", "1", "Ann (1) lost the blue umbrella on 2026-05-01", 0))
	if st, err := s.Status(t.Context()); err != nil || st.Pending != 1 {
		t.Fatalf("pending = %+v %v, want the event's outbox entry", st, err)
	}
	if res, err := s.SearchEvents(t.Context(), "u1", storage.EventQuery{Text: "umbrella", Size: 5}); err != nil || len(res.Hits) != 0 {
		t.Fatalf("indexed without an indexer: %+v %v", res.Hits, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = storagetest.Open(t, storage.Config{Dir: dir}) // the indexer runs
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := s.SearchEvents(t.Context(), "u1", storage.EventQuery{Text: "umbrella", Size: 5})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"umb"}, eventKeys(res.Hits)); diff == "" && res.Hits[0].LexicalRank == 1 && res.Hits[0].SemanticRank == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("event not indexed after reopen: %+v", res.Hits)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDeleteUserForgetsEventIndex(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	seedEvents(t, s)
	mustDrain(t, s)
	if _, err := s.DeleteUser(t.Context(), "u1"); err != nil {
		t.Fatal(err)
	}
	mustDrain(t, s)
	// Stored again after the deletion (a late job): only the new event is found.
	mustStoreEvents(t, s, "u1", ev("new", "", "10001", "小王(10001)2026年7月1日去杭州出差", 60))
	mustDrain(t, s)
	res, err := s.SearchEvents(t.Context(), "u1", storage.EventQuery{Text: "杭州出差 乌龙茶 Paris", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"new"}, eventKeys(res.Hits)); diff != "" {
		t.Fatalf("after forgetting u1 (-want +got):\n%s", diff)
	}
	res, err = s.SearchEvents(t.Context(), "u2", storage.EventQuery{Text: "杭州出差 Paris", Size: 10})
	if err != nil || len(res.Hits) != 2 {
		t.Fatalf("u2 lost events: %v %v", eventKeys(res.Hits), err)
	}
}

func TestReindexRebuildsEventVectors(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.Open(t, storage.Config{Dir: dir})
	seedEvents(t, s)
	mustDrain(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = storagetest.Open(t, storage.Config{Dir: dir, Embedder: embedNew(512), AllowEmbedderChange: true})
	q := storage.EventQuery{Text: "杭州出差", Size: 5}
	res, err := s.SearchEvents(t.Context(), "u1", q)
	if err != nil {
		t.Fatal(err)
	}
	if res.Semantic || len(res.Hits) == 0 || res.Hits[0].Similarity != 0 {
		t.Fatalf("before reindex: semantic=%v hits=%+v; want lexical hits only", res.Semantic, res.Hits)
	}
	if err := s.Reindex(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	res, err = s.SearchEvents(t.Context(), "u1", q)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, h := range res.Hits {
		if h.ID[len(h.JobID)+1:] == "hz" {
			found = h.SemanticRank > 0 && h.LexicalRank > 0 && h.Similarity > 0
		}
	}
	if !res.Semantic || !found {
		t.Fatalf("after reindex: semantic=%v hits=%+v", res.Semantic, res.Hits)
	}
}

// TestSearchEventsCoarse checks the binary-code path above the threshold
// finds what exact search finds.
func TestSearchEventsCoarse(t *testing.T) {
	exact := storagetest.Open(t, storage.Config{})
	coarse := storagetest.Open(t, storage.Config{CoarseThreshold: 5})
	var evs []storage.Event
	topics := []string{"hiking in the alps", "杭州出差", "spicy hotpot dinner", "guitar lessons", "design review in Paris", "乌龙茶"}
	for i := range 60 {
		evs = append(evs, ev(fmt.Sprint(i), "", "s", fmt.Sprintf("Ann (s) event %d about %s", i, topics[i%len(topics)]), i))
	}
	for _, s := range []*storage.Store{exact, coarse} {
		mustStoreEvents(t, s, "u1", slices.Clone(evs)...)
		mustDrain(t, s)
	}
	for _, text := range []string{"杭州出差", "guitar lessons"} {
		for _, s := range []*storage.Store{exact, coarse} {
			res, err := s.SearchEvents(t.Context(), "u1", storage.EventQuery{Text: text, Size: 5})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, h := range res.Hits {
				if h.SemanticRank == 0 {
					continue
				}
				n++
				if !strings.Contains(h.Content, text) {
					t.Errorf("%q: semantic hit %d is %q", text, h.SemanticRank, h.Content)
				}
			}
			if n != 5 {
				t.Errorf("%q: %d semantic hits, want 5", text, n)
			}
		}
	}
}
