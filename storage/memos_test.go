package storage_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/storage"
)

// enqueueMemo enqueues a turn job of user with key and a memo.
func enqueueMemo(tb testing.TB, s *storage.Store, user, key string, m storage.NewMemo) (storage.Job, bool) {
	tb.Helper()
	if m.RequestType == "" {
		m.RequestType = "private"
	}
	if m.Timestamp.IsZero() {
		m.Timestamp = t0
	}
	j, created, err := s.EnqueueJob(tb.Context(), storage.NewJob{UserID: user, Kind: "turn_end", Key: key,
		Payload: json.RawMessage(`{}`), Memo: &m})
	if err != nil {
		tb.Fatal(err)
	}
	return j, created
}

func memoTexts(ms []storage.Memo) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Content)
	}
	return out
}

func listMemos(tb testing.TB, s *storage.Store, user string, f storage.MemoFilter) []storage.Memo {
	tb.Helper()
	if f.Limit == 0 {
		f.Limit = 100
	}
	ms, err := s.ListMemos(tb.Context(), user, f)
	if err != nil {
		tb.Fatal(err)
	}
	return ms
}

func TestMemoStoredWithJob(t *testing.T) {
	s, c := mustOpenClock(t, "")
	at := time.Date(2026, 3, 4, 14, 30, 0, 0, time.FixedZone("CST", 8*3600))
	j, created := enqueueMemo(t, s, "u1", "req-1", storage.NewMemo{
		GroupID: "g1", GroupName: "旅行群", SenderID: "qq:1", SenderName: "张三", RequestType: "group",
		Content: "  聊了周末的旅行计划 \n", Timestamp: at,
	})
	if !created {
		t.Fatal("not created")
	}
	want := storage.Memo{
		ID: j.ID, UserID: "u1", RequestID: "req-1", JobID: j.ID, GroupID: "g1", GroupName: "旅行群",
		SenderID: "qq:1", SenderName: "张三", RequestType: "group", Content: "聊了周末的旅行计划",
		Timestamp: at.UTC(), Epoch: at.Unix(), CreatedAt: t0,
	}
	if diff := cmp.Diff([]storage.Memo{want}, listMemos(t, s, "u1", storage.MemoFilter{})); diff != "" {
		t.Fatalf("memos (-want +got):\n%s", diff)
	}

	// A replay of the request id is the same job and stores no second memo,
	// whatever its memo says.
	c.Add(time.Minute)
	again, created := enqueueMemo(t, s, "u1", "req-1", storage.NewMemo{Content: "another text"})
	if created || again.ID != j.ID {
		t.Fatalf("replay: created=%v job %s, want %s", created, again.ID, j.ID)
	}
	if got := memoTexts(listMemos(t, s, "u1", storage.MemoFilter{})); !cmp.Equal(got, []string{"聊了周末的旅行计划"}) {
		t.Fatalf("after replay: %q", got)
	}

	// Without a request id every turn is its own; a job without a memo has none.
	enqueueMemo(t, s, "u1", "", storage.NewMemo{Content: "a", Timestamp: t0.Add(time.Hour)})
	enqueueMemo(t, s, "u1", "", storage.NewMemo{Content: "a", Timestamp: t0.Add(2 * time.Hour)})
	mustEnqueue(t, s, "u1", "no-memo")
	if got := memoTexts(listMemos(t, s, "u1", storage.MemoFilter{})); !cmp.Equal(got, []string{"a", "a", "聊了周末的旅行计划"}) {
		t.Fatalf("memos %q", got)
	}
}

// TestMemoReplayAfterPurge: the job of a request id can be purged and queued
// again, but its memo stays single.
func TestMemoReplayAfterPurge(t *testing.T) {
	s, c := mustOpenClock(t, "")
	ctx := t.Context()
	j, _ := enqueueMemo(t, s, "u1", "req-1", storage.NewMemo{Content: "memo"})
	if _, err := s.CompleteJob(ctx, mustClaim(t, s), storage.JobResult{}); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Hour)
	if n, err := s.PurgeJobs(ctx, storage.JobPurge{State: storage.JobDone, OlderThan: time.Minute}); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	again, created := enqueueMemo(t, s, "u1", "req-1", storage.NewMemo{Content: "memo"})
	if !created || again.ID == j.ID {
		t.Fatalf("re-enqueue after purge: created=%v", created)
	}
	ms := listMemos(t, s, "u1", storage.MemoFilter{})
	if len(ms) != 1 || ms[0].JobID != j.ID {
		t.Fatalf("memos %+v", ms)
	}
}

