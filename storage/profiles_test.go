package storage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/internal/embed"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// setProfile stores content as user's profile of the entity through a job.
func setProfile(tb testing.TB, s *storage.Store, user, typ, id string, c storage.ProfileContent) storage.JobOutcome {
	tb.Helper()
	j, _, err := s.EnqueueJob(tb.Context(), storage.NewJob{UserID: user, Kind: "turn_end", Payload: []byte(`{}`)})
	if err != nil {
		tb.Fatal(err)
	}
	claimed, ok, err := s.ClaimJob(tb.Context(), "turn_end", 60e9)
	if err != nil || !ok || claimed.ID != j.ID {
		tb.Fatal(ok, err)
	}
	out, err := s.CompleteJob(tb.Context(), claimed, storage.JobResult{Profiles: []storage.ProfileMerge{{
		EntityType: typ, EntityID: id, Apply: func(p storage.Profile) storage.Profile { p.ProfileContent = c; return p },
	}}})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func content(name, summary string, values ...string) storage.ProfileContent {
	c := storage.ProfileContent{Name: name, Summary: summary}
	for _, v := range values {
		c.Traits = append(c.Traits, storage.Trait{Category: "hobby", Slot: v, Value: v, FirstSeen: t0, LastSeen: t0})
		c.Tags = append(c.Tags, v)
	}
	return c
}

// hitKeys returns the keys of the lexical ranking's profiles, best first.
func hitKeys(r storage.ProfileRankings) []string { return rankKeys(r.Lexical) }

func rankKeys(rs []storage.RankedProfile) []string {
	var out []string
	for _, h := range rs {
		out = append(out, h.EntityType+"/"+h.EntityID)
	}
	return out
}

// checkRanks fails unless both rankings are best first with increasing
// ranks and hold only user's profiles. (queryapi fuses them; its tests
// check the fused order.)
func checkRanks(tb testing.TB, user string, r storage.ProfileRankings) {
	tb.Helper()
	for _, rs := range [][]storage.RankedProfile{r.Lexical, r.Semantic} {
		for i, h := range rs {
			if h.UserID != user {
				tb.Fatalf("%s got a profile of %s", user, h.UserID)
			}
			if h.Rank < i || (i > 0 && h.Rank <= rs[i-1].Rank) {
				tb.Fatalf("ranks not increasing: %+v", rs)
			}
		}
	}
}

func TestSearchProfiles(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.Open(t, storage.Config{Dir: dir})
	ctx := t.Context()
	setProfile(t, s, "u1", storage.EntityUser, "qq:1", content("张三", "张三：住在上海；是程序员；喜欢吃火锅。", "火锅"))
	setProfile(t, s, "u1", storage.EntityUser, "tg:7", content("Alice", "Alice: lives in Berlin; works as a nurse; likes hiking.", "hiking"))
	setProfile(t, s, "u1", storage.EntityGroup, "g1", content("Hikers", "Hikers: often talks about sports; members include Alice.", "sports"))
	setProfile(t, s, "u2", storage.EntityUser, "qq:9", content("李四", "李四：住在上海；喜欢吃火锅。", "火锅"))

	tests := []struct {
		name string
		user string
		q    storage.ProfileQuery
		want []string
	}{
		{"zh", "u1", storage.ProfileQuery{Text: "谁喜欢吃火锅", TopK: 1}, []string{"user/qq:1"}},
		{"en", "u1", storage.ProfileQuery{Text: "nurse in Berlin", TopK: 1}, []string{"user/tg:7"}},
		{"entity type narrows", "u1", storage.ProfileQuery{Text: "Alice sports", EntityType: storage.EntityGroup, TopK: 5}, []string{"group/g1"}},
		{"best first", "u1", storage.ProfileQuery{Text: "hiking Alice", TopK: 2}, []string{"user/tg:7", "group/g1"}},
		{"other user", "u2", storage.ProfileQuery{Text: "hiking nurse Berlin 程序员", TopK: 10}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, err := s.SearchProfiles(ctx, tt.user, tt.q)
			if err != nil {
				t.Fatal(err)
			}
			checkRanks(t, tt.user, hs)
			got := hitKeys(hs)
			if len(got) > len(tt.want) {
				got = got[:len(tt.want)]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("lexical (-want +got):\n%s", diff)
			}
		})
	}
	for _, q := range []storage.ProfileQuery{{Text: " ", TopK: 1}, {Text: "x", TopK: 0}, {Text: "x", TopK: 1, EntityType: "robot"}} {
		if _, err := s.SearchProfiles(ctx, "u1", q); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("%+v: %v", q, err)
		}
	}

	// A change is searchable at once; the old text is not.
	setProfile(t, s, "u1", storage.EntityUser, "tg:7", content("Alice", "Alice: lives in Oslo; works as a pilot.", "sailing"))
	if hs, _ := s.SearchProfiles(ctx, "u1", storage.ProfileQuery{Text: "pilot Oslo", TopK: 1}); len(hs.Lexical) != 1 || hs.Lexical[0].EntityID != "tg:7" || hs.Lexical[0].Revision != 2 {
		t.Fatalf("after change: %v", hitKeys(hs))
	}
	// The index survives a restart, and its loss: it is rebuilt from the rows.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := storagetest.Open(t, storage.Config{Dir: dir})
	if hs, _ := s2.SearchProfiles(ctx, "u1", storage.ProfileQuery{Text: "火锅", TopK: 3}); len(hs.Lexical) == 0 || hs.Lexical[0].EntityID != "qq:1" {
		t.Fatalf("after reopen: %v", hitKeys(hs))
	}

	// Forgetting a user forgets the profiles and their search entries.
	if _, err := s2.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if hs, err := s2.SearchProfiles(ctx, "u1", storage.ProfileQuery{Text: "火锅 hiking pilot", TopK: 5}); err != nil || len(hs.Lexical)+len(hs.Semantic) != 0 {
		t.Fatalf("after forget: %v %v", hitKeys(hs), err)
	}
	if ps, _ := s2.ListProfiles(ctx, "u1", "", 10); len(ps) != 0 {
		t.Fatalf("%d profiles left", len(ps))
	}
	if hs, _ := s2.SearchProfiles(ctx, "u2", storage.ProfileQuery{Text: "火锅", TopK: 3}); len(hs.Lexical) != 1 {
		t.Fatalf("u2 lost its profile: %v", hitKeys(hs))
	}
}

