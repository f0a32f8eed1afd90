package ingest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/llmtest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// rw is one rewrite in a scripted reply of the model.
type rw struct {
	i    int
	text string
	ids  []string
}

// rewrites is the JSON arguments of record_rewrites.
func rewrites(items ...rw) string {
	type entry struct {
		Index     int      `json:"index"`
		Text      string   `json:"text"`
		EntityIDs []string `json:"entity_ids"`
	}
	es := []entry{}
	for _, it := range items {
		es = append(es, entry{it.i, it.text, append([]string{}, it.ids...)})
	}
	b, _ := json.Marshal(map[string]any{"rewrites": es})
	return string(b)
}

func reply(items ...rw) llmtest.Reply { return llmtest.ToolCall("record_rewrites", rewrites(items...)) }

func llmHistorian(tb testing.TB, url string, retry int) *ingest.LLMHistorian {
	tb.Helper()
	m, err := agent.NewOpenAIModel(url, "", "fake-historian", nil)
	if err != nil {
		tb.Fatal(err)
	}
	return ingest.NewLLMHistorian(m, ingest.LLMHistorianConfig{ModelName: "fake-historian", RewriteMaxRetry: retry, CallTimeout: 5 * time.Second})
}

// lastText is the text of the last message of request r.
func lastText(r llmtest.Request) string {
	return llmtest.Text(r.Messages[len(r.Messages)-1].Content)
}

type wantEvent struct {
	content  string
	absolute bool
	warning  string
}

func eventsOf(evs []storage.Event) []wantEvent {
	var out []wantEvent
	for _, e := range evs {
		out = append(out, wantEvent{e.Content, e.IsAbsolute, e.Warning})
	}
	return out
}

var zhTurn = ingest.TurnEnd{
	SenderID: "qq:10001", SenderName: "张三", GroupID: "g7", GroupName: "茶友会", RequestType: ingest.RequestGroup,
	SourceMessage: "我昨天和小李去了西湖，他下周三要去上海",
	RecentMessages: []ingest.RecentMessage{
		{Time: "14:20", SenderName: "小李", SenderID: "qq:20002", Text: "我在杭州呢，这里下雨"},
		{Time: "14:29", SenderName: "张三", SenderID: "qq:10001", Text: "我昨天和小李去了西湖，他下周三要去上海"},
	},
	Observations: []string{"我昨天和小李去了西湖", "他下周三要去上海"},
}

// TestLLMHistorianRewrites: the model's rewrites become the events; the
// request carries the tool, its schema and the scene.
func TestLLMHistorianRewrites(t *testing.T) {
	enTurn := ingest.TurnEnd{SenderID: "u42", SenderName: "Alice", RequestType: ingest.RequestPrivate,
		SourceMessage: "I'm flying to Tokyo next Friday, it's cold here", Observations: []string{"I fly to Tokyo next Friday"}}
	tests := []struct {
		name   string
		turn   ingest.TurnEnd
		reply  llmtest.Reply
		want   []wantEvent
		prompt []string // in the system prompt
	}{
		{"zh group with a third party", zhTurn,
			reply(rw{0, "张三(qq:10001)2026年3月3日和小李(qq:20002)去了西湖", []string{"qq:10001", "qq:20002"}},
				rw{1, "小李(qq:20002)2026年3月11日要去上海", []string{"qq:20002"}}),
			[]wantEvent{{"张三(qq:10001)2026年3月3日和小李(qq:20002)去了西湖", true, ""}, {"小李(qq:20002)2026年3月11日要去上海", true, ""}},
			[]string{"2026-03-04 14:30 (Wednesday, 周三)", "Asia/Shanghai (CST, UTC+08:00)", "Monday 2026-03-02 to Sunday 2026-03-08",
				"group chat 茶友会 (id g7)", "Sender: 张三 (id qq:10001)", "我昨天和小李去了西湖，他下周三要去上海",
				"[14:20] 小李 (id qq:20002): 我在杭州呢，这里下雨"}},
		{"en private", enTurn,
			reply(rw{0, "Alice (u42) flies to Tokyo on 2026-03-13", []string{"u42"}}),
			[]wantEvent{{"Alice (u42) flies to Tokyo on 2026-03-13", true, ""}},
			[]string{"private chat", "Sender: Alice (id u42)", "I'm flying to Tokyo next Friday"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := llmtest.New(t, tt.reply)
			res, err := llmHistorian(t, f.URL, 2).Process(t.Context(), historianJob(tt.turn))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, eventsOf(res.Events), cmp.AllowUnexported(wantEvent{})); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			for i, e := range res.Events {
				if e.Original != tt.turn.Observations[i] || e.ID != fmt.Sprintf("01JOB:%d:%s", i, e.Perspective) || e.SchemaVersion != storage.EventSchemaVersion {
					t.Errorf("event %d = %+v", i, e)
				}
			}
			reqs := f.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			r := reqs[0]
			if r.ToolChoice != "required" || r.Temperature == nil || *r.Temperature != 0 || len(r.Tools) != 1 || r.Tools[0].Function.Name != "record_rewrites" {
				t.Errorf("request: tool_choice %v, tools %+v", r.ToolChoice, r.Tools)
			}
			params := r.Tools[0].Function.Parameters
			items := params["properties"].(map[string]any)["rewrites"].(map[string]any)["items"].(map[string]any)
			if params["type"] != "object" || fmt.Sprint(items["required"]) != "[index text entity_ids]" || items["additionalProperties"] != false {
				t.Errorf("tool schema = %v", params)
			}
			sys := llmtest.Text(r.Messages[0].Content)
			for _, s := range tt.prompt {
				if r.Messages[0].Role != "system" || !strings.Contains(sys, s) {
					t.Errorf("system prompt lacks %q:\n%s", s, sys)
				}
			}
			for _, o := range tt.turn.Observations {
				if !strings.Contains(llmtest.Text(r.Messages[1].Content), o) {
					t.Errorf("observation %q not asked for", o)
				}
			}
		})
	}
}

