package agent_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/wordfreq"
	"github.com/recalld/recalld/internal/wordnet"
	"github.com/recalld/recalld/storage"
)

// userSaid is a private-chat message of tg:7's user (sender 7,
// conversation c1), days before now.
func userSaid(now time.Time, id string, days int, content string) storage.Message {
	return storage.Message{ID: id, Role: "user", SenderID: "7", ConversationID: "c1", CreatedAt: now.AddDate(0, 0, -days), Content: content}
}

// TestLooseWindow: a question with a loose time word (最近, recently) that
// asks for what happened presupposes it did, so when nothing in the last
// week bears it out the whole memory is searched; a yes/no question asks
// whether it happened in that window and keeps to it, and so does a
// question with a tight one (这几天, this week).
func TestLooseWindow(t *testing.T) {
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	msg := func(id string, days int, content string) storage.Message { return userSaid(now, id, days, content) }
	// "joined" is common here; what only the old message has is rare.
	msgs := []storage.Message{
		msg("f1", 24, "Last night I joined a fantasy literature forum and had a great talk about books"),
		msg("o1", 60, "joined my cousin for a hike"),
		msg("o2", 45, "joined the company softball team"),
		msg("o3", 30, "I joined a gym near the office"),
		msg("o4", 15, "joined a pottery class with Amy"),
		msg("w1", 3, "joined the zoom call late again"),
		msg("w2", 2, "joined my parents for dinner"),
		msg("w3", 1, "work was busy today, back to back meetings"),
	}
	a := agent.New(serviceWith(t, "tg:7", msgs), mustSkill(t))
	for _, tc := range []struct {
		question string
		cite     string // "" for no_evidence
	}{
		{"What fantasy literature forum did I join recently?", "f1"},
		{"Did I join a fantasy literature forum recently?", ""},
		{"What fantasy literature forum did I join this week?", ""},
	} {
		resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: tc.question,
			Context: agent.RequestContext{Now: now.Format(time.RFC3339)}})
		if err != nil {
			t.Fatal(err)
		}
		cited := citedIDs(resp)
		switch {
		case tc.cite == "" && (resp.Limits.StopReason != agent.StopNoEvidence || len(cited) > 0):
			t.Errorf("%q: stop %s, cited %v; want no_evidence inside the window (notes %q)", tc.question, resp.Limits.StopReason, cited, resp.Limits.Notes)
		case tc.cite != "" && !slices.Contains(cited, tc.cite):
			t.Errorf("%q: stop %s, cited %v; want %s from before the window (notes %q)", tc.question, resp.Limits.StopReason, cited, tc.cite, resp.Limits.Notes)
		}
	}
}

// TestThisWeekByOtherWords: 礼拜 and 星期 say week as 周 does, with or
// without 一个 (这一个礼拜, 这星期): the question keeps to this week and
// cites its reading, not the one of three weeks ago.
func TestThisWeekByOtherWords(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 21, "早上量了血压 高压一百四十八 低压九十二 有点高"),
		said("m2", 2, "今天早上量血压 高压一百二十六 低压八十 稳住了"),
	}, offTopic("m3", 30, "m4", 10)...)
	for _, q := range []string{"这一个礼拜我量的血压多少来着", "这个星期量的血压咋样", "这礼拜血压量出来多少"} {
		checkCited(t, q, recallDict(t, msgs, q), []string{"m2"}, []string{"m1"})
	}
}

// TestForHimIsNoSubject: 他 or 她 after a preposition (给他买了, 陪她去) is
// whom the speaker does it for or with, not who does it: "给他买了块电话
// 手表" tells what the user bought, and a question about it is answered.
func TestForHimIsNoSubject(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 40, "小宝下个月六岁生日 想想送啥"),
		said("m2", 30, "小宝的生日礼物定了 给他买了块电话手表 黑色的"),
		said("m3", 25, "隔壁老刘说他孙子也想要个滑板车"),
	}, offTopic("m4", 20, "m5", 10)...)
	const q = "小宝过生日我最后给他买的啥来着"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m2"}, []string{"m3"})
}

// TestAdviceIsNotTheUsersWord: the assistant's answer to what the user
// asked it ("你说…买个啥好呢" → "可以考虑…") is its suggestion: a question
// about what the user did, in 我 or the northern 俺, cites the user's own
// word, not the suggestion.
func TestAdviceIsNotTheUsersWord(t *testing.T) {
	ask := said("m1", 40, "小宝下个月六岁生日 你说给他买个啥好呢")
	advice := minutesAfter(ask, 1)
	advice.ID, advice.Role, advice.SenderID, advice.Content = "b1", "assistant", "bot", "六岁的孩子可以考虑拼装积木、儿童自行车，或者一套绘本。"
	msgs := append([]storage.Message{ask, advice,
		said("m2", 30, "小宝的生日礼物定了 给他买了块电话手表 黑色的"),
	}, offTopic("m4", 20, "m5", 10)...)
	for _, q := range []string{"小宝过生日我最后给他买的啥来着", "小宝过生日俺最后给他买的啥来着"} {
		checkCited(t, q, recallDict(t, msgs, q), []string{"m2"}, []string{"b1"})
	}
}

// TestWhenIsAskedInAWord: a Chinese question asking when (么时候, 几时)
// is borne out by a message that gives a time, though it holds no 时候:
// the question word's 时候 and 时 are terms a time bears out.
func TestWhenIsAskedInAWord(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 30, "伢九月三号过生日 想给他买个滑板"),
		said("m2", 20, "伢最近迷上了乐高 天天拼到半夜"),
	}, offTopic("m3", 25, "m4", 10)...)
	for _, q := range []string{"刚下班 累得要死。我屋里伢么时候过生来着？", "我屋里伢几时过生啊"} {
		checkCited(t, q, recallDict(t, msgs, q), []string{"m1"}, []string{"m2"})
	}
}

// TestHybridFitsToolBudget: the hybrid search's neighbour look-ups fit the
// tool calls left, so a small budget still finds the answer instead of
// spending itself midway and losing the round's hits.
func TestHybridFitsToolBudget(t *testing.T) {
	sk, err := skillWith(t, "max_tool_calls: 40", "max_tool_calls: 12")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	var msgs []storage.Message
	for i := range 40 {
		content := fmt.Sprintf("chat line %d about the weather and the weekend", i)
		if i == 20 {
			content = "my sister teaches piano at a music school in Leeds"
		}
		msgs = append(msgs, userSaid(now, fmt.Sprintf("m%02d", i), 60-i, content))
	}
	resp, err := agent.New(serviceWith(t, "tg:7", msgs), sk).Recall(t.Context(), "tg:7", agent.Request{Question: "What does my sister teach?",
		Context: agent.RequestContext{Now: now.Format(time.RFC3339)}})
	if err != nil {
		t.Fatal(err)
	}
	cited := citedIDs(resp)
	if !slices.Contains(cited, "m20") || resp.Limits.ToolsCalled > 12 {
		t.Errorf("with 12 tool calls: stop %s, %d calls, cited %v; want m20 (notes %q)",
			resp.Limits.StopReason, resp.Limits.ToolsCalled, cited, resp.Limits.Notes)
	}
}

// TestGlossRanksEnglishAnswers: a Chinese question's English senses are
// also searched by meaning, and an English message that bears the question
// out ranks up by its nearness to that meaning, here past a Chinese one the
// fused score puts first; with stop.gloss_weight 0 the fused order stands.
func TestGlossRanksEnglishAnswers(t *testing.T) {
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	msgs := []storage.Message{
		userSaid(now, "m1", 30, "no coffee after dinner for me, supper is herbal tea now"),
		userSaid(now, "m2", 20, "同事约我晚饭后去喝咖啡，公司楼下新开了一家"),
	}
	for _, tc := range []struct {
		weight string
		first  string
	}{
		{"gloss_weight: 1", "m1"},
		{"gloss_weight: 0", "m2"},
	} {
		resp := recallBilingual(t, "gloss_weight: 1", tc.weight, msgs, "我晚饭以后喝咖啡吗？", now)
		if cited := citedIDs(resp); len(cited) == 0 || cited[0] != tc.first {
			t.Errorf("%s: cited %v, want %s first (notes %q)", tc.weight, cited, tc.first, resp.Limits.Notes)
		}
	}
}

// TestRelativeBesideTheNews: a question about something of the user's
// mother's takes a message whose own clause bears it out, though the
// mother speaks in another clause of it; a message where only she does
// stays hers.
func TestRelativeBesideTheNews(t *testing.T) {
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	msgs := []storage.Message{
		{ID: "m1", Role: "user", SenderID: "7", ConversationID: "c1", CreatedAt: now.AddDate(0, 0, -40),
			Content: "my mom runs a tiny noodle shop back home, the menu is hand-written from ten years ago"},
		{ID: "m2", Role: "user", SenderID: "7", ConversationID: "c1", CreatedAt: now.AddDate(0, 0, -10),
			Content: "the new menu is final! my mom says she'll print it next week"},
		{ID: "m3", Role: "user", SenderID: "7", ConversationID: "c1", CreatedAt: now.AddDate(0, 0, -5),
			Content: "went bouldering after work, my forearms are dead"},
		{ID: "m4", Role: "user", SenderID: "7", ConversationID: "c1", CreatedAt: now.AddDate(0, 0, -3),
			Content: "my mom says her friend's menu has pictures, whatever"},
	}
	a := agent.New(serviceWith(t, "tg:7", msgs), mustSkill(t))
	resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: "How did the menu redesign for my mom's noodle shop turn out?",
		Context: agent.RequestContext{Now: now.Format(time.RFC3339)}})
	if err != nil {
		t.Fatal(err)
	}
	if cited := citedIDs(resp); !slices.Contains(cited, "m2") || slices.Contains(cited, "m4") {
		t.Errorf("cited %v, want m2 and not m4 (notes %q)", cited, resp.Limits.Notes)
	}
}

