package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// replaceFile writes content the way editors do: to a temporary file in the
// same directory, renamed over path.
func replaceFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".swp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// eventOf ends a turn of qq:1 and returns the event the historian made of
// it, read beside the running server.
func eventOf(t *testing.T, ts *testServer, requestID string) storage.Event {
	t.Helper()
	u := ts.as("qq:1")
	var r ingest.Receipt
	u.Do("POST", "/turns/end", turn(requestID, "我昨天去了北京"), 202, &r)
	u.waitJob(r.JobID, "done")
	q := storagetest.OpenQueue(t, storage.QueueConfig{Dir: ts.dataDir})
	evs, err := q.ListEvents(t.Context(), "qq:1", storage.EventFilter{JobID: r.JobID, Limit: 10})
	if err != nil || len(evs) != 1 {
		t.Fatalf("events of %s: %+v, %v", r.JobID, evs, err)
	}
	return evs[0]
}

const shanghaiHistorian = `
[cognitive.historian]
timezone = "Asia/Shanghai"
source_max = 800
`

// TestConfigReload: [cognitive.historian] follows the config file without a
// restart, from the next job on; an invalid file keeps the running config
// and says why; keys that need a restart are reported, not applied; SIGHUP
// reloads too.
func TestConfigReload(t *testing.T) {
	path := writeFile(t, "recalld.toml", shanghaiHistorian)
	ts := startServer(t, fastQueue, "-config", path)
	reloads := func() int { return ts.health().Config.Reloads }

	ev := eventOf(t, ts, "r1")
	if _, off := ev.TimestampLocal.Zone(); off != 8*3600 || !strings.Contains(ev.Content, "2026年3月3日") || ev.SourceMessage != "我昨天去了北京" {
		t.Fatalf("event before the reload: %q at %v, source %q", ev.Content, ev.TimestampLocal, ev.SourceMessage)
	}

	// A valid change: applied to the next job.
	replaceFile(t, path, `
[cognitive.historian]
timezone = "Pacific/Honolulu"
source_max = 3
`)
	waitFor(t, "the file change is applied", func() bool { return reloads() == 1 })
	ev = eventOf(t, ts, "r2")
	if _, off := ev.TimestampLocal.Zone(); off != -10*3600 || !strings.Contains(ev.Content, "2026年3月2日") || ev.SourceMessage != "我昨天…" {
		t.Fatalf("event after the reload: %q at %v, source %q", ev.Content, ev.TimestampLocal, ev.SourceMessage)
	}
	if h := ts.health(); h.Status != "ok" || len(h.Config.RestartRequired) != 0 || h.Config.LastReload == nil {
		t.Fatalf("health after a reloadable change: %+v", h)
	}

	// An invalid file: reported, the running config stays.
	replaceFile(t, path, `
[cognitive.historian]
timezone = "Mars/Olympus_Mons"
`)
	waitFor(t, "the invalid file is reported", func() bool { return ts.health().Config.Error != "" })
	h := ts.health()
	if h.Status != "degraded" || h.Config.Reloads != 1 || !strings.Contains(h.Config.Error, "Mars/Olympus_Mons") || !hasWarning(h, "not applied") {
		t.Fatalf("health with an invalid file: %+v", h)
	}
	if ev := eventOf(t, ts, "r3"); ev.SourceMessage != "我昨天…" {
		t.Fatalf("the invalid file changed the historian: source %q", ev.SourceMessage)
	}

	// Keys that need a restart: reported, not applied; the reloadable ones
	// apply. (log_level would not count: the -log-level flag overrides the file.)
	replaceFile(t, path, `max_batch = 10`+shanghaiHistorian+`
[cognitive.queue]
job_max_retries = 9
[breaker]
failures = 7
`)
	waitFor(t, "the second valid file is applied", func() bool { return reloads() == 2 })
	h = ts.health()
	want := []string{"breaker.failures", "cognitive.queue.job_max_retries", "max_batch"}
	if diff := cmp.Diff(want, h.Config.RestartRequired); diff != "" || h.Config.Error != "" || h.Status != "degraded" || !hasWarning(h, "after a restart") {
		t.Fatalf("restart_required (-want +got):\n%s\nhealth %+v", diff, h)
	}
	if ev := eventOf(t, ts, "r4"); ev.SourceMessage != "我昨天去了北京" {
		t.Fatalf("the reloadable keys of a mixed change were not applied: source %q", ev.SourceMessage)
	}
	batch := make([]map[string]any, 11)
	for i := range batch {
		batch[i] = msgJSON(fmt.Sprintf("mb%d", i), "user", "batch message", i)
	}
	ts.as("qq:1").Do("POST", "/messages", map[string]any{"messages": batch}, 200, nil) // max_batch is still 1000

	// SIGHUP reloads even when the file is unchanged (a file event would not).
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "SIGHUP reloads", func() bool { return reloads() == 3 })

	// Back to the start-up values: nothing waits for a restart any more.
	replaceFile(t, path, shanghaiHistorian)
	waitFor(t, "the original file is applied", func() bool { return reloads() == 4 })
	if h := ts.health(); h.Status != "ok" || len(h.Config.RestartRequired) != 0 {
		t.Fatalf("health after reverting: %+v", h)
	}
}

