package storage_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

func TestListUsers(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	ctx := t.Context()
	mustInsert(t, s, "qq:1", msg("a", "user", "我喜欢吃辣", 0), msg("b", "assistant", "好的", 1))
	mustInsert(t, s, "qq:2", msg("a", "user", "hello", 2))
	mustInsert(t, s, "tg:9", msg("a", "user", "x", 3))
	// A user with only a pinned memory, and one with only a job, are users too.
	if _, _, err := s.AddMemory(ctx, "qq:3", storage.Memory{Content: "vegetarian"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.EnqueueJob(ctx, storage.NewJob{UserID: "qq:4", Kind: "turn", Payload: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	mustDrain(t, s)

	ids := func(us []storage.UserSummary) []string {
		var out []string
		for _, u := range us {
			out = append(out, u.UserID)
		}
		return out
	}
	for _, c := range []struct {
		name string
		l    storage.UserList
		want []string
		more bool
	}{
		{"all", storage.UserList{Limit: 10}, []string{"qq:1", "qq:2", "qq:3", "qq:4", "tg:9"}, false},
		{"prefix", storage.UserList{Prefix: "qq:", Limit: 10}, []string{"qq:1", "qq:2", "qq:3", "qq:4"}, false},
		{"page", storage.UserList{Prefix: "qq:", Limit: 2}, []string{"qq:1", "qq:2"}, true},
		{"after", storage.UserList{Prefix: "qq:", After: "qq:2", Limit: 2}, []string{"qq:3", "qq:4"}, false},
		{"prefix is not a pattern", storage.UserList{Prefix: "qq%", Limit: 10}, nil, false},
		{"other scope", storage.UserList{Prefix: "tg:", Limit: 10}, []string{"tg:9"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, more, err := s.ListUsers(ctx, c.l)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), c.want) || more != c.more {
				t.Errorf("got %v more=%v, want %v more=%v", ids(got), more, c.want, c.more)
			}
		})
	}

	u, err := s.SummarizeUser(ctx, "qq:1")
	if err != nil {
		t.Fatal(err)
	}
	want := storage.UserSummary{UserID: "qq:1", Messages: 2, Indexed: 2, TextBytes: int64(len("我喜欢吃辣") + len("好的")),
		LastActive: t0.Add(1 * 60e9)}
	if u != want {
		t.Errorf("summary = %+v, want %+v", u, want)
	}
	u, err = s.SummarizeUser(ctx, "qq:4")
	if err != nil || u.JobsOpen != 1 || u.Messages != 0 {
		t.Errorf("qq:4 = %+v, %v; want one open job", u, err)
	}
	if _, _, err := s.ListUsers(ctx, storage.UserList{Limit: 0}); err == nil {
		t.Error("limit 0 accepted")
	}
}

func TestCountAll(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	ctx := t.Context()
	mustInsert(t, s, "qq:1", msg("a", "user", "I like tea", 0), msg("b", "user", "我住在杭州", 1))
	mustInsert(t, s, "tg:1", msg("a", "user", "see you tomorrow", 0))
	if _, _, err := s.AddMemory(ctx, "qq:2", storage.Memory{Content: "m"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.EnqueueJob(ctx, storage.NewJob{UserID: "qq:2", Kind: "turn", Payload: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	mustDrain(t, s)
	for _, c := range []struct {
		prefix string
		want   storage.Totals
	}{
		{"", storage.Totals{Users: 3, Messages: 3, Indexed: 3, Memories: 1,
			Jobs: map[string]int{"pending": 1, "processing": 0, "done": 0, "failed": 0}}},
		{"qq:", storage.Totals{Users: 2, Messages: 2, Indexed: 2, Memories: 1,
			Jobs: map[string]int{"pending": 1, "processing": 0, "done": 0, "failed": 0}}},
		{"tg:", storage.Totals{Users: 1, Messages: 1, Indexed: 1,
			Jobs: map[string]int{"pending": 0, "processing": 0, "done": 0, "failed": 0}}},
	} {
		got, err := s.CountAll(ctx, c.prefix)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("prefix %q (-want +got):\n%s", c.prefix, diff)
		}
	}
}