// TestGlossSupport: the user's English message nearest to a Chinese
// question's English senses bears the question out though no word of it
// is one of those senses; with stop.gloss_similarity 0 it does not, and
// the answer is no_evidence. (The test store embeds by hashing, whose
// cosines are lower than the default embedder's: the floor is lowered.)
func TestGlossSupport(t *testing.T) {
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	msgs := []storage.Message{
		userSaid(now, "m1", 30, "been biking to work every day since March, my knees love it"),
		userSaid(now, "m2", 20, "the new espresso machine at the office is loud"),
		{ID: "m3", Role: "assistant", SenderID: "bot", ConversationID: "c1", CreatedAt: now.AddDate(0, 0, -20).Add(time.Minute),
			Content: "Loud but worth it!"},
	}
	// The best of a handful of messages is no evidence: a memory of some.
	for i := range 12 {
		msgs = append(msgs, userSaid(now, fmt.Sprintf("f%02d", i), 60-i, fmt.Sprintf("chat line %d about the weather and the weekend", i)))
	}
	for _, tc := range []struct {
		params string
		want   string
	}{
		{"gloss_similarity: 0.05", "m1"},
		{"gloss_similarity: 0", ""},
	} {
		resp := recallBilingual(t, "gloss_similarity: 0.25", tc.params, msgs, "我平时怎么骑自行车的？", now)
		cited := citedIDs(resp)
		if tc.want == "" && len(cited) > 0 || tc.want != "" && !slices.Contains(cited, tc.want) {
			t.Errorf("%s: %s, cited %v, want %q (notes %q)", tc.params, resp.Limits.StopReason, cited, tc.want, resp.Limits.Notes)
		}
	}
}

// recallBilingual asks question of tg:7's msgs at now, with the test
// dictionary and the recall skill's parameters with from replaced by to.
func recallBilingual(t *testing.T, from, to string, msgs []storage.Message, question string, now time.Time) *agent.Response {
	t.Helper()
	sk, err := skillWith(t, from, to)
	if err != nil {
		t.Fatal(err)
	}
	return recallWithDict(t, sk, msgs, question, now)
}

// recallDict asks question of tg:7's msgs at may20, with the test
// dictionary and the recall skill as it ships.
func recallDict(t *testing.T, msgs []storage.Message, question string) *agent.Response {
	t.Helper()
	return recallWithDict(t, mustSkill(t), msgs, question, may20)
}

func recallWithDict(t *testing.T, sk *agent.Skill, msgs []storage.Message, question string, now time.Time) *agent.Response {
	t.Helper()
	a := agent.New(serviceWith(t, "tg:7", msgs), sk, agent.WithDictionary(agent.MiniDictionary(t)))
	resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: question, Context: agent.RequestContext{Now: now.Format(time.RFC3339)}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// may20 is the judgement tests' now.
var may20 = time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)

// said is what tg:7's user said days before may20 (userSaid).
func said(id string, days int, content string) storage.Message {
	return userSaid(may20, id, days, content)
}

// botSaid is what the assistant said to tg:7's user days before may20,
// a minute after the user's turn of that day.
func botSaid(id string, days int, content string) storage.Message {
	return storage.Message{ID: id, Role: "assistant", SenderID: "bot", ConversationID: "c1", CreatedAt: may20.AddDate(0, 0, -days).Add(time.Minute), Content: content}
}

// minutesAfter moves a message min minutes later.
func minutesAfter(m storage.Message, min int) storage.Message {
	m.CreatedAt = m.CreatedAt.Add(time.Duration(min) * time.Minute)
	return m
}

// offTopic is two things tg:7's user said that no test asks about, as ids
// a and b, aDays and bDays before may20.
func offTopic(a string, aDays int, b string, bDays int) []storage.Message {
	return []storage.Message{said(a, aDays, "周末在家烤了个戚风 塌成饼了"), said(b, bDays, "年终奖只发了一个月 心凉半截")}
}

// TestYesNoNamesItsThing: a question whether something is so about a
// thing it names is borne out only by a message that names it: skiing in
// the Alps says nothing of Hokkaido, and another member's Hokkaido trip is
// theirs. A message that names it is cited.
func TestYesNoNamesItsThing(t *testing.T) {
	msg := func(id, sender string, days int, content string) storage.Message {
		return storage.Message{ID: id, Role: "user", SenderID: sender, ConversationID: "g1", GroupID: "g1", CreatedAt: may20.AddDate(0, 0, -days), Content: content}
	}
	base := []storage.Message{
		msg("m1", "7", 90, "went skiing in the Alps in February, legs still sore"),
		msg("m2", "7", 80, "ski trip photos are finally sorted, so many wipeouts"),
		msg("m3", "8", 40, "going skiing in Hokkaido next month, anyone want to come?"),
		msg("m4", "7", 30, "the new espresso machine at the office is loud"),
	}
	const question = "Did I go skiing in Hokkaido this year?"
	resp := recallDict(t, base, question)
	if cited := citedIDs(resp); len(cited) > 0 {
		t.Errorf("cited %v, want none (notes %q)", cited, resp.Limits.Notes)
	}
	if !slices.ContainsFunc(resp.Limits.Notes, func(n string) bool { return strings.Contains(n, "does not name hokkaido") }) {
		t.Errorf("notes %q, want one setting aside a message that does not name Hokkaido", resp.Limits.Notes)
	}
	// Asking about it names it only in a question.
	asked := append(slices.Clone(base), msg("m6", "7", 25, "should I go skiing in Hokkaido next winter? heard the powder is unreal"))
	resp = recallDict(t, asked, question)
	if cited := citedIDs(resp); len(cited) > 0 {
		t.Errorf("asked only: cited %v, want none (notes %q)", cited, resp.Limits.Notes)
	}
	named := append(slices.Clone(base), msg("m5", "7", 20, "skiing in Hokkaido was unreal, the powder in Niseko!"))
	resp = recallDict(t, named, question)
	if cited := citedIDs(resp); !slices.Contains(cited, "m5") || slices.Contains(cited, "m1") {
		t.Errorf("cited %v, want m5 and not m1 (notes %q)", cited, resp.Limits.Notes)
	}
}

// TestRelativeByName: a question about one of the user's people by
// relation ("我闺女…", "我带娃…") is borne out by a message about them by the
// name the history gave with the relation ("女儿朵朵四岁"), also when that
// message lies outside the question's window ("上周六…"); without it the
// name is no one's and the message answers nothing. The quote after a
// space ("拙政园 她说…") is the child's, the outing the user's.
func TestRelativeByName(t *testing.T) {
	named := said("m1", 120, "女儿朵朵四岁 今天幼儿园表演她演一棵树")
	filler := offTopic("m3", 60, "m4", 10)
	for _, tc := range []struct {
		question string
		answer   storage.Message
	}{
		{"对了，我闺女对什么东西过敏来着？", said("m2", 90, "朵朵查出来对花生过敏 以后零食都得看配料表")},
		{"上周六我带娃去哪儿了", said("m2", 4, "周六带朵朵逛了拙政园 她说像电视里的皇宫")},
	} {
		rest := append([]storage.Message{tc.answer}, filler...)
		for _, c := range []struct {
			name string
			msgs []storage.Message
			want bool
		}{
			{"named with the relation", append([]storage.Message{named}, rest...), true},
			{"never named", rest, false},
		} {
			resp := recallDict(t, c.msgs, tc.question)
			if got := slices.Contains(citedIDs(resp), "m2"); got != c.want {
				t.Errorf("%s, %s: cited %v, want m2 cited %v (notes %q)", tc.question, c.name, citedIDs(resp), c.want, resp.Limits.Notes)
			}
		}
	}
}

// TestPlaceKind: a question asking for a city by its kind ("我在哪个城市上
// 班？") is answered by a message that names one ("下个月去深圳上班"), not by
// one about the work that names none; with none named, nothing answers.
func TestPlaceKind(t *testing.T) {
	city := said("m1", 120, "offer来了 涨了四成 下个月去深圳上班 南山那边")
	rest := append([]storage.Message{said("m2", 90, "新公司上班最烦的就是每周三九点早会 起不来")}, offTopic("m3", 60, "m4", 30)...)
	const question = "我在哪个城市上班来着？"
	for _, tc := range []struct {
		name string
		msgs []storage.Message
		want []string
	}{
		{"a city named", append([]storage.Message{city}, rest...), []string{"m1"}},
		{"none named", rest, nil},
	} {
		resp := recallDict(t, tc.msgs, question)
		if got := citedIDs(resp); !slices.Equal(got, tc.want) {
			t.Errorf("%s: cited %v, want %v (notes %q)", tc.name, got, tc.want, resp.Limits.Notes)
		}
		if !slices.ContainsFunc(resp.Limits.Notes, func(n string) bool { return strings.Contains(n, "m2: names no place") }) {
			t.Errorf("%s: notes %q, want m2 set aside for naming no place", tc.name, resp.Limits.Notes)
		}
	}
}

