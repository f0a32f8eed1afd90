package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// mustOpenClock opens a store without an indexer in dir (a fresh one if
// empty) whose time is a clock starting at t0.
func mustOpenClock(tb testing.TB, dir string) (*storage.Store, *storagetest.Clock) {
	c := storagetest.NewClock(t0)
	return storagetest.Open(tb, storage.Config{Dir: dir, Now: c.Now, NoIndexer: true}), c
}

// jobTable is the job methods a Store and a Queue share.
type jobTable interface {
	EnqueueJob(ctx context.Context, nj storage.NewJob) (storage.Job, bool, error)
	ClaimJob(ctx context.Context, kind string, lease time.Duration) (storage.Job, bool, error)
}

func mustEnqueue(tb testing.TB, s jobTable, user, key string) storage.Job {
	tb.Helper()
	j, _, err := s.EnqueueJob(tb.Context(), storage.NewJob{UserID: user, Kind: "turn_end", Key: key,
		Payload: json.RawMessage(fmt.Sprintf(`{"memo":%q}`, key))})
	if err != nil {
		tb.Fatal(err)
	}
	return j
}

func mustClaim(tb testing.TB, s jobTable) storage.Job {
	tb.Helper()
	j, ok, err := s.ClaimJob(tb.Context(), "turn_end", time.Minute)
	if err != nil || !ok {
		tb.Fatalf("claim: ok=%v err=%v", ok, err)
	}
	return j
}

func claimNone(tb testing.TB, s *storage.Store) {
	tb.Helper()
	j, ok, err := s.ClaimJob(tb.Context(), "turn_end", time.Minute)
	if err != nil || ok {
		tb.Fatalf("claim: got %s (ok=%v err=%v), want none", j.ID, ok, err)
	}
}

func jobStates(tb testing.TB, s *storage.Store, user string) map[string]string {
	tb.Helper()
	js, err := s.ListJobs(tb.Context(), storage.JobFilter{UserID: user, Limit: storage.MaxJobList})
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]string{}
	for _, j := range js {
		out[j.ID] = j.State
	}
	return out
}

func TestJobLifecycle(t *testing.T) {
	dir := t.TempDir()
	s, c := mustOpenClock(t, dir)
	ctx := t.Context()
	a := mustEnqueue(t, s, "u1", "r1")
	c.Add(time.Second)
	b := mustEnqueue(t, s, "u1", "r2")
	if a.State != storage.JobPending || a.Attempts != 0 || !a.CreatedAt.Equal(t0) || a.ID == "" {
		t.Fatalf("enqueued %+v", a)
	}

	// Acknowledged means durable: a reopened store has the jobs.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, c = mustOpenClock(t, dir)
	c.Add(2 * time.Second)

	got := mustClaim(t, s)
	if got.ID != a.ID || got.State != storage.JobProcessing || got.Attempts != 1 || !got.LeaseUntil.Equal(c.Now().Add(time.Minute)) {
		t.Fatalf("first claim = %+v, want %s processing, attempt 1, lease a minute from now", got, a.ID)
	}
	if string(got.Payload) != `{"memo":"r1"}` {
		t.Fatalf("payload %s", got.Payload)
	}
	if _, err := s.CompleteJob(ctx, got, storage.JobResult{}); err != nil {
		t.Fatal(err)
	}
	// Completing twice is a lost claim, not a silent success.
	if _, err := s.CompleteJob(ctx, got, storage.JobResult{}); !errors.Is(err, storage.ErrJobState) {
		t.Fatalf("second complete: %v, want ErrJobState", err)
	}
	if got := mustClaim(t, s); got.ID != b.ID {
		t.Fatalf("second claim = %s, want %s", got.ID, b.ID)
	}
	claimNone(t, s)
	want := map[string]string{a.ID: storage.JobDone, b.ID: storage.JobProcessing}
	if diff := cmp.Diff(want, jobStates(t, s, "u1")); diff != "" {
		t.Fatalf("states (-want +got):\n%s", diff)
	}
	j, err := s.GetJob(ctx, "u1", a.ID)
	if err != nil || j.State != storage.JobDone || !j.UpdatedAt.Equal(c.Now()) || !j.LeaseUntil.IsZero() {
		t.Fatalf("get = %+v, %v", j, err)
	}
}

