package agent

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/skills"
)

// FuzzObserve runs the question parser (intent, time signals and dates,
// quoted phrases, names, keywords) over arbitrary questions at arbitrary
// times. It must not panic and must finish quickly; a question newRun
// refuses is ErrInvalidRequest; phrases and names are taken from the
// question; a time window is not empty.
func FuzzObserve(f *testing.F) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).Unix()
	for _, q := range []string{
		"你记得我有什么饮食偏好吗？", "我上周说过要去哪里出差？", "What did Ann say about \"project Atlas\" in March 2024?",
		"When did I last talk to Bob's sister?", "Tell me what happened on 2026-02-30", "13月5日我们吃了什么", "2025年12月31日的会议",
		"3月的预算", "July 2022", "on the 31st of February 2023", "May I ask what my favourite tea is?", "may 5th",
		"我说过“不吃辣”吗", "「火锅」和『西湖醋鱼』哪个", "'single quoted phrase' and 'x'", `"unbalanced quote`, `""`, `" "`,
		"I'm allergic to what?", "Where does O'Brien live?", "iPhone or Android?", "ÉLODIE and Zoë went where?",
		strings.Repeat("Ann ", 250), strings.Repeat("我", 1000), strings.Repeat("我", 1001), "\u200b", "", "   ",
		"0000-00-00 9999年99月99日 Dec 99th, 0000", "\xff\xfe", "昨天今天明天 yesterday today tomorrow last week 上个月",
	} {
		f.Add(q, now)
	}
	sk, err := LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		f.Fatal(err)
	}
	a := New(nil, sk)
	signals := []string{"", "date"}
	for _, ts := range sk.Params.TimeSignals {
		signals = append(signals, ts.Name)
	}
	f.Fuzz(func(t *testing.T, question string, unix int64) {
		// Any second of the years 1..9999.
		const first, span = -62135596800, 315537897600
		at := time.Unix(first+(unix%span+span)%span, 0).UTC()
		r, err := a.newRun(nil, Request{Question: question, Context: RequestContext{Now: at.Format(time.RFC3339)}})
		if err != nil {
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("newRun: %v", err)
			}
			return
		}
		start := time.Now()
		o := r.observe()
		if d := time.Since(start); d > time.Second {
			t.Fatalf("observe took %s", d)
		}
		if !slices.Contains(signals, o.signal) {
			t.Fatalf("signal %q", o.signal)
		}
		if w := o.window; !w.since.IsZero() && !w.until.IsZero() && !w.since.Before(w.until) {
			t.Fatalf("empty window %v..%v (signal %q)", w.since, w.until, o.signal)
		}
		if o.intent == "" || (o.role != "user" && o.role != "assistant" && o.role != "any") {
			t.Fatalf("intent %q, role %q", o.intent, o.role)
		}
		for _, p := range o.phrases {
			if p == "" || p != strings.TrimSpace(p) || !strings.Contains(question, p) {
				t.Fatalf("phrase %q of %q", p, question)
			}
		}
		for _, n := range o.names {
			if r, _ := utf8.DecodeRuneInString(n); !unicode.IsUpper(r) || !strings.Contains(question, n) {
				t.Fatalf("name %q of %q", n, question)
			}
		}
		if !utf8.ValidString(o.keywords) {
			t.Fatalf("keywords %q", o.keywords)
		}
	})
}
