package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recalld/recalld/eval"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

func TestImport(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, "msgs.jsonl", strings.Join([]string{
		`{"id":"a1","user_id":"qq:1","role":"user","content":"我不吃辣","created_at":"2026-03-01T12:00:00+08:00"}`,
		``,
		`{"id":"a2","role":"assistant","content":"记住了","created_at":"2026-03-01T12:01:00+08:00"}`,
		`{"id":"b1","user_id":"qq:2","role":"user","content":"I like tea","created_at":"2026-03-01T12:00:00Z","meta":{"k":1}}`,
	}, "\n"))
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		a := &app{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard}
		err := a.run(t.Context(), append([]string{"import", "-data", dir}, args...))
		return out.String(), err
	}
	out, err := run("-user", "qq:1", file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "imported 3 messages (0 already present)") {
		t.Fatalf("first run: %q", out)
	}
	out, err = run("-user", "qq:1", file)
	if err != nil || !strings.Contains(out, "imported 0 messages (3 already present)") {
		t.Fatalf("second run: %q, %v", out, err)
	}
	if _, err := run(file); err == nil || !strings.Contains(err.Error(), "line 3: user_id is missing") {
		t.Fatalf("without -user: %v", err)
	}
	bad := writeFile(t, "bad.jsonl", `{"id":"c1","user_id":"qq:3","role":"robot","content":"x","created_at":"2026-03-01T12:00:00Z"}`)
	if _, err := run(bad); err == nil || !strings.Contains(err.Error(), "lines 1..1") {
		t.Fatalf("bad line: %v", err)
	}
	// Text the import would alter or that says nothing stops it at its line.
	for _, tt := range []struct{ line, want string }{
		{"{\"id\":\"c2\",\"user_id\":\"qq:3\",\"role\":\"user\",\"content\":\"x\xff\",\"created_at\":\"2026-03-01T12:00:00Z\"}", "line 1: the JSON is not valid UTF-8"},
		{`{"id":"c3","user_id":"qq:3","role":"user","content":"\udc00","created_at":"2026-03-01T12:00:00Z"}`, "line 1: the JSON has an unpaired surrogate"},
		{`{"id":"c4","user_id":"qq:3","role":"user","content":"  ","created_at":"2026-03-01T12:00:00Z"}`, "line 1: messages[0]: content is empty"},
	} {
		if _, err := run(writeFile(t, "bad.jsonl", tt.line)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Fatalf("import %q: %v, want %q", tt.line, err, tt.want)
		}
	}

	s := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	for user, want := range map[string]int{"qq:1": 2, "qq:2": 1, "qq:3": 0} {
		n, err := s.Count(t.Context(), user, storage.Filter{})
		if err != nil || n != want {
			t.Fatalf("%s has %d messages (%v), want %d", user, n, err, want)
		}
	}
	st, err := s.Status(t.Context())
	if err != nil || st.Pending != 0 {
		t.Fatalf("import left %d entries unindexed (%v)", st.Pending, err)
	}
}

func TestReindexAfterEmbedderChange(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard}
	file := writeFile(t, "m.jsonl", `{"id":"a1","user_id":"qq:1","role":"user","content":"spicy noodles","created_at":"2026-03-01T12:00:00Z"}`)
	if err := a.run(t.Context(), []string{"import", "-data", dir, file}); err != nil {
		t.Fatal(err)
	}
	// Serving with another embedder is refused with advice to reindex.
	err := a.run(t.Context(), []string{"serve", "-data", dir, "-addr", "127.0.0.1:0", "-embedder-dim", "256"})
	if err == nil || !strings.Contains(err.Error(), "reindex") {
		t.Fatalf("serve with another embedder: %v", err)
	}
	if err := a.run(t.Context(), []string{"reindex", "-data", dir, "-embedder-dim", "256"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "reindexed with hash-ngram-v1-256") {
		t.Fatalf("reindex output %q", out.String())
	}
	ts := startServer(t, nil, "-data", dir, "-embedder-dim", "256")
	var p struct {
		Hits []struct {
			MessageID string `json:"message_id"`
		}
	}
	ts.as("qq:1").Do("POST", "/search/semantic", map[string]any{"query_text": "noodles"}, 200, &p)
	if len(p.Hits) != 1 || p.Hits[0].MessageID != "a1" {
		t.Fatalf("after reindex: %+v", p)
	}
}

func TestSkillNewAndCheck(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard}
	if err := a.run(t.Context(), []string{"skill", "new", "work-decisions", "-dir", dir, "-description", `Recall "decisions" made at work`}); err != nil {
		t.Fatal(err)
	}
	if err := a.run(t.Context(), []string{"skill", "check", dir + "/work-decisions"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `ok: work-decisions: Recall "decisions" made at work`) {
		t.Fatalf("output %q", out.String())
	}
	if err := a.run(t.Context(), []string{"skill", "new", "work-decisions", "-dir", dir}); err == nil {
		t.Fatal("overwrote an existing skill")
	}
	if err := a.run(t.Context(), []string{"skill", "new", "Bad Name", "-dir", dir}); err == nil {
		t.Fatal("accepted a bad name")
	}
	bad := writeFile(t, "SKILL.md", "no front matter")
	if err := a.run(t.Context(), []string{"skill", "check", strings.TrimSuffix(bad, "/SKILL.md")}); err == nil {
		t.Fatal("accepted a skill without front matter")
	}
}

func TestRecallCommand(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, "m.jsonl", strings.Join([]string{
		`{"id":"a1","user_id":"qq:1","role":"user","sender_name":"小王","content":"我对花生过敏","created_at":"2026-03-01T12:00:00+08:00"}`,
		`{"id":"a2","user_id":"qq:1","role":"user","sender_name":"小王","content":"今天天气不错","created_at":"2026-03-01T12:01:00+08:00"}`,
	}, "\n"))
	var out bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard}
	if err := a.run(t.Context(), []string{"import", "-data", dir, file}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := a.run(t.Context(), []string{"recall", "-data", dir, "-user", "qq:1", "我有什么过敏吗？"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "[a1]") || !strings.Contains(out.String(), "我对花生过敏") || !strings.Contains(out.String(), "brain offline") {
		t.Fatalf("output:\n%s", out.String())
	}
	if err := a.run(t.Context(), []string{"recall", "-data", dir, "我有什么过敏吗？"}); err == nil {
		t.Fatal("recall without -user accepted")
	}
}

func TestEvalCommand(t *testing.T) {
	out := t.TempDir()
	var stdout bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdout: &stdout, stderr: io.Discard}
	suite := "../../eval/testdata/loader/ok.json"
	if err := a.run(t.Context(), []string{"eval", "--suite", suite, "--runners", "lexical,agent", "--out", out}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"report.md", "report.json"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "agent") || !strings.Contains(string(b), "lexical") {
			t.Fatalf("%s lacks a runner:\n%s", f, b)
		}
	}
	svgs, _ := filepath.Glob(filepath.Join(out, "*.svg"))
	if len(svgs) == 0 {
		t.Fatal("no plot written")
	}
	err := a.run(t.Context(), []string{"eval", "--suite", suite, "--runners", "agent", "--out", t.TempDir(), "--min-recall", "1.01"})
	if !errors.Is(err, eval.ErrBelowFloor) {
		t.Fatalf("impossible floor: err = %v", err)
	}
	if err := a.run(t.Context(), []string{"eval", "--suite", suite, "--runners", "magic"}); err == nil {
		t.Fatal("unknown runner accepted")
	}
}
