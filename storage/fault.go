package storage

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/blevesearch/bleve/v2"
	"github.com/mattn/go-sqlite3"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrFault marks an error of the store itself rather than of the request
// that met it: a disk I/O error, a full disk, a read-only or corrupt
// database, a file that cannot be opened or is no database, a lock held
// past the busy timeout, a closed store, or an I/O error of a lexical
// index. Validation errors, missing rows, conflicts, bad data of one row,
// timeouts and cancellations never are. Every exported method of Store
// marks its errors; test with errors.Is. A circuit breaker around the
// store counts these and nothing else.
var ErrFault = errors.New("storage: store fault")

// faultError is a store fault: err marked with ErrFault, its text unchanged.
type faultError struct{ err error }

func (e *faultError) Error() string   { return e.err.Error() }
func (e *faultError) Unwrap() []error { return []error{ErrFault, e.err} }

// fault marks *errp with ErrFault when it is a store fault (see ErrFault);
// every exported method that can fail defers it. After Close every error
// is one, and wraps ErrClosed.
func (s *Store) fault(errp *error) {
	err := *errp
	switch {
	case err == nil, errors.Is(err, ErrFault),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return
	case s.closed.Load():
		*errp = &faultError{&closedError{err}}
	case isFault(err):
		*errp = &faultError{err}
	}
}

// closedError is an error of a store used after Close.
type closedError struct{ err error }

func (e *closedError) Error() string   { return e.err.Error() }
func (e *closedError) Unwrap() []error { return []error{ErrClosed, e.err} }

// isFault classifies err by the types in its chain, never by its text.
func isFault(err error) bool {
	// The embedder is guarded by a breaker of its own, and its network
	// errors are no disk's.
	if errors.Is(err, ErrSemanticUnavailable) {
		return false
	}
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrIoErr, sqlite3.ErrFull, sqlite3.ErrCorrupt, sqlite3.ErrNotADB, sqlite3.ErrCantOpen,
			sqlite3.ErrReadonly, sqlite3.ErrBusy, sqlite3.ErrLocked:
			return true
		}
		// A constraint, a type mismatch, a misuse: a bug or one row's bad
		// data, which a retry against the same store repeats.
		return false
	}
	switch {
	case errors.Is(err, sql.ErrConnDone),
		errors.Is(err, bleve.ErrorIndexClosed),
		errors.Is(err, bolterrors.ErrDatabaseNotOpen), errors.Is(err, bolterrors.ErrTimeout):
		return true
	}
	// The lexical indexes' files (Bleve, bbolt and mmap'd segments).
	var (
		pe    *fs.PathError
		sce   *os.SyscallError
		errno syscall.Errno
	)
	return errors.As(err, &pe) || errors.As(err, &sce) || errors.As(err, &errno)
}
