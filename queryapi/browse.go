package queryapi

import (
	"context"
	"time"

	"github.com/recalld/recalld/storage"
)

// Limits of the browsing lists.
const (
	DefaultBrowseLimit = 50
	MaxBrowseLimit     = 200
)

// EventListParams select a page of the user's event timeline, newest first.
type EventListParams struct {
	GroupID string `json:"group_id,omitempty" jsonschema:"description=only events of this group chat"`
	// Before continues a timeline: events of turns before this time.
	Before time.Time `json:"before,omitzero" jsonschema:"description=only events of turns before this time (RFC 3339)"`
	Limit  int       `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200,description=how many events (default 50)"`
}

// EventList is a page of the event timeline. Next is the Before of the
// following page, zero on the last.
type EventList struct {
	Events []storage.Event `json:"events"`
	Next   time.Time       `json:"next_before,omitzero"`
}

// EventsList returns the user's events (in the tools' group when scoped),
// newest first.
func (t *Tools) EventsList(ctx context.Context, p EventListParams) (EventList, error) {
	limit, err := browseLimit(p.Limit)
	if err != nil {
		return EventList{}, err
	}
	f, err := t.scope(storage.Filter{GroupID: p.GroupID})
	if err != nil {
		return EventList{}, err
	}
	// One more than asked tells whether a next page exists.
	evs, err := t.store.ListEvents(ctx, t.user, storage.EventFilter{GroupID: f.GroupID, Before: p.Before, Limit: limit + 1})
	if err != nil {
		return EventList{}, mapErr(err)
	}
	out := EventList{Events: evs}
	if len(evs) > limit {
		// Before is exclusive and counts whole seconds: events of the
		// page's last second may continue past the cut. End the page before
		// that second and start the next page with it, unless the whole
		// page is that one second.
		page := evs[:limit]
		cut := page[limit-1].Timestamp.Unix()
		n := limit
		for n > 0 && page[n-1].Timestamp.Unix() == cut {
			n--
		}
		if n > 0 {
			out.Events, out.Next = page[:n], time.Unix(cut+1, 0).UTC()
		} else {
			out.Events, out.Next = page, time.Unix(cut, 0).UTC()
		}
	}
	return out, nil
}

// ProfileListParams select the user's profiles.
type ProfileListParams struct {
	EntityType string `json:"entity_type,omitempty" jsonschema:"enum=user,enum=group,description=only profiles of people or of groups"`
	Limit      int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=200,description=how many profiles (default 50)"`
}

// ProfileList is the user's profiles, ordered by entity type and id.
type ProfileList struct {
	Profiles []storage.Profile `json:"profiles"`
}

// ProfilesList returns the user's profiles.
func (t *Tools) ProfilesList(ctx context.Context, p ProfileListParams) (ProfileList, error) {
	limit, err := browseLimit(p.Limit)
	if err != nil {
		return ProfileList{}, err
	}
	if p.EntityType != "" && !storage.ValidEntityType(p.EntityType) {
		return ProfileList{}, invalid("entity_type must be user or group, not %q", p.EntityType)
	}
	ps, err := t.store.ListProfiles(ctx, t.user, p.EntityType, limit)
	if err != nil {
		return ProfileList{}, mapErr(err)
	}
	return ProfileList{Profiles: ps}, nil
}

func browseLimit(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultBrowseLimit, nil
	case n < 0 || n > MaxBrowseLimit:
		return 0, invalid("limit must be between 1 and %d", MaxBrowseLimit)
	}
	return n, nil
}
