package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// TestToError checks the error table: each typed error gives its status,
// code and message, however deep it is wrapped, and errors.Is still sees
// its sentinel.
func TestToError(t *testing.T) {
	wrap := func(err error) error { return fmt.Errorf("op %q: %w", "k", err) }
	tests := []struct {
		name     string
		err      error
		sentinel error
		want     Error
		internal bool
	}{
		{"agent invalid request", &agent.InvalidRequestError{Msg: "question is required"}, agent.ErrInvalidRequest,
			Error{http.StatusUnprocessableEntity, CodeInvalid, "question is required"}, false},
		{"out of scope", wrap(&queryapi.Error{Kind: queryapi.ErrOutOfScope, Msg: `filter.group_id "g2" is not the group of the conversation`}), queryapi.ErrInvalidQuery,
			Error{http.StatusForbidden, CodeForbidden, `outside the caller's scope: filter.group_id "g2" is not the group of the conversation`}, false},
		{"invalid turn", wrap(&ingest.InvalidTurnError{Msg: "sender_id is required"}), ingest.ErrInvalidTurn,
			Error{http.StatusUnprocessableEntity, CodeInvalid, "sender_id is required"}, false},
		{"invalid query", wrap(&queryapi.Error{Kind: queryapi.ErrInvalidQuery, Msg: "query is required"}), queryapi.ErrInvalidQuery,
			Error{http.StatusUnprocessableEntity, CodeInvalid, "query is required"}, false},
		{"storage invalid", wrap(wrap(&storage.Error{Kind: storage.ErrInvalid, Msg: "bad cursor"})), storage.ErrInvalid,
			Error{http.StatusUnprocessableEntity, CodeInvalid, "bad cursor"}, false},
		{"no profile", &queryapi.Error{Kind: queryapi.ErrNoProfile, Msg: `no user profile "x"`}, queryapi.ErrNoProfile,
			Error{http.StatusNotFound, CodeNotFound, `no user profile "x" for this user`}, false},
		{"memory limit", wrap(&storage.Error{Kind: storage.ErrMemoryLimit, Msg: "a user keeps at most 100 pinned memories"}), storage.ErrMemoryLimit,
			Error{http.StatusConflict, CodeConflict, "pinned memory limit reached: a user keeps at most 100 pinned memories"}, false},
		{"conflict", &storage.Error{Kind: storage.ErrConflict, Msg: `"m1"`}, storage.ErrConflict,
			Error{http.StatusConflict, CodeConflict, `"m1": a message with this id exists with different content`}, false},
		{"missing revision", wrap(&storage.Error{Kind: storage.ErrNotFound, Msg: "no revision 3 of profile user/x"}), storage.ErrNotFound,
			Error{http.StatusNotFound, CodeNotFound, "no such message for this user"}, false},
		{"memory not found", wrap(storage.ErrMemoryNotFound), storage.ErrNotFound,
			Error{http.StatusNotFound, CodeNotFound, "no such pinned memory for this user"}, false},
		{"deadline", wrap(context.DeadlineExceeded), context.DeadlineExceeded,
			Error{http.StatusServiceUnavailable, CodeTimeout, "the request took longer than its time limit"}, true},
		{"internal", errors.New("disk on fire"), nil,
			Error{http.StatusInternalServerError, CodeInternal, "internal error"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.sentinel != nil && !errors.Is(tt.err, tt.sentinel) {
				t.Errorf("errors.Is(%v, %v) = false", tt.err, tt.sentinel)
			}
			got, internal := ToError(tt.err)
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("ToError(%v) (-want +got):\n%s", tt.err, diff)
			}
			if internal != tt.internal {
				t.Errorf("ToError(%v) internal = %v, want %v", tt.err, internal, tt.internal)
			}
		})
	}
}

// TestTypedErrorText checks that the typed errors read as the sentinel
// wrapped with fmt.Errorf("%w: msg") did before them (logs and tool errors
// show this text).
func TestTypedErrorText(t *testing.T) {
	for _, tt := range []struct{ err, sentinel error }{
		{&agent.InvalidRequestError{Msg: "m"}, agent.ErrInvalidRequest},
		{&ingest.InvalidTurnError{Msg: "m"}, ingest.ErrInvalidTurn},
		{&queryapi.Error{Kind: queryapi.ErrOutOfScope, Msg: "m"}, queryapi.ErrOutOfScope},
		{&storage.Error{Kind: storage.ErrInvalid, Msg: "m"}, storage.ErrInvalid},
	} {
		if got, want := tt.err.Error(), fmt.Errorf("%w: m", tt.sentinel).Error(); got != want {
			t.Errorf("Error() = %q, want %q", got, want)
		}
	}
}
