package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
)

// newProcessor is the historian the worker runs: the one of
// cognitive.historian.mode, unless a test put another in a.processor.
func (a *app) newProcessor(cfg Config, log *slog.Logger) (ingest.Processor, error) {
	if a.processor != nil {
		return a.processor, nil
	}
	h := cfg.Cognitive.Historian
	loc, err := time.LoadLocation(h.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("cognitive.historian.timezone: %w", err)
	}
	rules := ingest.HistorianConfig{Location: loc, SourceMax: h.SourceMax}
	if h.Mode != historianLLM {
		log.Info("historian", "mode", historianOffline, "timezone", h.TimeZone)
		return ingest.NewHistorian(rules), nil
	}
	m := cfg.historianModel()
	model, err := agent.NewOpenAIModel(cmp.Or(m.BaseURL, agent.DefaultOpenAIBaseURL), m.APIKey, m.Model, nil)
	if err != nil {
		return nil, fmt.Errorf("historian model: %w", err)
	}
	log.Info("historian", "mode", historianLLM, "model", m.Model, "base_url", cmp.Or(m.BaseURL, agent.DefaultOpenAIBaseURL),
		"rewrite_max_retry", h.RewriteMaxRetry, "timezone", h.TimeZone)
	return ingest.NewLLMHistorian(model, ingest.LLMHistorianConfig{
		HistorianConfig: rules,
		ModelName:       m.Model,
		RewriteMaxRetry: h.RewriteMaxRetry,
		CallTimeout:     m.Timeout.Duration,
		Logger:          log,
	}), nil
}

// liveHistorian runs each job with the historian of the live
// [cognitive.historian] section, rebuilt when a reload changed it, so that
// its knobs take effect from the next job without a restart.
type liveHistorian struct {
	live  *liveConfig
	build func(Config) (ingest.Processor, error)

	mu   sync.Mutex
	cfg  CognitiveHistorian // the section proc was built from
	proc ingest.Processor
}

var _ ingest.Processor = (*liveHistorian)(nil)

func newLiveHistorian(live *liveConfig, build func(Config) (ingest.Processor, error)) (*liveHistorian, error) {
	h := &liveHistorian{live: live, build: build}
	if _, err := h.current(); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *liveHistorian) current() (ingest.Processor, error) {
	cfg := h.live.Load()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.proc != nil && reflect.DeepEqual(h.cfg, cfg.Cognitive.Historian) {
		return h.proc, nil
	}
	proc, err := h.build(*cfg)
	if err != nil {
		return nil, err
	}
	h.cfg, h.proc = cfg.Cognitive.Historian, proc
	return proc, nil
}

// Process runs job with the current historian.
func (h *liveHistorian) Process(ctx context.Context, job ingest.Job) (ingest.Result, error) {
	proc, err := h.current()
	if err != nil {
		return ingest.Result{}, err
	}
	return proc.Process(ctx, job)
}

// startWorker runs the historian worker in the background, its store access
// behind gate (nil: none). stop cancels it and returns once it has finished
// the job in hand, so that serve can close storage after it.
func (a *app) startWorker(live *liveConfig, store *storage.Store, gate ingest.Gate, onOutcome func(string, time.Duration), log *slog.Logger) (stop func(), err error) {
	proc, err := newLiveHistorian(live, func(c Config) (ingest.Processor, error) { return a.newProcessor(c, log) })
	if err != nil {
		return nil, err
	}
	cfg := live.Load()
	q := cfg.Cognitive.Queue
	w := ingest.NewWorker(store, proc, ingest.WorkerConfig{
		Poll:           q.PollInterval.Duration,
		StaleTimeout:   q.StaleJobTimeout.Duration,
		MaxRetries:     q.JobMaxRetries,
		RetryBackoff:   q.RetryBackoff.Duration,
		FailedMaxAge:   q.FailedMaxAge.Duration,
		FailedMaxCount: q.FailedMaxCount,
		Gate:           gate,
		OnOutcome:      onOutcome,
		Logger:         log,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.Run(ctx); err != nil {
			log.Error("historian worker", "err", err)
		}
	}()
	return func() { cancel(); <-done }, nil
}

const jobsUsage = `Usage:
  recalld jobs list  [-state pending|processing|done|failed] [-user U] [-limit N] [-json]
  recalld jobs show  ID
  recalld jobs retry [-user U] ID... | -all-failed [-user U]
  recalld jobs purge [-state failed|done] [-older-than DURATION] [-keep N]

The commands open the queue beside a running server; they never touch the
search indexes. purge defaults to [cognitive.queue] failed_max_age and
failed_max_count.
`

// jobsCmd inspects and replays the historian's job queue.
func (a *app) jobsCmd(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, jobsUsage)
		return fmt.Errorf("%w: jobs needs list, show, retry or purge", errUsage)
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "list":
		return a.jobsList(ctx, rest)
	case "show":
		return a.jobsShow(ctx, rest)
	case "retry":
		return a.jobsRetry(ctx, rest)
	case "purge":
		return a.jobsPurge(ctx, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(a.stdout, jobsUsage)
		return nil
	}
	fmt.Fprint(a.stderr, jobsUsage)
	return fmt.Errorf("%w: unknown jobs command %q", errUsage, sub)
}

