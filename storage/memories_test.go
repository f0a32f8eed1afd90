package storage_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/storage"
)

func ptr[T any](v T) *T { return &v }

func memoryIDs(ms []storage.Memory) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestMemoryCRUD(t *testing.T) {
	s, c := mustOpenClock(t, "")
	ctx := t.Context()
	m, created, err := s.AddMemory(ctx, "u1", storage.Memory{Content: "Reply in English from now on", Tags: []string{"style"}})
	if err != nil || !created || m.ID == "" || !storage.ValidMemoryID(m.ID) {
		t.Fatalf("add: %+v %v %v", m, created, err)
	}
	want := storage.Memory{ID: m.ID, UserID: "u1", Content: "Reply in English from now on", Tags: []string{"style"}, CreatedAt: t0, UpdatedAt: t0}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Fatalf("added (-want +got):\n%s", diff)
	}
	got, err := s.GetMemory(ctx, "u1", m.ID)
	if diff := cmp.Diff(want, got); err != nil || diff != "" {
		t.Fatalf("get (-want +got):\n%s %v", diff, err)
	}

	c.Add(time.Minute)
	up, err := s.UpdateMemory(ctx, "u1", m.ID, storage.MemoryPatch{Content: ptr("Reply in English, briefly"), GroupID: ptr("g1")})
	if err != nil {
		t.Fatal(err)
	}
	want.Content, want.GroupID, want.UpdatedAt = "Reply in English, briefly", "g1", t0.Add(time.Minute)
	if diff := cmp.Diff(want, up); diff != "" {
		t.Fatalf("updated (-want +got):\n%s", diff)
	}
	// A patch that changes nothing keeps updated_at; clearing tags works.
	c.Add(time.Minute)
	if up, err = s.UpdateMemory(ctx, "u1", m.ID, storage.MemoryPatch{GroupID: ptr("g1")}); err != nil || !up.UpdatedAt.Equal(want.UpdatedAt) {
		t.Fatalf("no-op patch: %+v %v", up, err)
	}
	if up, err = s.UpdateMemory(ctx, "u1", m.ID, storage.MemoryPatch{Tags: ptr([]string(nil))}); err != nil || len(up.Tags) != 0 || up.Tags == nil {
		t.Fatalf("clear tags: %+v %v", up, err)
	}
	if _, err := s.UpdateMemory(ctx, "u1", m.ID, storage.MemoryPatch{Content: ptr(" ")}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("blank content: %v", err)
	}

	if err := s.DeleteMemory(ctx, "u1", m.ID); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"get": func() error { _, err := s.GetMemory(ctx, "u1", m.ID); return err }(),
		"update": func() error {
			_, err := s.UpdateMemory(ctx, "u1", m.ID, storage.MemoryPatch{Content: ptr("x")})
			return err
		}(),
		"delete": s.DeleteMemory(ctx, "u1", m.ID),
	} {
		if !errors.Is(err, storage.ErrMemoryNotFound) || !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("%s after delete: %v, want ErrMemoryNotFound", name, err)
		}
	}
}

// TestMemoryIdempotentCreate: a client-chosen id makes a create safe to
// repeat; the same id with other content is refused.
func TestMemoryIdempotentCreate(t *testing.T) {
	s, c := mustOpenClock(t, "")
	ctx := t.Context()
	in := storage.Memory{ID: "tone.v1", Content: "Keep answers short", GroupID: "g1", Tags: []string{"a", "b"}}
	first, created, err := s.AddMemory(ctx, "u1", in)
	if err != nil || !created {
		t.Fatal(created, err)
	}
	c.Add(time.Hour)
	again, created, err := s.AddMemory(ctx, "u1", in)
	if err != nil || created || !cmp.Equal(first, again) {
		t.Fatalf("replay: %+v created=%v %v", again, created, err)
	}
	for _, other := range []storage.Memory{
		{ID: "tone.v1", Content: "Keep answers long", GroupID: "g1", Tags: []string{"a", "b"}},
		{ID: "tone.v1", Content: "Keep answers short", Tags: []string{"a", "b"}},
		{ID: "tone.v1", Content: "Keep answers short", GroupID: "g1", Tags: []string{"b", "a"}},
	} {
		if _, _, err := s.AddMemory(ctx, "u1", other); !errors.Is(err, storage.ErrMemoryExists) {
			t.Errorf("%+v: %v, want ErrMemoryExists", other, err)
		}
	}
	// Ids are per user: another user may use the same one.
	if _, created, err := s.AddMemory(ctx, "u2", storage.Memory{ID: "tone.v1", Content: "other"}); err != nil || !created {
		t.Fatalf("u2 same id: %v %v", created, err)
	}
	if m, _ := s.GetMemory(ctx, "u1", "tone.v1"); m.Content != "Keep answers short" {
		t.Fatalf("u1's memory changed: %+v", m)
	}
}

