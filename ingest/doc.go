// Package ingest will run the historian queue: bots end each turn with a
// memo and observations, Enqueue makes the job durable, and Worker.Run turns
// observations into absolute events and keeps profiles current (issue 4).
//
// It reads and writes through package storage only; it never opens SQLite
// or Bleve itself. Nothing is implemented here yet.
package ingest
