package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/recalld/recalld/storage"
)

// Job is a claimed end-of-turn job with its decoded turn.
type Job struct {
	storage.Job
	Turn TurnEnd
	// Final reports that this attempt is the job's last: if it fails, the
	// job stays failed. A processor may then prefer a degraded result.
	Final bool
}

// Result is what processing a job produced. The worker stores it in the
// transaction that marks the job done, so a job is done exactly when its
// result is stored, and a job cut off by a crash stores nothing until it reruns.
type Result struct {
	Events []storage.Event
	// Profiles are the changes to the user's profiles of the people and
	// groups the events are about (see ProfileMerges).
	Profiles []storage.ProfileMerge
}

// Processor does the work of one job. An error fails the attempt: the
// worker retries the job later, up to its retry limit. A job may run more
// than once (after a crash), so processing must not have other side effects.
type Processor interface {
	Process(ctx context.Context, job Job) (Result, error)
}

// permanentError is a failure that retrying cannot fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as a failure that retrying cannot fix (a payload that
// does not decode, say): the job ends failed at once, with err kept.
func Permanent(err error) error { return permanentError{err} }

// WorkerConfig tunes a Worker. Start from DefaultWorkerConfig.
type WorkerConfig struct {
	// Poll is how long the worker sleeps when no job waits.
	Poll time.Duration
	// StaleTimeout is the lease of a claimed job: a job still processing
	// after it (its worker hung) goes back to pending, and the attempt
	// counts. A job whose process died goes back at once, uncounted (see
	// storage.Store.ReclaimDeadLeases).
	StaleTimeout time.Duration
	// MaxRetries is how many times a failed job is tried again before it
	// stays failed with its error (0: never).
	MaxRetries int
	// RetryBackoff delays the first retry; each further one waits twice as
	// long, at most a minute.
	RetryBackoff time.Duration
	// FailedMaxAge and FailedMaxCount bound the failed jobs kept for
	// inspection: older or surplus ones are purged (0: no bound).
	FailedMaxAge   time.Duration
	FailedMaxCount int
	// Maintenance is how often stale jobs are recovered and failed ones
	// purged, besides at start.
	Maintenance time.Duration
	// Gate, if set, guards the worker's use of the store: a circuit breaker
	// shared with the HTTP routes. While it refuses, the worker waits Poll
	// instead of retrying against a failing store.
	Gate Gate
	// OnOutcome, if set, hears how each attempt ended (OutcomeDone,
	// OutcomeRetry or OutcomeFailed) and how long processing took; for metrics.
	OnOutcome func(outcome string, took time.Duration)
	Logger    *slog.Logger
}

// Outcomes of a job attempt, as WorkerConfig.OnOutcome hears them.
const (
	OutcomeDone   = "done"
	OutcomeRetry  = "retry"  // failed; runs again after its backoff
	OutcomeFailed = "failed" // failed for good; kept for inspection
)

// Gate is a circuit breaker around the store (in recalld, gobreaker's
// TwoStepCircuitBreaker behind the HTTP routes' breaker). Allow refuses
// while the store is known to fail; otherwise done must get the outcome.
type Gate interface {
	Allow() (done func(error), err error)
}

// DefaultWorkerConfig is the configuration of the defaults: poll
// 1 s, stale after 300 s, 3 retries, failed jobs kept 30 days and at most 500.
func DefaultWorkerConfig() WorkerConfig {
	return WorkerConfig{
		Poll:           time.Second,
		StaleTimeout:   300 * time.Second,
		MaxRetries:     3,
		RetryBackoff:   time.Second,
		FailedMaxAge:   30 * 24 * time.Hour,
		FailedMaxCount: 500,
		Maintenance:    time.Minute,
	}
}

// Worker runs the queue: it claims pending jobs one at a time, hands them to
// its Processor and records the outcome.
type Worker struct {
	store *storage.Store
	proc  Processor
	cfg   WorkerConfig
	log   *slog.Logger

	lastErr    string    // the last loop error logged
	lastErrLog time.Time // when it was logged
	suppressed int       // loop errors not logged since
}

// NewWorker returns a worker over store's job table. Non-positive durations
// in cfg take their defaults.
func NewWorker(store *storage.Store, proc Processor, cfg WorkerConfig) *Worker {
	def := DefaultWorkerConfig()
	for _, d := range []struct{ v, def *time.Duration }{
		{&cfg.Poll, &def.Poll}, {&cfg.StaleTimeout, &def.StaleTimeout},
		{&cfg.RetryBackoff, &def.RetryBackoff}, {&cfg.Maintenance, &def.Maintenance},
	} {
		if *d.v <= 0 {
			*d.v = *d.def
		}
	}
	cfg.MaxRetries = max(cfg.MaxRetries, 0)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{store: store, proc: proc, cfg: cfg, log: log.With("component", "ingest")}
}