// TestLLMHistorianGate: rewrites with relative words left go back naming
// them, until they pass or RewriteMaxRetry runs out; force lets them
// through but never an id the source does not show.
func TestLLMHistorianGate(t *testing.T) {
	good0 := rw{0, "张三(qq:10001)2026年3月3日和小李(qq:20002)去了西湖", []string{"qq:10001", "qq:20002"}}
	good1 := rw{1, "小李(qq:20002)2026年3月11日要去上海", []string{"qq:20002"}}
	left1 := rw{1, "他2026年3月11日要去上海", nil}
	drift1 := rw{1, "小李(qq:99999)2026年3月11日要去上海", []string{"qq:99999"}}
	tests := []struct {
		name     string
		force    bool
		retry    int
		script   []llmtest.Reply
		want     []wantEvent
		feedback []string // in the tool message of the second request
	}{
		{name: "leftover retried then fixed", retry: 2,
			script: []llmtest.Reply{reply(good0, rw{1, "他下周三要去上海", nil}), reply(good1)},
			want:   []wantEvent{{good0.text, true, ""}, {good1.text, true, ""}},
			feedback: []string{"only the observations 1, fixed", "1: relative words left: 他, 下周",
				"Call record_rewrites again"}},
		{name: "a retry that resends them all", retry: 2,
			script: []llmtest.Reply{reply(good0, left1), reply(rw{0, "not asked for again", nil}, good1)},
			want:   []wantEvent{{good0.text, true, ""}, {good1.text, true, ""}}},
		{name: "retries exhausted", retry: 2,
			script: []llmtest.Reply{reply(good0, left1), reply(left1), reply(left1)},
			want:   []wantEvent{{good0.text, true, ""}, {left1.text, false, "relative words left: 他 (after 3 tries)"}}},
		{name: "no retry configured", retry: 0,
			script: []llmtest.Reply{reply(good0, left1)},
			want:   []wantEvent{{good0.text, true, ""}, {left1.text, false, "relative words left: 他"}}},
		{name: "force skips the word check", force: true, retry: 2,
			script: []llmtest.Reply{reply(good0, left1)},
			want:   []wantEvent{{good0.text, true, ""}, {left1.text, true, "forced past the check; relative words left: 他"}}},
		{name: "force does not skip id drift", force: true, retry: 1,
			script:   []llmtest.Reply{reply(good0, drift1), reply(good1)},
			want:     []wantEvent{{good0.text, true, ""}, {good1.text, true, ""}},
			feedback: []string{"1: ids that appear nowhere in the material: qq:99999"}},
		{name: "drift in the text only", force: true, retry: 1,
			script: []llmtest.Reply{reply(good0, rw{1, "小李(qq:99999)2026年3月11日要去上海", []string{"qq:20002"}}), reply(drift1)},
			want: []wantEvent{{good0.text, true, ""},
				{drift1.text, false, "entity ids not in the source: qq:99999 (after 2 tries)"}},
			feedback: []string{"qq:99999"}},
		{name: "drift and leftovers under force", force: true, retry: 0,
			script: []llmtest.Reply{reply(good0, rw{1, "他和小李(qq:99999)要去上海", nil})},
			want: []wantEvent{{good0.text, true, ""},
				{"他和小李(qq:99999)要去上海", false, "entity ids not in the source: qq:99999; relative words left: 他"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := llmtest.New(t, tt.script...)
			turn := zhTurn
			turn.Force = tt.force
			res, err := llmHistorian(t, f.URL, tt.retry).Process(t.Context(), historianJob(turn))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, eventsOf(res.Events), cmp.AllowUnexported(wantEvent{})); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			reqs := f.Requests()
			if len(reqs) != len(tt.script) {
				t.Fatalf("%d requests, want %d", len(reqs), len(tt.script))
			}
			if len(tt.feedback) > 0 {
				second := reqs[1]
				last := second.Messages[len(second.Messages)-1]
				prev := second.Messages[len(second.Messages)-2]
				if last.Role != "tool" || last.ToolCallID != "call_0_0" || prev.Role != "assistant" || len(prev.ToolCalls) != 1 {
					t.Errorf("second request ends with %+v after %+v", last, prev)
				}
				for _, s := range tt.feedback {
					if !strings.Contains(llmtest.Text(last.Content), s) {
						t.Errorf("feedback lacks %q:\n%s", s, llmtest.Text(last.Content))
					}
				}
			}
		})
	}
}

