package storage_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// TestCrashChild is the child of TestCrashSafety: it ingests batches until
// killed, printing "ack RUN BATCH" after each batch is acknowledged.
func TestCrashChild(t *testing.T) {
	dir, run := storagetest.CrashChild(t)
	s := storagetest.Open(t, storage.Config{Dir: dir, IndexBatch: 64})
	fmt.Println("ready")
	for b := 0; ; b++ {
		var msgs []storage.Message
		for i := range 50 {
			id := fmt.Sprintf("r%s-b%d-%d", run, b, i)
			msgs = append(msgs, storage.Message{ID: id, Role: "user", ConversationID: "c",
				Content: "token" + strings.ReplaceAll(id, "-", "x") + " some chat text", CreatedAt: time.Unix(int64(b*100+i), 0)})
		}
		// Re-send the previous batch too: duplicates must stay no-ops across crashes.
		if _, err := s.Insert(t.Context(), "crash-user", msgs); err != nil {
			fmt.Println("insert error", err)
			os.Exit(4)
		}
		fmt.Printf("ack %s %d\n", run, b)
	}
}

func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir := t.TempDir()
	acked := map[string]bool{} // message ids acknowledged to a child
	r := rand.New(rand.NewPCG(7, 11))
	const runs = 10
	storagetest.CrashLoop(t, storagetest.Crash{
		Child: "TestCrashChild", Dir: dir, Runs: runs,
		KillAfter: func() time.Duration { return time.Duration(300+r.IntN(1200)) * time.Millisecond },
		Ack: func(run, b int) {
			for i := range 50 {
				acked[fmt.Sprintf("r%d-b%d-%d", run, b, i)] = true
			}
		},
	})
	if len(acked) == 0 {
		t.Fatal("no batch was acknowledged before the kills")
	}
	s := storagetest.Open(t, storage.Config{Dir: dir})
	mustDrain(t, s)
	n, err := s.Count(t.Context(), "crash-user", storage.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if n < len(acked) {
		t.Fatalf("store has %d messages, %d were acknowledged", n, len(acked))
	}
	seen := map[string]int{}
	for cursor, first := "", true; first || cursor != ""; first = false {
		page, next, err := s.List(t.Context(), "crash-user", storage.Filter{}, 200, cursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			seen[m.ID]++
		}
		cursor = next
	}
	for id := range acked {
		if seen[id] != 1 {
			t.Fatalf("acknowledged message %s present %d times", id, seen[id])
		}
	}
	// Every acknowledged message is searchable once the outbox drained.
	checked := 0
	for id := range acked {
		if checked == 200 {
			break
		}
		checked++
		tok := "token" + strings.ReplaceAll(id, "-", "x")
		hits, _, err := s.LexicalSearch(t.Context(), "crash-user", storage.LexicalQuery{Text: tok, Size: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].ID != id {
			t.Fatalf("lexical search for %s after recovery: %v", id, hitIDs(hits))
		}
	}
	st, err := s.Status(t.Context())
	if err != nil || st.Pending != 0 {
		t.Fatalf("outbox not drained: %+v %v", st, err)
	}
	// Each vector is in exactly one of the two tiers, the one the user's
	// promotion (a transaction the kills may have cut) says.
	p, err := s.VectorPlacement(t.Context(), "crash-user")
	if err != nil {
		t.Fatal(err)
	}
	if p.Both != 0 || p.Small+p.Big != p.Stored || p.Stored != n || (p.Promoted && p.Small != 0) || (!p.Promoted && p.Big != 0) {
		t.Fatalf("vectors after recovery: %+v, %d messages", p, n)
	}
	t.Logf("%d runs, %d acknowledged messages, %d stored, vectors %+v", runs, len(acked), n, p)
}

// TestEventCrashChild is the child of TestEventIndexCrashSafety: it stores
// events through jobs until killed, printing "ack RUN JOB" after each job's
// events are committed. The indexer runs meanwhile, so kills land before,
// inside and after indexing batches.
func TestEventCrashChild(t *testing.T) {
	dir, run := storagetest.CrashChild(t)
	s := storagetest.Open(t, storage.Config{Dir: dir, IndexBatch: 16})
	fmt.Println("ready")
	for b := 0; ; b++ {
		key := fmt.Sprintf("r%sx%d", run, b)
		if _, _, err := s.EnqueueJob(t.Context(), storage.NewJob{UserID: "crash-user", Kind: "seed", Payload: []byte(`{}`)}); err != nil {
			fmt.Println("enqueue error", err)
			os.Exit(4)
		}
		j, ok, err := s.ClaimJob(t.Context(), "seed", time.Hour)
		if err != nil || !ok {
			fmt.Println("claim error", err)
			os.Exit(4)
		}
		var evs []storage.Event
		for i := range 5 {
			text := fmt.Sprintf("Ann (1) noted token%sx%d on 2026-05-01", key, i)
			evs = append(evs, storage.Event{ID: fmt.Sprintf("%s:%d:sender", key, i), UserID: "crash-user", JobID: j.ID, GroupID: "run" + run,
				Perspective: storage.PerspectiveSender, RequestType: "private", Content: text, Original: text, Timestamp: time.Unix(int64(b), 0)})
		}
		if _, err := s.CompleteJob(t.Context(), j, storage.JobResult{Events: evs}); err != nil {
			fmt.Println("complete error", err)
			os.Exit(4)
		}
		fmt.Printf("ack %s %d\n", run, b)
		time.Sleep(2 * time.Millisecond) // at most a few hundred events per run
	}
}

// TestEventIndexCrashSafety kills processes storing events at random times
// and checks that every acknowledged event is stored once and, after a
// restart, found by the lexical and the semantic search.
func TestEventIndexCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir := t.TempDir()
	var acked []string      // event keys acknowledged to a child
	perRun := map[int]int{} // acknowledged events by run
	r := rand.New(rand.NewPCG(3, 5))
	storagetest.CrashLoop(t, storagetest.Crash{
		Child: "TestEventCrashChild", Dir: dir, Runs: 6,
		KillAfter: func() time.Duration { return time.Duration(300+r.IntN(900)) * time.Millisecond },
		Ack: func(run, b int) {
			for i := range 5 {
				acked = append(acked, fmt.Sprintf("r%dx%dx%d", run, b, i))
			}
			perRun[run] += 5
		},
	})
	if len(acked) == 0 {
		t.Fatal("no job was acknowledged before the kills")
	}
	s := storagetest.Open(t, storage.Config{Dir: dir})
	mustDrain(t, s)
	var evs []storage.Event
	for run, n := range perRun {
		got, err := s.ListEvents(t.Context(), "crash-user", storage.EventFilter{GroupID: "run" + strconv.Itoa(run), Limit: storage.MaxEventList})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) < n || len(got) == storage.MaxEventList {
			t.Fatalf("run %d: %d events stored, %d acknowledged", run, len(got), n)
		}
		evs = append(evs, got...)
	}
	for i, key := range acked {
		if i%7 != 0 && i != len(acked)-1 {
			continue // a sample, and the last acknowledged
		}
		res, err := s.SearchEvents(t.Context(), "crash-user", storage.EventQuery{Text: "token" + key, Size: 3})
		if err != nil {
			t.Fatal(err)
		}
		// Recovery is what is checked, not fusion: the event must be the
		// lexical top hit and have a vector (a similar token of another
		// event may still fuse above it).
		i := slices.IndexFunc(res.Hits, func(h storage.EventHit) bool { return strings.Contains(h.Content, "token"+key+" ") })
		if i < 0 || res.Hits[i].LexicalRank != 1 || res.Hits[i].Similarity <= 0 {
			t.Fatalf("event %s after recovery: %+v", key, res.Hits)
		}
	}
	var indexed int
	for _, e := range evs {
		res, err := s.SearchEvents(t.Context(), "crash-user", storage.EventQuery{Text: e.Content, Size: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) > 0 && res.Hits[0].SemanticRank == 1 {
			indexed++
		}
		if indexed > 50 {
			break
		}
	}
	if indexed == 0 {
		t.Fatal("no event has a vector after recovery")
	}
	st, err := s.Status(t.Context())
	if err != nil || st.Pending != 0 {
		t.Fatalf("outbox not drained: %+v %v", st, err)
	}
	t.Logf("%d acknowledged events, %d stored", len(acked), len(evs))
}

