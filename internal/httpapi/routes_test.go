package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/recalld/recalld/internal/breaker"
	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/internal/httpapi/httpapitest"
)

// The tests in this package's _test files drive the routes over HTTP, each
// response checked against openapi.yaml; those of `recalld serve` as a
// whole (its worker, its http.Server, shutdown, the drills) are in
// cmd/recalld.

var (
	msgJSON = httpapitest.Message
	q       = httpapitest.Query
	turn    = httpapitest.Turn
)

// newServer serves the HTTP API over a fresh store, configured as `recalld
// serve` would be by the flags args and the RECALLD_* variables of env (the
// hashing embedder unless env names one). No historian runs: an ended turn
// stays pending. It returns a client of the server, acting for no user.
func newServer(t *testing.T, env map[string]string, args ...string) *httpapitest.Client {
	t.Helper()
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "RECALLD_EMBEDDER" {
			return "hash"
		}
		return ""
	}
	cfg, _, err := config.Load("serve", append([]string{"-data", t.TempDir()}, args...), getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	store, degraded, err := cmdconfig.OpenServeStore(t.Context(), cfg, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	ag, err := cmdconfig.NewAgent(store, log, cfg)
	if err != nil {
		t.Fatal(err)
	}
	gate := breaker.New(breaker.Settings{Failures: cfg.Breaker.Failures, OpenTimeout: cfg.Breaker.OpenTimeout.Duration,
		HalfOpenRequests: cfg.Breaker.HalfOpenRequests}, log)
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Config: cfg, Live: config.NewLive(cfg, log), Gate: gate, Log: log,
		Store: store, Tools: cmdconfig.NewQueryService(store, cfg), Agent: ag, Version: "test", Degraded: degraded}))
	t.Cleanup(srv.Close)
	return httpapitest.NewClient(t, srv.URL)
}

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
func expectErrors(t *testing.T, c *httpapitest.Client, tests []badRequest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := c.Raw(tt.method, tt.path, tt.body, tt.hdr...)
			var e httpapi.ErrorBody
			if err := json.Unmarshal(body, &e); err != nil || status != tt.status || e.Error.Code != tt.code || e.Error.Message == "" {
				t.Fatalf("%d %s, want %d %s", status, body, tt.status, tt.code)
			}
		})
	}
}