// TestLLMHistorianMalformed: output the historian cannot use is asked for
// once more, then the rules rewrite the job, and the events say so.
func TestLLMHistorianMalformed(t *testing.T) {
	turn := ingest.TurnEnd{SenderID: "qq:10001", SenderName: "张三", RequestType: ingest.RequestPrivate,
		Observations: []string{"我昨天去了北京", "他最近很忙"}}
	rules := eventsOf(ingest.NewHistorian(ingest.HistorianConfig{}).Events(historianJob(turn)))
	good := reply(rw{0, "张三(qq:10001)2026年3月3日去了北京", []string{"qq:10001"}}, rw{1, "张三(qq:10001)的同事小王2026年3月忙于项目", []string{"qq:10001"}})
	bad := map[string]llmtest.Reply{
		"bad JSON":           llmtest.ToolCall("record_rewrites", `{"rewrites": [{"index": 0, "text": "张三`),
		"no tool call":       llmtest.Say("张三(qq:10001)2026年3月3日去了北京"),
		"too few items":      reply(rw{0, "张三(qq:10001)2026年3月3日去了北京", nil}),
		"duplicate index":    reply(rw{0, "a", nil}, rw{0, "b", nil}),
		"index out of range": reply(rw{0, "a", nil}, rw{5, "b", nil}),
		"missing field":      llmtest.ToolCall("record_rewrites", `{"rewrites":[{"index":0,"text":"a"},{"index":1,"text":"b"}]}`),
		"wrong type":         llmtest.ToolCall("record_rewrites", `{"rewrites":[{"index":"0","text":"a","entity_ids":[]},{"index":1,"text":"b","entity_ids":[]}]}`),
		"extra field":        llmtest.ToolCall("record_rewrites", `{"rewrites":[{"index":0,"text":"a","entity_ids":[],"mood":"x"},{"index":1,"text":"b","entity_ids":[]}]}`),
		"empty text":         reply(rw{0, " ", nil}, rw{1, "b", nil}),
		"unknown tool":       llmtest.ToolCall("save_events", rewrites(rw{0, "a", nil}, rw{1, "b", nil})),
	}
	want := map[string]string{ // what the correction names
		"bad JSON": "not JSON", "no tool call": "no call of record_rewrites", "too few items": "want one entry for each of the observations [0 1]",
		"duplicate index": "got the indexes [0 0]", "index out of range": "got the indexes [0 5]", "missing field": "missing property 'entity_ids'",
		"wrong type": "at /rewrites/0/index", "extra field": "additional properties 'mood' not allowed", "empty text": "observation 0: empty text",
		"unknown tool": `unknown tool "save_events"`,
	}
	for name, b := range bad {
		t.Run(name, func(t *testing.T) {
			t.Run("twice: rules", func(t *testing.T) {
				f := llmtest.New(t, b, b)
				res, err := llmHistorian(t, f.URL, 2).Process(t.Context(), historianJob(turn))
				if err != nil {
					t.Fatal(err)
				}
				got := eventsOf(res.Events)
				for i := range got {
					if got[i].content != rules[i].content || got[i].absolute != rules[i].absolute ||
						!strings.HasPrefix(got[i].warning, "the model's output was unusable (") ||
						!strings.Contains(got[i].warning, want[name]) || !strings.Contains(got[i].warning, "; rewritten by rules") ||
						!strings.HasSuffix(got[i].warning, rules[i].warning) {
						t.Errorf("event %d = %+v, rules gave %+v", i, got[i], rules[i])
					}
				}
				if n := len(f.Requests()); n != 2 {
					t.Errorf("%d requests, want 2", n)
				}
			})
			t.Run("once: model", func(t *testing.T) {
				f := llmtest.New(t, b, good)
				res, err := llmHistorian(t, f.URL, 2).Process(t.Context(), historianJob(turn))
				if err != nil {
					t.Fatal(err)
				}
				if e := res.Events[0]; e.Content != "张三(qq:10001)2026年3月3日去了北京" || !e.IsAbsolute || e.Warning != "" {
					t.Errorf("event = %+v", e)
				}
				reqs := f.Requests()
				if len(reqs) != 2 {
					t.Fatalf("%d requests", len(reqs))
				}
				if s := lastText(reqs[1]); !strings.Contains(s, "could not be used") || !strings.Contains(s, want[name]) || !strings.Contains(s, "observations 0, 1") {
					t.Errorf("correction = %q", s)
				}
			})
		})
	}
}

