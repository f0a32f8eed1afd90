package storagetest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// The environment a CrashLoop child reads: the data dir and the run number.
const (
	crashDirEnv = "RECALLD_CRASH_DIR"
	crashRunEnv = "RECALLD_CRASH_RUN"
)

// Crash describes a crash loop: Runs times, the test Child runs in a child
// process on Dir and is killed with SIGKILL KillAfter() after it prints
// "ready". Meanwhile it prints "ack RUN N" lines, each reported to Ack.
type Crash struct {
	Child     string // the name of the test the child runs, say "TestCrashChild"
	Dir       string // the data dir all runs share
	Runs      int
	KillAfter func() time.Duration // how long after "ready" the kill comes
	Ack       func(run, n int)
}

// readyTimeout bounds a child's start-up (slow under -race on a loaded
// machine).
const readyTimeout = 60 * time.Second

// CrashLoop runs c's child c.Runs times, killing each at a random moment,
// and reports every acknowledgement it printed. A line that is neither
// "ready" nor an acknowledgement (say "open error …") fails the test.
func CrashLoop(t *testing.T, c Crash) {
	t.Helper()
	for run := range c.Runs {
		cmd := exec.Command(os.Args[0], "-test.run=^"+c.Child+"$", "-test.v=false")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+c.Dir, crashRunEnv+"="+strconv.Itoa(run))
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
		var kill <-chan time.Time
		deadline := time.After(readyTimeout)
	read:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break read
				}
				if l == "ready" {
					kill, deadline = time.After(c.KillAfter()), nil
					continue
				}
				var rr, n int
				if _, err := fmt.Sscanf(l, "ack %d %d", &rr, &n); err != nil {
					_ = cmd.Process.Signal(syscall.SIGKILL)
					t.Fatalf("child: %s", l)
				}
				c.Ack(rr, n)
			case <-kill:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				kill = nil
			case <-deadline:
				_ = cmd.Process.Signal(syscall.SIGKILL)
				t.Fatal("child did not start writing")
			}
		}
		_ = cmd.Wait()
	}
}

// CrashChild returns the data dir and run number of a child CrashLoop
// started, and skips the test when it runs on its own. The child opens its
// store there, prints "ready", then writes, printing "ack RUN N" after each
// acknowledged write, until it is killed; whatever else it prints (a failed
// open, say) fails the loop.
func CrashChild(t *testing.T) (dir, run string) {
	dir = os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("the child process of a crash loop")
	}
	return dir, os.Getenv(crashRunEnv)
}
