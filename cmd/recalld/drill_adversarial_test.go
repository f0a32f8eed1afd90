package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/internal/httpapi"
)

// Bounds of the adversarial drill.
const (
	// advDeadline bounds each adversarial request's wall time; the server's
	// request_timeout is advServerTimeout.
	advDeadline      = 6 * time.Second
	advServerTimeout = "5s"
	// advGrowthLimit bounds how much the server's resident set may grow
	// during a case; advKillRSS is where the watchdog kills the server to
	// protect the machine.
	advGrowthLimit = 512 << 20
	advKillRSS     = 2 << 30
)

// Texts the adversary stores and quotes from.
const (
	advZh = "我们这个周末打算去杭州西湖边上走一走，顺便尝尝那边有名的龙井虾仁和西湖醋鱼，如果天气好的话还想去灵隐寺看看，" +
		"晚上再去河坊街逛逛夜市买点小吃带回来给家里人尝尝，周日下午坐高铁回上海，周一还要上班开会讨论下个季度的预算安排。"
	advEn = "We decided to ship project Atlas in March after the design review, and the budget for the second quarter " +
		"covers two more engineers, a new build server, the hotel in Kyoto for the autumn offsite, train tickets from Tokyo, " +
		"a dinner at the small ramen place near the station, and the yearly license of the issue tracker that everybody " +
		"complains about but nobody wants to replace because migrating the old tickets would take weeks of careful work."
	// advMixed has no punctuation, so that any run of its words is a phrase.
	advMixed = "周五的 design review 之后我们 decided to 把 project Atlas 的 launch 推迟到 March 因为 budget 还没有 approved " +
		"而且 Kyoto 的 offsite 需要先订 hotel 和 train tickets 记得提醒 Ann 和小王 before Friday 把 slides 发出来 " +
		"然后 we can 在周末 review the 预算 again 并且 book 好 the rooms 给大家 顺便 check 一下 the train schedule"
)

// advUser and goodUser are the adversary and the well-behaved user whose
// requests run alongside.
const (
	advUser  = "adv:evil"
	goodUser = "adv:good"
)

