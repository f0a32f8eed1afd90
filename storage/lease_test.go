package storage_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

const leaseChildEnv = "RECALLD_LEASE_CHILD_DIR"

// TestLeaseChild is the child process of TestDeadOwnerReclaimedOnOpen: it
// opens the data dir beside its parent (OpenQueue, as `recalld jobs` or a
// second worker would), claims the one pending job for 300 s, says
// "claimed ID" and waits to be killed.
func TestLeaseChild(t *testing.T) {
	dir := os.Getenv(leaseChildEnv)
	if dir == "" {
		t.Skip("child process of TestDeadOwnerReclaimedOnOpen")
	}
	s, err := storage.OpenQueue(t.Context(), storage.QueueConfig{Dir: dir})
	if err != nil {
		fmt.Println("open error", err)
		os.Exit(3)
	}
	j, ok, err := s.ClaimJob(t.Context(), "turn_end", 300*time.Second)
	if err != nil || !ok {
		fmt.Println("claim error", ok, err)
		os.Exit(4)
	}
	fmt.Println("claimed", j.ID)
	time.Sleep(time.Minute)
	os.Exit(5) // the parent kills it long before
}

// startLeaseChild runs TestLeaseChild on dir and returns once it holds its
// claim; the child is killed at the end of the test at the latest.
func startLeaseChild(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeaseChild$", "-test.v=false")
	cmd.Env = append(os.Environ(), leaseChildEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	id, ok := strings.CutPrefix(strings.TrimSpace(line), "claimed ")
	if err != nil || !ok {
		t.Fatalf("child: %q %v", line, err)
	}
	return cmd, id
}

// TestDeadOwnerReclaimedOnOpen: a job claimed by a live second process keeps
// its claim, however often this process opens the data dir or recovers
// stale jobs; once that process is killed (SIGKILL: no clean-up ran), the
// next Open returns the job to pending at once, long before its 300 s lease
// ends, without counting the cut-off attempt, and it runs.
func TestDeadOwnerReclaimedOnOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a child process")
	}
	dir := t.TempDir()
	s := storagetest.Open(t, storage.Config{Dir: dir})
	j := mustEnqueue(t, s, "u1", "k")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	child, id := startLeaseChild(t, dir)
	if id != j.ID {
		t.Fatalf("child claimed %s, want %s", id, j.ID)
	}

	// The child is alive: neither an Open nor recovery takes its job.
	s = storagetest.Open(t, storage.Config{Dir: dir})
	if rq, fl, err := s.RecoverStaleJobs(t.Context(), 4); err != nil || rq != 0 || fl != 0 {
		t.Fatalf("recover beside a live owner: %d %d %v", rq, fl, err)
	}
	if got, _ := s.GetJob(t.Context(), "u1", j.ID); got.State != storage.JobProcessing || got.Attempts != 1 {
		t.Fatalf("job of a live owner = %+v", got)
	}
	claimNone(t, s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	s = storagetest.Open(t, storage.Config{Dir: dir})
	got, err := s.GetJob(t.Context(), "u1", j.ID)
	if err != nil || got.State != storage.JobPending || got.Attempts != 0 || !got.RunAfter.IsZero() {
		t.Fatalf("job of a killed owner after Open = %+v %v, want pending with 0 attempts", got, err)
	}
	c := mustClaim(t, s)
	if c.ID != j.ID || c.Attempts != 1 {
		t.Fatalf("claim = %s attempt %d", c.ID, c.Attempts)
	}
	if _, err := s.CompleteJob(t.Context(), c, storage.JobResult{}); err != nil {
		t.Fatal(err)
	}
	// The dead owner's lock file is gone; only this store's is left.
	if locks, _ := filepath.Glob(filepath.Join(dir, "leases", "*.lock")); len(locks) != 1 {
		t.Fatalf("lock files %v, want this store's only", locks)
	}
}

