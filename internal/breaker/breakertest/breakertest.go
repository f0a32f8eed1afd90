// Package breakertest has a fake of the store's gate (ingest.Gate, which
// *breaker.Breaker satisfies) for the tests of the packages that use one.
package breakertest

import (
	"errors"
	"slices"
	"sync"
)

// Gate refuses while told to and records the outcomes it is told. The zero
// Gate lets every call through.
type Gate struct {
	mu       sync.Mutex
	refuse   bool
	refused  int
	outcomes []error
}

// Allow refuses while Refuse(true) holds; otherwise the returned function
// records the call's outcome.
func (g *Gate) Allow() (func(error), error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.refuse {
		g.refused++
		return nil, errors.New("circuit open")
	}
	return func(err error) {
		g.mu.Lock()
		defer g.mu.Unlock()
		g.outcomes = append(g.outcomes, err)
	}, nil
}

// Refuse makes Allow refuse (on) or let calls through.
func (g *Gate) Refuse(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refuse = on
}

// Counts returns how many calls Allow refused and the outcomes of those it
// let through, in order.
func (g *Gate) Counts() (refused int, outcomes []error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused, slices.Clone(g.outcomes)
}
