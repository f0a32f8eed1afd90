package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/breaker/breakertest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// openStore opens a store without an indexer in dir (a fresh one if empty),
// on clock c if not nil.
func openStore(tb testing.TB, dir string, c *storagetest.Clock) *storage.Store {
	cfg := storage.Config{Dir: dir, NoIndexer: true}
	if c != nil {
		cfg.Now = c.Now
	}
	return storagetest.Open(tb, cfg)
}

// fakeProcessor records the jobs it sees and fails while fail says so.
type fakeProcessor struct {
	mu   sync.Mutex
	seen []string // job id and attempt
	fail func(job ingest.Job) error
}

func (p *fakeProcessor) Process(ctx context.Context, job ingest.Job) (ingest.Result, error) {
	p.mu.Lock()
	p.seen = append(p.seen, fmt.Sprintf("%s#%d", job.Turn.RequestID, job.Attempts))
	p.mu.Unlock()
	if p.fail != nil {
		return ingest.Result{}, p.fail(job)
	}
	return ingest.Result{}, nil
}

func (p *fakeProcessor) Seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

func enqueue(tb testing.TB, q *ingest.Queue, user, requestID string, obs ...string) string {
	tb.Helper()
	r, err := q.Enqueue(tb.Context(), user, ingest.TurnEnd{RequestID: requestID, Memo: "memo " + requestID,
		Observations: obs, SenderID: "qq:1", SenderName: "Ann", Timestamp: turnAt})
	if err != nil || !r.Queued {
		tb.Fatalf("enqueue: %+v %v", r, err)
	}
	return r.JobID
}

func step(tb testing.TB, w *ingest.Worker, want bool) {
	tb.Helper()
	ok, err := w.ProcessNext(tb.Context())
	if err != nil || ok != want {
		tb.Fatalf("ProcessNext = %v, %v; want %v", ok, err, want)
	}
}

func mustJob(tb testing.TB, s *storage.Store, id string) storage.Job {
	tb.Helper()
	j, err := s.GetJob(tb.Context(), "", id)
	if err != nil {
		tb.Fatal(err)
	}
	return j
}

func TestWorkerCompletesInOrder(t *testing.T) {
	c := storagetest.NewClock(turnAt)
	s := openStore(t, "", c)
	q := ingest.NewQueue(s)
	a := enqueue(t, q, "u1", "a", "x")
	c.Add(time.Millisecond)
	b := enqueue(t, q, "u2", "b", "y")
	p := &fakeProcessor{}
	w := ingest.NewWorker(s, p, ingest.DefaultWorkerConfig())
	step(t, w, true)
	step(t, w, true)
	step(t, w, false)
	if got := p.Seen(); !slices.Equal(got, []string{"a#1", "b#1"}) {
		t.Fatalf("processed %v, want oldest first", got)
	}
	for _, id := range []string{a, b} {
		if j := mustJob(t, s, id); j.State != storage.JobDone {
			t.Fatalf("job %s is %s", id, j.State)
		}
	}
}

func TestWorkerRetriesThenKeepsFailed(t *testing.T) {
	c := storagetest.NewClock(turnAt)
	s := openStore(t, "", c)
	id := enqueue(t, ingest.NewQueue(s), "u1", "r", "x")
	p := &fakeProcessor{fail: func(job ingest.Job) error { return fmt.Errorf("model down (attempt %d)", job.Attempts) }}
	cfg := ingest.DefaultWorkerConfig()
	cfg.MaxRetries = 2
	cfg.RetryBackoff = 10 * time.Second
	var outcomes []string
	cfg.OnOutcome = func(o string, _ time.Duration) { outcomes = append(outcomes, o) }
	w := ingest.NewWorker(s, p, cfg)

	step(t, w, true)
	if j := mustJob(t, s, id); j.State != storage.JobPending || j.Error != "model down (attempt 1)" {
		t.Fatalf("after attempt 1: %+v", j)
	}
	step(t, w, false) // backing off
	c.Add(10 * time.Second)
	step(t, w, true)
	step(t, w, false) // the second retry waits twice as long
	c.Add(10 * time.Second)
	step(t, w, false)
	c.Add(10 * time.Second)
	step(t, w, true)
	j := mustJob(t, s, id)
	if j.State != storage.JobFailed || j.Attempts != 3 || j.Error != "model down (attempt 3)" {
		t.Fatalf("after the retries: %+v", j)
	}
	c.Add(time.Hour)
	step(t, w, false)
	if got := p.Seen(); !slices.Equal(got, []string{"r#1", "r#2", "r#3"}) {
		t.Fatalf("attempts %v", got)
	}

	// An operator retry runs it again.
	p.fail = nil
	if _, err := s.RetryJob(t.Context(), "", id); err != nil {
		t.Fatal(err)
	}
	step(t, w, true)
	if j := mustJob(t, s, id); j.State != storage.JobDone {
		t.Fatalf("after retry: %+v", j)
	}
	want := []string{ingest.OutcomeRetry, ingest.OutcomeRetry, ingest.OutcomeFailed, ingest.OutcomeDone}
	if !slices.Equal(outcomes, want) {
		t.Fatalf("outcomes %v, want %v", outcomes, want)
	}
}