// TestLLMHistorianMalformedAfterRetry: a usable first reply is kept when
// the retry's reply is unusable: the rejected rewrite is stored, flagged.
func TestLLMHistorianMalformedAfterRetry(t *testing.T) {
	left := rw{1, "他2026年3月11日要去上海", nil}
	f := llmtest.New(t, reply(rw{0, "张三(qq:10001)2026年3月3日和小李去了西湖", []string{"qq:10001"}}, left),
		llmtest.Say("sorry"), llmtest.Say("sorry"))
	res, err := llmHistorian(t, f.URL, 2).Process(t.Context(), historianJob(zhTurn))
	if err != nil {
		t.Fatal(err)
	}
	want := []wantEvent{{"张三(qq:10001)2026年3月3日和小李去了西湖", true, ""}, {left.text, false, "relative words left: 他 (after 3 tries)"}}
	if diff := cmp.Diff(want, eventsOf(res.Events), cmp.AllowUnexported(wantEvent{})); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestLLMHistorianUnreachable: a model that cannot be reached fails the
// attempt, except the job's last one, which the rules rewrite.
func TestLLMHistorianUnreachable(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	turn := ingest.TurnEnd{SenderID: "qq:1", SenderName: "Ann", Observations: []string{"我明天去喝茶"}}
	for _, tt := range []struct {
		name   string
		url    func(t *testing.T) string
		reason string
	}{
		{"connection refused", func(*testing.T) string { return closed.URL }, "failed to reach API server"},
		{"server error", func(t *testing.T) string {
			return llmtest.New(t, llmtest.Reply{Status: 503}, llmtest.Reply{Status: 503}).URL
		}, "503"},
		{"timeout", func(t *testing.T) string {
			return llmtest.New(t, llmtest.Reply{Delay: 5 * time.Second}, llmtest.Reply{Delay: 5 * time.Second}).URL
		}, "exceeded deadline"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := agent.NewOpenAIModel(tt.url(t), "", "fake-historian", nil)
			if err != nil {
				t.Fatal(err)
			}
			h := ingest.NewLLMHistorian(m, ingest.LLMHistorianConfig{RewriteMaxRetry: 2, CallTimeout: 200 * time.Millisecond})
			job := historianJob(turn)
			if _, err := h.Process(t.Context(), job); err == nil || !strings.Contains(err.Error(), "historian model") || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("not final: err = %v", err)
			}
			job.Final = true
			res, err := h.Process(t.Context(), job)
			if err != nil {
				t.Fatal(err)
			}
			e := res.Events[0]
			if e.Content != "Ann(qq:1)2026年3月5日去喝茶" || !e.IsAbsolute || !strings.HasPrefix(e.Warning, "the model was unreachable (") ||
				!strings.Contains(e.Warning, tt.reason) || !strings.HasSuffix(e.Warning, "; rewritten by rules") {
				t.Errorf("event = %+v", e)
			}
		})
	}
	t.Run("shutdown", func(t *testing.T) {
		f := llmtest.New(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		job := historianJob(turn)
		job.Final = true // even on the last attempt, an attempt cut off is no result
		if _, err := llmHistorian(t, f.URL, 2).Process(ctx, job); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestLLMHistorianWorker runs the LLM historian in the worker on real
// storage: an endpoint that is down fails the attempt and the queue retries
// the job after its backoff; down on the last attempt too, the rules
// rewrite the job, so it still ends done.
func TestLLMHistorianWorker(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name string
		url  func(t *testing.T) string
		want wantEvent
	}{
		{"recovers", func(t *testing.T) string {
			return llmtest.New(t, llmtest.Reply{Status: 502}, reply(rw{0, "Ann(qq:1)在2026年3月5日去杭州", []string{"qq:1"}})).URL
		}, wantEvent{"Ann(qq:1)在2026年3月5日去杭州", true, ""}},
		{"stays down", func(*testing.T) string { return closed.URL },
			wantEvent{"Ann(qq:1)2026年3月5日去杭州", true, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := storagetest.NewClock(turnAt)
			s := openStore(t, "", c)
			id := enqueue(t, ingest.NewQueue(s), "bot:u1", "r1", "我明天去杭州")
			cfg := ingest.DefaultWorkerConfig()
			cfg.MaxRetries = 1
			cfg.RetryBackoff = 10 * time.Second
			w := ingest.NewWorker(s, llmHistorian(t, tt.url(t), 2), cfg)

			step(t, w, true)
			j := mustJob(t, s, id)
			if j.State != storage.JobPending || j.Attempts != 1 || !strings.Contains(j.Error, "historian model") {
				t.Fatalf("after the first attempt: %+v", j)
			}
			if evs := eventIDs(t, s, "bot:u1"); len(evs) != 0 {
				t.Fatalf("events after a failed attempt: %v", evs)
			}
			step(t, w, false) // backing off
			c.Add(10 * time.Second)
			step(t, w, true)
			if j := mustJob(t, s, id); j.State != storage.JobDone || j.Attempts != 2 {
				t.Fatalf("after the retry: %+v", j)
			}
			evs, err := s.ListEvents(t.Context(), "bot:u1", storage.EventFilter{Limit: 10})
			if err != nil || len(evs) != 1 {
				t.Fatal(evs, err)
			}
			got := eventsOf(evs)[0]
			if tt.name == "stays down" {
				if !strings.HasPrefix(got.warning, "the model was unreachable (") {
					t.Errorf("warning %q", got.warning)
				}
				got.warning = ""
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(wantEvent{})); diff != "" {
				t.Errorf("event (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLLMHistorianProfiles: the profile changes come from the model's
// rewrites, as the offline historian's come from its own.
func TestLLMHistorianProfiles(t *testing.T) {
	turn := ingest.TurnEnd{SenderID: "u42", SenderName: "Alice", RequestType: ingest.RequestPrivate,
		SourceMessage: "btw I moved, I live in Lisbon now", Observations: []string{"I live in Lisbon now"}}
	f := llmtest.New(t, reply(rw{0, "Alice (u42) lives in Lisbon", []string{"u42"}}))
	res, err := llmHistorian(t, f.URL, 2).Process(t.Context(), historianJob(turn))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Profiles) == 0 {
		t.Fatalf("no profile change from %q", res.Events[0].Content)
	}
	got := res.Profiles[0].Apply(storage.Profile{})
	if res.Profiles[0].EntityType != storage.EntityUser || res.Profiles[0].EntityID != "u42" || !strings.Contains(fmt.Sprint(got.Traits), "Lisbon") {
		t.Errorf("profile change %s/%s gives %+v, want Alice's home in Lisbon", res.Profiles[0].EntityType, res.Profiles[0].EntityID, got)
	}
}
