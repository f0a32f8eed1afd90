//go:build linux

package main

import (
	"database/sql"
	"net/http"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/recalld/recalld/internal/breaker"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage/storagetest"
)

// TestStoreCircuitBreaker: writes failing on a full disk open the store's
// circuit; store routes then answer 503 store_unavailable with Retry-After
// at once, /readyz and /healthz show it; after the open timeout a request
// probes (half-open): failing, the circuit opens again; succeeding once the
// disk has room, it closes. Client mistakes never trip it.
func TestStoreCircuitBreaker(t *testing.T) {
	if storagetest.Isolated(t) {
		return // it fills the disk: run in a child process
	}
	ts := startServer(t, map[string]string{
		"RECALLD_BREAKER_FAILURES":     "3",
		"RECALLD_BREAKER_OPEN_TIMEOUT": "300ms",
		"RECALLD_JOB_POLL_INTERVAL":    "1h", // the worker stays out of the probes
	})
	u := ts.as("qq:1")
	n := 0
	post := func() (int, []byte) {
		n++
		return u.Raw("POST", "/messages", map[string]any{"messages": []map[string]any{
			msgJSON("b"+strconv.Itoa(n), "user", "message number "+strconv.Itoa(n), n)}})
	}
	if status, body := post(); status != 200 {
		t.Fatalf("post: %d %s", status, body)
	}
	ts.waitIndexed()
	// Client mistakes and misses are no store failures.
	for range 5 {
		u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{{"role": "nobody"}}}, 422, nil)
		u.Do("DELETE", "/messages/absent", nil, 404, nil)
	}
	if h := ts.health(); h.Store != breaker.Closed {
		t.Fatalf("client errors tripped the breaker: %+v", h)
	}

	restore := storagetest.DiskFull(t)
	for i := range 3 {
		status, body := post()
		if status != http.StatusInternalServerError || errorCode(t, body) != httpapi.CodeInternal {
			t.Fatalf("write %d on a full disk: %d %s", i, status, body)
		}
	}
	// Open: every store route fails fast, reads too; /readyz and /healthz say so.
	refused := func(method, path string, body any) {
		t.Helper()
		status, b := u.Raw(method, path, body)
		if status != http.StatusServiceUnavailable || errorCode(t, b) != httpapi.CodeStoreUnavailable {
			t.Fatalf("%s %s with the circuit open: %d %s", method, path, status, b)
		}
	}
	refused("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("x", "user", "x", 0)}})
	refused("GET", "/messages", nil)
	refused("POST", "/search/lexical", queryapi.LexicalParams{QueryText: "message"})
	resp, err := ts.hc.Get(ts.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ra, _ := strconv.Atoi(resp.Header.Get("Retry-After")); resp.StatusCode != http.StatusServiceUnavailable || ra < 1 {
		t.Fatalf("/readyz with the circuit open: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if h := ts.health(); h.Store != breaker.Open || h.Status != "degraded" || !hasWarning(h, "store_unavailable") {
		t.Fatalf("health with the circuit open: %+v", h)
	}
	// No key, no store: authentication still comes first.
	if status, _ := ts.as("").Raw("GET", "/messages", nil); status != http.StatusBadRequest {
		t.Fatalf("request without a user while open: %d", status)
	}

	// Half-open after the timeout; the probe fails on the still full disk.
	waitFor(t, "the circuit half-opens", func() bool { return ts.health().Store == breaker.HalfOpen })
	if status, body := post(); status != http.StatusInternalServerError {
		t.Fatalf("probe on a full disk: %d %s", status, body)
	}
	if h := ts.health(); h.Store != breaker.Open {
		t.Fatalf("a failed probe left the circuit %s", h.Store)
	}

	restore()
	waitFor(t, "the circuit half-opens again", func() bool { return ts.health().Store == breaker.HalfOpen })
	if status, body := post(); status != 200 {
		t.Fatalf("probe with room on the disk: %d %s", status, body)
	}
	var ready httpapi.ReadyResponse
	ts.as("").Do("GET", "/readyz", nil, 200, &ready)
	if ready.Store != breaker.Closed {
		t.Fatalf("/readyz after recovery: %+v", ready)
	}
	var page queryapi.Page
	u.Do("GET", "/messages", nil, 200, &page)
	if got := ids(page); len(got) != 2 || got[0] != "b1" || got[1] != "b"+strconv.Itoa(n) {
		t.Fatalf("messages after the outage = %v, want b1 and b%d (nothing of the failed writes)", got, n)
	}
}

// TestBreakerIgnoresOneUsersFailures: a user whose requests fail on every
// call, with 500 (a row of theirs the store cannot read) or 4xx, leaves the
// store's circuit closed, and every request of the other users succeeds;
// a real fault (a full disk) still opens it.
func TestBreakerIgnoresOneUsersFailures(t *testing.T) {
	if storagetest.Isolated(t) {
		return // it fills the disk: run in a child process
	}
	ts := startServer(t, map[string]string{
		"RECALLD_BREAKER_FAILURES":     "3",
		"RECALLD_BREAKER_OPEN_TIMEOUT": "1h",
		"RECALLD_JOB_POLL_INTERVAL":    "1h", // the worker stays out of the counts
	})
	bad, good := ts.as("qq:bad"), ts.as("qq:good")
	bad.Do("POST", "/memories", map[string]any{"id": "pin", "content": "remember this"}, http.StatusCreated, nil)
	good.Do("POST", "/memories", map[string]any{"id": "pin", "content": "remember that"}, http.StatusCreated, nil)
	good.Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("g1", "user", "hello there", 0)}}, http.StatusOK, nil)
	// Break one row of the bad user behind the server's back: a second
	// connection through the driver storage registers.
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(ts.dataDir, "recalld.db")+"?_busy_timeout=10000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `UPDATE memories SET tags = 'not json' WHERE user_id = ?`, "qq:bad"); err != nil {
		t.Fatal(err)
	}

	// Rounds of a burst of the bad user's failures (more in a row than the
	// breaker's threshold), then the other user's calls.
	const calls = 20
	ok := 0
	for i := range calls {
		for range 3 {
			if status, body := bad.Raw("GET", "/memories", nil); status != http.StatusInternalServerError || errorCode(t, body) != httpapi.CodeInternal {
				t.Fatalf("bad user's call %d: %d %s", i, status, body)
			}
			if status, body := bad.Raw("POST", "/context", map[string]any{"message": "what do you remember", "sender_id": "10001", "request_type": "private"}); status != http.StatusInternalServerError {
				t.Fatalf("bad user's context %d: %d %s", i, status, body)
			}
			bad.Do("POST", "/messages", map[string]any{"messages": []map[string]any{{"role": "nobody"}}}, http.StatusUnprocessableEntity, nil)
		}
		for _, r := range []struct{ method, path string }{{"GET", "/memories"}, {"GET", "/messages"}} {
			if status, _ := good.Raw(r.method, r.path, nil); status == http.StatusOK {
				ok++
			}
		}
		if status, _ := good.Raw("POST", "/context", map[string]any{"message": "what do you remember", "sender_id": "10001", "request_type": "private"}); status == http.StatusOK {
			ok++
		}
	}
	if ok != 3*calls {
		t.Errorf("the other user succeeded %d of %d times", ok, 3*calls)
	}
	if h := ts.health(); h.Store != breaker.Closed {
		t.Fatalf("one user's failures moved the store circuit: %+v", h)
	}

	// A full disk is a store fault: it opens the circuit for everyone.
	storagetest.DiskFull(t)
	for i := range 3 {
		status, body := good.Raw("POST", "/messages", map[string]any{"messages": []map[string]any{
			msgJSON("w"+strconv.Itoa(i), "user", "message number "+strconv.Itoa(i), i+1)}})
		if status != http.StatusInternalServerError {
			t.Fatalf("write %d on a full disk: %d %s", i, status, body)
		}
	}
	if h := ts.health(); h.Store != breaker.Open {
		t.Fatalf("a full disk left the store circuit %s", h.Store)
	}
	if status, body := bad.Raw("GET", "/messages", nil); status != http.StatusServiceUnavailable || errorCode(t, body) != httpapi.CodeStoreUnavailable {
		t.Fatalf("with the circuit open: %d %s", status, body)
	}
}
