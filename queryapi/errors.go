package queryapi

import "fmt"

// Error is an error whose message a caller may pass on to its client (or,
// as a tool error, to a model): a bad argument (ErrInvalidQuery), one that
// would widen the caller's scope (ErrOutOfScope) or a missing profile
// (ErrNoProfile). Kind is the sentinel it matches with errors.Is; Msg names
// only what the caller sent, so the HTTP and MCP layers read it with
// errors.As instead of cutting it out of Error().
type Error struct {
	Kind error
	Msg  string
}

// Error is Kind's text, a colon and Msg.
func (e *Error) Error() string { return e.Kind.Error() + ": " + e.Msg }

// Unwrap returns Kind.
func (e *Error) Unwrap() error { return e.Kind }

// errorf returns an *Error of kind whose message is formatted like fmt.Sprintf.
func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// invalid returns an ErrInvalidQuery.
func invalid(format string, args ...any) error {
	return errorf(ErrInvalidQuery, format, args...)
}