// TestLegacyMoveCrashChild is the child of TestLegacyMoveCrashSafety: it
// opens the store, which moves the large users' vectors out of the
// unsharded twin of before, and prints "ack RUN 1" once Open returns.
func TestLegacyMoveCrashChild(t *testing.T) {
	dir, run := storagetest.CrashChild(t)
	fmt.Println("ready")
	s, err := storage.Open(t.Context(), storage.Config{Dir: dir, NoIndexer: true})
	if err != nil {
		fmt.Println("open error", err)
		os.Exit(4)
	}
	defer s.Close()
	fmt.Printf("ack %s 1\n", run)
	select {} // until killed
}

// TestLegacyMoveCrashSafety kills processes while Open moves large users'
// vectors from the unsharded twin of before into the sharded one (one
// transaction a user), and checks that the next Open finishes the move
// with every vector in the sharded twin once and nothing left behind.
func TestLegacyMoveCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir := t.TempDir()
	users := []string{"big-a", "big-b", "big-c", "big-d"}
	const n = 700
	s := storagetest.Open(t, storage.Config{Dir: dir})
	for _, u := range users {
		var msgs []storage.Message
		for i := range n {
			msgs = append(msgs, storage.Message{ID: fmt.Sprintf("m%d", i), Role: "user", ConversationID: "c",
				Content: fmt.Sprintf("%s note %d about topic%d", u, i, i%13), CreatedAt: time.Unix(int64(i*60), 0)})
		}
		if _, err := s.Insert(t.Context(), u, msgs); err != nil {
			t.Fatal(err)
		}
	}
	mustDrain(t, s)
	for _, u := range users {
		if err := s.MakeLegacyBig(t.Context(), u); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 8))
	opened := 0
	storagetest.CrashLoop(t, storagetest.Crash{
		Child: "TestLegacyMoveCrashChild", Dir: dir, Runs: 4,
		KillAfter: func() time.Duration { return time.Duration(20+r.IntN(400)) * time.Millisecond },
		Ack:       func(run, _ int) { opened++ },
	})
	s = storagetest.Open(t, storage.Config{Dir: dir})
	for _, u := range users {
		p, err := s.VectorPlacement(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		if want := (storage.VectorPlacement{Stored: n, Big: n, Promoted: true}); p != want {
			t.Fatalf("%s after the move: %+v, want %+v", u, p, want)
		}
		hits, err := s.SemanticSearch(t.Context(), u, storage.SemanticQuery{Text: u + " note 42 about topic3", TopK: 3})
		if err != nil || len(hits) == 0 || hits[0].ID != "m42" {
			t.Fatalf("%s: search after the move: %v %v", u, hitIDs(hits), err)
		}
	}
	t.Logf("%d of 4 children finished opening before the kill", opened)
}