// failingEmbedder embeds nothing.
type failingEmbedder struct{ *embed.Hashing }

func (failingEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("embedder down")
}

// TestSearchProfilesWithoutEmbedder ranks lexically when the embedder fails.
func TestSearchProfilesWithoutEmbedder(t *testing.T) {
	s := storagetest.Open(t, storage.Config{Embedder: failingEmbedder{embed.NewHashing(0)}, NoIndexer: true})
	setProfile(t, s, "u1", storage.EntityUser, "tg:7", content("Alice", "Alice: likes hiking.", "hiking"))
	hs, err := s.SearchProfiles(t.Context(), "u1", storage.ProfileQuery{Text: "hiking", TopK: 3})
	if err != nil || len(hs.Lexical) != 1 || len(hs.Semantic) != 0 {
		t.Fatalf("%v %v %v", hitKeys(hs), rankKeys(hs.Semantic), err)
	}
}

func TestProfileLimits(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	if out := setProfile(t, s, "u1", storage.EntityUser, "a", content("A", "")); out.Profiles != 1 {
		t.Fatalf("outcome %+v", out)
	}
	// The same content again is no revision.
	if out := setProfile(t, s, "u1", storage.EntityUser, "a", content("A", "")); out.Profiles != 0 {
		t.Fatalf("outcome %+v", out)
	}
	for _, c := range []struct {
		typ, id string
	}{{"robot", "a"}, {storage.EntityUser, ""}, {storage.EntityGroup, "bad\x00id"}} {
		if _, err := s.GetProfile(t.Context(), "u1", c.typ, c.id); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("%q/%q: %v", c.typ, c.id, err)
		}
	}
	if _, err := s.GetProfile(t.Context(), "u1", storage.EntityGroup, "a"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}
	if _, err := s.ProfileRevisions(t.Context(), "u2", storage.EntityUser, "a"); !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}
}

// TestProfileIndexRebuilt: a profile index that does not open (a crash
// while it was created) is made again from the rows.
func TestProfileIndexRebuilt(t *testing.T) {
	dir := t.TempDir()
	s := storagetest.Open(t, storage.Config{Dir: dir})
	setProfile(t, s, "u1", storage.EntityUser, "tg:7", content("Alice", "Alice: likes hiking.", "hiking"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "profiles.bleve", "index_meta.json"), []byte(`{"storage":`), 0o644); err != nil {
		t.Fatal(err)
	}
	s = storagetest.Open(t, storage.Config{Dir: dir})
	hs, err := s.SearchProfiles(t.Context(), "u1", storage.ProfileQuery{Text: "hiking", TopK: 3})
	if err != nil || len(hs.Lexical) != 1 || hs.Lexical[0].EntityID != "tg:7" {
		t.Fatalf("%v %v", hitKeys(hs), err)
	}
}