// TestPlaceInLowerCase: chat writes places in lower case ("moving to
// shenzhen"); with the word counts, a word that names a place and is no
// everyday English word names one, and "nice" does not.
func TestPlaceInLowerCase(t *testing.T) {
	const question = "Which city is my new job in?"
	rest := offTopic("m3", 60, "m4", 30)
	for _, tc := range []struct {
		name string
		msg  string
		freq bool
		want []string
	}{
		{"a place", "offer came through!! new job starts next month, moving to shenzhen", true, []string{"m1"}},
		{"a place, no word counts", "offer came through!! new job starts next month, moving to shenzhen", false, nil},
		{"an everyday word", "offer came through!! new job starts next month, the team seems nice", true, nil},
	} {
		opts := []agent.Option{agent.WithDictionary(agent.MiniDictionary(t))}
		if tc.freq {
			opts = append(opts, agent.WithWordFreq(testFreq(t)))
		}
		a := agent.New(serviceWith(t, "tg:7", append([]storage.Message{said("m1", 90, tc.msg)}, rest...)), mustSkill(t), opts...)
		resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: question, Context: agent.RequestContext{Now: may20.Format(time.RFC3339)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := citedIDs(resp); !slices.Equal(got, tc.want) {
			t.Errorf("%s: cited %v, want %v (notes %q)", tc.name, got, tc.want, resp.Limits.Notes)
		}
	}
}

// TestLatestStatement: which of two statements on one subject answers a
// question about now, or one that names its topic as a whole.
func TestLatestStatement(t *testing.T) {
	for _, tc := range []struct {
		name, question string
		m1, m2         storage.Message
		off            [2]int // days before may20 of the two off-topic messages
		cited          []string
		// superseded is a note the answer must carry; kept one it must not.
		superseded, kept string
	}{
		// Two statements that both bear the question out by their own
		// words are on its subject though they share no word of their own
		// ("烟又抽上了" and "戒烟贴贴了十来天了 一根没抽"): the later one, which
		// turns the other's polarity, supersedes it.
		{name: "both bear it out", question: "我现在还抽烟不？",
			m1: said("m1", 60, "烟又抽上了 跑车太熬人 一天半包"), m2: said("m2", 12, "戒烟贴贴了十来天了 一根没抽"), off: [2]int{40, 30},
			cited: []string{"m2"}, superseded: "m1 (2026-03-21): superseded by m2"},
		// For a question that names its topic as a whole ("What's my
		// profession?"), a later statement that shares only the earlier
		// one's other words ("switched to day shifts" after "I work as a
		// nurse, night shifts mostly") revises those, not the answer.
		{name: "a revision off the topic", question: "What's my profession?",
			m1: said("m1", 90, "I work as a nurse in the ICU, night shifts mostly"), m2: said("m2", 8, "switched to day shifts this month, finally sleeping normally"), off: [2]int{40, 30},
			cited: []string{"m1"}},
		// Two statements that both touch the question's topic are on its
		// subject though each is first of another ("深圳哪有好吃的火锅…我住
		// 南山" is about food too): the later one, which says it is so now,
		// supersedes the earlier.
		{name: "on the question's topic", question: "我现在住深圳哪边",
			m1: said("m1", 100, "@小Q 深圳哪有好吃的潮汕牛肉火锅 推荐下 我住南山科技园这边"), m2: said("m2", 40, "搬完家了 现在住宝安西乡 新小区楼下就有个羽毛球馆"), off: [2]int{60, 30},
			cited: []string{"m2"}, superseded: "m1 (2026-02-09): superseded by m2"},
		// A later statement that does not give what the question asks for
		// ("搬完了", no place) supersedes none that does: it cannot say
		// which city it is now.
		{name: "keeps what is asked", question: "我现在住哪个城市来着",
			m1: said("m1", 42, "深圳房子定了 南山那边 两室一厅 下周搬"), m2: said("m2", 35, "搬完了 累瘫 现在天天收拾箱子"), off: [2]int{60, 30},
			cited: []string{"m1"}, kept: "superseded by m2"},
		// Getting better (好多了) is a change: a later statement that says
		// so supersedes the earlier one on the same topic (sleep).
		{name: "better now", question: "我现在睡眠质量怎么样？",
			m1: said("m1", 90, "我睡眠质量一直很差 凌晨三点才睡着"), m2: said("m2", 6, "这两周睡眠质量好多了 十一点就能睡着"), off: [2]int{40, 30},
			cited: []string{"m2"}, superseded: "m1 (2026-02-19): superseded by m2"},
		// A name the question gives is who it asks about, not the subject:
		// a later message about the same person's birthday, negated or
		// not, does not supersede one about the flat they applied for.
		{name: "a name is no subject", question: "我跟 Jun Hao 申请组屋那件事，到现在进展到哪一步了？",
			m1: said("m1", 60, "我跟 Jun Hao 申请了 Tengah 的组屋 4-room，等抽签结果"), m2: said("m2", 10, "Jun Hao 下个礼拜生日, 不知道要送什么"), off: [2]int{40, 30},
			cited: []string{"m1", "m2"}, kept: "superseded by m2"},
		// In one sitting a later statement goes on with the earlier one:
		// the 不用 of "但是不用天天过江", three minutes after the move, says
		// nothing against it.
		{name: "one sitting", question: "我现在住哪块？",
			m1: said("m1", 35, "搬家了 搬到汉阳钟家村 房租便宜三百"), m2: minutesAfter(said("m2", 35, "嗯 汉阳单价低点 但是不用天天过江 省事"), 3), off: [2]int{60, 30},
			cited: []string{"m1", "m2"}, kept: "superseded by m2"},
		// A question about then and now (originally … now) asks for both:
		// the later statement supersedes nothing.
		{name: "then and now", question: "Where am I from originally, and where do I live now?",
			m1: said("m1", 90, "I'm from Ipoh originally, came down to KL for uni"), m2: said("m2", 10, "Moved out of Cheras! Now I stay in a condo in Puchong"), off: [2]int{40, 30},
			cited: []string{"m1", "m2"}, kept: "superseded by m2"},
		// An earlier statement that is itself the change ("not a nurse
		// anymore") is not set aside by a later one for lacking its
		// negation.
		{name: "the change itself", question: "What do I do for a living now?",
			m1: said("m1", 40, "GOT THE JOB. junior UX designer at Loop Health. officially not a nurse anymore."), m2: said("m2", 25, "first real project at work: redesigning the patient intake form"), off: [2]int{60, 30},
			cited: []string{"m1", "m2"}, kept: "superseded by m2"},
		// ... unless it corrects it in so many words (其实).
		{name: "corrected in one sitting", question: "我现在喝咖啡吗？",
			m1: said("m1", 35, "我不喝咖啡 一口都不喝"), m2: minutesAfter(said("m2", 35, "刚才说错了 其实我每天早上喝一杯美式咖啡"), 5), off: [2]int{60, 30},
			cited: []string{"m2"}, superseded: "superseded by m2"},
	} {
		msgs := append([]storage.Message{tc.m1, tc.m2}, offTopic("m3", tc.off[0], "m4", tc.off[1])...)
		resp := recallDict(t, msgs, tc.question)
		if got := citedIDs(resp); !slices.Equal(got, tc.cited) {
			t.Errorf("%s: cited %v, want %v (notes %q)", tc.name, got, tc.cited, resp.Limits.Notes)
		}
		noted := func(s string) bool {
			return slices.ContainsFunc(resp.Limits.Notes, func(n string) bool { return strings.Contains(n, s) })
		}
		if tc.superseded != "" && !noted(tc.superseded) {
			t.Errorf("%s: notes %q, want %q", tc.name, resp.Limits.Notes, tc.superseded)
		}
		if tc.kept != "" && noted(tc.kept) {
			t.Errorf("%s: notes %q: nothing is %q", tc.name, resp.Limits.Notes, tc.kept)
		}
	}
}

// TestCorrectedByUser: what the assistant said and the user's next turn
// denied ("不是插画！还是做UI") is not the user's word, and the denial
// answers the question with it, as a reply does with its question. A
// user's turn that agrees leaves the assistant's summary standing.
func TestCorrectedByUser(t *testing.T) {
	reply := func(id string, days int, content string) storage.Message {
		m := said(id, days, content)
		m.CreatedAt = m.CreatedAt.Add(2 * time.Minute)
		return m
	}
	base := append([]storage.Message{
		said("m1", 50, "决定了 三月底辞职 出来单干"),
		botSaid("m2", 50, "好的，记下了：你三月底辞职，之后做全职插画师🎨"),
	}, offTopic("m4", 40, "m5", 30)...)
	const question = "我辞职之后打算干什么来着？"
	for _, tc := range []struct {
		name  string
		reply storage.Message
		cited string
		not   string
	}{
		{"denied", reply("m3", 50, "不是插画！还是做UI 只是自己接单"), "m3", "m2"},
		{"agreed", reply("m3", 50, "对 就是这样 先攒点作品集"), "", "m3"},
	} {
		resp := recallDict(t, append(slices.Clone(base), tc.reply), question)
		cited := citedIDs(resp)
		if tc.cited != "" && !slices.Contains(cited, tc.cited) || slices.Contains(cited, tc.not) {
			t.Errorf("%s: cited %v, want %q and not %q (notes %q)", tc.name, cited, tc.cited, tc.not, resp.Limits.Notes)
		}
	}
}

// TestYesNoOfPlace: whether something is so of a place the question names
// is answered by a message that names a place, that one or another ("我在
// 深圳工作吗？" and "在温哥华做前端"), not by one that names none.
func TestYesNoOfPlace(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 40, "说带儿子出去玩 没有的事 儿子要中考哪有空"),
		said("m2", 30, "在温哥华做前端工作 五年了"),
	}, offTopic("m3", 20, "m4", 10)...)
	for _, tc := range []struct {
		question string
		want     []string
	}{
		{"我之前是不是说过要带儿子去日本玩来着？", nil},
		{"我在深圳工作吗？", []string{"m2"}},
	} {
		resp := recallDict(t, msgs, tc.question)
		if got := citedIDs(resp); !slices.Equal(got, tc.want) {
			t.Errorf("%s: cited %v, want %v (notes %q)", tc.question, got, tc.want, resp.Limits.Notes)
		}
	}
}

// TestTitleKind: a question asking for films by their kind ("我今年看过哪几
// 部电影？") is borne out by messages that name one by its title, though
// they share little else with it ("周末和朋友看了《唐探4》"); a message about
// the cinema without a title is no answer.
func TestTitleKind(t *testing.T) {
	msgs := []storage.Message{
		said("m1", 120, "今天去看了《流浪地球3》，特效太顶了"),
		said("m2", 100, "周末和朋友看了《唐探4》，笑死"),
		said("m3", 80, "楼下新开的电影院爆米花好贵"),
	}
	msgs = append(msgs, offTopic("m4", 60, "m5", 30)...)
	resp := recallDict(t, msgs, "我今年看过哪几部电影？")
	got := citedIDs(resp)
	if !slices.Contains(got, "m1") || !slices.Contains(got, "m2") || slices.Contains(got, "m3") {
		t.Errorf("cited %v, want m1 and m2, not m3 (notes %q)", got, resp.Limits.Notes)
	}
}

// TestBridgePlaces: a question that asks for several things ("我今年出差去过
// 哪些城市？") is answered again where the place a bearing hit names comes
// up again ("又去深圳了"), though that message shares no word of the
// question.
func TestBridgePlaces(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 50, "今天去深圳出差，住两晚"),
		said("m2", 14, "又去深圳了，这次待一周"),
	}, offTopic("m3", 40, "m4", 30)...)
	resp := recallDict(t, msgs, "我今年出差去过哪些城市？")
	if got := citedIDs(resp); !slices.Contains(got, "m1") || !slices.Contains(got, "m2") {
		t.Errorf("cited %v, want m1 and m2 (notes %q)", got, resp.Limits.Notes)
	}
}

