package storage

import "fmt"

// Error is an error whose message a caller may pass on to its client: what
// was wrong with the arguments (ErrInvalid), which message id conflicts
// (ErrConflict), which limit was reached (ErrMemoryLimit) or which profile
// revision is missing (ErrNotFound). Kind is the
// sentinel it matches with errors.Is; Msg names only what the caller sent,
// so an HTTP or MCP layer reads it with errors.As instead of cutting it out
// of Error().
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
