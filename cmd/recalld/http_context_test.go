package main

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/queryapi"
)

// endTurnMemo ends a turn with a memo and observations at t and waits until
// its events are stored.
func (c *client) endTurnMemo(requestID, group, sender, senderName, memo string, t time.Time, obs ...string) {
	c.ts.t.Helper()
	body := map[string]any{
		"request_id": requestID, "memo": memo, "observations": obs, "sender_id": sender, "sender_name": senderName,
		"timestamp": t.UTC().Format(time.RFC3339), "request_type": "private",
	}
	if group != "" {
		body["request_type"], body["group_id"], body["group_name"] = "group", group, "茶友会 "+group
	}
	var r ingest.Receipt
	c.Do("POST", "/turns/end", body, http.StatusAccepted, &r)
	c.waitJob(r.JobID, "done")
}

const contextTopK = `
[cognitive.query]
auto_top_k = %d
`

// TestContext: what a bot injects each turn, in a private chat and in two
// groups, never crossing a group or a user, with auto_top_k following the
// config file without a restart.
func TestContext(t *testing.T) {
	path := writeFile(t, "recalld.toml", strings.Replace(contextTopK, "%d", "1", 1))
	ts := startServer(t, fastQueue, "-config", path)
	u := ts.as("qq:1")
	now := time.Now().UTC().Truncate(time.Second)
	day := 24 * time.Hour
	u.endTurnMemo("p1", "", "10001", "小王", "聊了搬家", now.Add(-9*day), "我住在杭州", "我不吃辣")
	u.endTurnMemo("p2", "", "10009", "小赵", "小赵问了天气", now.Add(-8*day), "我不吃香菜")
	u.endTurnMemo("g1a", "g1", "10002", "Ann", "dinner plans in g1", now.Add(-3*day), "Ann loves spicy hotpot", "Ann is vegetarian on weekdays")
	u.endTurnMemo("g1b", "g1", "10001", "小王", "小王在群里说了辣", now.Add(-2*day), "我最近开始吃辣了")
	u.endTurnMemo("g2a", "g2", "10003", "老李", "老李的火锅", now.Add(-1*day), "老李在成都吃了很辣的火锅")
	other := ts.as("qq:2")
	other.endTurnMemo("x1", "g1", "20001", "Bob", "Bob's memo", now.Add(-1*day), "Bob eats spicy food every day")
	ts.waitIndexed()
	u.Do("POST", "/memories", map[string]any{"id": "lang", "content": "回复用中文"}, http.StatusCreated, nil)
	u.Do("POST", "/memories", map[string]any{"id": "g1-style", "content": "In g1 keep answers short", "group_id": "g1"}, http.StatusCreated, nil)

	ask := func(c *client, body map[string]any) queryapi.ContextResult {
		t.Helper()
		var r queryapi.ContextResult
		c.Do("POST", "/context", body, http.StatusOK, &r)
		return r
	}
	memos := func(r queryapi.ContextResult) []string {
		var out []string
		for _, m := range r.Memos {
			out = append(out, m.Content)
		}
		return out
	}
	pins := func(r queryapi.ContextResult) []string {
		var out []string
		for _, m := range r.Memories {
			out = append(out, m.ID)
		}
		return out
	}

	// Private chat with 小王: the message's <content> is the query, short,
	// so the scene is appended; only private events and memos of 小王.
	r := ask(u, map[string]any{"message": `<msg><sender>小王</sender><content>你还记得我吃不吃辣吗</content></msg>`,
		"sender_id": "10001", "sender_name": "小王", "request_type": "private"})
	if r.Query != "你还记得我吃不吃辣吗\n私聊, 发送者 小王" || r.Scope != "private" {
		t.Errorf("private query %q scope %q", r.Query, r.Scope)
	}
	if len(r.Events) != 1 || r.Events[0].GroupID != "" || r.Events[0].SenderID != "10001" || !strings.Contains(r.Events[0].Content, "辣") {
		t.Errorf("private events = %+v, want the one of 小王's private turn about 辣", r.Events)
	}
	if got := memos(r); !slices.Equal(got, []string{"聊了搬家"}) {
		t.Errorf("private memos = %q", got)
	}
	if got := pins(r); !slices.Equal(got, []string{"lang"}) {
		t.Errorf("private pinned memories = %q", got)
	}
	if r.UserProfile == nil || r.UserProfile.EntityID != "10001" || !strings.Contains(r.UserProfile.Summary, "杭州") || r.GroupProfile != nil {
		t.Errorf("private profiles: user %+v, group %+v", r.UserProfile, r.GroupProfile)
	}
	for _, want := range []string{"Pinned memories:\n- 回复用中文\n", "About 小王 (10001):", "Relevant events:\n- [", "Recent turns (memos):\n- ["} {
		if !strings.Contains(r.Block, want) {
			t.Errorf("block lacks %q:\n%s", want, r.Block)
		}
	}

	// Group g1: g1's events, memos and profile, the unscoped and g1 pins.
	r = ask(u, map[string]any{"message": "who here likes spicy hotpot and what do they eat on weekdays?", "group_id": "g1",
		"group_name": "茶友会 g1", "sender_id": "10002", "sender_name": "Ann", "at_bot": true})
	if r.Query != "who here likes spicy hotpot and what do they eat on weekdays?" || r.Scope != "group" {
		t.Errorf("group query %q scope %q", r.Query, r.Scope)
	}
	if len(r.Events) != 1 || r.Events[0].GroupID != "g1" {
		t.Errorf("g1 events = %+v, want one of g1 (auto_top_k 1)", r.Events)
	}
	if got := memos(r); !slices.Equal(got, []string{"小王在群里说了辣", "dinner plans in g1"}) {
		t.Errorf("g1 memos = %q", got)
	}
	if got := pins(r); !slices.Equal(got, []string{"g1-style", "lang"}) && !slices.Equal(got, []string{"lang", "g1-style"}) {
		t.Errorf("g1 pinned memories = %q", got)
	}
	if r.GroupProfile == nil || r.GroupProfile.EntityID != "g1" {
		t.Errorf("g1 group profile = %+v", r.GroupProfile)
	}

	// auto_top_k follows the file without a restart.
	reloads := ts.health().Config.Reloads
	replaceFile(t, path, strings.Replace(contextTopK, "%d", "5", 1))
	waitFor(t, "auto_top_k 5 is applied", func() bool { return ts.health().Config.Reloads == reloads+1 })
	r = ask(u, map[string]any{"message": "spicy hotpot vegetarian 辣", "group_id": "g1", "sender_id": "10002"})
	if len(r.Events) != 3 {
		t.Errorf("g1 events after the reload = %d, want all 3 of g1", len(r.Events))
	}
	for _, e := range r.Events {
		if e.GroupID != "g1" || strings.Contains(e.Content, "Bob") {
			t.Errorf("g1 context holds %+v", e)
		}
	}

	// g2 and the other user never see g1's or qq:1's events.
	r = ask(u, map[string]any{"message": "spicy hotpot 辣 火锅", "group_id": "g2", "sender_id": "10003"})
	if len(r.Events) != 1 || r.Events[0].GroupID != "g2" || strings.Contains(r.Block, "Ann") || strings.Contains(r.Block, "g1") {
		t.Errorf("g2 context = %+v\n%s", r.Events, r.Block)
	}
	r = ask(other, map[string]any{"message": "spicy hotpot 辣 火锅 小王 Ann", "group_id": "g1", "sender_id": "20001"})
	for _, e := range r.Events {
		if !strings.Contains(e.Content, "Bob") {
			t.Errorf("qq:2 sees %+v", e)
		}
	}
	if len(r.Memories) != 0 || strings.Contains(r.Block, "小王") || strings.Contains(r.Block, "Ann") {
		t.Errorf("qq:2 context:\n%s", r.Block)
	}

	// Bad input: a clear error, nothing else.
	for _, tc := range []struct {
		body map[string]any
		want int
	}{
		{map[string]any{"sender_id": "10001"}, http.StatusUnprocessableEntity},
		{map[string]any{"message": "  ", "sender_id": "10001"}, http.StatusUnprocessableEntity},
		{map[string]any{"message": "hi"}, http.StatusUnprocessableEntity},
		{map[string]any{"message": "hi", "sender_id": "1", "request_type": "group"}, http.StatusUnprocessableEntity},
		{map[string]any{"message": "hi", "sender_id": "1", "request_type": "channel"}, http.StatusUnprocessableEntity},
		{map[string]any{"message": "hi", "sender_id": "1", "user_id": "qq:2"}, http.StatusBadRequest},
	} {
		u.Do("POST", "/context", tc.body, tc.want, nil)
	}
}
