// Package ingest runs the historian queue. A bot ends each turn with a memo
// and observations; Queue.Enqueue validates the turn and makes it a durable
// job (one INSERT: acknowledged means it survives a crash). Worker.Run
// claims jobs one at a time, hands each to a Processor, completes it or
// retries it with backoff up to its retry limit, keeps jobs that still fail
// with their error, and on start recovers jobs whose worker died.
//
// Historian is the default Processor, the offline historian: it rewrites
// observations to absolute form with rules (relative times to dates in its
// time zone, first and second person to the sender's name and id), flags
// what the rules could not resolve, and makes one event per observation;
// the worker stores the events in the transaction that completes the job.
//
// LLMHistorian is the other Processor behind the same seam: a language
// model rewrites the observations through a tool call, the same gate checks
// its output (relative words left, entity ids the source does not show),
// and the rules take over whatever the model cannot deliver.
//
// It reads and writes through package storage only; it never opens SQLite
// or Bleve itself.
package ingest
