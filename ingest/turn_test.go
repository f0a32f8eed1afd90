package ingest_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
)

func TestEnqueueValidates(t *testing.T) {
	q := ingest.NewQueue(openStore(t, "", nil))
	tests := []struct {
		name string
		turn ingest.TurnEnd
	}{
		{"unknown request type", ingest.TurnEnd{Memo: "m", RequestType: "channel"}},
		{"group without group_id", ingest.TurnEnd{Memo: "m", RequestType: "group"}},
		{"private with group_id", ingest.TurnEnd{Memo: "m", RequestType: "private", GroupID: "g"}},
		{"too many observations", ingest.TurnEnd{Observations: make([]string, ingest.MaxObservations+1)}},
		{"long observation", ingest.TurnEnd{Observations: []string{strings.Repeat("x", ingest.MaxObservation+1)}}},
		{"invalid utf-8", ingest.TurnEnd{Memo: "\xff"}},
		{"control in sender_id", ingest.TurnEnd{Memo: "m", SenderID: "a\nb"}},
		{"long request_id", ingest.TurnEnd{Memo: "m", RequestID: strings.Repeat("r", ingest.MaxIDLen+1)}},
		{"too many recent messages", ingest.TurnEnd{Memo: "m", RecentMessages: make([]ingest.RecentMessage, ingest.MaxRecentMessages+1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := q.Enqueue(t.Context(), "u1", tt.turn); !errors.Is(err, ingest.ErrInvalidTurn) {
				t.Fatalf("err = %v, want ErrInvalidTurn", err)
			}
		})
	}
}

func TestEnqueueNothingToDo(t *testing.T) {
	s := openStore(t, "", nil)
	q := ingest.NewQueue(s)
	for _, turn := range []ingest.TurnEnd{{}, {Memo: "  ", Observations: []string{"", " \n"}, RequestID: "r"}} {
		r, err := q.Enqueue(t.Context(), "u1", turn)
		if err != nil || r.Queued || r.JobID != "" || r.Reason == "" {
			t.Fatalf("receipt %+v, %v; want not queued, with a reason", r, err)
		}
	}
	if js, _ := s.ListJobs(t.Context(), storage.JobFilter{Limit: 10}); len(js) != 0 {
		t.Fatalf("%d jobs queued", len(js))
	}
}

func TestEnqueueStoresNormalizedTurn(t *testing.T) {
	s := openStore(t, "", nil)
	q := ingest.NewQueue(s)
	before := time.Now()
	r, err := q.Enqueue(t.Context(), "u1", ingest.TurnEnd{
		RequestID: "req-9", Observations: []string{" 我喜欢猫 ", "", "I like tea"}, GroupID: "g1",
		RecentMessages: []ingest.RecentMessage{{Time: "12:00", SenderName: "Ann", SenderID: "qq:1", Text: "hi"}},
	})
	if err != nil || !r.Queued || r.Duplicate {
		t.Fatalf("%+v %v", r, err)
	}
	j, err := s.GetJob(t.Context(), "u1", r.JobID)
	if err != nil {
		t.Fatal(err)
	}
	var got ingest.TurnEnd
	if err := json.Unmarshal(j.Payload, &got); err != nil {
		t.Fatal(err)
	}
	if got.Timestamp.Before(before.Add(-time.Second)) || got.Timestamp.After(time.Now()) || got.Timestamp.Location() != time.UTC {
		t.Fatalf("timestamp %v, want the enqueue time", got.Timestamp)
	}
	got.Timestamp = time.Time{}
	want := ingest.TurnEnd{RequestID: "req-9", Observations: []string{"我喜欢猫", "I like tea"}, GroupID: "g1", RequestType: "group",
		RecentMessages: []ingest.RecentMessage{{Time: "12:00", SenderName: "Ann", SenderID: "qq:1", Text: "hi"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("payload (-want +got):\n%s", diff)
	}
	if j.Kind != ingest.KindTurnEnd || j.Key != "req-9" || j.State != storage.JobPending {
		t.Fatalf("job %+v", j)
	}

	// The same request id again is the same job.
	again, err := q.Enqueue(t.Context(), "u1", ingest.TurnEnd{RequestID: "req-9", Memo: "retry"})
	if err != nil || !again.Queued || !again.Duplicate || again.JobID != r.JobID {
		t.Fatalf("again %+v %v", again, err)
	}
}

// TestEnqueueStoresMemo: the memo is listed as soon as Enqueue returns, with
// the turn's scene; a replay stores it once; a turn without memo has none.
func TestEnqueueStoresMemo(t *testing.T) {
	s := openStore(t, "", nil)
	q := ingest.NewQueue(s)
	at := time.Date(2026, 3, 4, 6, 30, 0, 0, time.UTC)
	r, err := q.Enqueue(t.Context(), "u1", ingest.TurnEnd{
		RequestID: "req-1", Memo: " 帮张三查了去杭州的高铁 ", Observations: []string{"我明天去杭州"},
		GroupID: "g1", GroupName: "旅行群", SenderID: "qq:1", SenderName: "张三", Timestamp: at,
	})
	if err != nil || !r.Queued {
		t.Fatalf("%+v %v", r, err)
	}
	list := func(user string) []storage.Memo {
		ms, err := s.ListMemos(t.Context(), user, storage.MemoFilter{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	want := []storage.Memo{{
		ID: r.JobID, UserID: "u1", RequestID: "req-1", JobID: r.JobID, GroupID: "g1", GroupName: "旅行群",
		SenderID: "qq:1", SenderName: "张三", RequestType: "group", Content: "帮张三查了去杭州的高铁",
		Timestamp: at, Epoch: at.Unix(),
	}}
	if diff := cmp.Diff(want, list("u1"), cmpopts.IgnoreFields(storage.Memo{}, "CreatedAt")); diff != "" {
		t.Fatalf("memos (-want +got):\n%s", diff)
	}
	if again, err := q.Enqueue(t.Context(), "u1", ingest.TurnEnd{RequestID: "req-1", Memo: "retry"}); err != nil || !again.Duplicate {
		t.Fatalf("again %+v %v", again, err)
	}
	if _, err := q.Enqueue(t.Context(), "u1", ingest.TurnEnd{RequestID: "req-2", Memo: " ", Observations: []string{"I like tea"}}); err != nil {
		t.Fatal(err)
	}
	if got := list("u1"); len(got) != 1 || got[0].Content != "帮张三查了去杭州的高铁" {
		t.Fatalf("memos after replay and a memo-less turn: %+v", got)
	}
	if got := list("u2"); len(got) != 0 {
		t.Fatalf("u2 sees %+v", got)
	}
}

// BenchmarkEnqueue measures the durable enqueue alone (validation, encoding,
// one committed INSERT), reporting latency percentiles.
func BenchmarkEnqueue(b *testing.B) {
	s := openStore(b, "", nil)
	q := ingest.NewQueue(s)
	turn := ingest.TurnEnd{
		Memo: "聊了周末的旅行计划", Observations: []string{"我明天去杭州", "I like oolong tea"},
		SenderID: "qq:1", SenderName: "张三", GroupID: "g1", RequestType: "group",
		RecentMessages: []ingest.RecentMessage{{Time: "12:00", SenderName: "张三", SenderID: "qq:1", Text: "我明天去杭州"}},
	}
	var lat []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if _, err := q.Enqueue(b.Context(), "bench", turn); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	reportPercentiles(b, lat)
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	at := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
