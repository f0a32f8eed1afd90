package storage_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// memoCrashTurns is how many turns one child enqueues at most (under
// MaxJobList, so one list shows them all).
const memoCrashTurns = 900

// TestMemoCrashChild is the child of TestMemoCrashSafety: it enqueues turns
// with memos (each one re-sending the previous request id too) until killed,
// printing "ack RUN I" once turn I is acknowledged.
func TestMemoCrashChild(t *testing.T) {
	dir, run := storagetest.CrashChild(t)
	s := storagetest.OpenQueue(t, storage.QueueConfig{Dir: dir})
	fmt.Println("ready")
	enqueue := func(i int) {
		key := fmt.Sprintf("req-%d", i)
		_, _, err := s.EnqueueJob(t.Context(), storage.NewJob{UserID: "crash-" + run, Kind: "turn_end", Key: key,
			Payload: json.RawMessage(`{}`),
			Memo:    &storage.NewMemo{Content: "memo of " + key, RequestType: "private", Timestamp: time.Unix(int64(i), 0)}})
		if err != nil {
			fmt.Println("enqueue error", err)
			os.Exit(4)
		}
	}
	for i := range memoCrashTurns {
		enqueue(i)
		if i > 0 {
			enqueue(i - 1) // a replay: must store nothing
		}
		fmt.Printf("ack %s %d\n", run, i)
	}
	time.Sleep(time.Hour) // wait for the kill
}

// TestMemoCrashSafety kills writers of turns with memos at random moments
// and checks that the job and its memo are one transaction: every
// acknowledged turn has both, no job is left without its memo nor a memo
// without its job, and replays stored nothing twice.
func TestMemoCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 5))
	const runs = 6
	acked := make([]int, runs) // turns acknowledged per run
	storagetest.CrashLoop(t, storagetest.Crash{
		Child: "TestMemoCrashChild", Dir: dir, Runs: runs,
		KillAfter: func() time.Duration { return time.Duration(50+r.IntN(500)) * time.Millisecond },
		Ack:       func(run, i int) { acked[run] = i + 1 },
	})
	s, _ := mustOpenClock(t, dir)
	total := 0
	for run := range runs {
		user := fmt.Sprintf("crash-%d", run)
		jobs, err := s.ListJobs(t.Context(), storage.JobFilter{UserID: user, Limit: storage.MaxJobList})
		if err != nil {
			t.Fatal(err)
		}
		memos, err := s.ListMemos(t.Context(), user, storage.MemoFilter{Limit: storage.MaxMemoList})
		if err != nil {
			t.Fatal(err)
		}
		byKey := map[string]storage.Memo{}
		for _, m := range memos {
			if _, dup := byKey[m.RequestID]; dup {
				t.Fatalf("%s: request %s has two memos", user, m.RequestID)
			}
			byKey[m.RequestID] = m
		}
		if len(jobs) != len(memos) {
			t.Fatalf("%s: %d jobs but %d memos", user, len(jobs), len(memos))
		}
		for _, j := range jobs {
			m, ok := byKey[j.Key]
			if !ok || m.JobID != j.ID || m.Content != "memo of "+j.Key {
				t.Fatalf("%s: job %s (%s) has memo %+v", user, j.ID, j.Key, m)
			}
		}
		for i := range acked[run] {
			if _, ok := byKey[fmt.Sprintf("req-%d", i)]; !ok {
				t.Fatalf("%s: acknowledged turn %d lost", user, i)
			}
		}
		total += acked[run]
	}
	if total == 0 {
		t.Fatal("no turn was acknowledged before the kills")
	}
	t.Logf("%d runs, %d acknowledged turns", runs, total)
}
