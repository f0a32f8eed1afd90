package ingest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
)

// turnAt is Wednesday 2026-03-04 14:30 in Shanghai (06:30 UTC).
var turnAt = time.Date(2026, 3, 4, 6, 30, 0, 0, time.UTC)

func historianJob(t ingest.TurnEnd) ingest.Job {
	if t.Timestamp.IsZero() {
		t.Timestamp = turnAt
	}
	if t.RequestType == "" {
		t.RequestType = ingest.RequestPrivate
	}
	return ingest.Job{Job: storage.Job{ID: "01JOB", UserID: "bot:u1"}, Turn: t}
}

func TestHistorianRewrite(t *testing.T) {
	h := ingest.NewHistorian(ingest.HistorianConfig{})
	zh := ingest.TurnEnd{SenderID: "qq:10001", SenderName: "张三"}
	en := ingest.TurnEnd{SenderID: "qq:20002", SenderName: "Alice"}
	tests := []struct {
		name      string
		sender    ingest.TurnEnd
		obs       string
		want      string
		leftovers string // the warning's list; "" when absolute
	}{
		{"zh yesterday", zh, "我昨天去了北京", "张三(qq:10001)2026年3月3日去了北京", ""},
		{"zh the id once", zh, "我明天去上海出差，我的猫交给邻居", "张三(qq:10001)2026年3月5日去上海出差，张三的猫交给邻居", ""},
		{"zh you is the sender", zh, "你下周三要考试", "张三(qq:10001)2026年3月11日要考试", ""},
		{"zh you beside I is not", zh, "我把猫交给你", "张三(qq:10001)把猫交给你", "你"},
		{"zh last week", zh, "我上周去了杭州", "张三(qq:10001)2026年2月23日至3月1日去了杭州", ""},
		{"zh weekend and plural", zh, "我们这周末去爬山", "我们2026年3月7日至3月8日(周末)去爬山", "我们"},
		{"zh third person and vague time", zh, "他最近在学吉他", "他最近在学吉他", "他, 最近"},
		{"zh days ago", zh, "我三天前买了一辆车", "张三(qq:10001)2026年3月1日买了一辆车", ""},
		{"zh hours ago", zh, "我两个小时前到家", "张三(qq:10001)2026年3月4日12:30到家", ""},
		{"zh just now", zh, "我刚才吃了火锅", "张三(qq:10001)2026年3月4日14:30吃了火锅", ""},
		{"zh now", zh, "我现在住在深圳", "张三(qq:10001)截至2026年3月4日住在深圳", ""},
		{"zh years", zh, "我去年换了工作，今年想去日本", "张三(qq:10001)2025年换了工作，2026年想去日本", ""},
		{"zh together is not Monday", zh, "下周一起去爬山", "2026年3月9日至3月15日一起去爬山", ""},
		{"zh last month", zh, "我上个月过生日", "张三(qq:10001)2026年2月过生日", ""},
		{"zh tonight", zh, "我今晚要加班", "张三(qq:10001)2026年3月4日晚上要加班", ""},
		{"zh compounds are not pronouns", zh, "其他人都不知道", "其他人都不知道", ""},
		{"zh place", zh, "我在这里等", "张三(qq:10001)在这里等", "这里"},
		{"zh unknown sender", ingest.TurnEnd{}, "我喜欢乌龙茶", "我喜欢乌龙茶", "我"},
		{"zh 本人 opening a sentence is I", zh, "本人坐标厦门，思明区", "张三(qq:10001)坐标厦门，思明区", ""},
		{"zh 本人 after a pronoun is himself", zh, "他本人住在上海", "他本人住在上海", "他"},

		{"en yesterday", en, "I went to Paris yesterday", "Alice (qq:20002) went to Paris on 2026-03-03", ""},
		{"en capitalised time", en, "Yesterday I went to the gym", "On 2026-03-03 Alice (qq:20002) went to the gym", ""},
		{"en contraction", en, "I'm moving to Berlin next month", "Alice (qq:20002) is moving to Berlin in April 2026", ""},
		{"en contraction without its apostrophe", en, "im a nurse and ive got two cats", "Alice (qq:20002) is a nurse and Alice has got two cats", ""},
		{"en ill and id are words", en, "I was ill, lost my id", "Alice (qq:20002) was ill, lost Alice's id", ""},
		{"en learner's progressive", en, "I staying Tampines lah", "Alice (qq:20002) is staying Tampines lah", ""},
		{"en a verb that ends in ing", en, "I bring lunch", "Alice (qq:20002) bring lunch", ""},
		{"en learner's very", en, "I very like durian", "Alice (qq:20002) very likes durian", ""},
		{"en possessive and object", en, "My sister visits me tomorrow", "Alice (qq:20002)'s sister visits Alice on 2026-03-05", ""},
		{"en verb agreement", en, "I usually go running on Sundays", "Alice (qq:20002) usually goes running on Sundays", ""},
		{"en agreement past a time", en, "I currently live in Tokyo", "Alice (qq:20002) as of 2026-03-04 lives in Tokyo", ""},
		{"en you is the sender", en, "You love cats", "Alice (qq:20002) loves cats", ""},
		{"en you beside I is not", en, "I told you about my trip last week", "Alice (qq:20002) told you about Alice's trip in the week of 2026-02-23", "you"},
		{"en weekday", en, "I have an exam next Wednesday", "Alice (qq:20002) has an exam on 2026-03-11", ""},
		{"en preposition kept", en, "I don't eat meat since last year", "Alice (qq:20002) doesn't eat meat since 2025", ""},
		{"en days ago", en, "I bought a car 3 days ago", "Alice (qq:20002) bought a car on 2026-03-01", ""},
		{"en in two days", en, "I'll call Bob in two days", "Alice (qq:20002) will call Bob on 2026-03-06", ""},
		{"en third person", en, "He said we meet tonight", "He said we meet on the night of 2026-03-04", "he, we"},
		{"en vague", en, "I was here a few days ago", "Alice (qq:20002) was here a few days ago", "here, ago"},
		{"en for now stays", en, "I'll do it for now", "Alice (qq:20002) will do it for now", "now"},
		{"en day before yesterday", en, "The day before yesterday I slept badly", "On 2026-03-02 Alice (qq:20002) slept badly", ""},
		{"mixed", zh, "我 said 我明天 will visit Tokyo", "张三(qq:10001) said 张三2026年3月5日 will visit Tokyo", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := tt.sender
			turn.Observations = []string{tt.obs}
			evs := h.Events(historianJob(turn))
			if len(evs) != 1 {
				t.Fatalf("%d events", len(evs))
			}
			e := evs[0]
			if diff := cmp.Diff(tt.want, e.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			wantWarning := ""
			if tt.leftovers != "" {
				wantWarning = "relative words left: " + tt.leftovers
			}
			if e.Warning != wantWarning || e.IsAbsolute != (tt.leftovers == "") {
				t.Errorf("warning %q absolute %v, want %q %v", e.Warning, e.IsAbsolute, wantWarning, tt.leftovers == "")
			}
			if e.Original != tt.obs {
				t.Errorf("original %q", e.Original)
			}
		})
	}
}