// TestLiveOwnerKeepsClaim: two stores open on one data dir in one process
// (each Open is its own owner with its own lock) do not take each other's
// jobs while both are open; once one closes with a job in hand, the other
// takes it back at its next recovery, uncounted, and the closed owner's
// late completion is refused.
func TestLiveOwnerKeepsClaim(t *testing.T) {
	dir := t.TempDir()
	a, c := mustOpenClock(t, dir)
	j := mustEnqueue(t, a, "u1", "k")
	claimed := mustClaim(t, a)
	b := storagetest.OpenQueue(t, storage.QueueConfig{Dir: dir, Now: c.Now})
	if n, err := b.ReclaimDeadLeases(t.Context()); err != nil || n != 0 {
		t.Fatalf("reclaim beside a live owner: %d %v", n, err)
	}
	if got, _ := b.GetJob(t.Context(), "", j.ID); got.State != storage.JobProcessing {
		t.Fatalf("job of a live owner = %+v", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if rq, fl, err := b.RecoverStaleJobs(t.Context(), 4); err != nil || rq != 1 || fl != 0 {
		t.Fatalf("recover after the owner closed: %d %d %v", rq, fl, err)
	}
	again, ok, err := b.ClaimJob(t.Context(), "turn_end", time.Minute)
	if err != nil || !ok || again.ID != j.ID || again.Attempts != 1 {
		t.Fatalf("claim = %+v %v %v", again, ok, err)
	}
	// Same attempt number, other owner: the dead claim is fenced off.
	if _, err := b.CompleteJob(t.Context(), claimed, storage.JobResult{}); !errors.Is(err, storage.ErrJobState) {
		t.Fatalf("complete by the closed owner: %v, want ErrJobState", err)
	}
	if _, err := b.CompleteJob(t.Context(), again, storage.JobResult{}); err != nil {
		t.Fatal(err)
	}
}

// TestInterruptionsDoNotFail: a job whose process stops in the middle five
// times (more than its 4 attempts) is not failed for it and runs to the end;
// a job whose attempts really fail still ends failed.
func TestInterruptionsDoNotFail(t *testing.T) {
	dir := t.TempDir()
	const maxAttempts = 4
	var id string
	for i := range 5 {
		s := storagetest.OpenQueue(t, storage.QueueConfig{Dir: dir})
		if i == 0 {
			id = mustEnqueue(t, s, "u1", "k").ID
		}
		if rq, fl, err := s.RecoverStaleJobs(t.Context(), maxAttempts); err != nil || fl != 0 {
			t.Fatalf("run %d: recover: %d %d %v", i, rq, fl, err)
		}
		if c := mustClaim(t, s); c.ID != id || c.Attempts != 1 {
			t.Fatalf("run %d: claim %s attempt %d, want attempt 1", i, c.ID, c.Attempts)
		}
		if err := s.Close(); err != nil { // the process stops mid-job
			t.Fatal(err)
		}
	}
	s := storagetest.Open(t, storage.Config{Dir: dir})
	got, err := s.GetJob(t.Context(), "u1", id)
	if err != nil || got.State != storage.JobPending || got.Attempts != 0 || !strings.Contains(got.Error, "interrupted") {
		t.Fatalf("after 5 interruptions: %+v %v", got, err)
	}
	c := mustClaim(t, s)
	if _, err := s.CompleteJob(t.Context(), c, storage.JobResult{}); err != nil {
		t.Fatal(err)
	}

	// Real failures still count.
	f := mustEnqueue(t, s, "u1", "f").ID
	for range maxAttempts {
		c, ok, err := s.ClaimJob(t.Context(), "turn_end", time.Minute)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if _, err := s.FailJob(t.Context(), c, "boom", maxAttempts, 0); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := s.GetJob(t.Context(), "u1", f); got.State != storage.JobFailed || got.Attempts != maxAttempts {
		t.Fatalf("failing job = %+v", got)
	}
}
