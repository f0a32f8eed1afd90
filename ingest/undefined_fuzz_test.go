package ingest_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// FuzzReadUndefined reads arbitrary bytes as Undefined's files and imports
// what it accepts. It must not panic; a record it accepts is a turn with a
// memo or observations, a request id of the import's prefix that reading
// again reproduces, and a scene that is consistent; the import takes it or
// refuses it as invalid, and importing it again stores nothing.
func FuzzReadUndefined(f *testing.F) {
	for _, seed := range []string{
		`["和张三聊了天气", "和张三聊了天气", ""]`,
		`[{"summary":" 帮李四查了高铁 ","timestamp":"2026-02-21T10:30:00+08:00","location":{"type":"private","name":"李四"}}]`,
		`[{"summary":"讨论了聚餐","timestamp":"2026-02-22T20:15:00+08:00","location":{"type":"group","name":"吃货群"}}]`,
		`[{"summary":"x","timestamp":"2026-02-23T08:00:00.123456"}, {"summary":"y","timestamp":1771894830.25}]`,
		`{"request_id":"r-9","end_seq":2,"user_id":"10001","group_id":123456,"sender_id":"10001","sender_name":"张三",
			"group_name":"旅行群","request_type":"group","timestamp_utc":"2026-02-24T01:00:30+00:00",
			"timestamp_local":"2026-02-24T09:00:30+08:00","timestamp_epoch":1771894830,"memo":"回复了问题",
			"observations":["我明天去上海"," "],"source_message":"我明天去上海",
			"recent_messages":["[09:00] 张三(10001): 我明天去上海", {"time":"09:01","sender_id":10001,"sender_name":"张三","message":"好"}],"force":"yes"}`,
		`{"action_summary":"聊了猫","new_info":"张三养了一只猫","user_id":10001,"request_type":"private","group_id":"","timestamp_epoch":1771894830.5}`,
		`{"observations":["I like tea"],"timestamp_local":"2026-02-24T09:00:30"}`,
		`{"memo":"m","request_type":"group"}`,
		`{"memo":"m","timestamp_epoch":-1}`,
		`{"memo":"m","timestamp_epoch":1e300}`,
		`{"memo":"m","timestamp":"0001-01-01T00:00:00Z"}`,
		`["ok", "", 42, {"summary":" "}, {"summary":"x","timestamp":"yesterday"}, {"summary":"x","location":{"type":"channel","name":"c"}},
			{"memo":"x","observations":[1]}, {"memo":"x","request_type":"dm"}, {"memo":"x","force":"maybe"}, {"memo":"x","group_id":[1]}]`,
		`[null, true, [], {}, {"summary":null}, {"memo":"x","force":2}, {"memo":"x","end_seq":"7"}]`,
		`[{"memo":"` + strings.Repeat("长", 6000) + `"}]`,
		`{"memo":"x","sender_name":"` + strings.Repeat("n", 300) + `"}`,
		``, `null`, `{"summary":`, `[1,2`, `"just text"`, ` [ ] `,
	} {
		f.Add([]byte(seed))
	}
	s := storagetest.Open(f, storage.Config{NoIndexer: true})
	q := ingest.NewQueue(s)
	f.Fuzz(func(t *testing.T, data []byte) {
		turns, err := ingest.ReadUndefined(data, "f.json", legacyOpts)
		if err != nil {
			if turns != nil {
				t.Fatalf("error %v with %d turns", err, len(turns))
			}
			return
		}
		again, err := ingest.ReadUndefined(data, "f.json", legacyOpts)
		if err != nil || len(again) != len(turns) {
			t.Fatalf("read again: %v, %d turns, want %d", err, len(again), len(turns))
		}
		for i, lt := range turns {
			if again[i].Turn.RequestID != lt.Turn.RequestID {
				t.Fatalf("%s: request id %q, then %q", lt.Source, lt.Turn.RequestID, again[i].Turn.RequestID)
			}
			if lt.Err != nil {
				if lt.Turn.RequestID != "" || lt.Turn.Memo != "" || len(lt.Turn.Observations) > 0 {
					t.Fatalf("%s: error %v with a turn %+v", lt.Source, lt.Err, lt.Turn)
				}
				continue
			}
			checkLegacyTurn(t, lt)
			r, err := q.Import(t.Context(), "fuzz", lt.Turn)
			if err != nil {
				if !errors.Is(err, ingest.ErrInvalidTurn) && !errors.Is(err, storage.ErrInvalid) {
					t.Fatalf("%s: import: %v", lt.Source, err)
				}
				continue
			}
			r2, err := q.Import(t.Context(), "fuzz", lt.Turn)
			if err != nil || !r2.Duplicate || r2.Queued != r.Queued {
				t.Fatalf("%s: imported again: %+v %v, first %+v", lt.Source, r2, err, r)
			}
		}
		merged, dropped := ingest.MergeUndefined(turns)
		if len(merged)+dropped != len(turns) {
			t.Fatalf("merge: %d kept + %d dropped of %d", len(merged), dropped, len(turns))
		}
	})
}

// checkLegacyTurn checks what holds for every record ReadUndefined accepts.
func checkLegacyTurn(t *testing.T, lt ingest.LegacyTurn) {
	t.Helper()
	tt := lt.Turn
	switch {
	case lt.Kind != ingest.UndefinedSummary && lt.Kind != ingest.UndefinedJob:
		t.Fatalf("%s: kind %q", lt.Source, lt.Kind)
	case !strings.HasPrefix(tt.RequestID, ingest.UndefinedKeyPrefix):
		t.Fatalf("%s: request id %q", lt.Source, tt.RequestID)
	case strings.TrimSpace(tt.Memo) == "" && len(tt.Observations) == 0:
		t.Fatalf("%s: neither memo nor observations: %+v", lt.Source, tt)
	case tt.RequestType != ingest.RequestPrivate && tt.RequestType != ingest.RequestGroup:
		t.Fatalf("%s: request type %q", lt.Source, tt.RequestType)
	case tt.RequestType == ingest.RequestPrivate && tt.GroupID != "":
		t.Fatalf("%s: private turn with group %q", lt.Source, tt.GroupID)
	case tt.Timestamp.IsZero():
		t.Fatalf("%s: no time", lt.Source)
	case slices.ContainsFunc(tt.Observations, func(o string) bool { return strings.TrimSpace(o) == "" }):
		t.Fatalf("%s: blank observation in %q", lt.Source, tt.Observations)
	}
}