func TestEnqueueDeduplicates(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	ctx := t.Context()
	first, created, err := s.EnqueueJob(ctx, storage.NewJob{UserID: "u1", Kind: "turn_end", Key: "req-1", Payload: []byte(`{"a":1}`)})
	if err != nil || !created {
		t.Fatalf("first: created=%v err=%v", created, err)
	}
	again, created, err := s.EnqueueJob(ctx, storage.NewJob{UserID: "u1", Kind: "turn_end", Key: "req-1", Payload: []byte(`{"a":1}`)})
	if err != nil || created || again.ID != first.ID {
		t.Fatalf("again: id %s created=%v err=%v, want %s not created", again.ID, created, err, first.ID)
	}
	// Another user, or no key, is a new job.
	other, created, err := s.EnqueueJob(ctx, storage.NewJob{UserID: "u2", Kind: "turn_end", Key: "req-1", Payload: []byte(`{}`)})
	if err != nil || !created || other.ID == first.ID {
		t.Fatalf("other user: created=%v err=%v", created, err)
	}
	for range 2 {
		if _, created, err := s.EnqueueJob(ctx, storage.NewJob{UserID: "u1", Kind: "turn_end", Payload: []byte(`{}`)}); err != nil || !created {
			t.Fatalf("no key: created=%v err=%v", created, err)
		}
	}
	if n := len(jobStates(t, s, "u1")); n != 3 {
		t.Fatalf("u1 has %d jobs, want 3", n)
	}
}

