// Package breaker is the circuit breaker around the store in the serving
// path. One Breaker, built and owned by the serve command, is shared by the
// HTTP routes, the MCP tools and the historian worker (it is their
// ingest.Gate).
package breaker

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
)

// Breaker states as /healthz and /readyz show them.
const (
	Closed   = "closed"
	Open     = "open"
	HalfOpen = "half-open"
)

// Breaker is the circuit breaker around the store in the serving path:
// the HTTP routes, the MCP tools and the historian worker share it. Store
// faults (storage.ErrFault: I/O errors, a full disk, a read-only, corrupt,
// closed or locked database, a lexical index's I/O error) in a row open it.
// Nothing else counts, either way: not a client's mistake, a missing row or
// a conflict, not one user's bad data or a bug answering 500, not a
// timeout, a cancelled request or a panicking handler; so one user's
// failing requests never shut the store for the others. While open, store routes answer 503 store_unavailable with
// Retry-After at once and the worker waits, instead of piling retries onto a
// failing disk. After the open timeout a few requests probe the store
// (half-open) and close the circuit when they succeed. gobreaker keeps the
// state machine.
type Breaker struct {
	cb      *gobreaker.TwoStepCircuitBreaker[struct{}]
	timeout time.Duration

	mu       sync.Mutex
	openedAt time.Time
}

var _ ingest.Gate = (*Breaker)(nil)

// breakerWindow is the period after which a closed breaker forgets its counts.
const breakerWindow = time.Minute

var (
	// errPanicked reports a handler that panicked to the breaker.
	errPanicked = errors.New("handler panicked")
	// errNotCounted reports a health check that succeeded: it must neither
	// close a half-open circuit nor reset the failures counted so far.
	errNotCounted = errors.New("health check: not counted")
)

// Settings is [breaker]: after Failures store failures in a row the circuit
// opens; after OpenTimeout up to HalfOpenRequests requests probe the store.
type Settings struct {
	Failures         int
	OpenTimeout      time.Duration
	HalfOpenRequests int
}

// New returns a closed breaker.
func New(cfg Settings, log *slog.Logger) *Breaker {
	b := &Breaker{timeout: cfg.OpenTimeout}
	failures := uint32(max(cfg.Failures, 1))
	b.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        "store",
		MaxRequests: uint32(max(cfg.HalfOpenRequests, 1)),
		Timeout:     cfg.OpenTimeout,
		// Counts start afresh every window while closed.
		Interval: breakerWindow,
		// Failures in a row trip it; so do as many failures making half the
		// window's counted requests, for a store whose writes fail (a full
		// disk) while reads in between still succeed.
		ReadyToTrip: func(c gobreaker.Counts) bool {
			counted := c.Requests - c.TotalExclusions
			return c.ConsecutiveFailures >= failures || (c.TotalFailures >= failures && 2*c.TotalFailures >= counted)
		},
		IsSuccessful: func(err error) bool { return err == nil },
		// A request that failed for any reason but a store fault (a client
		// mistake, one user's bad data or a bug, a deadline, a cancelled
		// caller, a panic) says nothing about the store either way: it
		// neither counts towards opening the circuit nor closes a
		// half-open one (it frees its probe slot).
		IsExcluded: func(err error) bool { return errors.Is(err, errNotCounted) || (err != nil && !StoreFailure(err)) },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			switch to {
			case gobreaker.StateOpen:
				b.mu.Lock()
				b.openedAt = time.Now()
				b.mu.Unlock()
				log.Error("store circuit open: store routes answer 503 store_unavailable until a probe succeeds",
					"from", stateName(from), "probe_in", cfg.OpenTimeout)
			case gobreaker.StateHalfOpen:
				log.Warn("store circuit half-open: probing the store")
			case gobreaker.StateClosed:
				log.Info("store circuit closed: the store answers again")
			}
		},
	})
	return b
}

// StoreFailure reports whether err, returned by a handler, a tool or the
// worker, is the store failing. storage classifies its errors (ErrFault);
// a cancelled or timed-out request is never one, whatever it met.
func StoreFailure(err error) bool {
	return errors.Is(err, storage.ErrFault) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// Allow asks to use the store. It refuses while the circuit is open (or
// half-open with its probes taken); otherwise done must be called with the
// outcome.
func (b *Breaker) Allow() (done func(error), err error) { return b.cb.Allow() }

// State is closed, open or half-open.
func (b *Breaker) State() string { return stateName(b.cb.State()) }

func stateName(s gobreaker.State) string {
	switch s {
	case gobreaker.StateOpen:
		return Open
	case gobreaker.StateHalfOpen:
		return HalfOpen
	}
	return Closed
}

// RetryAfter is how long until the circuit lets a probe through, at least a second.
func (b *Breaker) RetryAfter() time.Duration {
	if b.cb.State() != gobreaker.StateOpen {
		return time.Second
	}
	b.mu.Lock()
	left := b.timeout - time.Since(b.openedAt)
	b.mu.Unlock()
	return max(left, time.Second)
}

// Check runs a health check of the store while the circuit is closed: its
// failure counts, its success does not. With the circuit open or half-open
// it does not touch the store (health checks are no probes) and returns
// ErrCircuit.
func (b *Breaker) Check(fn func() error) error {
	if b.cb.State() != gobreaker.StateClosed {
		return ErrCircuit
	}
	done, err := b.Allow()
	if err != nil {
		return ErrCircuit
	}
	err = fn()
	if err == nil {
		done(errNotCounted)
		return nil
	}
	done(err)
	return err
}

// ErrCircuit: a health check skipped because the circuit is not closed.
var ErrCircuit = errors.New("store circuit not closed")

// ErrRefused is a call Do did not let through: the circuit is open, or
// half-open with its probes taken.
var ErrRefused = errors.New("store circuit refused the call")

// Do runs fn through gate, if any: it returns ErrRefused without running fn
// while the gate refuses, and otherwise reports fn's outcome to the gate
// (a panic in fn as a failure that does not count, so that a half-open
// probe never stays taken). The HTTP routes and the MCP tools both call
// the store through it.
func Do(gate ingest.Gate, fn func() error) error {
	if gate == nil {
		return fn()
	}
	done, err := gate.Allow()
	if err != nil {
		return ErrRefused
	}
	finished := false
	defer func() {
		if !finished {
			done(errPanicked)
		}
	}()
	err = fn()
	finished = true
	done(err)
	return err
}