func TestWorkerPermanentFailure(t *testing.T) {
	s := openStore(t, "", nil)
	// A payload that does not decode as a turn is not retried.
	j, _, err := s.EnqueueJob(t.Context(), storage.NewJob{UserID: "u1", Kind: ingest.KindTurnEnd, Payload: []byte(`{"observations": 5}`)})
	if err != nil {
		t.Fatal(err)
	}
	p := &fakeProcessor{}
	w := ingest.NewWorker(s, p, ingest.DefaultWorkerConfig())
	step(t, w, true)
	got := mustJob(t, s, j.ID)
	if got.State != storage.JobFailed || !strings.Contains(got.Error, "decode turn") || len(p.Seen()) != 0 {
		t.Fatalf("%+v seen %v", got, p.Seen())
	}
	// A processor may say the same.
	id := enqueue(t, ingest.NewQueue(s), "u1", "r", "x")
	p.fail = func(ingest.Job) error { return ingest.Permanent(errors.New("unsupported")) }
	step(t, w, true)
	if got := mustJob(t, s, id); got.State != storage.JobFailed || got.Attempts != 1 {
		t.Fatalf("%+v", got)
	}
}

// TestWorkerRunRecoversStale starts a worker over a store where a job was
// left processing by a worker that died: Run recovers it once its lease has
// expired, processes it, and returns when its context ends.
func TestWorkerRunRecoversStale(t *testing.T) {
	dir := t.TempDir()
	c := storagetest.NewClock(turnAt)
	s := openStore(t, dir, c)
	id := enqueue(t, ingest.NewQueue(s), "u1", "r", "x")
	if _, ok, err := s.ClaimJob(t.Context(), ingest.KindTurnEnd, 300*time.Second); !ok || err != nil {
		t.Fatal(ok, err)
	}
	c.Add(301 * time.Second) // the restart comes after the lease

	p := &fakeProcessor{}
	cfg := ingest.DefaultWorkerConfig()
	cfg.Poll = 5 * time.Millisecond
	w := ingest.NewWorker(s, p, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for mustJob(t, s, id).State != storage.JobDone {
		if time.Now().After(deadline) {
			t.Fatalf("job not processed: %+v", mustJob(t, s, id))
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run = %v, want nil on shutdown", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	if got := p.Seen(); !slices.Equal(got, []string{"r#2"}) {
		t.Fatalf("processed %v, want the second attempt", got)
	}
}

// TestWorkerShutdownMidJob cancels Run while a job is processing: the job
// stays claimed (its lease brings it back), and Run returns.
func TestWorkerShutdownMidJob(t *testing.T) {
	s := openStore(t, "", nil)
	id := enqueue(t, ingest.NewQueue(s), "u1", "r", "x")
	started := make(chan struct{})
	p := &fakeProcessor{fail: func(ingest.Job) error { close(started); time.Sleep(50 * time.Millisecond); return context.Canceled }}
	w := ingest.NewWorker(s, p, ingest.DefaultWorkerConfig())
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	<-started
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if j := mustJob(t, s, id); j.State != storage.JobProcessing {
		t.Fatalf("job is %s, want processing until its lease expires", j.State)
	}
}

func eventIDs(tb testing.TB, s *storage.Store, user string) []string {
	tb.Helper()
	evs, err := s.ListEvents(tb.Context(), user, storage.EventFilter{Limit: 100})
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.ID)
	}
	sort.Strings(out)
	return out
}