func TestListMemosFilters(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	add := func(user, text, group, sender string, minute int) {
		rt := "private"
		if group != "" {
			rt = "group"
		}
		enqueueMemo(t, s, user, "", storage.NewMemo{Content: text, GroupID: group, SenderID: sender, RequestType: rt,
			Timestamp: t0.Add(time.Duration(minute) * time.Minute)})
	}
	// Inserted out of turn order: the list follows the turns' times.
	add("u1", "g1 late", "g1", "s1", 30)
	add("u1", "private", "", "s1", 20)
	add("u1", "g1 early", "g1", "s2", 10)
	add("u1", "g2", "g2", "s2", 25)
	add("u2", "other user g1", "g1", "s1", 40)
	tests := []struct {
		name string
		user string
		f    storage.MemoFilter
		want []string
	}{
		{"all", "u1", storage.MemoFilter{}, []string{"g1 late", "g2", "private", "g1 early"}},
		{"group", "u1", storage.MemoFilter{GroupID: "g1"}, []string{"g1 late", "g1 early"}},
		{"sender", "u1", storage.MemoFilter{SenderID: "s2"}, []string{"g2", "g1 early"}},
		{"private", "u1", storage.MemoFilter{RequestType: "private"}, []string{"private"}},
		{"limit", "u1", storage.MemoFilter{Limit: 2}, []string{"g1 late", "g2"}},
		{"other user", "u2", storage.MemoFilter{GroupID: "g1"}, []string{"other user g1"}},
		{"unknown user", "u3", storage.MemoFilter{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, memoTexts(listMemos(t, s, tt.user, tt.f))); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, f := range []storage.MemoFilter{{Limit: -1}, {Limit: storage.MaxMemoList + 1}, {Limit: 5, RequestType: "channel"}} {
		if _, err := s.ListMemos(t.Context(), "u1", f); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("%+v: %v, want ErrInvalid", f, err)
		}
	}
}

// TestBadMemoStoresNoJob: a memo that fails validation fails the enqueue,
// and neither the job nor the memo is stored.
func TestBadMemoStoresNoJob(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	bad := []storage.NewMemo{
		{Content: " ", RequestType: "private", Timestamp: t0},
		{Content: "x", RequestType: "channel", Timestamp: t0},
		{Content: "x", RequestType: "private", GroupID: "g1", Timestamp: t0},
		{Content: "x", RequestType: "private"},
		{Content: "x", RequestType: "private", SenderID: "a\x00b", Timestamp: t0},
		{Content: string(make([]byte, storage.MaxMemoContent+1)), RequestType: "private", Timestamp: t0},
	}
	for i, m := range bad {
		_, _, err := s.EnqueueJob(t.Context(), storage.NewJob{UserID: "u1", Kind: "turn_end", Key: fmt.Sprint(i),
			Payload: json.RawMessage(`{}`), Memo: &m})
		if !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("memo %d: %v, want ErrInvalid", i, err)
		}
	}
	if n := len(jobStates(t, s, "u1")); n != 0 {
		t.Fatalf("%d jobs stored", n)
	}
	if ms := listMemos(t, s, "u1", storage.MemoFilter{}); len(ms) != 0 {
		t.Fatalf("%d memos stored", len(ms))
	}
	// A group memo may lack its id (imports know only the group's name).
	enqueueMemo(t, s, "u1", "imported", storage.NewMemo{Content: "x", RequestType: "group", GroupName: "旅行群"})
}

func TestDeleteUserForgetsMemosAndMemories(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	ctx := t.Context()
	for _, u := range []string{"u1", "u2"} {
		enqueueMemo(t, s, u, "r1", storage.NewMemo{Content: "memo of " + u})
		if _, _, err := s.AddMemory(ctx, u, storage.Memory{ID: "m1", Content: "pinned of " + u}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if ms := listMemos(t, s, "u1", storage.MemoFilter{}); len(ms) != 0 {
		t.Fatalf("u1 memos left: %+v", ms)
	}
	if ms, err := s.ListMemories(ctx, "u1", storage.MemoryFilter{}); err != nil || len(ms) != 0 {
		t.Fatalf("u1 memories left: %+v %v", ms, err)
	}
	if got := memoTexts(listMemos(t, s, "u2", storage.MemoFilter{})); !cmp.Equal(got, []string{"memo of u2"}) {
		t.Fatalf("u2 memos %q", got)
	}
	if m, err := s.GetMemory(ctx, "u2", "m1"); err != nil || m.Content != "pinned of u2" {
		t.Fatalf("u2 memory %+v %v", m, err)
	}
	// The same request id is new again for the forgotten user.
	if _, created := enqueueMemo(t, s, "u1", "r1", storage.NewMemo{Content: "fresh"}); !created {
		t.Fatal("request id of a forgotten user is still taken")
	}
}

func TestAddMemoWithoutJob(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	ctx := t.Context()
	m := storage.NewMemo{Content: "聊了旅行", RequestType: "group", GroupName: "旅行群", Timestamp: t0}
	if created, err := s.AddMemo(ctx, "u1", "undefined:abc", m); err != nil || !created {
		t.Fatalf("add: %v %v", created, err)
	}
	if created, err := s.AddMemo(ctx, "u1", "undefined:abc", storage.NewMemo{Content: "other", RequestType: "private", Timestamp: t0}); err != nil || created {
		t.Fatalf("replay: %v %v", created, err)
	}
	// A turn with the same request id finds its memo taken.
	enqueueMemo(t, s, "u1", "undefined:abc", storage.NewMemo{Content: "from the queue"})
	ms := listMemos(t, s, "u1", storage.MemoFilter{})
	if len(ms) != 1 || ms[0].Content != "聊了旅行" || ms[0].JobID != "" || ms[0].ID == "" || ms[0].GroupName != "旅行群" {
		t.Fatalf("memos %+v", ms)
	}
	for _, c := range []struct{ user, key string }{{"", "k"}, {"u1", ""}, {"u1", "a\nb"}} {
		if _, err := s.AddMemo(ctx, c.user, c.key, m); !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("%q %q: %v, want ErrInvalid", c.user, c.key, err)
		}
	}
	if _, err := s.AddMemo(ctx, "u1", "k2", storage.NewMemo{Content: "x", RequestType: "private"}); !errors.Is(err, storage.ErrInvalid) {
		t.Errorf("no timestamp: %v", err)
	}
	if ms := listMemos(t, s, "u2", storage.MemoFilter{}); len(ms) != 0 {
		t.Fatalf("u2 sees %+v", ms)
	}
}
