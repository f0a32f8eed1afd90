package main

import (
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

const undefinedFixture = "testdata/undefined/data"

// runCLIOut runs `recalld args...` in-process and returns stdout and stderr.
func runCLIOut(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut}
	err := a.run(t.Context(), args)
	return out.String(), errOut.String(), err
}

// TestImportUndefined migrates the fixture (an end_summaries.json and jobs
// of the old cognitive queue), re-imports it, then lets the historian of a
// server turn the observations into events.
func TestImportUndefined(t *testing.T) {
	dir := t.TempDir()
	args := []string{"import-undefined", "-data", dir, "-log-level", "warn", "-user", "qq:bot", "-at", "2026-01-31T12:00:00Z",
		filepath.Join(undefinedFixture, "end_summaries.json"),
		filepath.Join(undefinedFixture, "cognitive/queues/failed"),
		filepath.Join(undefinedFixture, "cognitive/queues/pending")}
	out, errOut, err := runCLIOut(t, args...)
	if err == nil || !strings.Contains(err.Error(), "1 of 6 records") {
		t.Fatalf("err = %v, want one failed record\n%s", err, errOut)
	}
	if want := "imported 3 memos and 2 turns for the historian; 0 already present, 1 merged into queue jobs, 1 failed\n"; out != want {
		t.Fatalf("summary %q, want %q", out, want)
	}
	if !strings.Contains(errOut, "end_summaries.json[4]: no summary, memo or observations") {
		t.Fatalf("per-record error not reported:\n%s", errOut)
	}

	// Again: everything is present already.
	out, _, _ = runCLIOut(t, args...)
	if want := "imported 0 memos and 0 turns for the historian; 5 already present, 1 merged into queue jobs, 1 failed\n"; out != want {
		t.Fatalf("re-import %q, want %q", out, want)
	}

	ts := startServer(t, fastQueue, "-data", dir)
	u := ts.as("qq:bot")
	var jobs httpapi.JobsResponse
	u.Do("GET", "/jobs", nil, 200, &jobs)
	if len(jobs.Jobs) != 2 {
		t.Fatalf("jobs %+v", jobs)
	}
	for _, j := range jobs.Jobs {
		if !strings.HasPrefix(j.Key, "undefined:") {
			t.Fatalf("job key %q", j.Key)
		}
		u.waitJob(j.ID, "done")
	}
	var l queryapi.MemoList
	u.Do("GET", "/memos", nil, 200, &l)
	var got []string
	for _, m := range l.Memos {
		got = append(got, m.Timestamp.Format(time.RFC3339)+" "+m.RequestType+" "+m.GroupName+m.SenderName+": "+m.Content)
	}
	want := []string{
		"2026-02-25T01:00:30Z private 张三: 聊了猫",
		"2026-02-24T01:00:30Z group 旅行群张三: 回复了张三去上海的行程",
		"2026-02-22T12:15:00Z group 吃货群: 在群里讨论了周末的聚餐",
		"2026-02-21T02:30:00Z private 李四: 帮李四查了去杭州的高铁",
		"2026-01-31T12:00:00Z private : 早期的摘要：和张三聊了天气",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("memos (-want +got):\n%s", diff)
	}
	u.Do("GET", "/memos"+q("group_id", "123456"), nil, 200, &l)
	if len(l.Memos) != 1 || l.Memos[0].JobID == "" || l.Memos[0].SenderID != "10001" {
		t.Fatalf("group memos %+v", l)
	}
	ts.as("qq:other").Do("GET", "/memos", nil, 200, &l)
	if len(l.Memos) != 0 {
		t.Fatalf("another user sees %+v", l)
	}
	ts.stop()

	st := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	evs, err := st.ListEvents(t.Context(), "qq:bot", storage.EventFilter{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, e := range evs {
		contents = append(contents, e.Content)
	}
	slices.Sort(contents)
	// The historian rewrote the observations as it does for /turns/end.
	if want := []string{"张三(10001)2026年2月25日去上海", "张三养了一只叫咪咪的猫"}; !slices.Equal(contents, want) {
		t.Fatalf("events %q, want %q", contents, want)
	}
}

func TestImportUndefinedUsage(t *testing.T) {
	fixture := filepath.Join(undefinedFixture, "end_summaries.json")
	for _, args := range [][]string{
		{"import-undefined"},
		{"import-undefined", "-data", t.TempDir(), fixture},                                      // no -user
		{"import-undefined", "-data", t.TempDir(), "-user", "qq:1", "-at", "yesterday", fixture}, // bad -at
		{"import-undefined", "-data", t.TempDir(), "-user", "qq:1", "-tz", "Mars/Olympus", fixture},
		{"import-undefined", "-data", t.TempDir(), "-user", "qq:1", filepath.Join(undefinedFixture, "missing.json")},
		{"import-undefined", "-data", t.TempDir(), "-user", "qq:1", writeFile(t, "bad.json", `"not a list"`)},
		{"import-undefined", "-data", t.TempDir(), "-user", "qq:1", t.TempDir()}, // a directory without *.json
	} {
		if _, _, err := runCLIOut(t, args...); err == nil {
			t.Errorf("%q succeeded", args)
		}
	}
	// A bad file stores nothing at all.
	dir := t.TempDir()
	if _, _, err := runCLIOut(t, "import-undefined", "-data", dir, "-user", "qq:1", fixture, writeFile(t, "bad.json", `{`)); err == nil {
		t.Fatal("a malformed file was accepted")
	}
	st := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	if ms, err := st.ListMemos(t.Context(), "qq:1", storage.MemoFilter{Limit: 10}); err != nil || len(ms) != 0 {
		t.Fatalf("memos after a refused import: %+v %v", ms, err)
	}
	var help bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: &help}
	_ = a.run(t.Context(), []string{"import-undefined", "-h"})
	if !strings.Contains(help.String(), "end_summaries.json") || !strings.Contains(help.String(), "-user") {
		t.Fatalf("help:\n%s", help.String())
	}
}