func TestEnqueueRejects(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	tests := []struct {
		name string
		job  storage.NewJob
	}{
		{"no user", storage.NewJob{Kind: "k", Payload: []byte(`{}`)}},
		{"no kind", storage.NewJob{UserID: "u", Payload: []byte(`{}`)}},
		{"array payload", storage.NewJob{UserID: "u", Kind: "k", Payload: []byte(`[1]`)}},
		{"bad json", storage.NewJob{UserID: "u", Kind: "k", Payload: []byte(`{`)}},
		{"control in key", storage.NewJob{UserID: "u", Kind: "k", Key: "a\nb", Payload: []byte(`{}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := s.EnqueueJob(t.Context(), tt.job); !errors.Is(err, storage.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

// TestClaimIsAtomic claims from many goroutines: every job is handed out
// exactly once.
func TestClaimIsAtomic(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	const jobs, workers = 60, 8
	for i := range jobs {
		mustEnqueue(t, s, fmt.Sprintf("u%d", i%3), "")
	}
	var (
		mu      sync.Mutex
		claimed = map[string]int{}
		wg      sync.WaitGroup
	)
	for range workers {
		wg.Go(func() {
			for {
				j, ok, err := s.ClaimJob(t.Context(), "turn_end", time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				mu.Lock()
				claimed[j.ID]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(claimed) != jobs {
		t.Fatalf("%d distinct jobs claimed, want %d", len(claimed), jobs)
	}
	for id, n := range claimed {
		if n != 1 {
			t.Fatalf("job %s claimed %d times", id, n)
		}
	}
}

func TestClaimKind(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	if _, _, err := s.EnqueueJob(t.Context(), storage.NewJob{UserID: "u", Kind: "other", Payload: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	claimNone(t, s)
	if _, ok, err := s.ClaimJob(t.Context(), "other", time.Minute); err != nil || !ok {
		t.Fatalf("claim other: ok=%v err=%v", ok, err)
	}
}

func TestFailRequeuesThenFails(t *testing.T) {
	s, c := mustOpenClock(t, "")
	ctx := t.Context()
	j := mustEnqueue(t, s, "u1", "r1")
	const maxAttempts = 3
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		got := mustClaim(t, s)
		if got.ID != j.ID || got.Attempts != attempt {
			t.Fatalf("claim %d = %s attempt %d", attempt, got.ID, got.Attempts)
		}
		after, err := s.FailJob(ctx, got, fmt.Sprintf("boom %d", attempt), maxAttempts, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if attempt < maxAttempts {
			if after.State != storage.JobPending || after.Error != fmt.Sprintf("boom %d", attempt) || !after.RunAfter.Equal(c.Now().Add(10*time.Second)) {
				t.Fatalf("after attempt %d: %+v", attempt, after)
			}
			// Backoff: not claimable before RunAfter.
			claimNone(t, s)
			c.Add(10 * time.Second)
			continue
		}
		if after.State != storage.JobFailed || after.Error != "boom 3" || after.Attempts != 3 {
			t.Fatalf("after the last attempt: %+v", after)
		}
	}
	claimNone(t, s)
	if _, err := s.FailJob(ctx, j, "late", maxAttempts, 0); !errors.Is(err, storage.ErrJobState) {
		t.Fatalf("fail of an unclaimed job: %v, want ErrJobState", err)
	}

	// Retry puts it back with fresh attempts; the error stays until it succeeds.
	if _, err := s.RetryJob(ctx, "u2", j.ID); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("retry as another user: %v, want ErrNotFound", err)
	}
	r, err := s.RetryJob(ctx, "u1", j.ID)
	if err != nil || r.State != storage.JobPending || r.Attempts != 0 || r.Error != "boom 3" {
		t.Fatalf("retry = %+v, %v", r, err)
	}
	if _, err := s.RetryJob(ctx, "", j.ID); !errors.Is(err, storage.ErrJobState) {
		t.Fatalf("retry of a pending job: %v, want ErrJobState", err)
	}
	got := mustClaim(t, s)
	if _, err := s.CompleteJob(ctx, got, storage.JobResult{}); err != nil {
		t.Fatal(err)
	}
	if done, _ := s.GetJob(ctx, "", j.ID); done.State != storage.JobDone || done.Error != "" {
		t.Fatalf("done = %+v", done)
	}
}

// TestFailWithoutRetries ends a job failed at once (maxAttempts 0: a
// permanent error).
func TestFailWithoutRetries(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	mustEnqueue(t, s, "u1", "")
	j, err := s.FailJob(t.Context(), mustClaim(t, s), "bad payload", 0, time.Hour)
	if err != nil || j.State != storage.JobFailed {
		t.Fatalf("%+v %v", j, err)
	}
}

func TestRecoverStaleJobs(t *testing.T) {
	s, c := mustOpenClock(t, "")
	ctx := t.Context()
	a := mustEnqueue(t, s, "u1", "a")
	b := mustEnqueue(t, s, "u1", "b")
	mustEnqueue(t, s, "u1", "c")
	ca := mustClaim(t, s) // lease: one minute
	c.Add(30 * time.Second)
	cb := mustClaim(t, s)

	// Within the lease nothing is stale.
	if rq, fl, err := s.RecoverStaleJobs(ctx, 3); err != nil || rq != 0 || fl != 0 {
		t.Fatalf("recover inside the lease: %d %d %v", rq, fl, err)
	}
	// The worker (alive: this store is open) hangs; 40 s later a's lease
	// has expired, b's not. (A worker whose process died is
	// TestDeadOwnerReclaimedOnOpen.)
	c.Add(40 * time.Second)
	rq, fl, err := s.RecoverStaleJobs(ctx, 3)
	if err != nil || rq != 1 || fl != 0 {
		t.Fatalf("recover: requeued %d failed %d err %v, want 1 0", rq, fl, err)
	}
	want := map[string]string{a.ID: storage.JobPending, b.ID: storage.JobProcessing}
	for id, st := range want {
		if got := jobStates(t, s, "u1")[id]; got != st {
			t.Fatalf("job %s is %s, want %s", id, got, st)
		}
	}
	// The old holder of a's claim lost it.
	if _, err := s.CompleteJob(ctx, ca, events(event(ca, 0, "late"))); !errors.Is(err, storage.ErrJobState) {
		t.Fatalf("complete after recovery: %v, want ErrJobState", err)
	}
	if evs, _ := s.ListEvents(ctx, "u1", storage.EventFilter{Limit: 10}); len(evs) != 0 {
		t.Fatalf("a lost claim stored %d events", len(evs))
	}
	if _, err := s.CompleteJob(ctx, cb, storage.JobResult{}); err != nil {
		t.Fatalf("b still holds its claim: %v", err)
	}
	// A job that used its attempts ends failed instead of looping.
	again := mustClaim(t, s)
	if again.ID != a.ID || again.Attempts != 2 {
		t.Fatalf("reclaim = %s attempt %d", again.ID, again.Attempts)
	}
	c.Add(2 * time.Minute)
	if rq, fl, err := s.RecoverStaleJobs(ctx, 2); err != nil || rq != 0 || fl != 1 {
		t.Fatalf("recover at max attempts: %d %d %v", rq, fl, err)
	}
	j, _ := s.GetJob(ctx, "u1", a.ID)
	if j.State != storage.JobFailed || j.Error == "" {
		t.Fatalf("a = %+v", j)
	}
}

func TestListJobs(t *testing.T) {
	s, c := mustOpenClock(t, "")
	ctx := t.Context()
	var u1 []string
	for i := range 5 {
		u1 = append(u1, mustEnqueue(t, s, "u1", fmt.Sprint(i)).ID)
		mustEnqueue(t, s, "u2", fmt.Sprint(i))
		c.Add(time.Second)
	}
	js, err := s.ListJobs(ctx, storage.JobFilter{UserID: "u1", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range js {
		if j.UserID != "u1" {
			t.Fatalf("u1's list holds %s of %s", j.ID, j.UserID)
		}
		got = append(got, j.ID)
	}
	if diff := cmp.Diff([]string{u1[4], u1[3], u1[2]}, got); diff != "" {
		t.Fatalf("newest first (-want +got):\n%s", diff)
	}
	if js, err := s.ListJobs(ctx, storage.JobFilter{UserID: "u1", State: storage.JobFailed, Limit: 10}); err != nil || len(js) != 0 {
		t.Fatalf("failed: %d %v", len(js), err)
	}
	if js, err := s.ListJobs(ctx, storage.JobFilter{Limit: 100}); err != nil || len(js) != 10 {
		t.Fatalf("every user: %d %v", len(js), err)
	}
	for _, f := range []storage.JobFilter{{Limit: 0}, {Limit: storage.MaxJobList + 1}, {State: "lost", Limit: 1}} {
		if _, err := s.ListJobs(ctx, f); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("%+v: %v, want ErrInvalid", f, err)
		}
	}
	if _, err := s.GetJob(ctx, "u2", u1[0]); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("u2 reads u1's job: %v", err)
	}
}

func TestPurgeJobs(t *testing.T) {
	s, c := mustOpenClock(t, "")
	ctx := t.Context()
	var failed []string
	for i := range 6 {
		mustEnqueue(t, s, "u1", fmt.Sprint(i))
		j, err := s.FailJob(ctx, mustClaim(t, s), "x", 1, 0)
		if err != nil || j.State != storage.JobFailed {
			t.Fatal(j, err)
		}
		failed = append(failed, j.ID)
		c.Add(24 * time.Hour)
	}
	pending := mustEnqueue(t, s, "u1", "p").ID
	// Older than 3 days: the first three.
	n, err := s.PurgeJobs(ctx, storage.JobPurge{State: storage.JobFailed, OlderThan: 72 * time.Hour})
	if err != nil || n != 3 {
		t.Fatalf("purge by age: %d %v, want 3", n, err)
	}
	// Keep the newest two.
	n, err = s.PurgeJobs(ctx, storage.JobPurge{State: storage.JobFailed, Keep: 2})
	if err != nil || n != 1 {
		t.Fatalf("purge by count: %d %v, want 1", n, err)
	}
	want := map[string]string{failed[4]: storage.JobFailed, failed[5]: storage.JobFailed, pending: storage.JobPending}
	if diff := cmp.Diff(want, jobStates(t, s, "u1")); diff != "" {
		t.Fatalf("left (-want +got):\n%s", diff)
	}
	if _, err := s.PurgeJobs(ctx, storage.JobPurge{State: storage.JobPending}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("purging pending jobs: %v, want ErrInvalid", err)
	}

	// A user's purge leaves the other users' jobs alone. Fail u1's
	// pending job (claimed first, it is older) and u2's.
	other := mustEnqueue(t, s, "u2", "q")
	for range 2 {
		if _, err := s.FailJob(ctx, mustClaim(t, s), "x", 1, 0); err != nil {
			t.Fatal(err)
		}
	}
	n, err = s.PurgeJobs(ctx, storage.JobPurge{State: storage.JobFailed, UserID: "u1", Keep: 1})
	if err != nil || n != 2 {
		t.Fatalf("purge of u1 keeping 1: %d %v, want 2", n, err)
	}
	if got := jobStates(t, s, "u2"); got[other.ID] != storage.JobFailed {
		t.Fatalf("u2's failed job after u1's purge: %v", got)
	}
	n, err = s.PurgeJobs(ctx, storage.JobPurge{State: storage.JobFailed, UserID: "u1"})
	if err != nil || n != 0 {
		t.Fatalf("purge without age or count: %d %v, want 0", n, err)
	}
	n, err = s.PurgeJobs(ctx, storage.JobPurge{State: storage.JobFailed, UserID: "u1", All: true})
	if err != nil || n != 1 {
		t.Fatalf("purge all of u1's failed jobs: %d %v, want 1", n, err)
	}
	if got := jobStates(t, s, "u2"); got[other.ID] != storage.JobFailed {
		t.Fatalf("u2's failed job after u1's purge: %v", got)
	}
}

func event(j storage.Job, i int, text string) storage.Event {
	return storage.Event{
		ID: fmt.Sprintf("%s:%d:sender", j.ID, i), UserID: j.UserID, JobID: j.ID, Perspective: storage.PerspectiveSender,
		RequestType: "private", Content: text, Original: text, IsAbsolute: true, Timestamp: t0, SenderID: "s1",
	}
}

func events(evs ...storage.Event) storage.JobResult { return storage.JobResult{Events: evs} }

func TestCompleteJobStoresEvents(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	ctx := t.Context()
	mustEnqueue(t, s, "u1", "r1")
	j := mustClaim(t, s)
	bad := event(j, 2, "x")
	bad.UserID = "u2"
	if _, err := s.CompleteJob(ctx, j, events(bad)); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("event of another user: %v", err)
	}
	evs := []storage.Event{event(j, 0, "Ann (s1) went to Paris on 2026-04-30"), event(j, 1, "Ann (s1) likes tea"), event(j, 1, "Ann (s1) likes tea")}
	if n, err := s.CompleteJob(ctx, j, events(evs...)); err != nil || n != (storage.JobOutcome{Events: 2}) {
		t.Fatalf("complete: %+v %v, want 2 new events (the repeated id once)", n, err)
	}
	if got := jobStates(t, s, "u1")[j.ID]; got != storage.JobDone {
		t.Fatalf("job is %s", got)
	}
	got, err := s.ListEvents(ctx, "u1", storage.EventFilter{JobID: j.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[0].Timestamp.Equal(t0) || got[0].SchemaVersion != storage.EventSchemaVersion || !got[0].IsAbsolute {
		t.Fatalf("events = %+v", got)
	}
	if other, _ := s.ListEvents(ctx, "u2", storage.EventFilter{Limit: 10}); len(other) != 0 {
		t.Fatalf("u2 sees %d of u1's events", len(other))
	}
	if _, err := s.ListEvents(ctx, "u1", storage.EventFilter{}); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("no limit: %v", err)
	}
}

func TestDeleteUserForgetsJobsAndEvents(t *testing.T) {
	s, _ := mustOpenClock(t, "")
	ctx := t.Context()
	mustEnqueue(t, s, "u1", "r1")
	mustEnqueue(t, s, "u1", "r2")
	mustEnqueue(t, s, "u2", "r1")
	j := mustClaim(t, s)
	if _, err := s.CompleteJob(ctx, j, events(event(j, 0, "fact"))); err != nil {
		t.Fatal(err)
	}
	held := mustClaim(t, s)
	if _, err := s.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if n := len(jobStates(t, s, "u1")); n != 0 {
		t.Fatalf("%d jobs left", n)
	}
	if evs, _ := s.ListEvents(ctx, "u1", storage.EventFilter{Limit: 10}); len(evs) != 0 {
		t.Fatalf("%d events left", len(evs))
	}
	// The worker holding the deleted user's job writes nothing more.
	if _, err := s.CompleteJob(ctx, held, events(event(held, 0, "late"))); !errors.Is(err, storage.ErrJobState) {
		t.Fatalf("late completion: %v, want ErrJobState", err)
	}
	if evs, _ := s.ListEvents(ctx, "u1", storage.EventFilter{Limit: 10}); len(evs) != 0 {
		t.Fatalf("%d late events", len(evs))
	}
	if n := len(jobStates(t, s, "u2")); n != 1 {
		t.Fatalf("u2 lost its job: %d", n)
	}
}

// TestQueueBesideOpenStore opens the job table while a full store holds
// the lexical index, as `recalld jobs` does beside a running server.
func TestQueueBesideOpenStore(t *testing.T) {
	dir := t.TempDir()
	full := storagetest.Open(t, storage.Config{Dir: dir})
	j, _, err := full.EnqueueJob(t.Context(), storage.NewJob{UserID: "u1", Kind: "turn_end", Payload: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		q, err := storage.OpenQueue(t.Context(), storage.QueueConfig{Dir: dir})
		if err != nil {
			done <- err
			return
		}
		_, err = q.GetJob(t.Context(), "", j.ID)
		done <- errors.Join(err, q.Close())
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("OpenQueue blocked on the open store")
	}
}
