// Package eval scores recall against fixture suites and LoCoMo.
//
// A suite (the project's fixture format, or a LoCoMo file) is loaded into a
// Suite, ingested into a fresh store, and asked of every Runner: lexical,
// semantic and hybrid rank the case user's messages through the user-bound
// queryapi tools, and an agent runner can be added through the same
// interface. Run writes report.json, report.md and SVG plots, and CheckFloors
// turns quality floors into an error that a CI can fail on.
//
// eval uses storage only to load fixtures into a store; every question goes
// through queryapi or agent, like a bot's would. Nothing imports eval except
// cmd/recalld. Scores are deterministic for the same inputs: message times
// come from the suite, rankings break ties by id, and nothing is random.
// Latencies are measured, so they are the only numbers that vary.
package eval
