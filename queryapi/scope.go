package queryapi

import (
	"fmt"
	"strings"
	"time"

	"github.com/recalld/recalld/storage"
)

// ErrOutOfScope is an argument that would widen the caller's scope (a
// target group other than the group the caller is in). It is an
// ErrInvalidQuery too, so a model calling a tool sees it as a bad argument.
var ErrOutOfScope = fmt.Errorf("%w: outside the caller's scope", ErrInvalidQuery)

// Option configures a Service.
type Option func(*Service)

// WithClock sets the clock of the time decay of event searches (default time.Now).
func WithClock(now func() time.Time) Option {
	return func(s *Service) { s.now = now }
}

// InGroup returns the tools narrowed to one group chat, for a caller
// speaking in that group: every message tool and SearchEvents then filter on
// group_id (in SQLite, vec0 and Bleve), a filter naming another group is
// ErrOutOfScope, and a message of another group reads like a missing one.
// Scopes only narrow: InGroup on tools already in a group must name the same
// group. Private chats need no scope: the user is the partition.
func (t *Tools) InGroup(group string) (*Tools, error) {
	switch {
	case strings.TrimSpace(group) == "":
		return nil, invalid("group scope: empty group_id")
	case len(group) > storage.MaxIDLen:
		return nil, invalid("group scope: group_id is longer than %d bytes", storage.MaxIDLen)
	case t.group != "" && t.group != group:
		return nil, errorf(ErrOutOfScope, "the tools are bound to another group")
	}
	c := *t
	c.group = group
	return &c, nil
}

// Group returns the group the tools are narrowed to, "" for none.
func (t *Tools) Group() string { return t.group }

// scope applies the tools' group to a storage filter.
func (t *Tools) scope(f storage.Filter) (storage.Filter, error) {
	if t.group == "" {
		return f, nil
	}
	if f.GroupID != "" && f.GroupID != t.group {
		return f, errorf(ErrOutOfScope, "filter.group_id %q is not the group of the conversation", f.GroupID)
	}
	f.GroupID = t.group
	return f, nil
}
