package main

// The reliability drills (TestDrill*): tenant isolation over every route,
// kill -9 of the whole server, a mixed load and adversarial inputs. make
// test runs their short versions; RECALLD_DRILL=long (make drill) runs them
// at full length. Each logs its figures on lines starting with "DRILL ",
// which make drill prints.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/httpapi/httpapitest"
)

// drillLong reports whether the drills run at full length (RECALLD_DRILL=long).
func drillLong() bool { return os.Getenv("RECALLD_DRILL") == "long" }

// drillScale is short under make test and long under make drill.
func drillScale[T any](short, long T) T {
	if drillLong() {
		return long
	}
	return short
}

// drillFigure logs one figure of a drill where make drill finds it.
func drillFigure(t testing.TB, drill, format string, args ...any) {
	t.Helper()
	t.Logf("DRILL %s: %s", drill, fmt.Sprintf(format, args...))
}

// drillClient sends requests as one user, for goroutines: it never fails
// the test itself.
type drillClient struct {
	hc   *http.Client
	base string
	user string
	key  string
}

// drillResp is one answered (or failed) request.
type drillResp struct {
	status int
	body   []byte
	dur    time.Duration
	err    error // transport error
}

func (r drillResp) String() string {
	if r.err != nil {
		return "transport error: " + r.err.Error()
	}
	b := r.body
	if len(b) > 300 {
		b = append(b[:300:300], "…"...)
	}
	return fmt.Sprintf("%d %s", r.status, b)
}

// newDrillHTTP is a client for many concurrent requests to one server.
func newDrillHTTP(timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 256, 256
	return &http.Client{Transport: tr, Timeout: timeout}
}

// send sends body (a string or []byte as is, anything else as JSON).
func (c drillClient) send(ctx context.Context, method, path string, body any, hdr ...string) drillResp {
	if path == "/mcp" {
		hdr = append([]string{"Accept", "application/json, text/event-stream"}, hdr...)
	}
	req, err := httpapitest.NewRequest(ctx, method, c.base+path, c.user, c.key, body, hdr...)
	if err != nil {
		return drillResp{err: err}
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return drillResp{err: err, dur: time.Since(start)}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return drillResp{status: resp.StatusCode, body: out, dur: time.Since(start), err: err}
}

// mcpCall is the JSON-RPC body of one MCP tool call (stateless /mcp needs no
// handshake).
func mcpCall(id int, tool string, args any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}}
}

