package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/breaker"
	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/internal/mcpapi"
	"github.com/recalld/recalld/internal/metrics"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// serve runs the HTTP API until ctx ends.
func (a *app) serve(ctx context.Context, args []string) error {
	cfg, rest, err := config.Load("serve", args, a.getenv, a.stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: serve takes no arguments, got %q", errUsage, rest)
	}
	if err := config.CheckListenAuth(cfg.APIKeys, cfg.Addr); err != nil {
		return err
	}
	m := &Main{Config: cfg, Log: config.NewLogger(cfg, a.stderr), ConfigPath: config.Path(args, a.getenv),
		Reload: func() (config.Config, error) {
			c, _, err := config.Load("serve", args, a.getenv, io.Discard)
			return c, err
		},
		Processor: a.processor, OnListen: a.onListen}
	if err := m.Run(ctx); err != nil {
		return errors.Join(err, m.Close())
	}
	select {
	case err = <-m.served: // before Close, never http.ErrServerClosed
		err = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	return errors.Join(err, m.Close())
}

// Main is `recalld serve`: Run builds the store, the store's circuit
// breaker, the live config, the agent, the historian worker and the HTTP
// server, in that order, and starts serving; Close stops and closes them in
// the reverse order. Main owns every part; the parts only borrow each other.
type Main struct {
	Config config.Config
	Log    *slog.Logger
	// ConfigPath is the file the live config follows ("" for none) and
	// Reload loads the whole config again (file, environment, flags).
	ConfigPath string
	Reload     func() (config.Config, error)
	// Processor, if set, replaces the configured historian (tests).
	Processor ingest.Processor
	// OnListen, if set, is called with the bound address once Run listens.
	OnListen func(net.Addr)

	store      *storage.Store
	hs         *http.Server
	served     chan error // hs.Serve's result
	stopWorker func()
	stopWatch  func()
}

// Run opens everything and serves in the background; on an error the
// caller still calls Close, which closes what was opened.
func (m *Main) Run(ctx context.Context) error {
	cfg, log := m.Config, m.Log
	log.Info("starting", "version", version(), "config", cfg.Redacted())
	met := metrics.New() // the store, the worker and the HTTP server record into it
	store, degraded, err := cmdconfig.OpenServeStore(ctx, cfg, log, met)
	if err != nil {
		return err
	}
	m.store = store
	ag, err := cmdconfig.NewAgent(store, log, cfg)
	if err != nil {
		return err
	}
	gate := breaker.New(breaker.Settings{Failures: cfg.Breaker.Failures, OpenTimeout: cfg.Breaker.OpenTimeout.Duration,
		HalfOpenRequests: cfg.Breaker.HalfOpenRequests}, log)
	live := config.NewLive(cfg, log)
	tools := cmdconfig.NewQueryService(store, cfg)
	hc := httpapi.Config{Config: cfg, Live: live, Gate: gate, Log: log, Store: store, Tools: tools, Agent: ag, Version: version(), Metrics: met, Degraded: degraded,
		MCP: mcpapi.New(mcpapi.Config{Tools: tools, Agent: ag, Gate: gate, Log: log, Timeout: cfg.RequestTimeout.Duration, Version: version(),
			Events: func() queryapi.EventSearchConfig { return live.Load().Cognitive.Query.Events() }})}
	if cfg.Embedder.Kind == "use" {
		hc.EmbedderFallback = degraded
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	if len(cfg.APIKeys) == 0 {
		log.Warn("no api_keys configured: serving unauthenticated on loopback; X-Recall-User is trusted as sent")
	}
	if m.stopWorker, err = m.startWorker(live, gate, met.Job); err != nil {
		return errors.Join(err, ln.Close())
	}
	m.watch(ctx, live)
	m.hs = &http.Server{
		Handler:           httpapi.New(hc),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       cfg.ReadTimeout.Duration,
		WriteTimeout:      cfg.WriteTimeout.Duration,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		// OPTIONS * reaches echo (404 JSON) instead of net/http's empty
		// 200. What net/http still answers itself, before any handler,
		// README lists under "Errors recalld cannot answer in JSON".
		DisableGeneralOptionsHandler: true,
	}
	log.Info("listening", "addr", ln.Addr().String(), "data_dir", cfg.DataDir, "embedder", store.EmbedderName())
	if m.OnListen != nil {
		m.OnListen(ln.Addr())
	}
	m.served = make(chan error, 1)
	go func() { m.served <- m.hs.Serve(ln) }()
	return nil
}

// watch makes the reloadable keys follow the config file (and SIGHUP)
// until Close.
func (m *Main) watch(ctx context.Context, live *config.Live) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		live.Watch(wctx, m.ConfigPath, m.Reload, hup)
	}()
	m.stopWatch = func() { cancel(); <-done; signal.Stop(hup) }
}

// startWorker runs the historian worker in the background, its store access
// behind gate, each job attempt's outcome told to onOutcome. stop cancels it and returns once it has finished the job in
// hand, so that Close can close storage after it.
func (m *Main) startWorker(live *config.Live, gate ingest.Gate, onOutcome func(string, time.Duration)) (stop func(), err error) {
	proc, err := cmdconfig.NewLiveHistorian(live, func(c config.Config) (ingest.Processor, error) {
		if m.Processor != nil {
			return m.Processor, nil
		}
		return cmdconfig.NewHistorian(c, m.Log)
	})
	if err != nil {
		return nil, err
	}
	q := live.Load().Cognitive.Queue
	w := ingest.NewWorker(m.store, proc, ingest.WorkerConfig{
		Poll: q.PollInterval.Duration, StaleTimeout: q.StaleJobTimeout.Duration, MaxRetries: q.JobMaxRetries,
		RetryBackoff: q.RetryBackoff.Duration, FailedMaxAge: q.FailedMaxAge.Duration, FailedMaxCount: q.FailedMaxCount,
		Gate: gate, OnOutcome: onOutcome, Logger: m.Log,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			m.Log.Error("historian worker", "err", err)
		}
	}()
	return func() { cancel(); <-done }, nil
}

// Close stops accepting requests and lets those in flight finish, stops the
// worker (after HTTP, so no job is enqueued behind it), indexes what the
// outbox holds (a restart would resume it too) and closes storage last,
// all within the shutdown timeout.
func (m *Main) Close() error {
	if m.store == nil {
		return nil
	}
	var errs []error
	if m.hs != nil { // serving: the worker and the watch run too
		ctx, cancel := context.WithTimeout(context.Background(), m.Config.ShutdownTimeout.Duration)
		defer cancel()
		m.Log.Info("shutting down")
		if err := m.hs.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
		m.stopWorker()
		if err := m.store.Drain(ctx, nil); errors.Is(err, storage.ErrSemanticUnavailable) {
			m.Log.Warn("lexical index complete; messages without vectors get them once the embedder answers", "err", err)
		} else if err != nil {
			m.Log.Warn("outbox not drained; it resumes on the next start", "err", err)
		}
		defer m.stopWatch()
		defer m.Log.Info("stopped")
	}
	errs = append(errs, m.store.Close())
	m.store = nil
	return errors.Join(errs...)
}
