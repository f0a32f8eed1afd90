// Package storage is the only package that opens SQLite, sqlite-vec or Bleve.
//
// SQLite (WAL, synchronous=FULL) is the source of truth: a write is
// acknowledged once its transaction commits. The vector table (sqlite-vec
// vec0, partitioned by user) and the Bleve lexical index are derived from it
// by an indexer that follows an outbox table, so a restart resumes where it
// stopped and Reindex rebuilds both from the messages. Every read is bound to
// one user: SQL filters on user_id, vec0 queries name the user's partition,
// Bleve queries carry a term filter on user_id, and every hit is re-read from
// SQLite with the user in the WHERE clause before it is returned.
//
// The jobs table is the historian's durable queue (jobs.go): an enqueue is
// acknowledged once its INSERT commits, and each state change is one UPDATE
// in a write transaction, fenced by the claim's attempt number. A job is
// completed together with the events it produced (events.go), in one
// transaction. OpenQueue opens that table (and the memos, events and
// profiles jobs write) without the indexes, as a Queue, for operator tools
// working beside a running server.
package storage
