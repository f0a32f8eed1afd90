package storage

import "time"

// Observer hears what the store does in the background, for metrics. Its
// methods are called on the store's goroutines, so they must be cheap and
// safe for concurrent use.
type Observer interface {
	// Embedded reports one embedder call: how many texts, how long it took
	// and its error (nil on success).
	Embedded(texts int, d time.Duration, err error)
	// Indexed reports outbox entries the indexer finished: messages and
	// events indexed, deletions applied.
	Indexed(entries int)
}

type nopObserver struct{}

func (nopObserver) Embedded(int, time.Duration, error) {}
func (nopObserver) Indexed(int)                        {}
