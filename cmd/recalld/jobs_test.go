package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/internal/httpapi/httpapitest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// fastQueue makes the worker poll and retry quickly.
var fastQueue = map[string]string{"RECALLD_JOB_POLL_INTERVAL": "10ms", "RECALLD_JOB_RETRY_BACKOFF": "10ms"}

func withEnv(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// turnAt is when turn's turn happened (httpapitest.TurnAt).
const turnAt = httpapitest.TurnAt

var turn = httpapitest.Turn

// waitJob polls GET /jobs until job id is in state, and returns it.
func (c *client) waitJob(id, state string) storage.Job {
	c.ts.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var res httpapi.JobsResponse
		c.Do("GET", "/jobs"+q("state", state, "limit", "500"), nil, 200, &res)
		for _, j := range res.Jobs {
			if j.ID == id {
				return j
			}
		}
		if time.Now().After(deadline) {
			var all httpapi.JobsResponse
			c.Do("GET", "/jobs", nil, 200, &all)
			c.ts.t.Fatalf("job %s never became %s: %+v", id, state, all.Jobs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTurnsEnd(t *testing.T) {
	ts := startServer(t, fastQueue)
	u := ts.as("qq:1")
	var r ingest.Receipt
	u.Do("POST", "/turns/end", turn("req-1", "我昨天去了北京", "I like oolong tea"), http.StatusAccepted, &r)
	if !r.Queued || r.JobID == "" || r.Duplicate {
		t.Fatalf("receipt %+v", r)
	}
	j := u.waitJob(r.JobID, "done")
	if j.Attempts != 1 || j.Kind != ingest.KindTurnEnd || j.UserID != "qq:1" || j.Key != "req-1" {
		t.Fatalf("job %+v", j)
	}

	// The same request id again is the same job.
	var again ingest.Receipt
	u.Do("POST", "/turns/end", turn("req-1", "我昨天去了北京"), http.StatusAccepted, &again)
	if !again.Queued || !again.Duplicate || again.JobID != r.JobID {
		t.Fatalf("again %+v", again)
	}
	// Neither memo nor observations: the turn ends, nothing is queued.
	var none ingest.Receipt
	u.Do("POST", "/turns/end", map[string]any{"memo": " ", "observations": []string{""}, "sender_id": "qq:1"}, http.StatusOK, &none)
	if none.Queued || none.JobID != "" || none.Reason == "" {
		t.Fatalf("empty turn %+v", none)
	}
	var res httpapi.JobsResponse
	u.Do("GET", "/jobs", nil, 200, &res)
	if len(res.Jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(res.Jobs))
	}

	ts.stop()
	st := storagetest.Open(t, storage.Config{Dir: ts.dataDir, NoIndexer: true})
	evs, err := st.ListEvents(t.Context(), "qq:1", storage.EventFilter{JobID: r.JobID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, e.Content)
	}
	slices.Sort(got)
	want := []string{"张三 (qq:1) likes oolong tea", "张三(qq:1)2026年3月3日去了北京"}
	if !slices.Equal(got, want) {
		t.Fatalf("events %q, want %q", got, want)
	}
}

// TestJobsIsolation: a user sees only their own jobs, whatever they ask.
func TestJobsIsolation(t *testing.T) {
	ts := startServer(t, withEnv(fastQueue, "RECALLD_API_KEYS", "key-for-bot-a-000000=botA:,key-for-bot-b-000000=botB:"))
	a := ts.as("botA:1").withKey("key-for-bot-a-000000")
	b := ts.as("botB:1").withKey("key-for-bot-b-000000")
	var ra, rb ingest.Receipt
	a.Do("POST", "/turns/end", turn("same-id", "我喜欢猫"), http.StatusAccepted, &ra)
	b.Do("POST", "/turns/end", turn("same-id", "我喜欢狗"), http.StatusAccepted, &rb)
	if ra.JobID == rb.JobID || rb.Duplicate {
		t.Fatalf("B's turn was taken for A's: %+v %+v", ra, rb)
	}
	a.waitJob(ra.JobID, "done")
	b.waitJob(rb.JobID, "done")
	for _, c := range []struct {
		cl    *client
		user  string
		other string
	}{{a, "botA:1", rb.JobID}, {b, "botB:1", ra.JobID}} {
		for _, state := range []string{"", "done", "failed"} {
			var res httpapi.JobsResponse
			path := "/jobs"
			if state != "" {
				path += q("state", state)
			}
			c.cl.Do("GET", path, nil, 200, &res)
			for _, j := range res.Jobs {
				if j.UserID != c.user || j.ID == c.other {
					t.Fatalf("%s sees job %s of %s", c.user, j.ID, j.UserID)
				}
			}
		}
	}
	// A's key cannot act for B's users.
	status, _ := ts.as("botB:1").withKey("key-for-bot-a-000000").Raw("GET", "/jobs", nil)
	if status != http.StatusForbidden {
		t.Fatalf("A's key for a B user: %d", status)
	}
}

// flaky fails its first n calls, then succeeds.
type flaky struct {
	mu    sync.Mutex
	n     int
	calls int
}

func (f *flaky) Process(ctx context.Context, job ingest.Job) (ingest.Result, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls <= f.n {
		return ingest.Result{}, fmt.Errorf("historian down (call %d)", f.calls)
	}
	return ingest.Result{}, nil
}

// runCLI runs `recalld args...` in-process and returns its output.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard}
	err := a.run(t.Context(), args)
	return out.String(), err
}

// TestFailedJobRetriedThenKept: a job whose historian keeps failing is
// retried job_max_retries times, then kept as failed with its error, shown
// by GET /jobs?state=failed and `recalld jobs`, and replayed by `recalld jobs
// retry` beside the running server.
func TestFailedJobRetriedThenKept(t *testing.T) {
	proc := &flaky{n: 3}
	ts := startServerWith(t, func(a *app) { a.processor = proc },
		withEnv(fastQueue, "RECALLD_JOB_MAX_RETRIES", "2"))
	u := ts.as("qq:7")
	var r ingest.Receipt
	u.Do("POST", "/turns/end", turn("r1", "我明天去上海"), http.StatusAccepted, &r)
	j := u.waitJob(r.JobID, "failed")
	if j.Attempts != 3 || j.Error != "historian down (call 3)" {
		t.Fatalf("failed job %+v", j)
	}

	out, err := runCLI(t, "jobs", "list", "-data", ts.dataDir, "-state", "failed")
	if err != nil || !strings.Contains(out, r.JobID) || !strings.Contains(out, "historian down (call 3)") {
		t.Fatalf("jobs list: %v\n%s", err, out)
	}
	out, err = runCLI(t, "jobs", "show", "-data", ts.dataDir, r.JobID)
	var shown storage.Job
	if err != nil || json.Unmarshal([]byte(out), &shown) != nil || shown.State != "failed" || !strings.Contains(string(shown.Payload), "我明天去上海") {
		t.Fatalf("jobs show: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "jobs", "retry", "-data", ts.dataDir, r.JobID); err != nil || !strings.Contains(out, "retried "+r.JobID) {
		t.Fatalf("jobs retry: %v\n%s", err, out)
	}
	j = u.waitJob(r.JobID, "done")
	if j.Attempts != 1 {
		t.Fatalf("replayed job %+v", j)
	}
	// Retrying a job that is not failed is an error.
	if _, err := runCLI(t, "jobs", "retry", "-data", ts.dataDir, r.JobID); err == nil {
		t.Fatal("retry of a done job succeeded")
	}
}

// TestStaleJobRecoveredOnStart: a job left processing by a server that
// stopped is taken again by the next one at once (its lease has 5 minutes
// to run), without counting the cut-off attempt, and its events are stored
// once.
func TestStaleJobRecoveredOnStart(t *testing.T) {
	dir := t.TempDir()
	st := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	r, err := ingest.NewQueue(st).Enqueue(t.Context(), "qq:9", ingest.TurnEnd{
		Observations: []string{"I moved to Berlin last month"}, SenderID: "qq:9", SenderName: "Ann",
		Timestamp: time.Date(2026, 3, 4, 6, 30, 0, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := st.ClaimJob(t.Context(), ingest.KindTurnEnd, 300*time.Second); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	ts := startServer(t, fastQueue, "-data", dir)
	j := ts.as("qq:9").waitJob(r.JobID, "done")
	if j.Attempts != 1 {
		t.Fatalf("recovered job %+v", j)
	}
	ts.stop()
	st = storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	evs, err := st.ListEvents(t.Context(), "qq:9", storage.EventFilter{Limit: 10})
	if err != nil || len(evs) != 1 || evs[0].Content != "Ann (qq:9) moved to Berlin in February 2026" {
		t.Fatalf("events %+v %v", evs, err)
	}
}

func TestJobsCLI(t *testing.T) {
	dir := t.TempDir()
	st := storagetest.Open(t, storage.Config{Dir: dir, NoIndexer: true})
	var ids []string
	for i := range 3 {
		j, _, err := st.EnqueueJob(t.Context(), storage.NewJob{UserID: fmt.Sprintf("qq:%d", i), Kind: ingest.KindTurnEnd, Payload: []byte(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		c, _, _ := st.ClaimJob(t.Context(), ingest.KindTurnEnd, time.Minute)
		if _, err := st.FailJob(t.Context(), c, "line one\nline two", 0, 0); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	st.Close()

	out, err := runCLI(t, "jobs", "list", "-data", dir, "-user", "qq:1")
	if err != nil || !strings.Contains(out, ids[1]) || strings.Contains(out, ids[0]) || !strings.Contains(out, "line one …") {
		t.Fatalf("list -user: %v\n%s", err, out)
	}
	out, err = runCLI(t, "jobs", "list", "-data", dir, "-json")
	if err != nil || strings.Count(out, "\n") != 3 {
		t.Fatalf("list -json: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "jobs", "purge", "-data", dir, "-keep", "2"); err != nil || out != "purged 1 failed jobs\n" {
		t.Fatalf("purge: %v %q", err, out)
	}
	if out, err := runCLI(t, "jobs", "retry", "-data", dir, "-all-failed"); err != nil || out != "retried 2 failed jobs\n" {
		t.Fatalf("retry -all-failed: %v %q", err, out)
	}
	for _, args := range [][]string{
		{"jobs"}, {"jobs", "frob"}, {"jobs", "show", "-data", dir}, {"jobs", "retry", "-data", dir},
		{"jobs", "list", "-data", dir, "-state", "lost"}, {"jobs", "show", "-data", dir, "nope"},
		{"jobs", "list", "-data", t.TempDir() + "/missing"},
	} {
		if _, err := runCLI(t, args...); err == nil {
			t.Errorf("%q succeeded", args)
		}
	}
}

// BenchmarkTurnsEnd measures POST /turns/end on loopback, back to back:
// each request is answered once its job is committed to SQLite. It reports
// latency percentiles (the goal is p95 ≤ 1 ms) with the worker idle (jobs
// wait) and with the worker draining them at the same time, which competes
// for the single SQLite writer.
func BenchmarkTurnsEnd(b *testing.B) {
	body, err := json.Marshal(map[string]any{
		"memo": "聊了周末的旅行计划", "observations": []string{"我明天去杭州", "I like oolong tea"},
		"sender_id": "qq:1", "sender_name": "张三", "group_id": "g1", "group_name": "旅行群", "request_type": "group",
		"source_message": "我明天去杭州", "timestamp": turnAt,
		"recent_messages": []map[string]any{{"time": "14:29", "sender_name": "张三", "sender_id": "qq:1", "text": "我明天去杭州"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct{ name, poll string }{{"worker=idle", "1h"}, {"worker=draining", "10ms"}} {
		b.Run(bc.name, func(b *testing.B) {
			ts := startServer(b, map[string]string{"RECALLD_JOB_POLL_INTERVAL": bc.poll})
			hc := &http.Client{} // no contract validation in the timed loop
			var lat []time.Duration
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest("POST", ts.base+"/turns/end", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set(httpapi.HeaderUser, "qq:bench")
				start := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat = append(lat, time.Since(start))
				if resp.StatusCode != http.StatusAccepted {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
			slices.Sort(lat)
			at := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
			b.ReportMetric(at(0.50), "p50-ms")
			b.ReportMetric(at(0.95), "p95-ms")
			b.ReportMetric(at(0.99), "p99-ms")
		})
	}
}