// TestOutingVenue: where one went for an outing ("上周六我带女儿去哪里玩
// 了？") is answered by the venue, a place the dictionary need not know
// ("Ski Dubai at Mall of the Emirates"), not only by a city.
func TestOutingVenue(t *testing.T) {
	for _, tc := range []struct{ question, said string }{
		{"上周六我带女儿去哪里玩了？", "带女儿和她两个同学去了欢乐谷玩 过山车坐了三遍 累瘫"},
		{"Where did I go with my daughter last Saturday?", "took my daughter and her friends to Ski Dubai at Mall of the Emirates, penguin encounter also"},
	} {
		msgs := append([]storage.Message{said("m1", 4, tc.said)}, offTopic("m2", 40, "m3", 30)...)
		resp := recallDict(t, msgs, tc.question)
		if got := citedIDs(resp); !slices.Contains(got, "m1") {
			t.Errorf("%q: cited %v, want m1 (notes %q)", tc.question, got, resp.Limits.Notes)
		}
	}
}

// TestWordNetKinds: a question asking for a thing of a kind ("What race
// am I getting ready for", "What's my race this autumn?", "那个乐器叫啥")
// is borne out by a message naming
// a thing of that kind ("a uke", which no lexicon of the skill lists), in
// either language, when WordNet knows the kind
// (the hand-made excerpt of internal/wordnet/testdata); without it the
// message shares no word with the question and nothing answers. A kind
// the question only mentions bears nothing out.
func TestWordNetKinds(t *testing.T) {
	wn, err := wordnet.Load(filepath.Join("..", "internal", "wordnet", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, question string
		msgs           []storage.Message
		want           []string
	}{
		{"en", "What race am I getting ready for these days?",
			append([]storage.Message{said("m1", 20, "I'm training for a half marathon in October")}, offTopic("m2", 40, "m3", 30)...), []string{"m1"}},
		{"zh question", "我最近自学的那个乐器叫啥来着？",
			append([]storage.Message{said("m1", 20, "impulse bought a uke on taobao lol, 20 min of scales every night")}, offTopic("m2", 40, "m3", 30)...), []string{"m1"}},
		{"two words name the kind", "What musical instrument have I been practising lately?",
			append([]storage.Message{said("m1", 20, "got the uke out again tonight, fingertips sore")}, offTopic("m2", 40, "m3", 30)...), []string{"m1"}},
		{"what's my", "What's my race this autumn?",
			append([]storage.Message{said("m1", 20, "I'm training for a half marathon in October")}, offTopic("m2", 40, "m3", 30)...), []string{"m1"}},
		{"mentioned, not asked", "Did I sign up for a race this year?",
			append([]storage.Message{said("m1", 20, "I'm training for a half marathon in October")}, offTopic("m2", 40, "m3", 30)...), nil},
	} {
		for _, with := range []bool{false, true} {
			opts := []agent.Option{agent.WithDictionary(agent.MiniDictionary(t))}
			if with {
				opts = append(opts, agent.WithWordNet(wn))
			}
			a := agent.New(serviceWith(t, "tg:7", tc.msgs), mustSkill(t), opts...)
			resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: tc.question, Context: agent.RequestContext{Now: may20.Format(time.RFC3339)}})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if !with {
				want = nil
			}
			if got := citedIDs(resp); !slices.Equal(got, want) {
				t.Errorf("%s, wordnet %v: cited %v, want %v (notes %q)", tc.name, with, got, want, resp.Limits.Notes)
			}
		}
	}
}

// TestIrregularVerbs: a question asks in a verb's base form what a
// message tells in its past ("Where did I grow up?", "Grew up in Ipoh"):
// with WordNet's irregular forms (the hand-made excerpt of
// internal/wordnet/testdata) the message bears the question out; without
// them it shares only "up" and nothing answers.
func TestIrregularVerbs(t *testing.T) {
	wn, err := wordnet.Load(filepath.Join("..", "internal", "wordnet", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := append([]storage.Message{
		said("m1", 30, "Actually I'm not local lah. Grew up in Ipoh, came over for nursing school"),
		said("m2", 20, "night shift again, ward super busy, 3 admissions before midnight"),
	}, offTopic("m3", 40, "m4", 10)...)
	for _, with := range []bool{false, true} {
		opts := []agent.Option{agent.WithDictionary(agent.MiniDictionary(t))}
		want := []string(nil)
		if with {
			opts, want = append(opts, agent.WithWordNet(wn)), []string{"m1"}
		}
		a := agent.New(serviceWith(t, "tg:7", msgs), mustSkill(t), opts...)
		resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: "Where did I grow up?", Context: agent.RequestContext{Now: may20.Format(time.RFC3339)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := citedIDs(resp); !slices.Equal(got, want) {
			t.Errorf("wordnet %v: cited %v, want %v (notes %q)", with, got, want, resp.Limits.Notes)
		}
	}
}

// TestOwnerInGroups: in a group the user's own turns are told from other
// members' by the sender id of the user's private chat with the bot, when
// the platform's id for the memory ("sg_huimin") is not the sender's: a
// member's allergy is not the user's. A question in which the user is the
// subject names members as its circumstances ("Farah 约我…我对什么过敏
// 来着"), not as whom it asks about. A question that names a member by the
// name the group shows ("王浩的答辩"), or asks which person without the
// first person ("班里哪个小朋友有过敏"), is answered by the members' words,
// and so is one that names a member shown by a family name by another of
// its names (我妈 of 妈妈).
func TestOwnerInGroups(t *testing.T) {
	at := func(days int) time.Time { return may20.AddDate(0, 0, -days) }
	dm := func(id string, days int, role, content string) storage.Message {
		sender, name := "qq_881", "Huimin"
		if role == "assistant" {
			sender, name = "bot", "recalld"
		}
		return storage.Message{ID: id, Role: role, SenderID: sender, SenderName: name, ConversationID: "dm", CreatedAt: at(days), Content: content}
	}
	grp := func(id string, days int, sender, name, content string) storage.Message {
		return storage.Message{ID: id, Role: "user", SenderID: sender, SenderName: name, ConversationID: "grp", GroupID: "g1", CreatedAt: at(days), Content: content}
	}
	msgs := []storage.Message{
		dm("d1", 40, "user", "我对虾蟹过敏 吃海鲜大排档一定要小心"),
		dm("d2", 40, "assistant", "好的，已记下：你对虾蟹过敏。"),
		dm("d3", 30, "user", "今天夜班好累 三个新病人"),
		dm("d4", 30, "assistant", "辛苦了，早点休息。"),
		grp("g1", 5, "qq_593", "Kumar", "我对花生过敏 别去沙爹店"),
		grp("g2", 6, "qq_660", "Farah", "母亲节周日去吃海鲜大排档？"),
		grp("g3", 6, "qq_881", "Huimin", "好啊 我带我妈一起"),
		grp("g4", 12, "qq_594", "王浩", "通知大家一下 我的答辩定在7月8号下午 地点在西8号馆"),
		grp("g5", 10, "qq_661", "朵朵妈妈", "提醒一下 朵朵对芒果严重过敏 以后班里分零食的时候麻烦不要给她带芒果干"),
		grp("g6", 8, "qq_662", "妈妈", "我下个月3号去省立医院做胃镜 要空腹 你爸陪我去"),
	}
	svc := serviceWith(t, "sg_huimin", msgs)
	a := agent.New(svc, mustSkill(t), agent.WithDictionary(agent.MiniDictionary(t)))
	for _, tc := range []struct {
		question        string
		cited, notCited []string
	}{
		{"我对什么过敏来着？", []string{"d1"}, []string{"g1"}},
		{"Farah 约我去吃海鲜大排档，我对什么过敏来着？", []string{"d1"}, []string{"g1"}},
		{"王浩的答辩是哪天来着 我答应给他当计时的", []string{"g4"}, nil},
		{"期末派对要发零食 班里哪个小朋友有过敏来着 对啥过敏", []string{"g5"}, nil},
		// A member the group shows by a family name (妈妈) is named by
		// another of that person's names (我妈).
		{"我妈哪天去医院做胃镜来着", []string{"g6"}, nil},
	} {
		resp, err := a.Recall(t.Context(), "sg_huimin", agent.Request{Question: tc.question, Context: agent.RequestContext{Now: may20.Format(time.RFC3339)}})
		if err != nil {
			t.Fatal(err)
		}
		checkCited(t, tc.question, resp, tc.cited, tc.notCited)
	}
}

// TestReasonAfterTurnMarker: a reason after the question a turn marker
// opens ("明年我可不能再在外头过了") is no words of the question.
func TestReasonAfterTurnMarker(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 60, "还有哈 兄弟伙请我吃饭莫给我点折耳根 老子一口都吃不下去 其他啥子都可以"),
		said("m2", 30, "下个月十二号是我媳妇儿生日 阳历的她不过农历 你那天早上提醒我"),
	}, offTopic("m3", 40, "m4", 5)...)
	for _, tc := range []struct{ q, want string }{
		{"哎呀今天在服务区排了俩小时队 不说了 我想问问你 我媳妇儿过生日到底是几号 明年我可不能再在外头过了 去年就在外头过的 她念叨了一整年", "m2"},
	} {
		checkCited(t, tc.q, recallDict(t, msgs, tc.q), []string{tc.want}, nil)
	}
}

