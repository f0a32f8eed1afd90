package storagetest

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"testing"
)

// isolatedEnv marks the child process Isolated starts.
const isolatedEnv = "RECALLD_TEST_ISOLATED"

// Isolated runs the calling top-level test again in a child process of
// the test binary and reports whether the caller should return at once
// (it then has: the child's result is the test's). A test that fills the
// disk (DiskFull) calls it first: go test has the binary log every file
// it opens to a file of its own (-test.testlogfile), and under the file
// size limit that log can no longer be written, which fails the whole
// package. The child runs without that log; where there is none (go test
// -count=1 runs, a binary run by hand) the test runs in place.
func Isolated(t *testing.T) bool {
	t.Helper()
	if os.Getenv(isolatedEnv) != "" {
		return false
	}
	if f := flag.Lookup("test.testlogfile"); f == nil || f.Value.String() == "" {
		return false
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), isolatedEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s in a child process: %v\n%s", t.Name(), err, out)
	}
	t.Logf("%s passed in a child process without go test's file log", t.Name())
	return true
}
