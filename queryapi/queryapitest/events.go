package queryapitest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/storage"
)

// EventJobKind is the job kind StoreEvents completes.
const EventJobKind = "test_events"

// StoreEvents stores evs for user the way the historian does, through a job
// that CompleteJob finishes, and returns them as stored. Each event's user
// and job are set; an empty id becomes "<job>:<index>:<perspective>", and
// an empty perspective and request type follow the group id.
func StoreEvents(tb testing.TB, s *storage.Store, user string, evs ...storage.Event) []storage.Event {
	tb.Helper()
	ctx := tb.Context()
	if _, _, err := s.EnqueueJob(ctx, storage.NewJob{UserID: user, Kind: EventJobKind, Payload: json.RawMessage(`{}`)}); err != nil {
		tb.Fatal(err)
	}
	j, ok, err := s.ClaimJob(ctx, EventJobKind, time.Minute)
	if err != nil || !ok {
		tb.Fatalf("claim event job: ok=%v err=%v", ok, err)
	}
	out := make([]storage.Event, len(evs))
	for i, e := range evs {
		e.UserID, e.JobID = user, j.ID
		if e.Perspective == "" {
			e.Perspective = storage.PerspectiveSender
			if e.GroupID != "" {
				e.Perspective = storage.PerspectiveGroup
			}
		}
		if e.RequestType == "" {
			e.RequestType = "private"
			if e.GroupID != "" {
				e.RequestType = "group"
			}
		}
		if e.ID == "" {
			e.ID = fmt.Sprintf("%s:%d:%s", j.ID, i, e.Perspective)
		}
		if e.Original == "" {
			e.Original = e.Content
		}
		out[i] = e
	}
	if _, err := s.CompleteJob(ctx, j, storage.JobResult{Events: out}); err != nil {
		tb.Fatal(err)
	}
	return out
}

// Events makes n synthetic events of a few senders in a few groups (a
// quarter private), one every hour from T0, with Zipf-distributed words.
func Events(r *rand.Rand, n int) []storage.Event {
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(vocabulary)-1))
	out := make([]storage.Event, n)
	for i := range out {
		words := make([]string, 6+r.IntN(10))
		for j := range words {
			words[j] = vocabulary[zipf.Uint64()]
		}
		sender := fmt.Sprintf("%d", 10000+r.IntN(20))
		group := ""
		if i%4 != 0 {
			group = fmt.Sprintf("g%d", r.IntN(5))
		}
		out[i] = storage.Event{
			GroupID: group, SenderID: sender, SenderName: "user" + sender, IsAbsolute: true,
			Content:   fmt.Sprintf("user%s(%s) %s", sender, sender, strings.Join(words, " ")),
			Timestamp: T0.Add(time.Duration(i) * time.Hour),
		}
	}
	return out
}