// Run recovers stale jobs, then processes jobs until ctx is cancelled,
// sleeping Poll whenever the queue is empty. It returns nil on shutdown. A
// job cut off by shutdown stays claimed until the store closes; the next
// Open (or another live process's maintenance) then returns it to pending
// without counting the attempt.
func (w *Worker) Run(ctx context.Context) error {
	w.log.Info("historian worker started", "poll", w.cfg.Poll, "stale_timeout", w.cfg.StaleTimeout, "max_retries", w.cfg.MaxRetries)
	defer w.log.Info("historian worker stopped")
	w.guarded(func() error { return w.maintain(ctx) })
	lastMaintenance := time.Now()
	for {
		for ctx.Err() == nil {
			var ok bool
			err := w.guarded(func() (err error) {
				ok, err = w.ProcessNext(ctx)
				return err
			})
			if err != nil {
				if ctx.Err() == nil {
					w.loopError(err)
				}
				break
			}
			if !ok {
				break
			}
		}
		if time.Since(lastMaintenance) >= w.cfg.Maintenance {
			if w.guarded(func() error { return w.maintain(ctx) }) == nil {
				lastMaintenance = time.Now()
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(w.cfg.Poll):
		}
	}
}

// guarded runs fn, a use of the store, through the gate if there is one.
// A refusal is returned as fn's error would be.
func (w *Worker) guarded(fn func() error) error {
	if w.cfg.Gate == nil {
		return fn()
	}
	done, err := w.cfg.Gate.Allow()
	if err != nil {
		return fmt.Errorf("store circuit: %w", err)
	}
	err = fn()
	done(err)
	return err
}

// maintain recovers stale jobs and purges old failed ones. It logs what
// fails and returns the store error, if any.
func (w *Worker) maintain(ctx context.Context) error {
	requeued, failed, err := w.store.RecoverStaleJobs(ctx, w.cfg.MaxRetries+1)
	if err != nil {
		if ctx.Err() == nil {
			w.loopError(err)
		}
		return err
	}
	if requeued+failed > 0 {
		w.log.Warn("recovered stale jobs", "requeued", requeued, "failed", failed)
	}
	p := storage.JobPurge{State: storage.JobFailed, Keep: max(w.cfg.FailedMaxCount, 0), OlderThan: max(w.cfg.FailedMaxAge, 0)}
	if p.OlderThan == 0 && p.Keep == 0 {
		return nil
	}
	n, err := w.store.PurgeJobs(ctx, p)
	if err != nil {
		if ctx.Err() == nil {
			w.loopError(err)
		}
		return err
	}
	if n > 0 {
		w.log.Info("purged failed jobs", "count", n, "max_age", w.cfg.FailedMaxAge, "max_count", w.cfg.FailedMaxCount)
	}
	return nil
}

// loopError logs err, at most once a minute while the same error repeats.
func (w *Worker) loopError(err error) {
	msg := err.Error()
	if msg == w.lastErr && time.Since(w.lastErrLog) < time.Minute {
		w.suppressed++
		return
	}
	w.log.Error("queue", "err", err, "suppressed", w.suppressed)
	w.lastErr, w.lastErrLog, w.suppressed = msg, time.Now(), 0
}

// ProcessNext claims the oldest pending job, processes it and records the
// outcome. It reports whether there was a job; the error is about the queue
// itself, not the job (a job's failure is recorded on the job).
func (w *Worker) ProcessNext(ctx context.Context) (bool, error) {
	claimed, ok, err := w.store.ClaimJob(ctx, KindTurnEnd, w.cfg.StaleTimeout)
	if err != nil || !ok {
		return false, err
	}
	log := w.log.With("job", claimed.ID, "attempt", claimed.Attempts)
	job := Job{Job: claimed, Final: claimed.Attempts >= w.cfg.MaxRetries+1}
	var (
		res  Result
		perr error
		took time.Duration
	)
	if err := json.Unmarshal(claimed.Payload, &job.Turn); err != nil {
		perr = Permanent(fmt.Errorf("decode turn: %w", err))
	} else {
		start := time.Now()
		res, perr = w.proc.Process(ctx, job)
		took = time.Since(start)
		log = log.With("took", took)
	}
	if perr != nil && ctx.Err() != nil {
		// Shutdown cut the attempt off; once the store closes, its lease
		// owner is gone and the job goes back to pending, uncounted.
		log.Info("job interrupted by shutdown; it runs again at the next start")
		return true, nil
	}
	// Record the outcome even while shutting down.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if perr == nil {
		out, err := w.store.CompleteJob(fctx, claimed, storage.JobResult{Events: res.Events, Profiles: res.Profiles})
		switch {
		case errors.Is(err, storage.ErrJobState):
			log.Warn("job finished after its claim was lost; its result is dropped, the rerun stores it")
			return true, nil
		case errors.Is(err, storage.ErrInvalid):
			// The processor produced something storage refuses: a bug that
			// retrying will not fix.
			perr = Permanent(err)
		case err != nil:
			return true, err
		default:
			log.Debug("job done", "events", out.Events, "profiles", out.Profiles)
			w.outcome(OutcomeDone, took)
			return true, nil
		}
	}
	maxAttempts := w.cfg.MaxRetries + 1
	if errors.As(perr, new(permanentError)) {
		maxAttempts = 0
	}
	after, err := w.store.FailJob(fctx, claimed, perr.Error(), maxAttempts, w.backoff(claimed.Attempts))
	if err != nil {
		if errors.Is(err, storage.ErrJobState) {
			log.Warn("job failed after its claim was lost", "err", perr)
			return true, nil
		}
		return true, err
	}
	if after.State == storage.JobFailed {
		log.Error("job failed; kept for inspection (recalld jobs list -state failed)", "err", perr)
		w.outcome(OutcomeFailed, took)
	} else {
		log.Warn("job attempt failed; retrying", "err", perr, "retry_at", after.RunAfter)
		w.outcome(OutcomeRetry, took)
	}
	return true, nil
}

func (w *Worker) outcome(o string, took time.Duration) {
	if w.cfg.OnOutcome != nil {
		w.cfg.OnOutcome(o, took)
	}
}

// backoff is the delay before the retry that follows attempt.
func (w *Worker) backoff(attempt int) time.Duration {
	d := w.cfg.RetryBackoff
	for i := 1; i < attempt && d < time.Minute; i++ {
		d *= 2
	}
	return min(d, time.Minute)
}
