package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/httpapi/httpapitest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// testServer is recalld serve running in-process on 127.0.0.1:0.
type testServer struct {
	t       testing.TB
	base    string
	dataDir string
	hc      *http.Client
	cancel  context.CancelFunc
	done    chan error
}

// syncBuffer is a bytes.Buffer safe for the server's logger and the test.
type syncBuffer struct {
	mu sync.Mutex
	bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.Buffer.Write(p)
}

// startServer runs `recalld serve` with args and env (RECALLD_* names) on a
// fresh data dir unless args name one. Every response the test client
// receives is validated against openapi.yaml.
func startServer(t testing.TB, env map[string]string, args ...string) *testServer {
	t.Helper()
	return startServerWith(t, nil, env, args...)
}

// testEnv is the environment of a test server: env, with the hashing
// embedder unless env names one (the tests that need USE-Lite say so, and
// the model is not where the default model_dir points from this package).
func testEnv(env map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "RECALLD_EMBEDDER" {
			return "hash"
		}
		return ""
	}
}

// startServerWith is startServer with setup applied to the app first (to
// replace the historian, say).
func startServerWith(t testing.TB, setup func(*app), env map[string]string, args ...string) *testServer {
	t.Helper()
	dir := t.TempDir()
	ts := &testServer{t: t, dataDir: dir, done: make(chan error, 1)}
	full := append([]string{"-addr", "127.0.0.1:0", "-data", dir, "-log-level", "warn"}, args...)
	for i, a := range full {
		if a == "-data" && i+1 < len(full) {
			ts.dataDir = full[i+1]
		}
	}
	addr := make(chan net.Addr, 1)
	logs := &syncBuffer{}
	a := &app{
		getenv:   testEnv(env),
		stdin:    strings.NewReader(""),
		stdout:   io.Discard,
		stderr:   logs,
		onListen: func(ad net.Addr) { addr <- ad },
	}
	if setup != nil {
		setup(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts.cancel = cancel
	go func() { ts.done <- a.run(ctx, append([]string{"serve"}, full...)) }()
	select {
	case ad := <-addr:
		ts.base = "http://" + ad.String()
	case err := <-ts.done:
		cancel()
		t.Fatalf("serve: %v\n%s", err, logs.String())
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatal("serve did not start")
	}
	ts.hc = &http.Client{Transport: httpapitest.Contract(t, http.DefaultTransport)}
	t.Cleanup(func() { ts.stop() })
	return ts
}

// stop shuts the server down and checks that it exited cleanly.
func (ts *testServer) stop() {
	if ts.cancel == nil {
		return
	}
	ts.cancel()
	ts.cancel = nil
	select {
	case err := <-ts.done:
		if err != nil {
			ts.t.Errorf("serve returned %v", err)
		}
	case <-time.After(60 * time.Second):
		ts.t.Error("serve did not stop")
	}
}

// client acts for one user with an optional API key; ts is its server.
type client struct {
	*httpapitest.Client
	ts *testServer
}

func (ts *testServer) as(user string) *client {
	return &client{Client: &httpapitest.Client{TB: ts.t, Base: ts.base, HTTP: ts.hc, User: user}, ts: ts}
}

func (c *client) withKey(key string) *client { return &client{Client: c.WithKey(key), ts: c.ts} }

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard}
	if err := a.run(t.Context(), []string{"version"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "recalld ") {
		t.Fatalf("version output %q", out.String())
	}
	if err := a.run(t.Context(), []string{"frobnicate"}); err == nil || exitCode(err) != 2 {
		t.Fatalf("unknown command: err %v", err)
	}
}

func TestServeRefusesPublicAddrWithoutKeys(t *testing.T) {
	a := &app{getenv: func(string) string { return "" }, stdout: io.Discard, stderr: io.Discard}
	err := a.run(t.Context(), []string{"serve", "-addr", "0.0.0.0:0", "-data", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "without api_keys") {
		t.Fatalf("err = %v", err)
	}
}

func TestShutdownDrainsOutbox(t *testing.T) {
	ts := startServer(t, nil)
	u := ts.as("qq:1")
	var msgs []map[string]any
	for i := range 300 {
		msgs = append(msgs, msgJSON(fmt.Sprintf("m%d", i), "user", fmt.Sprintf("message number %d about tea", i), i))
	}
	u.Do("POST", "/messages", map[string]any{"messages": msgs}, 200, nil)
	ts.stop()

	// Reopened without an indexer, the outbox must be empty.
	st := storagetest.Open(t, storage.Config{Dir: ts.dataDir, NoIndexer: true})
	s, err := st.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.Pending != 0 {
		t.Fatalf("pending after graceful shutdown = %d, want 0", s.Pending)
	}
}

var (
	msgJSON = httpapitest.Message
	q       = httpapitest.Query
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

func sleep() { time.Sleep(50 * time.Millisecond) }