// TestAPIKeyReload: api_keys follow the config file over a real loopback
// server: a removed key gets 401 from the reload on (on the routes and on
// POST /mcp), an added one works, SIGHUP reloads them too, and an invalid
// file keeps the keys in force.
func TestAPIKeyReload(t *testing.T) {
	const (
		keyA = "key-for-bot-a-0123456789"
		keyB = "key-for-bot-b-0123456789"
		keyC = "key-for-bot-c-0123456789"
	)
	keys := func(ks ...string) string {
		var b strings.Builder
		for i, k := range ks {
			fmt.Fprintf(&b, "[[api_keys]]\nname = \"bot%d\"\nkey = %q\nuser_prefix = \"qq:\"\n", i, k)
		}
		return b.String()
	}
	path := writeFile(t, "recalld.toml", keys(keyA))
	ts := startServer(t, nil, "-config", path)
	reloads := func() int { return ts.health().Config.Reloads }
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	mcpHdr := []string{"Accept", "application/json, text/event-stream"}
	status := func(key, method, path string, body any, hdr ...string) int {
		t.Helper()
		st, _ := ts.as("qq:1").withKey(key).Raw(method, path, body, hdr...)
		return st
	}
	check := func(when string, want map[string]int) {
		t.Helper()
		for key, code := range want {
			if got := status(key, "GET", "/messages", nil); got != code {
				t.Fatalf("%s: GET /messages with %s: %d, want %d", when, key[:13], got, code)
			}
			if got := status(key, "POST", "/mcp", ping, mcpHdr...); got != code {
				t.Fatalf("%s: POST /mcp with %s: %d, want %d", when, key[:13], got, code)
			}
		}
	}
	check("at start", map[string]int{keyA: 200, keyB: 401})

	replaceFile(t, path, keys(keyB))
	waitFor(t, "the new keys are applied", func() bool { return reloads() == 1 })
	check("after the file change", map[string]int{keyA: 401, keyB: 200})
	if h := ts.health(); h.Status != "ok" || len(h.Config.RestartRequired) != 0 || !h.Auth {
		t.Fatalf("health after a key change: %+v", h)
	}

	// An invalid file (a key too short) changes nothing.
	replaceFile(t, path, keys(keyC, "short"))
	waitFor(t, "the invalid file is reported", func() bool { return ts.health().Config.Error != "" })
	check("after an invalid file", map[string]int{keyA: 401, keyB: 200, keyC: 401})

	// SIGHUP reloads the keys too (after a write the watcher may not have seen).
	if err := os.WriteFile(path, []byte(keys(keyC)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "SIGHUP applies the keys", func() bool { return reloads() >= 2 && ts.health().Config.Error == "" })
	check("after SIGHUP", map[string]int{keyB: 401, keyC: 200})
}
