// Command recalld is the recalld memory service: `recalld serve` runs the HTTP
// API; import, reindex and version are operator commands.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/metrics"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/skills"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/embed"
	"github.com/recalld/recalld/storage/embed/uselite"
)

const usage = `recalld: an evidence-backed memory service for chat bots

Usage:
  recalld serve   [flags]        run the HTTP API (default 127.0.0.1:8080, data in ./data)
  recalld import  [flags] FILE   import messages from a JSON Lines file ("-" reads stdin)
  recalld import-undefined -user U FILE|DIR...
                                 migrate an Undefined bot's end_summaries.json and
                                 queue jobs into memos and end-of-turn jobs
  recalld reindex [flags]        rebuild the vector and lexical indexes from the messages
  recalld recall  -user U [-json] [-trace] [-now T] QUESTION
                                 answer a recall question from the command line
  recalld skill new NAME [-dir DIR] [-description TEXT]
                                 scaffold a retrieval skill folder from the template
  recalld skill check DIR        validate a skill folder
  recalld eval --suite FILE [--suite FILE…] [--runners lexical,semantic,hybrid,agent] [--out DIR] [--min-recall F]
                                 score retrieval and the recall agent; report.md/json with SVG plots
  recalld mcp -user U [-key K]    serve the memory tools to an MCP client on stdin/stdout
                                 (POST /mcp of serve speaks MCP over HTTP)
  recalld jobs list|show|retry|purge
                                 inspect and replay the historian's job queue
  recalld profiles export|show|revisions|restore -user U
                                 export profiles as Markdown, show or restore one
  recalld version                print the version

Run "recalld COMMAND -h" for the flags of a command. Every flag has an
environment variable (RECALLD_*) and a key in the TOML file given by -config.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	if err := a.run(ctx, os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "recalld:", err)
		}
		os.Exit(exitCode(err))
	}
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

func exitCode(err error) int {
	if errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
		return 2
	}
	return 1
}

// app is one invocation of the command, with its environment injected so that
// tests can run it in-process.
type app struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	// onListen, if set, is called with the bound address once serve listens.
	onListen func(net.Addr)
	// processor, if set, replaces the offline historian in serve (tests).
	processor ingest.Processor
}

func (a *app) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, usage)
		return fmt.Errorf("%w: no command", errUsage)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return a.serve(ctx, rest)
	case "import":
		return a.importCmd(ctx, rest)
	case "import-undefined":
		return a.importUndefined(ctx, rest)
	case "reindex":
		return a.reindex(ctx, rest)
	case "recall":
		return a.recallCmd(ctx, rest)
	case "skill":
		return a.skillCmd(ctx, rest)
	case "mcp":
		return a.mcpCmd(ctx, rest)
	case "jobs":
		return a.jobsCmd(ctx, rest)
	case "profiles":
		return a.profilesCmd(ctx, rest)
	case "eval":
		return a.evalCmd(ctx, rest)
	case "bench":
		return a.benchCmd(ctx, rest)
	case "version", "-version", "--version":
		fmt.Fprintln(a.stdout, "recalld", version())
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(a.stdout, usage)
		return nil
	}
	fmt.Fprint(a.stderr, usage)
	return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
}

// version is the module version, or the VCS revision of a development build.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := bi.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "dev-" + rev
}

// newEmbedder builds the configured embedder. For kind "use" it loads
// USE-Lite from cfg.ModelDir; when the files are missing or corrupt it logs
// why and returns the hashing embedder, with the reason as fallback (shown
// by /healthz). It never fails for that.
func newEmbedder(ctx context.Context, cfg EmbedderConfig, log *slog.Logger) (emb embed.Embedder, fallback string, err error) {
	switch cfg.Kind {
	case "openai":
		emb, err = embed.NewOpenAI(ctx, embed.OpenAIConfig{
			BaseURL: cfg.BaseURL, Token: cfg.APIKey, Model: cfg.Model, Dim: cfg.Dim,
			BatchSize: cfg.BatchSize, Timeout: cfg.Timeout.Duration,
		})
		return emb, "", err
	case "use":
		start := time.Now()
		m, err := uselite.Load(cfg.ModelDir)
		if err != nil {
			fallback = fmt.Sprintf("USE-Lite not loaded, hashing only: %v (run scripts/fetch-models.sh)", err)
			log.Warn("embedder: USE-Lite model not loaded; semantic search uses the hashing embedder alone",
				"model_dir", cfg.ModelDir, "err", err, "fix", "scripts/fetch-models.sh (make setup), then recalld reindex")
			return embed.NewHashing(cfg.Dim), fallback, nil
		}
		c, err := embed.NewComposite(uselite.NewEncoder(m, uselite.Options{}), embed.NewHashing(cfg.Dim), cfg.UseWeight)
		if err != nil {
			return nil, "", err
		}
		log.Info("embedder: USE-Lite loaded", "model_dir", cfg.ModelDir, "name", c.Name(),
			"kernel", uselite.Kernel(), "load_ms", time.Since(start).Milliseconds())
		return c, "", nil
	default:
		return embed.NewHashing(cfg.Dim), "", nil
	}
}

// newAgent builds the recall agent over store with the embedded recall
// skill, driven by the configured language model if there is one.
func newAgent(store *storage.Store, log *slog.Logger, llm LLMConfig) (*agent.Agent, error) {
	var svc *queryapi.Service
	if store != nil {
		svc = queryapi.New(store)
	}
	skill, err := agent.LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		return nil, err
	}
	opts := []agent.Option{agent.WithLogger(log)}
	if llm.Model != "" {
		m, err := agent.NewOpenAIModel(cmp.Or(llm.BaseURL, "https://api.openai.com/v1"), llm.APIKey, llm.Model, nil)
		if err != nil {
			return nil, err
		}
		opts = append(opts, agent.WithLLM(m, llm.Model))
	}
	return agent.New(svc, skill, opts...), nil
}

// openStore opens the store of cfg with its embedder.
// fallback is why the configured embedder was replaced by hashing, or "".
func openStore(ctx context.Context, cfg Config, log *slog.Logger, allowChange bool) (store *storage.Store, fallback string, err error) {
	emb, fallback, err := newEmbedder(ctx, cfg.Embedder, log)
	if err != nil {
		return nil, "", err
	}
	store, err = openStoreWith(ctx, cfg, log, storage.Config{Embedder: emb, AllowEmbedderChange: allowChange})
	return store, fallback, err
}

func openStoreWith(ctx context.Context, cfg Config, log *slog.Logger, sc storage.Config) (*storage.Store, error) {
	sc.Dir, sc.Logger, sc.EmbedderRetry = cfg.DataDir, log, cfg.Embedder.Retry.Duration
	sc.ProfileRevisionKeep = cfg.Cognitive.Profile.RevisionKeep
	sc.CacheBytes, sc.MmapBytes = storageMemory(cfg)
	store, err := storage.Open(ctx, sc)
	if errors.Is(err, storage.ErrEmbedderMismatch) {
		return nil, fmt.Errorf("%w (data dir %s, embedder %s)", err, cfg.DataDir, sc.Embedder.Name())
	}
	return store, err
}

// storageMemory is the storage.Config CacheBytes and MmapBytes of cfg.
func storageMemory(cfg Config) (cache, mmap int64) {
	mmap = cfg.SQLiteMmapMB << 20
	if mmap == 0 {
		mmap = -1 // storage: none
	}
	return cfg.SQLiteCacheMB << 20, mmap
}

// openServeStore is openStore for serve, which starts without its embedder
// rather than not at all: when the remote embedder does not answer the
// dimension probe, the dimension the store recorded for the same model is
// used (semantic search resumes once the embedder answers), and without one
// the store opens lexical-only. degraded says what happened, "" when nothing
// did; for a USE-Lite model that did not load it is the fallback to hashing.
func openServeStore(ctx context.Context, cfg Config, log *slog.Logger, obs storage.Observer) (store *storage.Store, degraded string, err error) {
	emb, fallback, err := newEmbedder(ctx, cfg.Embedder, log)
	if err == nil || cfg.Embedder.Kind != "openai" || ctx.Err() != nil {
		if err != nil {
			return nil, "", err
		}
		store, err := openStoreWith(ctx, cfg, log, storage.Config{Embedder: emb, Observer: obs})
		return store, fallback, err
	}
	probeErr := err
	q, err := storage.Open(ctx, storage.Config{Dir: cfg.DataDir, QueueOnly: true, Logger: log})
	if err != nil {
		return nil, "", err
	}
	name, dim, err := q.RecordedEmbedder(ctx)
	if err := errors.Join(err, q.Close()); err != nil {
		return nil, "", err
	}
	want := "openai:" + cfg.Embedder.Model + ":"
	switch {
	case name != "" && (!strings.HasPrefix(name, want) || dim <= 0):
		return nil, "", fmt.Errorf("%w (data dir %s holds vectors of %s; embedder openai:%s does not answer: %v)",
			storage.ErrEmbedderMismatch, cfg.DataDir, name, cfg.Embedder.Model, probeErr)
	case name != "":
		ec := cfg.Embedder
		ec.Dim = dim
		if emb, _, err = newEmbedder(ctx, ec, log); err != nil {
			return nil, "", err
		}
		store, err := openStoreWith(ctx, cfg, log, storage.Config{Embedder: emb, Observer: obs})
		degraded = fmt.Sprintf("the embedder did not answer at start (%v); semantic search resumes once it does", probeErr)
		log.Warn("embedder unreachable at start: using the dimension the store recorded; lexical-only until it answers",
			"embedder", name, "err", probeErr)
		return store, degraded, err
	}
	store, err = openStoreWith(ctx, cfg, log, storage.Config{LexicalOnly: true, Observer: obs})
	degraded = fmt.Sprintf("the embedder openai:%s did not answer at start (%v) and its dimension is unknown: lexical-only until a restart reaches it "+
		"(set embedder.dim to let it recover without a restart)", cfg.Embedder.Model, probeErr)
	log.Warn("embedder unreachable at start and no dimension known: serving lexical-only", "model", cfg.Embedder.Model, "err", probeErr)
	return store, degraded, err
}

func (a *app) serve(ctx context.Context, args []string) error {
	cfg, rest, err := loadConfig("serve", args, a.getenv, a.stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: serve takes no arguments, got %q", errUsage, rest)
	}
	log := newLogger(cfg, a.stderr)
	if err := checkListenAuth(cfg.APIKeys, cfg.Addr); err != nil {
		return err
	}
	log.Info("starting", "version", version(), "config", cfg.redacted())
	m := metrics.New()
	store, degraded, err := openServeStore(ctx, cfg, log, m)
	if err != nil {
		return err
	}
	ag, err := newAgent(store, log, cfg.LLM)
	if err != nil {
		return errors.Join(err, store.Close())
	}
	srv := newServerWith(cfg, log, store, ag, version(), m)
	if degraded != "" {
		srv.degraded = append(srv.degraded, degraded)
	}
	if cfg.Embedder.Kind == "use" {
		srv.embedderFallback = degraded
	}
	hs := &http.Server{
		Handler:           srv.e,
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
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return errors.Join(fmt.Errorf("listen %s: %w", cfg.Addr, err), store.Close())
	}
	if len(cfg.APIKeys) == 0 {
		log.Warn("no api_keys configured: serving unauthenticated on loopback; X-Recall-User is trusted as sent")
	}
	stopWorker, err := a.startWorker(srv.live, store, srv.breaker, m.Job, log)
	if err != nil {
		return errors.Join(err, ln.Close(), store.Close())
	}
	// Reloadable knobs follow the config file (and SIGHUP) from now on.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	wctx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		srv.live.watch(wctx, configPath(args, a.getenv), func() (Config, error) {
			c, _, err := loadConfig("serve", args, a.getenv, io.Discard)
			return c, err
		}, hup)
	}()
	defer func() { stopWatch(); <-watched }()
	log.Info("listening", "addr", ln.Addr().String(), "data_dir", cfg.DataDir, "embedder", store.EmbedderName())
	if a.onListen != nil {
		a.onListen(ln.Addr())
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()

	select {
	case err = <-serveErr:
	case <-ctx.Done():
	}
	// Stop accepting requests, let those in flight finish, then index what
	// the outbox holds (a restart would resume it too) and close storage.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout.Duration)
	defer cancel()
	log.Info("shutting down")
	errs := []error{}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, fmt.Errorf("serve: %w", err))
	}
	if err := hs.Shutdown(sctx); err != nil {
		errs = append(errs, fmt.Errorf("http shutdown: %w", err))
	}
	stopWorker() // after HTTP, so no job is enqueued behind it; before storage closes
	if err := store.Drain(sctx, nil); errors.Is(err, storage.ErrSemanticUnavailable) {
		log.Warn("lexical index complete; messages without vectors get them once the embedder answers", "err", err)
	} else if err != nil {
		log.Warn("outbox not drained; it resumes on the next start", "err", err)
	}
	errs = append(errs, store.Close())
	log.Info("stopped")
	return errors.Join(errs...)
}