// mcpToolFailed reports whether an MCP answer is a JSON-RPC error or a tool
// result with isError, and its text.
func mcpToolFailed(body []byte) (bool, string) {
	var r struct {
		Error  *struct{ Message string } `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return true, "not JSON-RPC: " + err.Error()
	}
	if r.Error != nil {
		return true, r.Error.Message
	}
	if r.Result.IsError {
		var txt []string
		for _, c := range r.Result.Content {
			txt = append(txt, c.Text)
		}
		return true, strings.Join(txt, " ")
	}
	return false, ""
}

// latencies collects request durations by route, safe for goroutines.
type latencies struct {
	mu sync.Mutex
	by map[string][]time.Duration
}

func (l *latencies) add(route string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string][]time.Duration{}
	}
	l.by[route] = append(l.by[route], d)
}

// report logs count, p50, p95, p99 and max per route, routes sorted.
func (l *latencies) report(t testing.TB, drill string) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	routes := make([]string, 0, len(l.by))
	for r := range l.by {
		routes = append(routes, r)
	}
	slices.Sort(routes)
	for _, r := range routes {
		ds := l.by[r]
		drillFigure(t, drill, "%-24s n=%-6d p50=%-8s p95=%-8s p99=%-8s max=%s", r, len(ds),
			percentile(ds, 50), percentile(ds, 95), percentile(ds, 99), percentile(ds, 100))
	}
}

// percentile is the p-th percentile (nearest rank) of ds, rounded for reading.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	i = min(max(i, 0), len(s)-1)
	return roundDur(s[i])
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// The drills run `recalld serve` in a child process where they must kill
// it or measure its memory: the test binary runs itself with
// -test.run=^TestDrillChildServe$ and the serve arguments in drillChildEnv.
const drillChildEnv = "RECALLD_DRILL_CHILD_ARGS"

// TestDrillChildServe is the child of the drills that run the server in
// its own process: it serves until killed or sent SIGTERM, after printing
// "listening ADDR" on stdout.
func TestDrillChildServe(t *testing.T) {
	raw := os.Getenv(drillChildEnv)
	if raw == "" {
		t.Skip("child process of the drills")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	a := &app{getenv: os.Getenv, stdin: strings.NewReader(""), stdout: io.Discard, stderr: os.Stderr,
		onListen: func(ad net.Addr) { fmt.Printf("listening %s\n", ad) }}
	if err := a.run(ctx, append([]string{"serve"}, args...)); err != nil {
		fmt.Println("serve error:", err)
		os.Exit(3)
	}
}

// childServer is `recalld serve` in a child process.
type childServer struct {
	t       testing.TB
	cmd     *exec.Cmd
	base    string
	started time.Duration // from exec to listening
	logs    *syncBuffer   // the child's stderr
	exited  chan struct{}
	peakRSS atomic.Int64 // bytes, sampled by watchRSS
}

// startChild runs serve on dataDir in a child process with env (RECALLD_*
// names; the hashing embedder unless env names one) and waits until it
// listens on a loopback port.
func startChild(t testing.TB, dataDir string, env map[string]string, args ...string) *childServer {
	t.Helper()
	full := append([]string{"-addr", "127.0.0.1:0", "-data", dataDir, "-log-level", "warn"}, args...)
	j, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDrillChildServe$", "-test.v=false", "-test.timeout=0")
	cmd.Env = append(os.Environ(), drillChildEnv+"="+string(j))
	if _, ok := env["RECALLD_EMBEDDER"]; !ok {
		cmd.Env = append(cmd.Env, "RECALLD_EMBEDDER=hash")
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cs := &childServer{t: t, cmd: cmd, logs: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = struct{ io.Writer }{cs.logs} // Write only: bytes.Buffer's ReadFrom would bypass the lock
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				addr <- a
			} else {
				cs.logs.Write([]byte("stdout: " + sc.Text() + "\n"))
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(cs.exited)
	}()
	select {
	case a := <-addr:
		cs.base = "http://" + a
	case <-cs.exited:
		t.Fatalf("child server exited before listening:\n%s", cs.logs.String())
	case <-time.After(90 * time.Second):
		cs.kill()
		t.Fatalf("child server did not listen within 90 s:\n%s", cs.logs.String())
	}
	cs.started = time.Since(start)
	go cs.watchRSS()
	t.Cleanup(cs.kill)
	return cs
}

// kill sends SIGKILL and waits for the process to exit.
func (cs *childServer) kill() {
	select {
	case <-cs.exited:
		return
	default:
	}
	_ = cs.cmd.Process.Signal(syscall.SIGKILL)
	<-cs.exited
}

// stop sends SIGTERM (a graceful shutdown) and waits up to a minute.
func (cs *childServer) stop() {
	_ = cs.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-cs.exited:
	case <-time.After(time.Minute):
		cs.t.Errorf("child server did not stop within a minute after SIGTERM")
		cs.kill()
	}
}

// rss returns the child's resident set size and its peak since it started
// (VmHWM), in bytes, from /proc; ok is false where there is no /proc.
func (cs *childServer) rss() (cur, peak int64, ok bool) {
	if runtime.GOOS != "linux" {
		return 0, 0, false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cs.cmd.Process.Pid))
	if err != nil {
		return 0, 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, v, found := strings.Cut(line, ":")
		if !found {
			continue
		}
		f := strings.Fields(v)
		if len(f) < 1 {
			continue
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			cur = n << 10
		case "VmHWM":
			peak = n << 10
		}
	}
	return cur, peak, cur > 0
}

// watchRSS samples the resident set every 10 ms into peakRSS until the
// child exits. (VmHWM cannot be reset everywhere: clear_refs may be refused.)
func (cs *childServer) watchRSS() {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if cur, _, ok := cs.rss(); ok && cur > cs.peakRSS.Load() {
			cs.peakRSS.Store(cur)
		}
		select {
		case <-cs.exited:
			return
		case <-tick.C:
		}
	}
}

// mib formats bytes as MiB.
func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// String returns what was written so far; it may run while writes go on.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.String()
}

// resetPeak starts a new peak of the sampled resident set.
func (cs *childServer) resetPeak() {
	cur, _, _ := cs.rss()
	cs.peakRSS.Store(cur)
}