// TestSomeoneElsesRelative: a question about the user's child is not
// answered by someone else's ("隔壁王嬢嬢的女儿", "my neighbour's
// daughter"): a relation word after another's possessive is theirs. The
// user's own ("我女儿", "my daughter") still answers.
func TestSomeoneElsesRelative(t *testing.T) {
	for _, tc := range []struct {
		name, question string
		msgs           []storage.Message
		want           []string
	}{
		{"zh, another's", "我女儿谈恋爱了没？男朋友是做啥的？",
			append([]storage.Message{said("m1", 20, "隔壁王嬢嬢的女儿耍朋友了 男朋友开滴滴的 她嫌弃得很")}, offTopic("m2", 40, "m3", 30)...), nil},
		{"zh, the user's", "我女儿谈恋爱了没？男朋友是做啥的？",
			append([]storage.Message{said("m1", 20, "我女儿耍朋友了 男朋友开滴滴的 我嫌弃得很")}, offTopic("m2", 40, "m3", 30)...), []string{"m1"}},
		{"en, another's", "Is my daughter dating anyone?",
			append([]storage.Message{said("m1", 20, "my neighbour's daughter is dating a drummer now, her mum is not amused")}, offTopic("m2", 40, "m3", 30)...), nil},
	} {
		if got := citedIDs(recallDict(t, tc.msgs, tc.question)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: cited %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestTopicAsAWhole: a question that names a topic as a whole (爱好,
// 通勤) is answered by a message that names one of its members (相机,
// e-bike and 地铁) without a word of the question. (The hobby topic's
// 周末, a word that finds the topic in a question, still lets "周末在家烤了
// 个戚风" follow for a sport: a known imprecision.)
func TestTopicAsAWhole(t *testing.T) {
	for _, tc := range []struct{ question, answer string }{
		{"我退休后新添的爱好是啥", "买了个相机 佳能的 跟老同事学拍鸟 江边白鹭可多了"},
		{"我平时通勤靠啥", "新公司在徐汇滨江 每天骑 e-bike 过去 十五分钟 不用挤地铁了"},
		{"What sport have I picked up?", "joined a bouldering gym near the office, forearms are destroyed lol"},
		{"我在哪个学校念书", "研一开学了 天天泡实验室 导师人还挺好 浙大紫金港是真的大"},
		{"我考试考得怎么样", "雅思出分了 总分7 口语6.5 终于不用再刷了"},
		{"我新东家是做什么的", "入职第一周 这家做跨境电商的 节奏快到飞起"},
		{"我那个毛孩子叫啥来着", "楼下捡了只小橘猫 取名叫橘座 贼能吃"},
		{"Where did I go on my last vacation?", "flew back from Bali last night, the hotel breakfast alone was worth the flight"},
		{"家里啥东西出毛病了", "热水器又坏了 洗了个冷水澡 明天叫师傅上门"},
		{"what broke at home?", "the washing machine stopped working mid-cycle, water all over the floor"},
		{"我平时一般靠什么锻炼身体", "最近每天早上沿着江边跑10k 跑完再去上班 整个人精神多了"},
		{"How do I usually work out?", "swimming laps at the leisure centre three mornings a week now"},
		{"我的睡眠怎么样了", "这周每天凌晨三点才能入睡 第二天上班像丧尸"},
		{"How's my insomnia these days?", "lying awake till 4am again, tried melatonin, nothing"},
	} {
		msgs := append([]storage.Message{said("m1", 20, tc.answer)}, offTopic("m3", 60, "m4", 30)...)
		resp := recallDict(t, msgs, tc.question)
		if got := citedIDs(resp); len(got) == 0 || got[0] != "m1" {
			t.Errorf("%q: cited %v, want m1 first (notes %q)", tc.question, got, resp.Limits.Notes)
		}
	}
}

// TestGrandchildByName: a grandchild is one of the user's people, called
// by the name a message gives with the relation ("大孙子浩浩"), and 体育
// names exercise as a whole: "我孙子课外练的是哪项体育？" is borne out by
// "浩浩今儿去游泳了", which shares no word with it (the message that
// names him may be cited beside it).
func TestGrandchildByName(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 60, "俺家大孙子浩浩 九岁 上三年级 贼淘"),
		said("m2", 20, "浩浩今儿去游泳了 教练说他进步贼快"),
	}, offTopic("m3", 40, "m4", 30)...)
	resp := recallDict(t, msgs, "我孙子课外练的是哪项体育？")
	if got := citedIDs(resp); !slices.Contains(got, "m2") {
		t.Errorf("cited %v, want m2 (notes %q)", got, resp.Limits.Notes)
	}
}

// TestPlaceOfATopic: 健身房 (a gym) names a place, not exercise as a
// whole: "我最近去健身房了吗？" is not borne out by whatever was said of
// health or pastimes that week.
func TestPlaceOfATopic(t *testing.T) {
	msgs := []storage.Message{said("m1", 1, "my cat Mochi is sick, took her to the vet this morning"), said("m2", 3, "周末去上海看了个 live house，乐队超好听")}
	resp := recallDict(t, msgs, "我最近去健身房了吗？")
	if got := citedIDs(resp); len(got) > 0 {
		t.Errorf("cited %v, want none (notes %q)", got, resp.Limits.Notes)
	}
}

// TestTopicCues: a word that finds a topic in a question without being a
// thing of it (周末, weekend for a pastime) does not let a message that
// holds it bear out a question naming the topic as a whole.
func TestTopicCues(t *testing.T) {
	for _, tc := range []struct{ question, answer, cue string }{
		{"What sport have I picked up?", "joined a bouldering gym near the office, forearms are destroyed lol", "lazy weekend, stayed in bed till noon and ordered pizza"},
		{"我最近的爱好是啥", "最近迷上了打羽毛球 一周三次", "这个周末啥也没干 睡到中午"},
	} {
		citesOneNotOther(t, tc.question, said("m1", 20, tc.answer), said("m2", 10, tc.cue))
	}
}

// citesOneNotOther checks that the question, asked of the two messages,
// cites the first (m1) and not the second (m2).
func citesOneNotOther(t *testing.T, question string, m1, m2 storage.Message) {
	t.Helper()
	resp := recallDict(t, []storage.Message{m1, m2}, question)
	if got := citedIDs(resp); !slices.Contains(got, m1.ID) || slices.Contains(got, m2.ID) {
		t.Errorf("%q: cited %v, want %s and not %s (notes %q)", question, got, m1.ID, m2.ID, resp.Limits.Notes)
	}
}

// TestSaidOfOthers: a question the user asks about themself is not borne
// out by what a message says of someone else by a pronoun (她花生过敏,
// she's vegetarian), while the user's own clause in the same chat is.
func TestSaidOfOthers(t *testing.T) {
	for _, tc := range []struct{ question, own, theirs string }{
		{"我有什么不能吃的", "同事带了芒果蛋糕 我芒果过敏 只能看着", "小林今天吃了口花生酥 她花生过敏 嘴都肿了 吓死"},
		{"is there anything I can't eat?", "I'm allergic to shrimp, learned that the hard way", "lab mate Priya has it worse, she's allergic to gluten and the canteen is all bread"},
	} {
		citesOneNotOther(t, tc.question, said("m1", 30, tc.own), said("m2", 10, tc.theirs))
	}
}

// TestSupportInEnglishMessage: a message without Chinese is judged by the
// question's terms it can hold, so a mixed question whose Chinese words
// have no English ones (谈, 得) is borne out by the English message that
// names its subject.
func TestSupportInEnglishMessage(t *testing.T) {
	citesOneNotOther(t, "Lantern Hollow 跟发行商谈得怎么样了",
		said("m1", 30, "pitched Lantern Hollow to a publisher today, they want a vertical slice by July"),
		said("m2", 10, "lunch at the hawker centre again, chicken rice is life"))
}

// TestSearchesInTheQuestionsTime: every search a recall runs reads a
// relative date (上周六, last week) against the request's now, not the
// clock: the fused search did not, and looked for last Saturday in the
// week before the server's today.
func TestSearchesInTheQuestionsTime(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 5, d, 15, 0, 0, 0, time.UTC) }
	svc := serviceWith(t, "qq:61", []storage.Message{
		{ID: "m1", Role: "user", SenderID: "61", SenderName: "小林", ConversationID: "p", CreatedAt: day(2), Content: "周六去西湖边骑车了"},
		{ID: "m2", Role: "user", SenderID: "61", SenderName: "小林", ConversationID: "p", CreatedAt: day(16), Content: "今天周六 带爸妈去灵隐寺烧香"},
	})
	now := "2026-05-20T12:00:00Z"
	for _, q := range []string{"上周六我去哪了", "Where did I go last week?"} {
		resp, err := agent.New(svc, mustSkill(t)).Recall(t.Context(), "qq:61", agent.Request{Question: q,
			Context: agent.RequestContext{Now: now}, Options: agent.Options{Trace: true}})
		if err != nil {
			t.Fatal(err)
		}
		windows := 0
		for _, s := range resp.Trace {
			if s.Phase != "decide" {
				continue
			}
			var args struct {
				Filter struct{ Since, Until time.Time } `json:"filter"`
			}
			raw, _ := json.Marshal(s.Arguments)
			if json.Unmarshal(raw, &args) != nil || args.Filter.Since.IsZero() {
				continue
			}
			windows++
			if args.Filter.Since.After(day(20)) || args.Filter.Until.Before(day(10)) {
				t.Errorf("%q: %s searched %v..%v, not around the week before %s", q, s.Tool, args.Filter.Since, args.Filter.Until, now)
			}
		}
		if windows == 0 {
			t.Errorf("%q: no search in a window", q)
		}
	}
}

// TestReadsAsOfNow: a question asked as of context.now is answered from
// what had been said by then; a later turn of a replayed history is not
// read, and without context.now it is.
func TestReadsAsOfNow(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 4, d, 20, 0, 0, 0, time.UTC) }
	svc := serviceWith(t, "qq:62", []storage.Message{
		{ID: "m1", Role: "user", SenderID: "62", SenderName: "阿强", ConversationID: "p", CreatedAt: day(1), Content: "我们团开荒改到每周四和周六晚上九点了"},
		{ID: "m2", Role: "user", SenderID: "62", SenderName: "阿强", ConversationID: "p", CreatedAt: day(25), Content: "开荒时间又改了 改成每周日晚上八点"},
	})
	for _, tc := range []struct {
		now        string
		want, lost string
	}{
		{"2026-04-10T12:00:00Z", "m1", "m2"},
		{"", "m2", ""},
	} {
		resp, err := agent.New(svc, mustSkill(t)).Recall(t.Context(), "qq:62", agent.Request{Question: "我们团现在开荒是每周几几点？",
			Context: agent.RequestContext{Now: tc.now}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range resp.Evidence {
			ids = append(ids, e.MessageID)
		}
		if !slices.Contains(ids, tc.want) || tc.lost != "" && slices.Contains(ids, tc.lost) {
			t.Errorf("now %q: cited %v, want %s and not %q", tc.now, ids, tc.want, tc.lost)
		}
	}
}

// TestThreadFromStartToEnd: a question that asks how a matter went from
// start to end (从头到尾, 咋样, 推进) asks about a thread of events, and
// cites as widely as one ("心理情景剧那个事…" over the plan, the rehearsal
// and the result), not only what ranks close to the best message. (An
// unsure answer still cites at most one message that does not bear the
// question out by itself: here, one of the rehearsal and the result.)
func TestThreadFromStartToEnd(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 40, "五月心理健康月，学院要求每个年级排一个心理情景剧，我打算让软工2班牵头。"),
		said("m2", 20, "情景剧排练场地原来订的学术报告厅，被学院借去开会了，改到大学生活动中心二楼。"),
		said("m3", 5, "情景剧比赛昨天结束，软工2班拿了二等奖，娃娃们高兴疯了。"),
	}, offTopic("m4", 30, "m5", 10)...)
	resp := recallDict(t, msgs, "心理情景剧那个事从头到尾是咋推进的，最后结果咋样？")
	got := citedIDs(resp)
	if len(got) < 2 || !slices.Contains(got, "m1") {
		t.Errorf("cited %v, want m1 and another message of the thread (notes %q)", got, resp.Limits.Notes)
	}
	if slices.Contains(got, "m4") || slices.Contains(got, "m5") {
		t.Errorf("cited %v: m4 and m5 are off the thread", got)
	}
}