// openQueue opens the job table of cfg's data dir, which must exist.
func openQueue(ctx context.Context, cfg Config, log *slog.Logger) (*storage.Store, error) {
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "recalld.db")); err != nil {
		return nil, fmt.Errorf("no recalld database in %s: %w", cfg.DataDir, err)
	}
	return storage.Open(ctx, storage.Config{Dir: cfg.DataDir, QueueOnly: true,
		ProfileRevisionKeep: cfg.Cognitive.Profile.RevisionKeep, Logger: log})
}

func (a *app) jobsList(ctx context.Context, args []string) error {
	var (
		f      = storage.JobFilter{Limit: 50}
		asJSON bool
	)
	cfg, rest, err := loadConfig("jobs list", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&f.State, "state", "", "only jobs in this state")
		fs.StringVar(&f.UserID, "user", "", "only this user's jobs")
		fs.IntVar(&f.Limit, "limit", f.Limit, "most jobs to list, newest first")
		fs.BoolVar(&asJSON, "json", false, "print one JSON object per job")
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: jobs list takes no arguments", errUsage)
	}
	store, err := openQueue(ctx, cfg, newLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	jobs, err := store.ListJobs(ctx, f)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(a.stdout)
		for _, j := range jobs {
			if err := enc.Encode(j); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSER\tSTATE\tATTEMPTS\tUPDATED\tERROR")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", j.ID, j.UserID, j.State, j.Attempts,
			j.UpdatedAt.Local().Format(time.DateTime), oneLine(j.Error, 80))
	}
	return tw.Flush()
}

// oneLine is the first line of s, cut to max characters.
func oneLine(s string, max int) string {
	s, _, cut := strings.Cut(s, "\n")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	} else if cut {
		return s + " …"
	}
	return s
}

func (a *app) jobsShow(ctx context.Context, args []string) error {
	cfg, rest, err := loadConfig("jobs show", args, a.getenv, a.stderr)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: jobs show takes one job id", errUsage)
	}
	store, err := openQueue(ctx, cfg, newLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	j, err := store.GetJob(ctx, "", rest[0])
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("no job %s", rest[0])
	}
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", b)
	return err
}

func (a *app) jobsRetry(ctx context.Context, args []string) error {
	var (
		user      string
		allFailed bool
	)
	cfg, ids, err := loadConfig("jobs retry", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "only this user's jobs")
		fs.BoolVar(&allFailed, "all-failed", false, "retry every failed job (of -user, if given)")
	})
	if err != nil {
		return err
	}
	if allFailed == (len(ids) > 0) {
		return fmt.Errorf("%w: jobs retry takes job ids or -all-failed", errUsage)
	}
	store, err := openQueue(ctx, cfg, newLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	if allFailed {
		// Page through the failed jobs; a job that fails again meanwhile is
		// not retried twice.
		seen := map[string]bool{}
		for {
			jobs, err := store.ListJobs(ctx, storage.JobFilter{UserID: user, State: storage.JobFailed, Limit: storage.MaxJobList})
			if err != nil {
				return err
			}
			fresh := 0
			for _, j := range jobs {
				if seen[j.ID] {
					continue
				}
				seen[j.ID], fresh = true, fresh+1
				if _, err := store.RetryJob(ctx, user, j.ID); err != nil && !errors.Is(err, storage.ErrJobState) {
					return err
				}
			}
			if fresh == 0 {
				break
			}
		}
		fmt.Fprintf(a.stdout, "retried %d failed jobs\n", len(seen))
		return nil
	}
	var errs []error
	for _, id := range ids {
		if _, err := store.RetryJob(ctx, user, id); err != nil {
			if errors.Is(err, storage.ErrNotFound) {
				err = fmt.Errorf("no job %s", id)
			}
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(a.stdout, "retried %s\n", id)
	}
	return errors.Join(errs...)
}

func (a *app) jobsPurge(ctx context.Context, args []string) error {
	def := DefaultConfig().Cognitive.Queue
	var (
		state     string
		olderThan = duration{-1}
		keep      int
	)
	cfg, rest, err := loadConfig("jobs purge", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&state, "state", storage.JobFailed, "failed or done")
		fs.Var(durationFlag{&olderThan}, "older-than", fmt.Sprintf("delete jobs last updated longer ago (default failed_max_age, %s)", def.FailedMaxAge))
		fs.IntVar(&keep, "keep", -1, fmt.Sprintf("keep at most this many, newest first (default failed_max_count, %d)", def.FailedMaxCount))
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: jobs purge takes no arguments", errUsage)
	}
	if olderThan.Duration < 0 {
		olderThan = cfg.Cognitive.Queue.FailedMaxAge
	}
	if keep < 0 {
		keep = cfg.Cognitive.Queue.FailedMaxCount
	}
	store, err := openQueue(ctx, cfg, newLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	n, err := store.PurgeJobs(ctx, storage.JobPurge{State: state, OlderThan: olderThan.Duration, Keep: keep})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "purged %d %s jobs\n", n, state)
	return nil
}
