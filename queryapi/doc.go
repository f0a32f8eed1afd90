// Package queryapi exposes the four user-bound query tools (messages_list,
// lexical_search, semantic_search, neighbors) over storage as plain Go
// methods. A Tools value is bound to one user when it is made; no parameter
// of any tool names a user, so neither a caller nor a model can choose one.
// It validates every input and returns ErrInvalidQuery for bad ones. The
// cognitive tools get_profile and search_profiles (with a profile's
// revisions and restore) are bound the same way.
package queryapi
