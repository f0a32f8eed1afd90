package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
)

var (
	shanghai    = time.FixedZone("CST", 8*3600)
	defaultTime = time.Date(2026, 1, 31, 12, 0, 0, 0, time.UTC)
	legacyOpts  = ingest.LegacyOptions{DefaultTime: defaultTime, Location: shanghai}
)

func TestReadUndefinedRecords(t *testing.T) {
	tests := []struct {
		name string
		rec  string
		kind string
		want ingest.TurnEnd // RequestID is not compared
	}{
		{"bare string", `"和张三聊了天气"`, ingest.UndefinedSummary,
			ingest.TurnEnd{Memo: "和张三聊了天气", RequestType: "private", Timestamp: defaultTime}},
		{"summary in private", `{"summary":" 帮李四查了高铁 ","timestamp":"2026-02-21T10:30:00+08:00","location":{"type":"private","name":"李四"}}`,
			ingest.UndefinedSummary,
			ingest.TurnEnd{Memo: "帮李四查了高铁", RequestType: "private", SenderName: "李四", Timestamp: time.Date(2026, 2, 21, 2, 30, 0, 0, time.UTC)}},
		{"summary in a group", `{"summary":"讨论了聚餐","timestamp":"2026-02-22T20:15:00+08:00","location":{"type":"group","name":"吃货群"}}`,
			ingest.UndefinedSummary,
			ingest.TurnEnd{Memo: "讨论了聚餐", RequestType: "group", GroupName: "吃货群", Timestamp: time.Date(2026, 2, 22, 12, 15, 0, 0, time.UTC)}},
		{"naive time is local", `{"summary":"x","timestamp":"2026-02-23T08:00:00.123456"}`, ingest.UndefinedSummary,
			ingest.TurnEnd{Memo: "x", RequestType: "private", Timestamp: time.Date(2026, 2, 23, 0, 0, 0, 123456000, time.UTC)}},
		{"queue job", `{"request_id":"r-9","end_seq":2,"user_id":"10001","group_id":123456,"sender_id":"10001","sender_name":"张三",
			"group_name":"旅行群","bot_name":"Undefined","request_type":"group","timestamp_utc":"2026-02-24T01:00:30+00:00",
			"timestamp_local":"2026-02-24T09:00:30+08:00","timestamp_epoch":1771894830,"memo":"回复了问题",
			"observations":["我明天去上海"," "],"has_observations":true,"schema_version":"final_v1",
			"source_message":"我明天去上海","recent_messages":["[09:00] 张三(10001): 我明天去上海"],"force":"yes"}`,
			ingest.UndefinedJob,
			ingest.TurnEnd{Memo: "回复了问题", Observations: []string{"我明天去上海"}, GroupID: "123456", GroupName: "旅行群",
				SenderID: "10001", SenderName: "张三", RequestType: "group", Force: true, SourceMessage: "我明天去上海",
				RecentMessages: []ingest.RecentMessage{{Text: "[09:00] 张三(10001): 我明天去上海"}},
				Timestamp:      time.Date(2026, 2, 24, 1, 0, 30, 0, time.UTC)}},
		{"older job: action_summary and new_info", `{"action_summary":"聊了猫","new_info":"张三养了一只猫","user_id":10001,
			"request_type":"private","group_id":"","timestamp_epoch":1771894830.5}`,
			ingest.UndefinedJob,
			ingest.TurnEnd{Memo: "聊了猫", Observations: []string{"张三养了一只猫"}, SenderID: "10001", RequestType: "private",
				Timestamp: time.Unix(1771894830, 500000000)}},
		{"observations only", `{"observations":["I like tea"],"timestamp_local":"2026-02-24T09:00:30"}`, ingest.UndefinedJob,
			ingest.TurnEnd{Observations: []string{"I like tea"}, RequestType: "private", Timestamp: time.Date(2026, 2, 24, 1, 0, 30, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ingest.ReadUndefined([]byte("["+tt.rec+"]"), "f.json", legacyOpts)
			if err != nil || len(got) != 1 {
				t.Fatalf("%v %+v", err, got)
			}
			lt := got[0]
			if lt.Err != nil || lt.Kind != tt.kind || lt.Source != "f.json[0]" || !strings.HasPrefix(lt.Turn.RequestID, ingest.UndefinedKeyPrefix) {
				t.Fatalf("%+v", lt)
			}
			if diff := cmp.Diff(tt.want, lt.Turn, cmpopts.IgnoreFields(ingest.TurnEnd{}, "RequestID"), cmpopts.EquateApproxTime(0)); diff != "" {
				t.Fatalf("turn (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadUndefinedErrors(t *testing.T) {
	for _, bad := range []string{``, `null`, `{"summary":`, `"just text"`, `[1,2`} {
		if _, err := ingest.ReadUndefined([]byte(bad), "f.json", legacyOpts); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	recs := `["ok", "", 42, {"summary":" "}, {"summary":"x","timestamp":"yesterday"},
		{"summary":"x","location":{"type":"channel","name":"c"}}, {"memo":"x","observations":[1]},
		{"memo":"x","request_type":"dm"}, {"memo":"x","force":"maybe"}, {"memo":"x","group_id":[1]}]`
	got, err := ingest.ReadUndefined([]byte(recs), "f.json", legacyOpts)
	if err != nil || len(got) != 10 {
		t.Fatalf("%v %d", err, len(got))
	}
	if got[0].Err != nil {
		t.Fatalf("good record: %v", got[0].Err)
	}
	for _, lt := range got[1:] {
		if lt.Err == nil || lt.Turn.Memo != "" {
			t.Errorf("%s: no error: %+v", lt.Source, lt.Turn)
		}
	}
	// One object is a queue job file.
	one, err := ingest.ReadUndefined([]byte(`{"memo":"m","timestamp_utc":"2026-02-24T01:00:30Z"}`), "job.json", legacyOpts)
	if err != nil || len(one) != 1 || one[0].Source != "job.json" || one[0].Err != nil || one[0].Kind != ingest.UndefinedJob {
		t.Fatalf("%+v %v", one, err)
	}
}

// TestReadUndefinedKeys: keys depend on what a record says, not on where
// it is in the file (the file drops its oldest entries) nor on the default
// time; identical records without a time are told apart by their order.
func TestReadUndefinedKeys(t *testing.T) {
	keys := func(data string, opt ingest.LegacyOptions) []string {
		t.Helper()
		got, err := ingest.ReadUndefined([]byte(data), "f.json", opt)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, lt := range got {
			out = append(out, lt.Turn.RequestID)
		}
		return out
	}
	a := `{"summary":"a","timestamp":"2026-02-21T10:30:00+08:00"}`
	b := `{"summary":"b","timestamp":"2026-02-21T10:31:00+08:00"}`
	k1 := keys(`["same","same",`+a+`,`+b+`]`, legacyOpts)
	if k1[0] == k1[1] || k1[2] == k1[3] {
		t.Fatalf("keys collide: %q", k1)
	}
	later := legacyOpts
	later.DefaultTime = defaultTime.Add(time.Hour)
	k2 := keys(`["same","same",`+b+`]`, later)
	if k2[0] != k1[0] || k2[1] != k1[1] || k2[2] != k1[3] {
		t.Fatalf("keys moved: %q vs %q", k2, k1)
	}
	// Another time is another turn.
	if k := keys(`[{"summary":"a","timestamp":"2026-02-21T10:30:01+08:00"}]`, legacyOpts); k[0] == k1[2] {
		t.Fatal("another time, same key")
	}
}

func TestMergeUndefined(t *testing.T) {
	at := time.Date(2026, 2, 24, 1, 0, 0, 0, time.UTC)
	turn := func(kind, memo string, d time.Duration) ingest.LegacyTurn {
		return ingest.LegacyTurn{Kind: kind, Turn: ingest.TurnEnd{Memo: memo, Timestamp: at.Add(d)}}
	}
	in := []ingest.LegacyTurn{
		turn(ingest.UndefinedSummary, "replied", 30*time.Second), // the job's memo: dropped
		turn(ingest.UndefinedSummary, "replied", time.Hour),      // another turn with the same words
		turn(ingest.UndefinedSummary, "other", 0),
		turn(ingest.UndefinedJob, "replied", 0),
	}
	got, n := ingest.MergeUndefined(in)
	if n != 1 || len(got) != 3 || !cmp.Equal(got, in[1:], cmpopts.EquateApproxTime(0)) {
		t.Fatalf("merged %d: %+v", n, got)
	}
}

// TestImportTurns: a turn with observations becomes a job (and its memo);
// one with only a memo stores the memo alone; both are idempotent.
func TestImportTurns(t *testing.T) {
	s := openStore(t, "", nil)
	q := ingest.NewQueue(s)
	ctx := t.Context()
	recs := `[{"summary":"讨论了聚餐","timestamp":"2026-02-22T20:15:00+08:00","location":{"type":"group","name":"吃货群"}},
		{"memo":"回复了问题","observations":["我明天去上海"],"group_id":"g1","sender_id":"10001","sender_name":"张三",
		 "request_type":"group","timestamp_utc":"2026-02-24T01:00:30+00:00"},
		{"memo":"x","request_type":"group","observations":["y"],"timestamp_utc":"2026-02-24T01:00:30+00:00"}]`
	turns, err := ingest.ReadUndefined([]byte(recs), "f.json", legacyOpts)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		var got []ingest.Receipt
		for _, lt := range turns[:2] {
			r, err := q.Import(ctx, "u1", lt.Turn)
			if err != nil {
				t.Fatalf("round %d %s: %v", round, lt.Source, err)
			}
			got = append(got, r)
		}
		if got[0].Queued || got[0].Duplicate != (round == 1) || !got[1].Queued || got[1].Duplicate != (round == 1) {
			t.Fatalf("round %d: %+v", round, got)
		}
	}
	// A group turn with observations needs its group id.
	if _, err := q.Import(ctx, "u1", turns[2].Turn); !errors.Is(err, ingest.ErrInvalidTurn) {
		t.Fatalf("group without id: %v", err)
	}
	ms, err := s.ListMemos(ctx, "u1", storage.MemoFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Content != "回复了问题" || ms[0].JobID == "" || ms[1].Content != "讨论了聚餐" || ms[1].JobID != "" ||
		ms[1].RequestType != "group" || ms[1].GroupName != "吃货群" || ms[1].GroupID != "" {
		t.Fatalf("memos %+v", ms)
	}
	jobs, err := s.ListJobs(ctx, storage.JobFilter{UserID: "u1", Limit: 10})
	if err != nil || len(jobs) != 1 || jobs[0].Key != turns[1].Turn.RequestID {
		t.Fatalf("jobs %+v %v", jobs, err)
	}
	if _, err := q.Import(ctx, "u1", ingest.TurnEnd{Memo: "no key"}); !errors.Is(err, ingest.ErrInvalidTurn) {
		t.Fatalf("no request id: %v", err)
	}
}

func TestReadUndefinedPaths(t *testing.T) {
	dir := t.TempDir()
	queue := filepath.Join(dir, "queue")
	if err := os.Mkdir(queue, 0o755); err != nil {
		t.Fatal(err)
	}
	job := func(obs string) string {
		return `{"observations": ["` + obs + `"], "sender_id": "1", "request_type": "private", "timestamp_utc": "2026-03-01T10:00:00Z"}`
	}
	for name, body := range map[string]string{"b.json": job("second"), "a.json": job("first"), "notes.txt": "not json"} {
		if err := os.WriteFile(filepath.Join(queue, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	summaries := filepath.Join(dir, "end_summaries.json")
	if err := os.WriteFile(summaries, []byte(`["a bare summary"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)
	if err := os.Chtimes(summaries, mtime, mtime); err != nil {
		t.Fatal(err)
	}

	turns, err := ingest.ReadUndefinedPaths([]string{queue, summaries}, ingest.LegacyOptions{Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, lt := range turns {
		if lt.Err != nil {
			t.Fatalf("%s: %v", lt.Source, lt.Err)
		}
		got = append(got, strings.Join(lt.Turn.Observations, "")+lt.Turn.Memo)
	}
	// The directory's *.json in name order, then the file; the bare summary
	// is dated by its file's modification time.
	if want := []string{"first", "second", "a bare summary"}; !slices.Equal(got, want) {
		t.Fatalf("turns %q, want %q", got, want)
	}
	if ts := turns[2].Turn.Timestamp; !ts.Equal(mtime) {
		t.Errorf("bare summary dated %v, want the file's time %v", ts, mtime)
	}
	if _, err := ingest.ReadUndefinedPaths([]string{t.TempDir()}, ingest.LegacyOptions{}); err == nil {
		t.Error("a directory without *.json files was accepted")
	}
}
