package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/httpapi"
)

// endTurnAt ends a turn with observations at t and waits until its events are stored.
func (c *client) endTurnAt(requestID, group, sender, senderName string, t time.Time, obs ...string) {
	c.ts.t.Helper()
	body := map[string]any{
		"request_id": requestID, "observations": obs, "sender_id": sender, "sender_name": senderName,
		"timestamp": t.UTC().Format(time.RFC3339), "request_type": "private",
	}
	if group != "" {
		body["request_type"], body["group_id"] = "group", group
	}
	var r ingest.Receipt
	c.Do("POST", "/turns/end", body, http.StatusAccepted, &r)
	c.waitJob(r.JobID, "done")
}

func eventContents(r httpapi.SearchEventsResponse) []string {
	out := make([]string, 0, len(r.Events))
	for _, e := range r.Events {
		out = append(out, e.Content)
	}
	return out
}

// TestEventsSearch runs the pipeline end to end over HTTP: turns ended in
// private and in two groups become events, which /events/search finds in
// zh and en, inside the caller's scope only.
func TestEventsSearch(t *testing.T) {
	ts := startServer(t, fastQueue)
	u := ts.as("qq:1")
	now := time.Now().UTC().Truncate(time.Second)
	day := 24 * time.Hour
	u.endTurnAt("p1", "", "10001", "小王", now.Add(-10*day), "我明天要去杭州出差")
	u.endTurnAt("g1a", "g1", "10002", "Ann", now.Add(-5*day), "Ann flew to Paris for the design review")
	u.endTurnAt("g1b", "g1", "10001", "小王", now.Add(-2*day), "小王喜欢喝乌龙茶")
	u.endTurnAt("g2a", "g2", "10003", "老李", now.Add(-1*day), "老李在成都吃了火锅", "Lao Li booked flights to Paris")
	other := ts.as("qq:2")
	other.endTurnAt("x1", "g1", "20001", "Bob", now.Add(-1*day), "Bob flew to Paris for the design review")
	ts.waitIndexed()

	search := func(c *client, body map[string]any, want int) httpapi.SearchEventsResponse {
		t.Helper()
		var r httpapi.SearchEventsResponse
		c.Do("POST", "/events/search", body, want, &r)
		return r
	}
	all := "Paris 杭州出差 乌龙茶 火锅 design review"
	tests := []struct {
		name    string
		c       *client
		body    map[string]any
		first   string   // the best event contains it
		groups  []string // every event is of one of these groups
		n       int      // considered
		senders []string
	}{
		{name: "zh, private chat", c: u, body: map[string]any{"query": "小王什么时候去杭州出差", "request_type": "private"}, first: "杭州出差", groups: []string{"", "g1", "g2"}, n: 5},
		{name: "en", c: u, body: map[string]any{"query": "who flew to Paris for the design review"}, first: "Ann", groups: []string{"", "g1", "g2"}, n: 5},
		{name: "group scope", c: u, body: map[string]any{"query": all, "request_type": "group", "group_id": "g1", "top_k": 20}, groups: []string{"g1"}, n: 2},
		{name: "group scope without request_type", c: u, body: map[string]any{"query": all, "group_id": "g2", "top_k": 20}, groups: []string{"g2"}, n: 2},
		{name: "target group narrows", c: u, body: map[string]any{"query": all, "target_group_id": "g2", "top_k": 20}, groups: []string{"g2"}, n: 2},
		{name: "target user", c: u, body: map[string]any{"query": all, "target_user_id": "10001", "top_k": 20}, groups: []string{"", "g1"}, n: 2, senders: []string{"10001"}},
		{name: "other user", c: other, body: map[string]any{"query": all, "top_k": 20}, first: "Bob", groups: []string{"g1"}, n: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := search(tt.c, tt.body, 200)
			if len(r.Events) == 0 || (tt.first != "" && !strings.Contains(r.Events[0].Content, tt.first)) {
				t.Fatalf("events %q, want the first to contain %q", eventContents(r), tt.first)
			}
			if r.Considered != tt.n || r.Mode != "tool" || r.HalfLifeDays != 60 {
				t.Errorf("considered %d mode %s half-life %v", r.Considered, r.Mode, r.HalfLifeDays)
			}
			for _, e := range r.Events {
				if !slices.Contains(tt.groups, e.GroupID) || (tt.senders != nil && !slices.Contains(tt.senders, e.SenderID)) {
					t.Errorf("event %q of group %q sender %q out of scope", e.Content, e.GroupID, e.SenderID)
				}
				if strings.Contains(e.Content, "Bob") != (tt.c == other) {
					t.Errorf("event %q crossed users", e.Content)
				}
			}
		})
	}

	// A window given backwards is swapped, with a warning.
	from, to := now.Add(-3*day).Format(time.RFC3339), now.Add(-6*day).Format(time.RFC3339)
	r := search(u, map[string]any{"query": all, "time_from": from, "time_to": to}, 200)
	if len(r.Events) != 1 || !strings.Contains(r.Events[0].Content, "Paris") || len(r.Warnings) != 1 || r.Window == nil || !r.Window.From.Before(r.Window.To) {
		t.Fatalf("swapped window: %q warnings %q window %+v", eventContents(r), r.Warnings, r.Window)
	}

	for _, bad := range []struct {
		body map[string]any
		want int
	}{
		{map[string]any{"query": all, "group_id": "g1", "target_group_id": "g2"}, http.StatusForbidden},
		{map[string]any{"query": " "}, http.StatusUnprocessableEntity},
		{map[string]any{"query": all, "top_k": 101}, http.StatusUnprocessableEntity},
		{map[string]any{"query": all, "time_from": "last week"}, http.StatusUnprocessableEntity},
		{map[string]any{"query": all, "request_type": "group"}, http.StatusUnprocessableEntity},
		{map[string]any{"query": all, "request_type": "private", "group_id": "g1"}, http.StatusUnprocessableEntity},
		{map[string]any{"query": all, "request_type": "channel"}, http.StatusUnprocessableEntity},
		{map[string]any{"query": all, "user_id": "qq:2"}, http.StatusBadRequest},
		{map[string]any{"query": all, "top_k": "ten"}, http.StatusBadRequest},
	} {
		search(u, bad.body, bad.want)
	}
	ts.as("").Do("POST", "/events/search", map[string]any{"query": all}, http.StatusBadRequest, nil)
}

