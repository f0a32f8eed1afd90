// Package agent holds the recall agent: the retrieval strategy it runs over
// the user-bound query tools and, later, the LangChainGo loop that lets a
// model drive those tools.
//
// Everything agent reads comes through queryapi.Tools, which are bound to one
// user before agent sees them; agent never imports storage, opens SQLite or
// Bleve, or chooses a user. Its rankings are deterministic for the same store
// and question.
package agent
