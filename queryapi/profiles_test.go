package queryapi_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// setProfile stores content as user's profile of the entity through a job.
func setProfile(tb testing.TB, s *storage.Store, user, typ, id string, c storage.ProfileContent) {
	tb.Helper()
	j, _, err := s.EnqueueJob(tb.Context(), storage.NewJob{UserID: user, Kind: "turn_end", Payload: []byte(`{}`)})
	if err != nil {
		tb.Fatal(err)
	}
	claimed, ok, err := s.ClaimJob(tb.Context(), "turn_end", 60e9)
	if err != nil || !ok || claimed.ID != j.ID {
		tb.Fatal(ok, err)
	}
	if _, err := s.CompleteJob(tb.Context(), claimed, storage.JobResult{Profiles: []storage.ProfileMerge{{
		EntityType: typ, EntityID: id, Apply: func(p storage.Profile) storage.Profile { p.ProfileContent = c; return p },
	}}}); err != nil {
		tb.Fatal(err)
	}
}

func profileContent(name, summary string, values ...string) storage.ProfileContent {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := storage.ProfileContent{Name: name, Summary: summary}
	for _, v := range values {
		c.Traits = append(c.Traits, storage.Trait{Category: "hobby", Slot: v, Value: v, FirstSeen: t0, LastSeen: t0})
		c.Tags = append(c.Tags, v)
	}
	return c
}

func profileKeys(p queryapi.ProfilePage) []string {
	var out []string
	for _, h := range p.Profiles {
		out = append(out, h.EntityType+"/"+h.EntityID)
	}
	return out
}

// TestSearchProfilesFused checks the reciprocal rank fusion of the lexical
// and semantic rankings: the order and the scores of the fused profiles.
func TestSearchProfilesFused(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	setProfile(t, s, "u1", storage.EntityUser, "qq:1", profileContent("张三", "张三：住在上海；是程序员；喜欢吃火锅。", "火锅"))
	setProfile(t, s, "u1", storage.EntityUser, "tg:7", profileContent("Alice", "Alice: lives in Berlin; works as a nurse; likes hiking.", "hiking"))
	setProfile(t, s, "u1", storage.EntityGroup, "g1", profileContent("Hikers", "Hikers: often talks about sports; members include Alice.", "sports"))
	setProfile(t, s, "u2", storage.EntityUser, "qq:9", profileContent("李四", "李四：住在上海；喜欢吃火锅。", "火锅"))
	tools := bind(t, queryapi.New(s), "u1")

	tests := []struct {
		name string
		p    queryapi.ProfileSearchParams
		want []string
	}{
		{"zh", queryapi.ProfileSearchParams{Query: "谁喜欢吃火锅", TopK: 1}, []string{"user/qq:1"}},
		{"en", queryapi.ProfileSearchParams{Query: "nurse in Berlin", TopK: 1}, []string{"user/tg:7"}},
		{"entity type narrows", queryapi.ProfileSearchParams{Query: "Alice sports", EntityType: storage.EntityGroup, TopK: 5}, []string{"group/g1"}},
		{"best first", queryapi.ProfileSearchParams{Query: "hiking Alice", TopK: 2}, []string{"user/tg:7", "group/g1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := tools.SearchProfiles(t.Context(), tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, profileKeys(page)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			for i, h := range page.Profiles {
				if h.UserID != "u1" {
					t.Fatalf("got a profile of %s", h.UserID)
				}
				if h.Score <= 0 || h.Score > 2*queryapi.RRF(queryapi.RRFK, 0) {
					t.Fatalf("score %v out of the RRF range", h.Score)
				}
				if i > 0 && h.Score > page.Profiles[i-1].Score {
					t.Fatalf("not best first: %v", page.Profiles)
				}
			}
		})
	}
	// "hiking Alice" finds Alice first in both rankings: the sum of the
	// best share of each.
	page, err := tools.SearchProfiles(t.Context(), queryapi.ProfileSearchParams{Query: "hiking Alice", TopK: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * queryapi.RRF(queryapi.RRFK, 0); page.Profiles[0].Score != want {
		t.Fatalf("top score %v, want %v", page.Profiles[0].Score, want)
	}
	for _, p := range []queryapi.ProfileSearchParams{{Query: " "}, {Query: "x", TopK: 101}, {Query: "x", EntityType: "robot"}} {
		if _, err := tools.SearchProfiles(t.Context(), p); !errors.Is(err, queryapi.ErrInvalidQuery) {
			t.Fatalf("%+v: %v", p, err)
		}
	}
}
