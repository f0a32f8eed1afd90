// Package queryapi holds the user-bound tools as plain Go methods and all
// ranking fusion of the messages and events.
//
// A Tools value is bound to one user (and, inside a group chat, one group)
// when it is made; no parameter of any tool names a user, so neither a
// caller nor a model can choose one. It validates every input and returns
// ErrInvalidQuery for bad ones. The tools are the message tools
// (messages_list, lexical_search, semantic_search, neighbors, returning
// Evidence), the events' search_events and the context injected each turn,
// the profiles' get_profile and search_profiles (with a profile's revisions
// and restore), the memos and the browse lists.
//
// fusion.go is the one place rankings are combined, in one vocabulary
// (MinMax, weights, boosts, RRF): Hybrid ranks messages for a question
// that the caller has read (agent.ParseQuestion), and SearchEvents fuses
// the events' lexical and semantic rankings before its time decay, and
// SearchProfiles fuses the two rankings of storage's SearchProfiles by
// reciprocal rank (RRF).
package queryapi
