package storage_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// degenerateTexts get a vector without a norm from the hashing embedder:
// no word, character or n-gram it keeps.
var degenerateTexts = []string{"ok", "哈", "?", "👍", "...", "the", "!!!"}

// TestNormlessVectors: a message, event or profile whose text embeds to a
// vector without a norm is stored without a vector and never waits for
// one; semantic search over the user's other texts works on both the exact
// and the binary-code path, and a question without features finds nothing
// rather than failing.
func TestNormlessVectors(t *testing.T) {
	for _, coarse := range []bool{false, true} {
		for _, text := range degenerateTexts {
			name := text
			if coarse {
				name = "coarse/" + text
			}
			t.Run(name, func(t *testing.T) {
				cfg := storage.Config{NoIndexer: true}
				if coarse {
					cfg.CoarseThreshold = 1
				}
				s := storagetest.Open(t, cfg)
				ctx := t.Context()
				var degenerate []storage.Message
				for i, id := range []string{"z1", "z2", "z3", "z4", "z5", "z6"} {
					degenerate = append(degenerate, msg(id, "user", text, i))
				}
				mustInsert(t, s, "u1", degenerate...)
				mustInsert(t, s, "u1", msg("m1", "user", "we parked the car on level three", 10),
					msg("m2", "assistant", "noted: the car is on level three", 11))
				mustStoreEvents(t, s, "u1", ev("e1", "", "1", text, 0), ev("e2", "", "1", text, 1),
					ev("e3", "", "1", "Ann parked the car on level three", 2))
				setProfile(t, s, "u1", storage.EntityUser, "qq:1", content(text, ""))
				setProfile(t, s, "u1", storage.EntityUser, "qq:2", content("Ann", "Ann parks the car on level three"))
				// Drain reports no backlog: the texts without a norm wait for nothing.
				mustDrain(t, s)
				st, err := s.Status(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if st.Unvectored != 0 || st.Pending != 0 {
					t.Fatalf("status %+v: texts without a norm counted as waiting", st)
				}

				hits, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "where is the car parked", TopK: 2})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"m1", "m2"}, sortedIDs(hitIDs(hits))); diff != "" {
					t.Errorf("semantic hits (-want +got):\n%s", diff)
				}
				for _, f := range []storage.Filter{{Role: "user"}, {Role: "assistant"}} {
					hits, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "car parked", TopK: 3, Filter: f})
					if err != nil || len(hits) != 1 {
						t.Fatalf("semantic search, role %s: %v %v", f.Role, hitIDs(hits), err)
					}
				}
				// A question without features.
				hits, err = s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: text, TopK: 5})
				if err != nil || len(hits) != 0 {
					t.Fatalf("semantic search for %q: %v %v", text, hitIDs(hits), err)
				}

				for _, q := range []string{"where is the car parked", text} {
					res, err := s.SearchEvents(ctx, "u1", storage.EventQuery{Text: q, Size: 5})
					if err != nil {
						t.Fatalf("event search %q: %v", q, err)
					}
					for _, h := range res.Hits {
						if math.IsNaN(h.Similarity) {
							t.Fatalf("event search %q: NaN similarity of %s", q, h.ID)
						}
					}
					if q != text && !slicesContainsKey(res.Hits, "e3") {
						t.Fatalf("event search %q: %v, want e3", q, eventKeys(res.Hits))
					}
				}

				for _, q := range []string{"car parked on level three", text} {
					ph, err := s.SearchProfiles(ctx, "u1", storage.ProfileQuery{Text: q, TopK: 5})
					if err != nil {
						t.Fatalf("profile search %q: %v", q, err)
					}
					if q != text && (len(ph.Lexical) == 0 || ph.Lexical[0].EntityID != "qq:2") {
						t.Fatalf("profile search %q: %v", q, hitKeys(ph))
					}
					if q == text && len(ph.Semantic) != 0 {
						t.Fatalf("profile search %q: semantic %v", q, rankKeys(ph.Semantic))
					}
				}

				// Deleting one leaves the vector count alone: search still works.
				if err := s.Delete(ctx, "u1", "z1"); err != nil {
					t.Fatal(err)
				}
				mustDrain(t, s)
				if hits, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "car", TopK: 5}); err != nil || len(hits) != 2 {
					t.Fatalf("after delete: %v %v", hitIDs(hits), err)
				}
				// A reindex embeds them again and again keeps no vector.
				if err := s.Reindex(ctx, nil); err != nil && !errors.Is(err, storage.ErrSemanticUnavailable) {
					t.Fatal(err)
				}
				if hits, err := s.SemanticSearch(ctx, "u1", storage.SemanticQuery{Text: "car", TopK: 5}); err != nil || len(hits) != 2 {
					t.Fatalf("after reindex: %v %v", hitIDs(hits), err)
				}
				if st, err := s.Status(ctx); err != nil || st.Unvectored != 0 {
					t.Fatalf("status after reindex %+v %v", st, err)
				}
			})
		}
	}
}

func sortedIDs(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func slicesContainsKey(hits []storage.EventHit, key string) bool {
	return slices.Contains(eventKeys(hits), key)
}
