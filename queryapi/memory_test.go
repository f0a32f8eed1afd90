package queryapi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

func ptr[T any](v T) *T { return &v }

func TestMemos(t *testing.T) {
	s := storagetest.Open(t, storage.Config{NoIndexer: true})
	for i, u := range []string{"qq:1", "qq:1", "qq:1", "qq:2"} {
		group, rt := "", "private"
		if i == 1 {
			group, rt = "g1", "group"
		}
		_, _, err := s.EnqueueJob(t.Context(), storage.NewJob{UserID: u, Kind: "turn_end", Key: fmt.Sprint("r", i), Payload: json.RawMessage(`{}`),
			Memo: &storage.NewMemo{Content: fmt.Sprint("memo ", i), GroupID: group, RequestType: rt, SenderID: "s1", Timestamp: t0.Add(time.Duration(i) * time.Minute)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	tools := bind(t, queryapi.New(s), "qq:1")
	texts := func(p queryapi.MemosParams) []string {
		t.Helper()
		l, err := tools.Memos(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		return memoTexts(l.Memos)
	}
	tests := []struct {
		name string
		p    queryapi.MemosParams
		want []string
	}{
		{"all, latest first", queryapi.MemosParams{}, []string{"memo 2", "memo 1", "memo 0"}},
		{"group", queryapi.MemosParams{GroupID: "g1"}, []string{"memo 1"}},
		{"private", queryapi.MemosParams{RequestType: "private"}, []string{"memo 2", "memo 0"}},
		{"sender", queryapi.MemosParams{SenderID: "s1", Limit: 1}, []string{"memo 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, texts(tt.p)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, p := range []queryapi.MemosParams{{Limit: -1}, {Limit: queryapi.MaxMemoLimit + 1}, {RequestType: "dm"}} {
		if _, err := tools.Memos(t.Context(), p); !errors.Is(err, queryapi.ErrInvalidQuery) {
			t.Errorf("%+v: %v, want ErrInvalidQuery", p, err)
		}
	}
}

func memoTexts(ms []storage.Memo) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.Content)
	}
	return out
}

func TestMemoryTools(t *testing.T) {
	svc := queryapi.New(storagetest.Open(t, storage.Config{NoIndexer: true}))
	a, b := bind(t, svc, "qq:1"), bind(t, svc, "qq:2")
	ctx := t.Context()

	m, created, err := a.MemoryAdd(ctx, queryapi.MemoryAddParams{Content: "  以后用英文回复  ", Tags: []string{" style ", "language"}})
	if err != nil || !created || m.Content != "以后用英文回复" || !cmp.Equal(m.Tags, []string{"style", "language"}) {
		t.Fatalf("add: %+v %v %v", m, created, err)
	}
	got, err := a.MemoryGet(ctx, queryapi.MemoryRef{ID: m.ID})
	if err != nil || !cmp.Equal(got, m) {
		t.Fatalf("get: %+v %v", got, err)
	}
	up, err := a.MemoryUpdate(ctx, queryapi.MemoryUpdateParams{ID: m.ID, Content: ptr(" Reply in English "), Tags: ptr([]string{})})
	if err != nil || up.Content != "Reply in English" || len(up.Tags) != 0 {
		t.Fatalf("update: %+v %v", up, err)
	}
	l, err := a.MemoryList(ctx, queryapi.MemoryListParams{})
	if err != nil || len(l.Memories) != 1 || l.Max != storage.MaxMemories {
		t.Fatalf("list: %+v %v", l, err)
	}
	// Another user sees none of it and cannot touch it.
	if l, _ := b.MemoryList(ctx, queryapi.MemoryListParams{}); len(l.Memories) != 0 {
		t.Fatalf("qq:2 lists %+v", l)
	}
	if _, err := b.MemoryGet(ctx, queryapi.MemoryRef{ID: m.ID}); !errors.Is(err, queryapi.ErrNotFound) {
		t.Fatalf("qq:2 get: %v", err)
	}
	if err := b.MemoryDelete(ctx, queryapi.MemoryRef{ID: m.ID}); !errors.Is(err, queryapi.ErrNotFound) {
		t.Fatalf("qq:2 delete: %v", err)
	}
	if err := a.MemoryDelete(ctx, queryapi.MemoryRef{ID: m.ID}); err != nil {
		t.Fatal(err)
	}

	bad := []struct {
		name string
		call func() error
	}{
		{"blank content", func() error { _, _, err := a.MemoryAdd(ctx, queryapi.MemoryAddParams{Content: " "}); return err }},
		{"long content", func() error {
			_, _, err := a.MemoryAdd(ctx, queryapi.MemoryAddParams{Content: strings.Repeat("x", storage.MaxMemoryRunes+1)})
			return err
		}},
		{"bad id", func() error {
			_, _, err := a.MemoryAdd(ctx, queryapi.MemoryAddParams{ID: "a b", Content: "x"})
			return err
		}},
		{"blank tag", func() error {
			_, _, err := a.MemoryAdd(ctx, queryapi.MemoryAddParams{Content: "x", Tags: []string{"  "}})
			return err
		}},
		{"empty patch", func() error { _, err := a.MemoryUpdate(ctx, queryapi.MemoryUpdateParams{ID: "x"}); return err }},
		{"blank patch", func() error {
			_, err := a.MemoryUpdate(ctx, queryapi.MemoryUpdateParams{ID: "x", Content: ptr(" ")})
			return err
		}},
		{"get bad id", func() error { _, err := a.MemoryGet(ctx, queryapi.MemoryRef{ID: ""}); return err }},
	}
	for _, tt := range bad {
		if err := tt.call(); !errors.Is(err, queryapi.ErrInvalidQuery) {
			t.Errorf("%s: %v, want ErrInvalidQuery", tt.name, err)
		}
	}
	if l, _ := a.MemoryList(ctx, queryapi.MemoryListParams{}); len(l.Memories) != 0 {
		t.Fatalf("bad input stored %+v", l)
	}
}