func TestMemoryLimit(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	ctx := t.Context()
	for i := range storage.MaxMemories {
		if _, _, err := s.AddMemory(ctx, "u1", storage.Memory{ID: fmt.Sprintf("m%d", i), Content: fmt.Sprint("fact ", i)}); err != nil {
			t.Fatal(i, err)
		}
	}
	_, _, err := s.AddMemory(ctx, "u1", storage.Memory{Content: "one too many"})
	if !errors.Is(err, storage.ErrMemoryLimit) || !strings.Contains(err.Error(), fmt.Sprint(storage.MaxMemories)) {
		t.Fatalf("over the limit: %v", err)
	}
	// Replaying an existing create at the limit still succeeds, and another
	// user is not affected.
	if _, created, err := s.AddMemory(ctx, "u1", storage.Memory{ID: "m0", Content: "fact 0"}); err != nil || created {
		t.Fatalf("replay at the limit: %v %v", created, err)
	}
	if _, _, err := s.AddMemory(ctx, "u2", storage.Memory{Content: "fine"}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMemory(ctx, "u1", "m5"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddMemory(ctx, "u1", storage.Memory{Content: "fits again"}); err != nil {
		t.Fatal(err)
	}
	ms, err := s.ListMemories(ctx, "u1", storage.MemoryFilter{})
	if err != nil || len(ms) != storage.MaxMemories {
		t.Fatalf("%d memories, %v", len(ms), err)
	}
}

func TestMemoryIsolation(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	ctx := t.Context()
	a, _, err := s.AddMemory(ctx, "u1", storage.Memory{Content: "secret of u1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetMemory(ctx, "u2", a.ID); !errors.Is(err, storage.ErrMemoryNotFound) {
		t.Fatalf("u2 get: %v", err)
	}
	if _, err := s.UpdateMemory(ctx, "u2", a.ID, storage.MemoryPatch{Content: ptr("taken")}); !errors.Is(err, storage.ErrMemoryNotFound) {
		t.Fatalf("u2 update: %v", err)
	}
	if err := s.DeleteMemory(ctx, "u2", a.ID); !errors.Is(err, storage.ErrMemoryNotFound) {
		t.Fatalf("u2 delete: %v", err)
	}
	if ms, _ := s.ListMemories(ctx, "u2", storage.MemoryFilter{}); len(ms) != 0 {
		t.Fatalf("u2 lists %+v", ms)
	}
	if m, err := s.GetMemory(ctx, "u1", a.ID); err != nil || m.Content != "secret of u1" {
		t.Fatalf("u1's memory: %+v %v", m, err)
	}
}

func TestListMemoriesScope(t *testing.T) {
	s, c := mustOpenClock(t, "")
	ctx := t.Context()
	for _, m := range []storage.Memory{{ID: "everywhere", Content: "x"}, {ID: "in-g1", Content: "x", GroupID: "g1"}, {ID: "in-g2", Content: "x", GroupID: "g2"}} {
		if _, _, err := s.AddMemory(ctx, "u1", m); err != nil {
			t.Fatal(err)
		}
		c.Add(time.Second)
	}
	tests := []struct {
		f    storage.MemoryFilter
		want []string
	}{
		{storage.MemoryFilter{}, []string{"everywhere", "in-g1", "in-g2"}},
		{storage.MemoryFilter{GroupID: "g1"}, []string{"everywhere", "in-g1"}},
		{storage.MemoryFilter{GroupID: "g3"}, []string{"everywhere"}},
		{storage.MemoryFilter{GroupID: "g1", Exact: true}, []string{"in-g1"}},
		{storage.MemoryFilter{Exact: true}, []string{"everywhere"}},
	}
	for _, tt := range tests {
		ms, err := s.ListMemories(ctx, "u1", tt.f)
		if diff := cmp.Diff(tt.want, memoryIDs(ms)); err != nil || diff != "" {
			t.Errorf("%+v (-want +got):\n%s %v", tt.f, diff, err)
		}
	}
}

func TestMemoryValidation(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	tags := make([]string, storage.MaxMemoryTags+1)
	for i := range tags {
		tags[i] = fmt.Sprint("t", i)
	}
	tests := []struct {
		name string
		m    storage.Memory
	}{
		{"empty", storage.Memory{Content: ""}},
		{"blank", storage.Memory{Content: " \n"}},
		{"too long", storage.Memory{Content: strings.Repeat("字", storage.MaxMemoryRunes+1)}},
		{"control", storage.Memory{Content: "a\x00b"}},
		{"bad utf-8", storage.Memory{Content: "a\xffb"}},
		{"bad id", storage.Memory{ID: "a/b", Content: "x"}},
		{"long id", storage.Memory{ID: strings.Repeat("a", storage.MaxMemoryIDLen+1), Content: "x"}},
		{"non-ascii id", storage.Memory{ID: "记忆", Content: "x"}},
		{"spaced group", storage.Memory{Content: "x", GroupID: " g1"}},
		{"too many tags", storage.Memory{Content: "x", Tags: tags}},
		{"empty tag", storage.Memory{Content: "x", Tags: []string{""}}},
		{"long tag", storage.Memory{Content: "x", Tags: []string{strings.Repeat("t", storage.MaxMemoryTagRunes+1)}}},
		{"repeated tag", storage.Memory{Content: "x", Tags: []string{"a", "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.AddMemory(t.Context(), "u1", tt.m); !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("%v, want ErrInvalid", err)
			}
		})
	}
	if ms, _ := s.ListMemories(t.Context(), "u1", storage.MemoryFilter{}); len(ms) != 0 {
		t.Fatalf("invalid memories stored: %+v", ms)
	}
	// Newlines, tabs and the full length are fine.
	if _, _, err := s.AddMemory(t.Context(), "u1", storage.Memory{Content: "a\n\tb" + strings.Repeat("字", storage.MaxMemoryRunes-4)}); err != nil {
		t.Fatal(err)
	}
}
