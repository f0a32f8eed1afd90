package storagetest

import (
	"os/signal"
	"syscall"
	"testing"
)

// DiskFull makes the store fail for real the way a full disk does: no file
// of this process may grow past one byte (RLIMIT_FSIZE; SIGXFSZ ignored, so
// writes fail with EFBIG), which no file permission can do for root. Reads
// still work. It skips the test where the limit cannot be set. The returned
// function lifts the limit; so does the test's cleanup.
func DiskFull(tb testing.TB) (restore func()) {
	tb.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		tb.Fatal(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 1, Max: old.Max}); err != nil {
		tb.Skipf("cannot limit the file size: %v", err)
	}
	done := false
	restore = func() {
		if done {
			return
		}
		done = true
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			tb.Fatal(err)
		}
		signal.Reset(syscall.SIGXFSZ)
	}
	tb.Cleanup(restore)
	return restore
}
