package main

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/sony/gobreaker/v2"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
)

// Breaker states as /healthz and /readyz show them.
const (
	breakerClosed   = "closed"
	breakerOpen     = "open"
	breakerHalfOpen = "half-open"
)

// storeBreaker is the circuit breaker around the store in the serving path:
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
type storeBreaker struct {
	cb      *gobreaker.TwoStepCircuitBreaker[struct{}]
	timeout time.Duration

	mu       sync.Mutex
	openedAt time.Time
}

var _ ingest.Gate = (*storeBreaker)(nil)

// breakerWindow is the period after which a closed breaker forgets its counts.
const breakerWindow = time.Minute

var (
	// errHandlerPanicked reports a handler that panicked to the breaker.
	errHandlerPanicked = errors.New("handler panicked")
	// errNotCounted reports a health check that succeeded: it must neither
	// close a half-open circuit nor reset the failures counted so far.
	errNotCounted = errors.New("health check: not counted")
)

func newStoreBreaker(cfg BreakerConfig, log *slog.Logger) *storeBreaker {
	b := &storeBreaker{timeout: cfg.OpenTimeout.Duration}
	failures := uint32(max(cfg.Failures, 1))
	b.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        "store",
		MaxRequests: uint32(max(cfg.HalfOpenRequests, 1)),
		Timeout:     cfg.OpenTimeout.Duration,
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
		IsExcluded: func(err error) bool { return errors.Is(err, errNotCounted) || (err != nil && !storeFailure(err)) },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			switch to {
			case gobreaker.StateOpen:
				b.mu.Lock()
				b.openedAt = time.Now()
				b.mu.Unlock()
				log.Error("store circuit open: store routes answer 503 store_unavailable until a probe succeeds",
					"from", stateName(from), "probe_in", cfg.OpenTimeout.Duration)
			case gobreaker.StateHalfOpen:
				log.Warn("store circuit half-open: probing the store")
			case gobreaker.StateClosed:
				log.Info("store circuit closed: the store answers again")
			}
		},
	})
	return b
}

// storeFailure reports whether err, returned by a handler, a tool or the
// worker, is the store failing. storage classifies its errors (ErrFault);
// a cancelled or timed-out request is never one, whatever it met.
func storeFailure(err error) bool {
	return errors.Is(err, storage.ErrFault) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// Allow asks to use the store. It refuses while the circuit is open (or
// half-open with its probes taken); otherwise done must be called with the
// outcome.
func (b *storeBreaker) Allow() (done func(error), err error) { return b.cb.Allow() }

// State is closed, open or half-open.
func (b *storeBreaker) State() string { return stateName(b.cb.State()) }

func stateName(s gobreaker.State) string {
	switch s {
	case gobreaker.StateOpen:
		return breakerOpen
	case gobreaker.StateHalfOpen:
		return breakerHalfOpen
	}
	return breakerClosed
}

// retryAfter is how long until the circuit lets a probe through, at least a second.
func (b *storeBreaker) retryAfter() time.Duration {
	if b.cb.State() != gobreaker.StateOpen {
		return time.Second
	}
	b.mu.Lock()
	left := b.timeout - time.Since(b.openedAt)
	b.mu.Unlock()
	return max(left, time.Second)
}

// refused is the response to a request the circuit did not let through.
func (b *storeBreaker) refused(c echo.Context) error {
	wait := b.retryAfter()
	c.Response().Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(wait.Seconds()))))
	msg := "the store is failing; requests are refused until a probe succeeds"
	if b.cb.State() == gobreaker.StateHalfOpen {
		msg = "the store is being probed after failures; retry shortly"
	}
	return &apiError{http.StatusServiceUnavailable, codeStoreUnavailable, msg}
}

// check runs a health check of the store while the circuit is closed: its
// failure counts, its success does not. With the circuit open or half-open
// it does not touch the store (health checks are no probes) and returns
// errCircuit.
func (b *storeBreaker) check(fn func() error) error {
	if b.cb.State() != gobreaker.StateClosed {
		return errCircuit
	}
	done, err := b.Allow()
	if err != nil {
		return errCircuit
	}
	err = fn()
	if err == nil {
		done(errNotCounted)
		return nil
	}
	done(err)
	return err
}

// errCircuit: a health check skipped because the circuit is not closed.
var errCircuit = errors.New("store circuit not closed")

// guard runs a handler that uses the store through the breaker.
func (b *storeBreaker) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		done, err := b.Allow()
		if err != nil {
			return b.refused(c)
		}
		finished := false
		defer func() {
			if !finished {
				done(errHandlerPanicked) // a half-open probe must not stay taken
			}
		}()
		err = next(c)
		finished = true
		done(err)
		return err
	}
}