// TestThreadCitesItsSteps: a matter's course told in more steps than a
// list's cap (stop.aggregate_cite_max) cites up to stop.thread_cite_max of
// them.
func TestThreadCitesItsSteps(t *testing.T) {
	msgs := append([]storage.Message{
		said("s1", 60, "厨房装修定了，找的老郑全包，八万块。"),
		said("s2", 55, "厨房装修开工了，先拆旧橱柜。"),
		said("s3", 50, "厨房装修水电改完了，验收过了。"),
		said("s4", 45, "厨房装修贴砖贴了三天，颜色选的浅灰。"),
		said("s5", 40, "厨房装修橱柜装好了，台面是石英石。"),
		said("s6", 35, "厨房装修油烟机和灶具今天装上了。"),
		said("s7", 30, "厨房装修完工了，尾款付清，总共八万三。"),
	}, offTopic("m8", 20, "m9", 10)...)
	resp := recallDict(t, msgs, "厨房装修那个事从头到尾是咋样的？")
	if got := citedIDs(resp); len(got) < 6 || slices.Contains(got, "m8") || slices.Contains(got, "m9") {
		t.Errorf("cited %v, want six or more of s1-s7 and neither m8 nor m9 (notes %q)", got, resp.Limits.Notes)
	}
}

// TestReplyToAnothersNews: a reply is judged with the question it answers,
// unless that question tells of its asker's own doings and the recall asks
// of the user's: granting a student's leave for a trip to Chongqing does
// not say the user goes. A question put to the user (你…) still lends the
// reply its words.
func TestReplyToAnothersNews(t *testing.T) {
	at := func(min int) time.Time { return may20.AddDate(0, 0, -3).Add(time.Duration(min) * time.Minute) }
	msgs := append([]storage.Message{
		{ID: "g1", Role: "user", SenderID: "301", SenderName: "李思琪", ConversationID: "g", GroupID: "g", CreatedAt: at(0), Content: "老师我下周要去重庆参加数学建模集训，请三天假可以吗？"},
		{ID: "g2", Role: "user", SenderID: "7", SenderName: "张老师", ConversationID: "g", GroupID: "g", CreatedAt: at(2), Content: "可以，回来补请假条。"},
		{ID: "g3", Role: "user", SenderID: "302", SenderName: "王浩", ConversationID: "g", GroupID: "g", CreatedAt: at(30), Content: "张老师你周六去不去爬青城山？"},
		{ID: "g4", Role: "user", SenderID: "7", SenderName: "张老师", ConversationID: "g", GroupID: "g", CreatedAt: at(32), Content: "去！早上七点南门集合"},
	}, offTopic("m3", 40, "m4", 30)...)
	if got := citedIDs(recallDict(t, msgs, "我下周是不是要去重庆那边？")); slices.Contains(got, "g2") || slices.Contains(got, "g1") {
		t.Errorf("cited %v for the student's trip", got)
	}
	if got := citedIDs(recallDict(t, msgs, "我周六是不是要去爬青城山？")); !slices.Contains(got, "g4") {
		t.Errorf("cited %v, want g4 (the user's answer to a question put to them)", got)
	}
}

// TestTakenDown: a user's turn that the assistant took down in the next
// turn ("记下了：你对青霉素过敏") is judged with that turn, in whose words
// the question asks; the assistant's turn is not cited for it.
func TestTakenDown(t *testing.T) {
	bot := func(m storage.Message, content string) storage.Message {
		m = minutesAfter(m, 1)
		m.ID, m.Role, m.SenderID, m.Content = m.ID+"-bot", "assistant", "bot", content
		return m
	}
	u1 := said("u1", 30, "青霉素不行 一打就浑身起疹子")
	u2 := said("u2", 20, "今天去公园跑了五公里")
	msgs := []storage.Message{u1, bot(u1, "记下了：你对青霉素过敏，看病时记得告诉医生。"), u2, bot(u2, "跑得不错！"),
		said("u3", 10, "晚上吃了火锅 辣得过瘾")}
	const q = "我对什么药过敏来着？"
	resp := recallDict(t, msgs, q)
	cited := citedIDs(resp)
	if !slices.Contains(cited, "u1") || slices.Contains(cited, "u1-bot") {
		t.Errorf("cited %v, want u1 and not the assistant's u1-bot; notes %v", cited, resp.Limits.Notes)
	}
	// Without the acknowledgement words, u1's own words do not bear the
	// question out.
	sk, err := skillWith(t, "  acknowledgement:\n", "  acknowledgement_unused:\n")
	if err != nil {
		t.Fatal(err)
	}
	if cited := citedIDs(recallWithDict(t, sk, msgs, q, may20)); slices.Contains(cited, "u1") {
		t.Errorf("without acknowledgements cited %v: u1 bears the question out by itself, the test shows nothing", cited)
	}
}

// checkCited fails the test when the answer to question leaves out an id
// of cited or cites one of notCited.
func checkCited(t *testing.T, question string, resp *agent.Response, cited, notCited []string) {
	t.Helper()
	got := citedIDs(resp)
	for _, id := range cited {
		if !slices.Contains(got, id) {
			t.Errorf("%q: cited %v, want %s; notes %v", question, got, id, resp.Limits.Notes)
		}
	}
	for _, id := range notCited {
		if slices.Contains(got, id) {
			t.Errorf("%q: cited %v, not %s", question, got, id)
		}
	}
}

// TestTakingDownIsNotEvidence: the assistant's taking down of what the
// user said ("收到：…", "Noted: …") restates the user's turn, at times
// wrongly (8600 for 6800), and is not cited for a question about the
// user: the user's turn is, as high as the taking down ranks and as well
// as it bears the question out ("dentist" for "teeth cleaning", 約人飲茶
// for 星期日朝早), above an earlier plan (24 March). A question
// about what the assistant said still cites it.
func TestTakingDownIsNotEvidence(t *testing.T) {
	bot := func(m storage.Message, id, content string) storage.Message {
		m = minutesAfter(m, 1)
		m.ID, m.Role, m.SenderID, m.Content = id, "assistant", "bot", content
		return m
	}
	u1 := said("u1", 40, "阿杰报价来了：整套logo加VI一共6800 分两次付 我觉得挺划算就答应了")
	u2 := said("u2", 30, "booked the teeth cleaning for 14/3, 2.30pm, finally")
	u3 := said("u3", 20, "周五下午记得提醒我交季度报告")
	u4 := said("u4", 15, "逢星期日朝早都要陪阿爸去覆診")
	u5 := said("u5", 12, "flight home is 24 march, kunming to brisbane")
	u6 := said("u6", 3, "pushed it back to the 28th, 400 kuai change fee but worth it")
	u7 := said("u7", 8, "恒澜又加了个 request 要我们补客户集中度的分析 芯拓前五大客户占了营收的71%")
	msgs := append([]storage.Message{
		u7, bot(u7, "b7", "记录：恒澜新增 request，补充客户集中度分析；芯拓前五大客户占营收 17%。"),
		u1, bot(u1, "b1", "收到：阿杰的logo设计报价是8600元，一次付清，你已经同意。"),
		u2, bot(u2, "b2", "Noted: your dentist appointment is on 14 March at 2:30pm."),
		u3, bot(u3, "b3", "好的，记下了：周五下午提醒你交季度报告。"),
		u4, bot(u4, "b4", "明白，咁約人飲茶就避開星期日朝早啦"),
		u5, u6, bot(u6, "b6", "Noted — you're now flying home on 28 March."),
	}, offTopic("m1", 10, "m2", 5)...)
	for _, tc := range []struct {
		question        string
		cited, notCited []string
	}{
		{"阿杰的设计报价是多少钱？", []string{"u1"}, []string{"b1"}},
		{"When is my dentist appointment?", []string{"u2"}, []string{"b2"}},
		{"你答应过周五提醒我什么？", []string{"b3"}, nil},
		{"約人飲茶嘅話，有邊日朝早我一定唔得閒？", []string{"u4"}, []string{"b4"}},
		{"When am I flying home now?", []string{"u6"}, []string{"b6", "u5"}},
		{"芯拓前五大客户占营收多少？", []string{"u7"}, []string{"b7"}},
	} {
		resp := recallDict(t, msgs, tc.question)
		checkCited(t, tc.question, resp, tc.cited, tc.notCited)
	}
}

