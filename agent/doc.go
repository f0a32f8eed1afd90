// Package agent holds the recall agent: the Observe → Decide → Reflect loop
// over the user-bound query tools, its two brains (the offline brain that
// follows the recall skill's rules, and an LLM brain that drives the same
// tools with native tool calls through LangChainGo), the evidence verifier
// both answers pass through, and ParseQuestion, which reads a question
// (keywords, dates, names) for queryapi.Hybrid, the fused ranking.
//
// Everything agent reads comes through queryapi.Tools, which are bound to one
// user before agent sees them; agent never imports storage, opens SQLite or
// Bleve, or chooses a user. The offline brain is deterministic for the same
// store, question and clock.
package agent