// TestEventsSearchDeep checks that deep runs the recall agent over the
// messages inside the caller's group only.
func TestEventsSearchDeep(t *testing.T) {
	ts := startServer(t, fastQueue)
	u := ts.as("qq:1")
	now := time.Now().UTC().Truncate(time.Second)
	u.endTurnAt("g1a", "g1", "10001", "小王", now.Add(-time.Hour), "小王喜欢喝乌龙茶")
	msg := func(id, group, content string, minute int) map[string]any {
		return map[string]any{"id": id, "role": "user", "conversation_id": "c-" + group, "group_id": group, "sender_name": "小王",
			"content": content, "created_at": now.Add(time.Duration(minute-120) * time.Minute).Format(time.RFC3339)}
	}
	u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{
		msg("a1", "g1", "我最喜欢喝乌龙茶", 0),
		msg("a2", "g1", "乌龙茶要热的", 1),
		msg("b1", "g2", "我最喜欢喝乌龙茶，冰的", 0),
	}}, 200, nil)
	ts.waitIndexed()
	var r httpapi.SearchEventsResponse
	u.Do("POST", "/events/search", map[string]any{"query": "小王喜欢喝什么茶", "group_id": "g1", "deep": true}, 200, &r)
	if len(r.Events) != 1 || r.Deep == nil {
		t.Fatalf("events %q deep %+v", eventContents(r), r.Deep)
	}
	if len(r.Deep.Evidence) == 0 {
		t.Fatalf("deep found no evidence: %+v", r.Deep)
	}
	for _, e := range r.Deep.Evidence {
		if e.MessageID != "a1" && e.MessageID != "a2" {
			t.Errorf("deep evidence %s is from outside group g1", e.MessageID)
		}
	}
	if r.Deep.Limits.MessagesConsidered != 2 {
		t.Errorf("deep considered %d messages, want g1's 2", r.Deep.Limits.MessagesConsidered)
	}
	// Without deep there is no agent answer.
	var plain map[string]any
	u.Do("POST", "/events/search", map[string]any{"query": "乌龙茶"}, 200, &plain)
	if _, ok := plain["deep"]; ok {
		t.Fatalf("deep answer without deep: %v", plain)
	}
}
