package storage_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
)

const crashChildEnv = "RECALLD_CRASH_CHILD_DIR"

// TestCrashChild is the child of TestCrashSafety: it ingests batches until
// killed, printing "ack RUN BATCH" after each batch is acknowledged.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashChildEnv)
	if dir == "" {
		t.Skip("child process of TestCrashSafety")
	}
	run := os.Getenv("RECALLD_CRASH_RUN")
	s, err := storage.Open(t.Context(), storage.Config{Dir: dir, IndexBatch: 64})
	if err != nil {
		fmt.Println("open error", err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
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
		fmt.Fprintf(out, "ack %s %d\n", run, b)
		out.Flush()
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
	for run := range runs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v=false")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+dir, "RECALLD_CRASH_RUN="+strconv.Itoa(run))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		kill := time.After(time.Duration(300+r.IntN(1200)) * time.Millisecond)
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				var rr, b int
				if _, err := fmt.Sscanf(l, "ack %d %d", &rr, &b); err != nil {
					t.Fatalf("child: %s", l)
				}
				for i := range 50 {
					acked[fmt.Sprintf("r%d-b%d-%d", rr, b, i)] = true
				}
			case <-kill:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				kill = nil
			}
		}
		_ = cmd.Wait()
	}
	if len(acked) == 0 {
		t.Fatal("no batch was acknowledged before the kills")
	}
	s := mustOpen(t, dir)
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
	t.Logf("%d runs, %d acknowledged messages, %d stored", runs, len(acked), n)
}
