package ingest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTextIDs(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"张三(qq:10001)2026年3月3日和小李（qq:20002）去了西湖", []string{"qq:10001", "qq:20002"}},
		{"Alice (u42) met Bob (u_7) and Alice (u42) again", []string{"u42", "u_7"}},
		{"张三(10001)去了", []string{"10001"}},
		// Dates, times, years, words and names in parentheses are not ids.
		{"2026年3月7日至3月8日(周末) (2026-03-07) (14:30) (2026) (3/8) (Alice) (张三) (see above)", nil},
		{"no ids at all", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, textIDs(tt.text)); diff != "" {
			t.Errorf("textIDs(%q) (-want +got):\n%s", tt.text, diff)
		}
	}
}

func TestDriftAndOutcome(t *testing.T) {
	mat := materialOf(TurnEnd{SenderID: "qq:1", GroupID: "g1", SourceMessage: "问问 qq:77 吧",
		RecentMessages: []RecentMessage{{SenderID: "qq:2", Text: "hi"}}, Observations: []string{"Bob (u9) 来了"}})
	if diff := cmp.Diff([]string{"qq:3", "u8"}, mat.drift([]string{"qq:1", "g1", "qq:2", "qq:77", "u9", "qq:3", "u8", "qq:3", " "})); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}
	tests := []struct {
		name     string
		v        verdict
		force    bool
		absolute bool
		warning  string
		retry    bool
	}{
		{"clean", verdict{}, false, true, "", false},
		{"leftovers", verdict{leftovers: []string{"他", "昨天"}}, false, false, "relative words left: 他, 昨天", true},
		{"forced leftovers", verdict{leftovers: []string{"他"}}, true, true, "forced past the check; relative words left: 他", false},
		{"drift", verdict{drift: []string{"qq:9"}}, false, false, "entity ids not in the source: qq:9", true},
		{"forced drift", verdict{drift: []string{"qq:9"}, leftovers: []string{"他"}}, true, false,
			"entity ids not in the source: qq:9; relative words left: 他", true},
	}
	for _, tt := range tests {
		abs, w := tt.v.outcome(tt.force)
		if abs != tt.absolute || w != tt.warning || tt.v.retry(tt.force) != tt.retry {
			t.Errorf("%s: outcome %v %q retry %v, want %v %q %v", tt.name, abs, w, tt.v.retry(tt.force), tt.absolute, tt.warning, tt.retry)
		}
	}
}

func TestBreakHan(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"刚从成都搬来深圳 在南山做测试", "刚从成都搬来深圳，在南山做测试"},
		{"小王 上海人  在陆家嘴 嗯 做行研", "小王，上海人，在陆家嘴，嗯，做行研"}, // one character between spaces
		{"在 Google 上海办公室上班", "在 Google 上海办公室上班"},    // a space beside Latin letters stays
		{"累成狗 😮‍💨", "累成狗 😮‍💨"},
	} {
		if got := breakHan(tc.in); got != tc.want {
			t.Errorf("breakHan(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