// TestCorrectingTheBot: the user's turn that corrects the bot's wrong
// restatement is cited with the original and the restatement is not, when
// the correction ends on a rhetorical question ("…你这记性咋还不如我呢")
// and when it denies the bot's value without opening with a denial
// ("14th mate, not 4th").
func TestCorrectingTheBot(t *testing.T) {
	bot := func(m storage.Message, min int, id, content string) storage.Message {
		m = minutesAfter(m, min)
		m.ID, m.Role, m.SenderID, m.Content = id, "assistant", "bot", content
		return m
	}
	user := func(m storage.Message, min int, id, content string) storage.Message {
		m = minutesAfter(m, min)
		m.ID, m.Content = id, content
		return m
	}
	u1 := said("u1", 40, "我闺女今年高三 六月份就上考场了 比我还熬")
	u3 := said("u3", 30, "also Jess's birthday is 14 March, remind me, I forgot last year")
	msgs := []storage.Message{
		u1, bot(u1, 1, "b1", "好的，记下了：你闺女今年高二，明年高考，加油！"),
		user(u1, 2, "u2", "不对 高三！今年六月就考 你这记性咋还不如我呢"), bot(u1, 3, "b2", "抱歉抱歉，是高三，记住了。"),
		u3, bot(u3, 1, "b3", "Noted: Jess's birthday is 4 March"),
		user(u3, 2, "u4", "14th mate, not 4th. one-four."), bot(u3, 3, "b4", "Sorry! 14 March it is."),
		said("u5", 20, "今天跑了三十单 腿都软了"), said("u6", 10, "took the kids to the park with my missus Jess, knackered"),
	}
	for _, tc := range []struct {
		question        string
		cited, notCited []string
	}{
		{"我闺女今年念几年级来着？", []string{"u1", "u2"}, []string{"b1"}},
		{"When is Jess's birthday again?", []string{"u4"}, []string{"b3"}},
	} {
		resp := recallDict(t, msgs, tc.question)
		checkCited(t, tc.question, resp, tc.cited, tc.notCited)
	}
}

// testFreq is how common the thread test's words are, on the scale of the
// real lists (60 million words of Chinese, 51 million of English; the rest
// of each list is one filler entry).
func testFreq(t *testing.T) *wordfreq.Freq {
	t.Helper()
	f, err := wordfreq.Parse(strings.NewReader("的 59800000 uj\n开始 38139 v\n今天 15960 t\n装修 437 v\n铺面 82 n\n光谷 567 n\n"),
		strings.NewReader(`[{"word": "the", "count": 50800000}, {"word": "food", "count": 7876}, {"word": "party", "count": 20000}, {"word": "awful", "count": 9000}, {"word": "awards", "count": 247}, {"word": "nice", "count": 30000}, {"word": "minutes", "count": 14000}, {"word": "work", "count": 90000}]`))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// branchShop is a matter told over weeks in words the question does not
// share: a branch shop's search, its signing, its refit.
func branchShop() []storage.Message {
	return []storage.Message{
		said("m1", 84, "过完年了 想在光谷开个分店 今天去看了两个铺面 一个太贵一个太偏"),
		said("m2", 66, "铺面签了 地铁口旁边 下周开始装修"),
		said("m3", 32, "装修拖了 师傅说排烟管要重新走 开业推到五月中"),
	}
}

// TestFollowTheMatter: a question asking for a matter's course ("一路下来",
// "turn out") is answered by the messages that continue its best hit,
// though they share no word with the question: 铺面 ties the signing to
// the search for a shop, 装修 the delay to the signing. A message sharing
// only an everyday word (开始, food) continues nothing. Without the word
// frequencies nothing is followed: a user's few messages cannot tell an
// everyday word from one of the matter.
func TestFollowTheMatter(t *testing.T) {
	zh := append(branchShop(), said("m4", 20, "今天开始练瑜伽了 累死"))
	zh = append(zh, offTopic("m5", 50, "m6", 10)...)
	en := append([]storage.Message{
		said("m1", 84, "entering the Food Awards chef challenge with a char siu Wellington"),
		said("m2", 60, "made the final for the food awards!! cook-off in April"),
		said("m3", 40, "the food at the staff party was awful"),
	}, offTopic("m5", 50, "m6", 10)...)
	intake := append([]storage.Message{
		said("m1", 84, "first real project at work: redesigning the patient intake form, it takes 40 minutes to fill in"),
		said("m2", 60, "usability test on the intake prototype went great"),
		said("m3", 40, "did 45 minutes of bouldering after work"),
	}, offTopic("m5", 50, "m6", 10)...)
	for _, tc := range []struct {
		name     string
		msgs     []storage.Message
		question string
		freq     bool
		want     []string
	}{
		{"zh", zh, "光谷开分店那事 一路下来搞得么样了", true, []string{"m1", "m2", "m3"}},
		{"zh, how it developed", zh, "光谷开分店这件事，从一开始到现在是怎么发展的？", true, []string{"m1", "m2", "m3"}},
		{"zh, chatter no message has", zh, "光谷分店那一摊子事，从看铺面到现在走到哪一步了，帮我从头捋一下。", true, []string{"m1", "m2", "m3"}},
		{"zh, from one step to another", zh, "光谷开分店那个事从看铺面到装修 中间出了啥岔子", true, []string{"m1", "m2", "m3"}},
		{"zh, a matter never told", zh, "学车考驾照那一摊子事，从报名到现在走到哪一步了，帮我从头捋一下。", true, nil},
		{"zh, no frequencies", zh, "光谷开分店那事 一路下来搞得么样了", false, []string{"m1"}},
		{"not a course", zh, "我在哪里开分店", true, []string{"m1"}},
		{"en", en, "How did the char siu Wellington thing turn out?", true, []string{"m1", "m2"}},
		// The lists know "minutes", not the stem "minut" both messages hold.
		{"en, an everyday word stemmed", intake, "How did the intake form redesign turn out, start to finish?", true, []string{"m1", "m2"}},
	} {
		opts := []agent.Option{agent.WithDictionary(agent.MiniDictionary(t))}
		if tc.freq {
			opts = append(opts, agent.WithWordFreq(testFreq(t)))
		}
		a := agent.New(serviceWith(t, "tg:7", tc.msgs), mustSkill(t), opts...)
		resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: tc.question, Context: agent.RequestContext{Now: may20.Format(time.RFC3339)}})
		if err != nil {
			t.Fatal(err)
		}
		got := citedIDs(resp)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: cited %v, want %v (notes %q)", tc.name, got, tc.want, resp.Limits.Notes)
		}
	}
}

// TestFollowTheMatterBudget: following a matter spends tool calls it may
// not have; with any budget the run answers within it, and what it cites
// of the matter starts where the matter does.
func TestFollowTheMatterBudget(t *testing.T) {
	svc := serviceWith(t, "tg:7", append(branchShop(), offTopic("m5", 50, "m6", 10)...))
	matter := []string{"m1", "m2", "m3"}
	for budget := 4; budget <= 16; budget++ {
		sk, err := skillWith(t, "max_tool_calls: 40", fmt.Sprintf("max_tool_calls: %d", budget))
		if err != nil {
			t.Fatal(err)
		}
		a := agent.New(svc, sk, agent.WithDictionary(agent.MiniDictionary(t)), agent.WithWordFreq(testFreq(t)))
		resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: "光谷开分店那事 一路下来搞得么样了", Context: agent.RequestContext{Now: may20.Format(time.RFC3339)}})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		got := citedIDs(resp)
		slices.Sort(got)
		switch {
		case resp.Limits.ToolsCalled > budget:
			t.Errorf("budget %d: %d tool calls", budget, resp.Limits.ToolsCalled)
		case len(got) == 0 || got[0] != "m1" || slices.ContainsFunc(got, func(id string) bool { return !slices.Contains(matter, id) }):
			t.Errorf("budget %d: cited %v, want m1 and what follows it of m2, m3 (notes %q)", budget, got, resp.Limits.Notes)
		case budget == 16 && len(got) != 3:
			t.Errorf("budget %d: cited %v, want m1, m2, m3", budget, got)
		}
	}
}

// TestLongQueryNote: the store's note that it looked up only the first
// terms of a long query is the answer's limit when the query is the
// user's own long question; a short question whose topic the brain
// searches by its many words carries no such note.
func TestLongQueryNote(t *testing.T) {
	const note = "search terms of a long query are looked up"
	long := strings.Repeat("今天天气很好我们去公园散步了，", 20)
	msgs := offTopic("m3", 60, "m4", 30)
	for _, tc := range []struct {
		name, question string
		want           bool
	}{
		{"a long question", long + "我女儿在哪个学校读书？", true},
		{"a short question, the topic's words", "我孩子在哪个学校读书？", false},
	} {
		a := agent.New(serviceWith(t, "tg:7", msgs), mustSkill(t), agent.WithDictionary(agent.MiniDictionary(t)))
		resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: tc.question, Options: agent.Options{Trace: true},
			Context: agent.RequestContext{Now: may20.Format(time.RFC3339)}})
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(resp.Limits.Notes, func(n string) bool { return strings.Contains(n, note) })
		traced := slices.ContainsFunc(resp.Trace, func(s agent.TraceStep) bool { return strings.Contains(s.Decision, note) })
		switch {
		case got != tc.want:
			t.Errorf("%s: notes %q, want the long-query note %v", tc.name, resp.Limits.Notes, tc.want)
		case !got && !traced:
			t.Errorf("%s: the brain's long search is not in the trace", tc.name)
		}
	}
}

// TestNumberIsNoSubject: a later change of plans ("doing Yunnan instead")
// does not revise an earlier statement for sharing a number with it ("10
// kuai" of a snack, "10 days" of a trip), though the two differ in
// negation (the snack's "don't @ me") as a revision and what it revises
// do.
func TestNumberIsNoSubject(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 80, "summer plan: flying home to Canada in July, 3 weeks at the lake cabin"),
		said("m2", 50, "hot take: the best xiaolongbao in this city is 新丰小吃 near my apartment. 10 kuai, soup explodes, don't @ me"),
		said("m3", 30, "ok change of plans for summer. flights are insane, scratch the trip home. doing Yunnan instead, 10 days in mid-July"),
		said("m4", 20, "Tomás flies to Valencia for his wedding tomorrow, gone for a month"),
	}, offTopic("m5", 40, "m6", 10)...)
	const q = "where did I say the best xiaolongbao in town was? wanna take Tomás there when he's back"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m2"}, []string{"m3"})
}

