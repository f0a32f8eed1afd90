package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/recalld/recalld/internal/httpapi"
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
	ts.hc = &http.Client{Transport: &contractTransport{t: t, base: ts.base, rt: http.DefaultTransport}}
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

// client acts for one user with an optional API key.
type client struct {
	ts   *testServer
	user string
	key  string
}

func (ts *testServer) as(user string) *client { return &client{ts: ts, user: user} }

func (c *client) withKey(key string) *client { return &client{ts: c.ts, user: c.user, key: key} }

// requestBody is body to send: nil as none, a string or []byte as is,
// anything else as JSON.
func requestBody(body any) (io.Reader, error) {
	switch b := body.(type) {
	case nil:
		return nil, nil
	case string:
		return strings.NewReader(b), nil
	case []byte:
		return bytes.NewReader(b), nil
	}
	j, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(j), nil
}

// newRequest is a request of user (with key, if any; "" for none) that
// carries body (see requestBody) and the header pairs of hdr, where an
// empty value removes the header.
func newRequest(ctx context.Context, method, url, user, key string, body any, hdr ...string) (*http.Request, error) {
	r, err := requestBody(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, err
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if user != "" {
		req.Header.Set(httpapi.HeaderUser, user)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	return req, nil
}

// raw sends body (a string is sent as is, anything else as JSON) and returns
// the status and body.
func (c *client) raw(method, path string, body any, hdr ...string) (int, []byte) {
	c.ts.t.Helper()
	req, err := newRequest(context.Background(), method, c.ts.base+path, c.user, c.key, body, hdr...)
	if err != nil {
		c.ts.t.Fatal(err)
	}
	resp, err := c.ts.hc.Do(req)
	if err != nil {
		c.ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		c.ts.t.Fatal(err)
	}
	return resp.StatusCode, out
}

// do is raw that expects status want and decodes the body into out.
func (c *client) do(method, path string, body any, want int, out any) {
	c.ts.t.Helper()
	status, b := c.raw(method, path, body)
	if status != want {
		c.ts.t.Fatalf("%s %s as %q: status %d, want %d: %s", method, path, c.user, status, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.ts.t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
}

// contractTransport validates every response against openapi.yaml.
type contractTransport struct {
	t    testing.TB
	base string
	rt   http.RoundTripper
}

var (
	specOnce   sync.Once
	specDoc    *openapi3.T
	specRouter routers.Router
	specErr    error
)

func loadSpec(base string) (*openapi3.T, routers.Router, error) {
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		specDoc, specErr = loader.LoadFromFile(filepath.Join("..", "..", "openapi.yaml"))
		if specErr != nil {
			return
		}
		if specErr = specDoc.Validate(context.Background()); specErr != nil {
			return
		}
		// The console's page and files are text the contract checks as such.
		for _, ct := range []string{"text/html", "text/css", "text/javascript"} {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
		}
		// Servers are matched by host; accept any.
		specDoc.Servers = nil
		specRouter, specErr = legacy.NewRouter(specDoc)
	})
	return specDoc, specRouter, specErr
}

func (ct *contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := ct.rt.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := validateResponse(ct.base, req, resp.StatusCode, resp.Header, body); err != nil {
		short := string(body)
		if len(short) > 300 {
			short = short[:300] + "…"
		}
		ct.t.Errorf("contract: %s %s → %d %s: %v", req.Method, req.URL.Path, resp.StatusCode, short, err)
	}
	return resp, nil
}

// validateResponse checks one response against the spec. A request to a
// route the spec does not have must be answered 404 or 405 with the error body.
func validateResponse(base string, req *http.Request, status int, hdr http.Header, body []byte) error {
	doc, router, err := loadSpec(base)
	if err != nil {
		return fmt.Errorf("load spec: %w", err)
	}
	u := *req.URL
	u.Host, u.Scheme = "", ""
	// Match on the escaped path, so that an id holding "/" stays one segment.
	u.Path, u.RawPath = u.EscapedPath(), ""
	r := req.Clone(context.Background())
	r.URL = &u
	route, params, err := router.FindRoute(r)
	if err != nil {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return fmt.Errorf("route not in spec but answered %d", status)
		}
		var e httpapi.ErrorBody
		if json.Unmarshal(body, &e) != nil || e.Error.Code == "" {
			return fmt.Errorf("404/405 without the error body")
		}
		return nil
	}
	_ = doc
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 status,
		Header:                 hdr,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}

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
	u.do("POST", "/messages", map[string]any{"messages": msgs}, 200, nil)
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

func msgJSON(id, role, content string, minute int) map[string]any {
	return map[string]any{
		"id": id, "role": role, "content": content, "conversation_id": "c1", "sender_name": "Ann",
		"created_at": time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(minute) * time.Minute).Format(time.RFC3339),
	}
}

func q(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return "?" + v.Encode()
}

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

// badRequest is a request that must fail with status and the error code in
// the JSON error body.
type badRequest struct {
	name, method, path string
	body               any
	hdr                []string
	status             int
	code               string
}

// expectErrors sends each request as c, each in a subtest, and checks its
// status, error code and that the error body has a message.
func (c *client) expectErrors(t *testing.T, tests []badRequest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := c.raw(tt.method, tt.path, tt.body, tt.hdr...)
			var e httpapi.ErrorBody
			if err := json.Unmarshal(body, &e); err != nil || status != tt.status || e.Error.Code != tt.code || e.Error.Message == "" {
				t.Fatalf("%d %s, want %d %s", status, body, tt.status, tt.code)
			}
		})
	}
}