// TestHistorianPipeline runs end → job → rewrite → gate → event on real
// storage, then a crash in the middle of a job: after the lease the rerun
// stores its events once.
func TestHistorianPipeline(t *testing.T) {
	dir := t.TempDir()
	c := storagetest.NewClock(turnAt)
	s := openStore(t, dir, c)
	q := ingest.NewQueue(s)
	r, err := q.Enqueue(t.Context(), "bot:u1", ingest.TurnEnd{
		RequestID: "req-1", Memo: "聊了旅行计划", Observations: []string{"我明天去杭州", "他最近很忙"},
		SenderID: "qq:1", SenderName: "张三", GroupID: "g9", GroupName: "旅行群", Timestamp: turnAt,
		SourceMessage: "我明天去杭州，他最近很忙",
	})
	if err != nil {
		t.Fatal(err)
	}
	h := ingest.NewHistorian(ingest.HistorianConfig{})
	w := ingest.NewWorker(s, h, ingest.DefaultWorkerConfig())
	step(t, w, true)
	evs, err := s.ListEvents(t.Context(), "bot:u1", storage.EventFilter{GroupID: "g9", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 {
		t.Fatalf("%d events", len(evs))
	}
	byID := map[string]storage.Event{}
	for _, e := range evs {
		byID[e.ID] = e
	}
	e0, e1 := byID[r.JobID+":0:group"], byID[r.JobID+":1:group"]
	if e0.Content != "张三(qq:1)2026年3月5日去杭州" || !e0.IsAbsolute || e0.RequestType != "group" || e0.SourceMessage == "" {
		t.Fatalf("event 0 = %+v", e0)
	}
	if e1.IsAbsolute || e1.Warning != "relative words left: 他, 最近" {
		t.Fatalf("event 1 = %+v", e1)
	}
	if !e0.Timestamp.Equal(turnAt) || e0.TimestampLocal.Hour() != 14 {
		t.Fatalf("timestamps %v %v", e0.Timestamp, e0.TimestampLocal)
	}
	if other, _ := s.ListEvents(t.Context(), "bot:u2", storage.EventFilter{Limit: 10}); len(other) != 0 {
		t.Fatal("another user sees the events")
	}

	// The process dies while the job is processing.
	id2 := enqueue(t, q, "bot:u1", "req-2", "I moved to Berlin last month")
	claimed, ok, err := s.ClaimJob(t.Context(), ingest.KindTurnEnd, 300*time.Second)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	var turn ingest.TurnEnd
	if err := json.Unmarshal(claimed.Payload, &turn); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Process(t.Context(), ingest.Job{Job: claimed, Turn: turn}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The next start takes the job back at once (its 300 s lease has not
	// run out), without counting the cut-off attempt.
	s = openStore(t, dir, c)
	if j := mustJob(t, s, id2); j.State != storage.JobPending || j.Attempts != 0 {
		t.Fatalf("job of the dead process after Open = %+v", j)
	}
	w = ingest.NewWorker(s, h, ingest.DefaultWorkerConfig())
	step(t, w, true)
	if j := mustJob(t, s, id2); j.State != storage.JobDone || j.Attempts != 1 {
		t.Fatalf("rerun job = %+v", j)
	}
	got, _ := s.ListEvents(t.Context(), "bot:u1", storage.EventFilter{JobID: id2, Limit: 10})
	if len(got) != 1 || got[0].Content != "Ann (qq:1) moved to Berlin in February 2026" || got[0].Perspective != "sender" {
		t.Fatalf("en event = %+v", got)
	}
	if all := eventIDs(t, s, "bot:u1"); len(all) != 3 {
		t.Fatalf("events %v, want 3", all)
	}
}

// badProcessor returns an event storage refuses.
type badProcessor struct{}

func (badProcessor) Process(ctx context.Context, job ingest.Job) (ingest.Result, error) {
	return ingest.Result{Events: []storage.Event{{ID: "x", UserID: "someone else", JobID: job.ID}}}, nil
}

// TestWorkerRefusedResult: a result storage refuses fails the job at once
// instead of retrying a bug.
func TestWorkerRefusedResult(t *testing.T) {
	s := openStore(t, "", nil)
	id := enqueue(t, ingest.NewQueue(s), "u1", "r", "x")
	step(t, ingest.NewWorker(s, badProcessor{}, ingest.DefaultWorkerConfig()), true)
	if j := mustJob(t, s, id); j.State != storage.JobFailed || !strings.Contains(j.Error, "another user") {
		t.Fatalf("%+v", j)
	}
}

// TestWorkerGate: while the store's gate refuses, the worker leaves the
// store alone and waits; once it allows, jobs run and every store round
// reports its outcome, a failing store included.
func TestWorkerGate(t *testing.T) {
	s := openStore(t, "", nil)
	id := enqueue(t, ingest.NewQueue(s), "u1", "r", "x")
	g := &breakertest.Gate{}
	g.Refuse(true)
	p := &fakeProcessor{}
	cfg := ingest.DefaultWorkerConfig()
	cfg.Poll = 5 * time.Millisecond
	cfg.Gate = g
	w := ingest.NewWorker(s, p, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()

	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting until %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitUntil("the gate refuses a few rounds", func() bool { r, _ := g.Counts(); return r >= 5 })
	if j := mustJob(t, s, id); j.State != storage.JobPending || len(p.Seen()) != 0 {
		t.Fatalf("the worker ran a job through a closed gate: %+v, processed %v", j, p.Seen())
	}
	if _, outcomes := g.Counts(); len(outcomes) != 0 {
		t.Fatalf("outcomes reported while refused: %v", outcomes)
	}

	g.Refuse(false)
	waitUntil("the job is done", func() bool { return mustJob(t, s, id).State == storage.JobDone })
	// The round that finished the job reports after its commit.
	waitUntil("an outcome is reported", func() bool { _, outcomes := g.Counts(); return len(outcomes) > 0 })
	if _, outcomes := g.Counts(); slices.ContainsFunc(outcomes, func(err error) bool { return err != nil }) {
		t.Fatalf("outcomes with a healthy store: %v", outcomes)
	}

	// A store that fails is reported as such.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	waitUntil("a store failure is reported", func() bool {
		_, outcomes := g.Counts()
		return slices.ContainsFunc(outcomes, func(err error) bool { return err != nil })
	})
}