// TestWhenIsItNow: a question when something is now is answered by the
// latest statement that gives a time. A later turn on the subject that
// gives none ("in a couple of weeks now") does not say when it is, and a
// revision that moves the time to another ("moved … to April 2") revises
// the statement that gave the first, though it has no word of change.
func TestWhenIsItNow(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 80, "booked the crown fitting at the dentist for March 12, 3pm"),
		said("m2", 50, "dentist's lab is late so they moved the crown fitting to April 2"),
		said("m3", 10, "crown fitting is only a couple of weeks away now, kinda nervous lol"),
	}, offTopic("m4", 40, "m5", 5)...)
	const q = "When is my crown fitting now?"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m2"}, []string{"m1"})
	zh := append([]storage.Message{
		said("z1", 80, "驾照科目三约在3月12号下午"),
		said("z2", 50, "驾校说考场排不过来 科目三改到4月2号了"),
		said("z3", 10, "科目三现在还有两个礼拜 有点慌"),
	}, offTopic("z4", 40, "z5", 5)...)
	const zq = "我科目三现在是哪天考？"
	checkCited(t, zq, recallDict(t, zh, zq), []string{"z2"}, []string{"z1"})
}

// TestOpeningConditionIsNoFact: a message that opens with its condition
// ("if I ever make partner I'm buying a vineyard") tells what would
// follow, not what is: a question whether the user owns a vineyard has
// no evidence. A condition after a statement ("… If you order for me, no
// onions") leaves the statement the user's.
func TestOpeningConditionIsNoFact(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 40, "if I ever make partner I'm buying a vineyard in Sonoma and never answering email again"),
		said("m2", 30, "my usual is a flat white with oat milk. If anyone grabs coffee for me, no sugar"),
	}, offTopic("m3", 20, "m4", 10)...)
	const q = "Where's the vineyard I bought?"
	resp := recallDict(t, msgs, q)
	checkCited(t, q, resp, nil, []string{"m1"})
	if resp.Limits.StopReason != agent.StopNoEvidence {
		t.Errorf("%q: stop %s, cited %v, want no_evidence", q, resp.Limits.StopReason, citedIDs(resp))
	}
	const q2 = "What's my usual coffee order?"
	checkCited(t, q2, recallDict(t, msgs, q2), []string{"m2"}, nil)
}

// TestDeadlineIsNoWindow: 之前 after a time ("啥时候之前要交", "几号之前")
// makes it a deadline, not "previously": the question searches all of the
// history, not the last month's (where a message on the shop bears it out
// in part), and finds the rent told two months ago.
func TestDeadlineIsNoWindow(t *testing.T) {
	msgs := []storage.Message{
		said("m1", 60, "玉林这个铺面的房东是蒋孃孃，房租按季度交，每个季度头一个月的五号之前必须打过去"),
		said("m2", 20, "老马那边的毛肚我不要了，现在换成王姐那里拿，贵是贵点但是放心"),
		said("m3", 12, "今天来了两桌外地游客，辣得直喊妈"),
		said("m4", 6, "小芳又请了半天假，我一个人在前头跑上跑下"),
		said("m5", 2, "隔壁串串店说他们要涨价了"),
		said("m6", 8, "玉林这个店今天翻台翻了五轮 累惨了"),
	}
	for _, q := range []string{"玉林这个店的房租每回是啥时候之前要交？", "玉林的房租 几号之前要打过去？"} {
		checkCited(t, q, recallDict(t, msgs, q), []string{"m1"}, nil)
	}
}

// TestSceneBeforeTheQuestion: a Chinese question whose first clauses set
// the scene ("我跟你转述过老板评价我初稿的那句话") and whose last asks
// ("原话是咋说的？") is borne out by the message that holds what the last
// asks about, though the scene's words are in no message. When the last
// clause names nothing told ("我有冇同你講過？", "你記唔記得？": no word of
// it is in a message), the first is what is asked, and a message sharing
// only its 屋企 does not bear out where the user lives.
func TestSceneBeforeTheQuestion(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 30, "老板看完初稿了 原话：“你这写的是实验报告不是论文，讨论部分重写” 我真的裂开了"),
		said("m2", 20, "今天冻融试验又做了五十次 手都冻麻了"),
		said("m5", 12, "最近喺天河一个 co-working space 租咗个位，每月 1200，喺屋企太多诱惑写唔到 code"),
	}, offTopic("m3", 40, "m4", 10)...)
	for _, tc := range []struct {
		question string
		cited    []string
	}{
		{"我跟你转述过老板评价我初稿的那句话，原话是咋说的？", []string{"m1"}},
		{"我屋企住喺廣州邊個區？我有冇同你講過？", nil},
		{"我屋企住喺廣州邊個區？你記唔記得？", nil},
	} {
		got := citedIDs(recallDict(t, msgs, tc.question))
		if !slices.Equal(got, tc.cited) {
			t.Errorf("%q: cited %v, want %v", tc.question, got, tc.cited)
		}
	}
}

// TestDateCharactersAreNoSubject: a later message that revises something
// else ("他们的飞机改了, 现在是5月2号到") shares only the characters of a
// date (月, 号) with the statement the question asks about ("居留许可是 7月15号
// 过期"): it is on another subject and supersedes nothing.
func TestDateCharactersAreNoSubject(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 90, "还有我的居留许可是 7月15号 过期, HR 说要提前一个月准备材料, 不要忘记!!"),
		said("m2", 80, "对啊 但是他们的飞机改了, 现在是5月2号到. 汉莎取消了4月那个航班"),
	}, offTopic("m3", 40, "m4", 5)...)
	const q = "我的居留许可到底是几号过期？"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m1"}, []string{"m2"})
}

// TestMainlyIsNoSubject: 主要, 通常 and 平常 say how often or how much,
// not what a question is about ("我现在主要跑哪条线?"): a message that says
// the route ("现在跑哈尔滨到成都") bears the question out without them.
func TestMainlyIsNoSubject(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 90, "我现在跑哈尔滨到北京这条线 一礼拜一个来回 天天熬夜"),
		said("m2", 30, "跟你说一声 我换线了 不跑北京了 现在跑哈尔滨到成都 冷链 拉冻货"),
	}, offTopic("m3", 40, "m4", 5)...)
	const q = "我现在主要跑哪条线?"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m2"}, []string{"m1"})
}

// TestDoneForMeIsMine: a clause in which someone else does it for the
// user ("我妈给我报了物理补习 每周六下午两点") tells the user's own class: the
// 我 after 给 is the user, not a third party's news.
func TestDoneForMeIsMine(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 60, "我妈给我报了物理补习 每周六下午两点 在赛格旁边那个机构 烦死了"),
		said("m2", 30, "我妈最近在学跳舞 每周三晚上去"),
	}, offTopic("m3", 40, "m4", 5)...)
	const q = "物理补习到底是周六还是周日啊 几点 我又忘了"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m1"}, []string{"m2"})
}

// TestAcknowledgedAfterAWord: the assistant's turn that takes down what
// the user said after a word of its own ("理解～已记下：…", "恭喜！记下了：…")
// restates the user's turn, here wrongly: the user's own words are the
// evidence.
func TestAcknowledgedAfterAWord(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 60, "驾校给我排了科目二 每周六下午两点练车 在城北那个场地"),
		botSaid("m2", 60, "理解～已记下：每周日上午十点练车，地点城北。加油！"),
	}, offTopic("m3", 40, "m4", 5)...)
	const q = "我练车是周六还是周日 几点来着"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m1"}, []string{"m2"})
}

// TestCantoneseTakingDown: the assistant's "記低咗：…" (noted, in
// Cantonese) takes down the user's turn as "记下了" does: the user's own
// words are the evidence, judged with the restatement's.
func TestCantoneseTakingDown(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 60, "要。仲有呢排我逢星期二收工七點喺旺角做 physio，唔好俾我約嘢"),
		botSaid("m2", 60, "記低咗：逢星期二晚上七點旺角物理治療。"),
	}, offTopic("m3", 40, "m4", 5)...)
	const q = "我嗰個物理治療係星期幾幾點㗎？"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m1"}, []string{"m2"})
}

// TestRegisteredAgain: 改报 (signed up for another instead) revises the
// sign-up before it, as 改成 and 改到 do: moving the exam from one day to
// another, the later one is the answer.
func TestRegisteredAgain(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 90, "我决定要考日检了！报了7月5号那场N3 现在在背五十音"),
		said("m2", 50, "日检那个要改一下 我改报12月6号那场N3 7月那场刚好撞到店里周年庆"),
	}, offTopic("m3", 40, "m4", 5)...)
	const q = "我日检最后报的是哪一场？"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m2"}, []string{"m1"})
}

// TestSinceTheChange: a later message that dates its news by the change
// ("换了药以后稳当多了": since the switch) goes on from the change and does
// not supersede it: the switch is what is so now.
func TestSinceTheChange(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 100, "今天量血压高压一百六 大夫给开的氨氯地平 一天一片 早上吃"),
		said("m2", 60, "去复查了 大夫说脚肿是氨氯地平闹的 给俺换成缬沙坦了 一天一片 原来那个药不吃了"),
		said("m3", 10, "这几天血压挺好今天早上量的高压一百三十五换了药以后稳当多了脚也不肿了"),
	}, offTopic("m4", 40, "m5", 5)...)
	const q = "俺现在每天早上吃的降压药是哪个"
	checkCited(t, q, recallDict(t, msgs, q), []string{"m2"}, []string{"m1"})
}

// TestReasonBeforeTheQuestion: a Chinese question whose last clause asks
// by its kind's words alone, after a clause that gives only its reason,
// is about what the last clause asks: the reason's words (快递单, 地址)
// are not what a message must hold. A clause before that names what is
// asked about (那家火锅店) still counts.
func TestReasonBeforeTheQuestion(t *testing.T) {
	msgs := append([]storage.Message{
		said("m1", 120, "我叫思怡 住闵行七宝 在一家电商平台做产品经理"),
		said("m2", 60, "上周去了家新开的火锅店 叫渝味晓宇 排了一个钟头"),
	}, offTopic("m5", 50, "m6", 10)...)
	for _, tc := range []struct{ question, want string }{
		{"快递单要填地址，我住在哪块来着？", "m1"},
		{"上次说的那家火锅店，叫啥来着？", "m2"},
	} {
		a := agent.New(serviceWith(t, "tg:7", msgs), mustSkill(t), agent.WithDictionary(agent.MiniDictionary(t)))
		resp, err := a.Recall(t.Context(), "tg:7", agent.Request{Question: tc.question, Context: agent.RequestContext{Now: may20.Format(time.RFC3339)}})
		if err != nil {
			t.Fatal(err)
		}
		if got := citedIDs(resp); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("%s: cited %v, want [%s] (notes %q)", tc.question, got, tc.want, resp.Limits.Notes)
		}
	}
}