// TestHistorianTimeZone resolves "today" where the turn happened: 04:00 in
// Shanghai is still the day before in UTC.
func TestHistorianTimeZone(t *testing.T) {
	turn := ingest.TurnEnd{SenderName: "Ann", Observations: []string{"今天下雨", "it rains today"},
		Timestamp: time.Date(2026, 3, 3, 20, 0, 0, 0, time.UTC)}
	tests := []struct {
		name string
		loc  *time.Location
		want []string
	}{
		{"default Asia/Shanghai", nil, []string{"2026年3月4日下雨", "it rains on 2026-03-04"}},
		{"UTC", time.UTC, []string{"2026年3月3日下雨", "it rains on 2026-03-03"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs := ingest.NewHistorian(ingest.HistorianConfig{Location: tt.loc}).Events(historianJob(turn))
			var got []string
			for _, e := range evs {
				got = append(got, e.Content)
				if !e.Timestamp.Equal(turn.Timestamp) || !e.TimestampLocal.Equal(turn.Timestamp) {
					t.Errorf("timestamps %v %v", e.Timestamp, e.TimestampLocal)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestHistorianMetadata(t *testing.T) {
	h := ingest.NewHistorian(ingest.HistorianConfig{SourceMax: 5})
	turn := ingest.TurnEnd{
		SenderID: "qq:1", SenderName: "Ann", GroupID: "g1", GroupName: "Tea club", RequestType: ingest.RequestGroup,
		SourceMessage: "我们明天去喝茶吧", Observations: []string{"我明天去喝茶", "他是谁"}, Force: true,
	}
	evs := h.Events(historianJob(turn))
	want := []storage.Event{
		{
			ID: "01JOB:0:group", UserID: "bot:u1", GroupID: "g1", SenderID: "qq:1", SenderName: "Ann", JobID: "01JOB",
			Perspective: storage.PerspectiveGroup, RequestType: ingest.RequestGroup, Content: "Ann(qq:1)2026年3月5日去喝茶",
			Original: "我明天去喝茶", IsAbsolute: true, Timestamp: turnAt, SourceMessage: "我们明天去…",
			SchemaVersion: storage.EventSchemaVersion,
		},
		{
			ID: "01JOB:1:group", UserID: "bot:u1", GroupID: "g1", SenderID: "qq:1", SenderName: "Ann", JobID: "01JOB",
			Perspective: storage.PerspectiveGroup, RequestType: ingest.RequestGroup, Content: "他是谁", Original: "他是谁",
			// force stores it as absolute, and says what the check found.
			IsAbsolute: true, Warning: "forced past the check; relative words left: 他", Timestamp: turnAt,
			SourceMessage: "我们明天去…", SchemaVersion: storage.EventSchemaVersion,
		},
	}
	for i := range evs {
		if evs[i].TimestampLocal.Location().String() != "Asia/Shanghai" || evs[i].TimestampLocal.Hour() != 14 {
			t.Errorf("local time %v", evs[i].TimestampLocal)
		}
		evs[i].TimestampLocal = time.Time{}
	}
	if diff := cmp.Diff(want, evs); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if strings.Contains(evs[0].Content, "明天") {
		t.Fatal("relative time left")
	}
}
