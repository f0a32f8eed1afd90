package queryapi_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

func TestEventsListPages(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	t0 := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	var evs []storage.Event
	// Seven events, two pairs sharing a second, in two groups and private.
	for i, sec := range []int{0, 10, 10, 20, 30, 30, 40} {
		g := []string{"", "g1", "g2"}[i%3]
		evs = append(evs, storage.Event{GroupID: g, SenderID: "1", Content: "event " + string(rune('a'+i)), IsAbsolute: true,
			Timestamp: t0.Add(time.Duration(sec) * time.Second)})
	}
	queryapitest.StoreEvents(t, s, "u", evs...)
	queryapitest.StoreEvents(t, s, "other", storage.Event{SenderID: "2", Content: "not yours", IsAbsolute: true, Timestamp: t0})
	tools := bind(t, queryapi.New(s), "u")

	// Page through with limit 2: every event once, newest first.
	var got []string
	p := queryapi.EventListParams{Limit: 2}
	for range 10 {
		page, err := tools.EventsList(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Events {
			got = append(got, e.Content)
		}
		if page.Next.IsZero() {
			break
		}
		p.Before = page.Next
	}
	want := []string{"event g", "event f", "event e", "event d", "event c", "event b", "event a"}
	// Events of one second come in seq order, newest first.
	if !slices.Equal(got, want) {
		t.Errorf("timeline %v, want %v", got, want)
	}

	g1, err := tools.InGroup("g1")
	if err != nil {
		t.Fatal(err)
	}
	page, err := g1.EventsList(t.Context(), queryapi.EventListParams{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page.Events {
		if e.GroupID != "g1" {
			t.Errorf("group-scoped list returned %q of group %q", e.Content, e.GroupID)
		}
	}
	if _, err := g1.EventsList(t.Context(), queryapi.EventListParams{GroupID: "g2"}); !errors.Is(err, queryapi.ErrOutOfScope) {
		t.Errorf("another group's events: %v, want ErrOutOfScope", err)
	}
	if _, err := tools.EventsList(t.Context(), queryapi.EventListParams{Limit: 201}); !errors.Is(err, queryapi.ErrInvalidQuery) {
		t.Errorf("limit 201: %v, want ErrInvalidQuery", err)
	}
}

func TestProfilesListValidates(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	tools := bind(t, queryapi.New(s), "u")
	if got, err := tools.ProfilesList(t.Context(), queryapi.ProfileListParams{}); err != nil || len(got.Profiles) != 0 {
		t.Errorf("no profiles: %+v %v", got, err)
	}
	if _, err := tools.ProfilesList(t.Context(), queryapi.ProfileListParams{EntityType: "robot"}); !errors.Is(err, queryapi.ErrInvalidQuery) {
		t.Errorf("entity_type robot: %v, want ErrInvalidQuery", err)
	}
}