// TestDrillAdversarial sends adversarial input to a server in a child
// process: quoted phrases of every length 1..64 in zh, en and mixed,
// symbol-only and empty texts, huge boolean-looking queries and over-long
// inputs. Each request must end within its deadline with no 5xx, the
// server's resident set must stay bounded, and a second, well-behaved user
// whose requests run all the while must keep getting 200s.
func TestDrillAdversarial(t *testing.T) {
	if testing.Short() {
		t.Skip("drill: spawns a child process")
	}
	cs := startChild(t, t.TempDir(), map[string]string{"RECALLD_REQUEST_TIMEOUT": advServerTimeout,
		"RECALLD_JOB_POLL_INTERVAL": "20ms", "RECALLD_JOB_RETRY_BACKOFF": "20ms"})
	hc := newDrillHTTP(advDeadline + 4*time.Second)
	evil := drillClient{hc: hc, base: cs.base, user: advUser}
	good := drillClient{hc: hc, base: cs.base, user: goodUser}
	created := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var msgs []map[string]any
	for i, text := range []string{advZh, advEn, advMixed, "我不吃辣，一点都不行", "spicy noodles for dinner"} {
		msgs = append(msgs, msgJSON(fmt.Sprintf("a%d", i), "user", text, i))
	}
	mustSend(t, evil, "POST", "/messages", map[string]any{"messages": msgs}, http.StatusOK)
	mustSend(t, evil, "POST", "/turns/end", map[string]any{"request_id": "a-t1", "observations": []string{"我住在杭州", "I like oolong tea"},
		"sender_id": "10001", "sender_name": "Ann", "timestamp": created.Format(time.RFC3339)}, http.StatusAccepted)
	var goodMsgs []map[string]any
	for i := range 20 {
		goodMsgs = append(goodMsgs, msgJSON(fmt.Sprintf("g%d", i), "user", fmt.Sprintf("goodmk%dz 我们周五去吃火锅 and review project Atlas", i), i))
	}
	mustSend(t, good, "POST", "/messages", map[string]any{"messages": goodMsgs}, http.StatusOK)
	mustSend(t, good, "POST", "/turns/end", map[string]any{"request_id": "g-t1", "observations": []string{"我住在北京", "I like green tea"},
		"sender_id": "10001", "sender_name": "Bob", "timestamp": created.Format(time.RFC3339)}, http.StatusAccepted)
	waitChildIdle(t, cs, advUser, goodUser)
	base, _, _ := cs.rss()

	// The watchdog kills the server before it takes the machine down.
	var killedAt atomic.Int64
	watchCtx, stopWatch := context.WithCancel(t.Context())
	defer stopWatch()
	go func() {
		for watchCtx.Err() == nil {
			if cur, _, ok := cs.rss(); ok && cur > advKillRSS {
				killedAt.Store(cur)
				cs.kill()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()

	// The well-behaved user, all the while.
	var (
		goodLat    latencies
		goodN      atomic.Int64
		goodFailed atomic.Int64
		goodWG     sync.WaitGroup
	)
	goodCtx, stopGood := context.WithCancel(t.Context())
	goodWG.Go(func() {
		for i := 0; goodCtx.Err() == nil; i++ {
			reqs := []struct {
				route, method, path string
				body                any
			}{
				{"POST /search/lexical", "POST", "/search/lexical", map[string]any{"query_text": fmt.Sprintf("goodmk%dz", i%20)}},
				{"GET /messages", "GET", "/messages" + q("page_size", "20"), nil},
				{"POST /search/semantic", "POST", "/search/semantic", map[string]any{"query_text": "周五吃火锅", "top_k": 5}},
				{"POST /context", "POST", "/context", map[string]any{"message": "你还记得我住哪吗", "sender_id": "10001"}},
			}
			r := reqs[i%len(reqs)]
			resp := good.send(goodCtx, r.method, r.path, r.body)
			if goodCtx.Err() != nil {
				return
			}
			goodN.Add(1)
			goodLat.add(r.route, resp.dur)
			if resp.err != nil || resp.status != http.StatusOK || (i%len(reqs) == 0 && !strings.Contains(string(resp.body), "goodmk")) {
				if goodFailed.Add(1) <= 5 {
					t.Errorf("well-behaved user: %s: %s", r.route, resp)
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	run := func(name string, fn func(t *testing.T, a *advRun)) {
		t.Run(name, func(t *testing.T) {
			a := &advRun{t: t, cs: cs, c: evil}
			cs.resetPeak()
			before := cs.peakRSS.Load()
			start := time.Now()
			fn(t, a)
			peak := cs.peakRSS.Load()
			if k := killedAt.Load(); k > 0 {
				t.Fatalf("the server grew to %s: the watchdog killed it", mib(k))
			}
			if peak-before > advGrowthLimit {
				t.Errorf("the server's resident set grew by %s to %s, more than %s", mib(peak-before), mib(peak), mib(advGrowthLimit))
			}
			drillFigure(t, "adversarial", "%-16s %4d requests in %-8s slowest %-8s (%s), server RSS %s, +%s at its peak",
				name, a.n, time.Since(start).Round(time.Millisecond), roundDur(a.slowest), a.slowestName, mib(before), mib(peak-before))
		})
	}
	run("phrases/en", func(t *testing.T, a *advRun) {
		words := strings.Fields(advEn)
		for n := 1; n <= 64; n++ {
			off := n % (len(words) - 64)
			if a.phrase(strings.Join(words[off:off+n], " "), n, "a1") {
				break
			}
		}
	})
	run("phrases/zh", func(t *testing.T, a *advRun) {
		rs := []rune(advZh)
		for n := 1; n <= 64; n++ {
			off := n % (len(rs) - 64)
			if a.phrase(string(rs[off:off+n]), n, "a0") {
				break
			}
		}
	})
	run("phrases/mixed", func(t *testing.T, a *advRun) {
		// n words: a Han character or a Latin word each.
		spans := wordSpans(advMixed)
		if len(spans) < 80 {
			t.Fatalf("advMixed has %d words, want 80", len(spans))
		}
		for n := 1; n <= 64; n++ {
			off := n % (len(spans) - 64)
			if a.phrase(advMixed[spans[off][0]:spans[off+n-1][1]], n, "a2") {
				break
			}
		}
	})
	symbols := []string{"ok", "哈", "?", "👍", "...", "!!!", "？？？", "～", "\u200b", "-_-", "😂😂😂"}
	run("symbols/messages", func(t *testing.T, a *advRun) {
		var ms []map[string]any
		for i, s := range symbols {
			ms = append(ms, msgJSON(fmt.Sprintf("s%d", i), []string{"user", "assistant"}[i%2], s, 100+i))
		}
		a.expect("POST /messages", "POST", "/messages", map[string]any{"messages": ms}, http.StatusOK)
		// Empty and blank content is refused (TestBadInput checks that nothing of the batch is stored).
		for _, blank := range []string{"", " ", "\n\t"} {
			a.expect("POST /messages blank", "POST", "/messages", map[string]any{"messages": []map[string]any{
				msgJSON("ok-beside-blank", "user", "fine", 90), msgJSON("blank", "user", blank, 91)}}, http.StatusUnprocessableEntity)
		}
		waitChildIdle(t, cs, advUser)
		for _, s := range symbols {
			a.queries(s, "profiles")
		}
	})
	run("symbols/profiles", func(t *testing.T, a *advRun) {
		for _, s := range symbols {
			a.expect("profiles", "POST", "/profiles/search", map[string]any{"query": s}, http.StatusOK)
		}
	})
	run("symbols/turns", func(t *testing.T, a *advRun) {
		for i, s := range symbols {
			a.expect("POST /turns/end", "POST", "/turns/end", map[string]any{"request_id": fmt.Sprintf("sym%d", i), "memo": s,
				"observations": []string{s}, "sender_id": "10001", "sender_name": "Ann"}, http.StatusAccepted)
		}
		waitChildIdle(t, cs, advUser)
		for _, s := range append(symbols, "你还记得我住哪吗", "tea") {
			a.queries(s)
		}
	})
	run("boolean", func(t *testing.T, a *advRun) {
		ops := []string{"AND", "OR", "NOT", "+spicy", "-noodles", "*", "?", "user_id:adv\\:good", "content:goodmk1z", "_all:x", "field:value",
			"(a OR b)", "[1 TO 5]", "{a TO *}", "a~2", "b^10", "/go+dmk.*/", `"unbalanced`, "\\", "&&", "||", "!", "goodmk3z"}
		for _, limit := range []int{200, 1000, 1990} {
			var b strings.Builder
			for i := 0; ; i++ {
				w := ops[i%len(ops)] + " "
				if b.Len()+len(w) > limit {
					break
				}
				b.WriteString(w)
			}
			a.queries(b.String())
		}
		// Thousands of words: over the limits, refused as invalid.
		huge := strings.Repeat("spicy AND noodles OR +atlas -budget * user_id:x ", 400)
		a.queries(huge)
	})
	run("overlong", func(t *testing.T, a *advRun) {
		long := strings.Repeat("火锅", 1001)
		a.expect("lexical 2002 runes", "POST", "/search/lexical", map[string]any{"query_text": long}, http.StatusUnprocessableEntity)
		a.expect("lexical 200k runes", "POST", "/search/lexical", map[string]any{"query_text": strings.Repeat("辣", 200000)}, http.StatusUnprocessableEntity)
		a.expect("semantic 200k runes", "POST", "/search/semantic", map[string]any{"query_text": strings.Repeat("spicy ", 40000)}, http.StatusUnprocessableEntity)
		a.expect("question 1001 runes", "POST", "/recall", map[string]any{"question": strings.Repeat("吃", 1001)}, http.StatusUnprocessableEntity)
		a.expect("events query", "POST", "/events/search", map[string]any{"query": long}, http.StatusUnprocessableEntity)
		a.expect("profiles query", "POST", "/profiles/search", map[string]any{"query": long}, http.StatusUnprocessableEntity)
		a.expect("context 9 KiB", "POST", "/context", map[string]any{"message": strings.Repeat("a", 9<<10), "sender_id": "1"}, http.StatusUnprocessableEntity)
		a.expect("content 64 KiB + 1", "POST", "/messages", map[string]any{"messages": []any{msgJSON("big", "user", strings.Repeat("x", 64<<10+1), 0)}}, http.StatusUnprocessableEntity)
		batch := make([]map[string]any, 1001)
		for i := range batch {
			batch[i] = msgJSON(fmt.Sprintf("b%d", i), "user", "x", 0)
		}
		a.expect("1001 messages", "POST", "/messages", map[string]any{"messages": batch}, http.StatusUnprocessableEntity)
		a.expect("51 observations", "POST", "/turns/end", map[string]any{"observations": make([]string, 51)}, http.StatusUnprocessableEntity)
		a.expect("body over 8 MiB", "POST", "/messages", `{"messages":[{"content":"`+strings.Repeat("x", 9<<20)+`"}]}`, http.StatusRequestEntityTooLarge)
		a.expect("nested 100k deep", "POST", "/search/lexical", strings.Repeat("[", 100000), http.StatusBadRequest)
		a.expect("256k-dim embedding", "POST", "/search/semantic", `{"query_embedding":[`+strings.Repeat("0.5,", 1<<18)+`0.5]}`, http.StatusUnprocessableEntity)
		a.expect("mcp 2002 runes", "POST", "/mcp", mcpCall(1, "lexical_search", map[string]any{"query_text": long}), http.StatusOK)
		a.expectHeader("user id 257 bytes", strings.Repeat("u", 257), http.StatusBadRequest)
	})
	run("overlong/context", func(t *testing.T, a *advRun) {
		// A message within /context's 8 KiB whose text is over the event
		// search's 2000 characters.
		a.expect("context 3000 chars", "POST", "/context", map[string]any{"message": strings.Repeat("tea ", 750), "sender_id": "10001"}, http.StatusOK)
	})
	stopGood()
	goodWG.Wait()
	stopWatch()
	if goodN.Load() == 0 {
		t.Error("the well-behaved user sent no request")
	}
	_, peak, _ := cs.rss() // VmHWM: the peak since the server started
	drillFigure(t, "adversarial", "well-behaved user: %d requests, %d failed; server RSS %s after setup, peak %s overall",
		goodN.Load(), goodFailed.Load(), mib(base), mib(peak))
	goodLat.report(t, "adversarial good user")
	cs.stop()
	if out := cs.logs.String(); strings.Contains(out, "panic") {
		t.Errorf("server log:\n%s", out)
	}
}

// goodDataRE finds the well-behaved user's data in an answer: its messages,
// its observations, its sender's name. (The adversary's queries name
// goodmk markers too, which /context repeats in its query.)
var goodDataRE = regexp.MustCompile(`goodmk\d+z 我们|green tea|北京|Bob`)

// advRun sends one case's adversarial requests and checks each.
type advRun struct {
	t           *testing.T
	cs          *childServer
	c           drillClient
	n           int
	slowest     time.Duration
	slowestName string
}

// send sends one request and checks what holds for every adversarial
// request: an answer within advDeadline, no 5xx, the JSON error body on a
// non-2xx, and nothing of the well-behaved user.
func (a *advRun) send(name, method, path string, body any, hdr ...string) drillResp {
	a.t.Helper()
	resp := a.c.send(a.t.Context(), method, path, body, hdr...)
	a.n++
	if resp.dur > a.slowest {
		a.slowest, a.slowestName = resp.dur, name
	}
	switch {
	case resp.err != nil:
		a.t.Errorf("%s: %s after %s", name, resp, roundDur(resp.dur))
		return resp
	case resp.dur > advDeadline:
		a.t.Errorf("%s: answered after %s, over %s", name, roundDur(resp.dur), advDeadline)
	case resp.status >= 500:
		a.t.Errorf("%s: %s", name, resp)
	case resp.status >= 300:
		var e httpapi.ErrorBody
		if json.Unmarshal(resp.body, &e) != nil || e.Error.Code == "" {
			a.t.Errorf("%s: %d without the JSON error body: %.200s", name, resp.status, resp.body)
		}
	}
	if goodDataRE.Match(resp.body) {
		a.t.Errorf("%s: the answer holds the well-behaved user's data: %.300s", name, resp.body)
	}
	return resp
}

// expect is send that also wants a status.
func (a *advRun) expect(name, method, path string, body any, want int) drillResp {
	a.t.Helper()
	resp := a.send(name, method, path, body)
	if resp.err == nil && resp.status < 500 && resp.status != want {
		a.t.Errorf("%s: %s, want %d", name, resp, want)
	}
	return resp
}

// expectHeader sends GET /messages as user and wants status.
func (a *advRun) expectHeader(name, user string, want int) {
	a.t.Helper()
	c := a.c
	a.c.user = user
	a.expect(name, "GET", "/messages", nil, want)
	a.c = c
}

// phrase searches for p, n words or characters long, quoted and wants the
// message id among the hits. It reports whether the case failed: the rest
// of the lengths would only fail slower.
func (a *advRun) phrase(p string, n int, id string) (failed bool) {
	a.t.Helper()
	name := fmt.Sprintf("phrase of %d", n)
	resp := a.expect(name, "POST", "/search/lexical", map[string]any{"query_text": `"` + p + `"`, "page_size": 50}, http.StatusOK)
	if resp.status == http.StatusOK && !strings.Contains(string(resp.body), `"message_id":"`+id+`"`) {
		a.t.Errorf("%s: %q does not find %s: %.300s", name, p, id, resp.body)
	}
	if n%16 == 0 {
		a.expect("recall, "+name, "POST", "/recall", map[string]any{"question": `我说过"` + p + `"吗？`}, http.StatusOK)
		a.send("MCP lexical, "+name, "POST", "/mcp", mcpCall(1, "lexical_search", map[string]any{"query_text": `"` + p + `"`}))
	}
	return a.t.Failed()
}

// queries sends text to every route that searches: each must answer 200,
// or 422 when the text is over the route's limit or blank.
func (a *advRun) queries(text string, except ...string) {
	a.t.Helper()
	short := text
	if rs := []rune(text); len(rs) > 1000 {
		short = string(rs[:1000])
	}
	for _, r := range []struct {
		name, path string
		body       any
	}{
		{"lexical all", "/search/lexical", map[string]any{"query_text": text}},
		{"lexical any", "/search/lexical", map[string]any{"query_text": text, "match": "any", "contextual": true}},
		{"semantic", "/search/semantic", map[string]any{"query_text": text}},
		{"recall", "/recall", map[string]any{"question": short}},
		{"events", "/events/search", map[string]any{"query": text}},
		{"profiles", "/profiles/search", map[string]any{"query": text}},
		{"context", "/context", map[string]any{"message": short, "sender_id": "10001"}},
	} {
		if slices.Contains(except, r.name) {
			continue
		}
		name := fmt.Sprintf("%s %.20q (%d runes)", r.name, text, len([]rune(text)))
		resp := a.send(name, "POST", r.path, r.body)
		blank := strings.TrimSpace(text) == ""
		if resp.err == nil && resp.status < 500 && resp.status != http.StatusOK && !(resp.status == http.StatusUnprocessableEntity && (blank || len([]rune(text)) > 1000)) {
			a.t.Errorf("%s: %s", name, resp)
		}
	}
	resp := a.send("MCP recall", "POST", "/mcp", mcpCall(1, "recall", map[string]any{"question": short}))
	if failed, msg := mcpToolFailed(resp.body); resp.err == nil && failed && !strings.HasPrefix(msg, httpapi.CodeInvalid) {
		a.t.Errorf("MCP recall %.20q: %s", text, msg)
	}
}

// mustSend sends a setup request and fails the test unless it gets want.
func mustSend(t *testing.T, c drillClient, method, path string, body any, want int) {
	t.Helper()
	if r := c.send(t.Context(), method, path, body); r.err != nil || r.status != want {
		t.Fatalf("%s %s as %s: %s, want %d", method, path, c.user, r, want)
	}
}

// waitChildIdle waits until the child's index is drained and none of
// users' jobs is pending or processing.
func waitChildIdle(t *testing.T, cs *childServer, users ...string) {
	t.Helper()
	hc := newDrillHTTP(10 * time.Second)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		busy := 0
		var h httpapi.HealthResponse
		if r := (drillClient{hc: hc, base: cs.base}).send(t.Context(), "GET", "/healthz", nil); r.err != nil || json.Unmarshal(r.body, &h) != nil {
			t.Fatalf("healthz: %s", r)
		}
		busy += h.Pending
		for _, u := range users {
			for _, st := range []string{"pending", "processing"} {
				var res httpapi.JobsResponse
				r := drillClient{hc: hc, base: cs.base, user: u}.send(t.Context(), "GET", "/jobs"+q("state", st), nil)
				if r.err != nil || json.Unmarshal(r.body, &res) != nil {
					t.Fatalf("jobs: %s", r)
				}
				busy += len(res.Jobs)
			}
		}
		if busy == 0 {
			return
		}
		time.Sleep(30 * time.Millisecond)
	}
	t.Fatal("the server did not finish indexing and its jobs within a minute")
}

// wordSpans returns the byte spans of the words of s: each Han character,
// and each run of Latin letters and digits.
func wordSpans(s string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range s {
		latin := r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))
		if !latin && start >= 0 {
			out, start = append(out, [2]int{start, i}), -1
		}
		switch {
		case latin && start < 0:
			start = i
		case unicode.Is(unicode.Han, r):
			out = append(out, [2]int{i, i + utf8.RuneLen(r)})
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}
