package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recalld/recalld/internal/httpapi"
)

// lookAlikeUsers are user ids that differ from qq:1 by a byte, a case, a
// prefix or a confusable character, plus ids that look like SQL LIKE
// patterns, Bleve query syntax or injections. Each must be its own partition.
var lookAlikeUsers = []string{
	"qq:1", "qq:10", "qq:100", "qq:1000", "qq:01", "qq:11", "qq:2", "qq:12", "qq:21",
	"qq:", "qq", "q", "q:1", "qq:1:", "qq:1/", "qq:1/0", "qq:1.0", "qq:1,0", "qq:1 0", "qq: 1", "qq 1",
	"QQ:1", "Qq:1", "qQ:1", "QQ:10",
	"ｑｑ:1",                                             // fullwidth q
	"qq：1",                                             // fullwidth colon
	"qq:１",                                             // fullwidth digit
	"ԛԛ:1",                                             // Cyrillic qa
	"qq:l",                                             // lowercase L
	"qq:I",                                             // capital i
	"qq:١",                                             // Arabic-Indic one
	"qq:1\u200b",                                       // zero-width space
	"\u200bqq:1",                                       // zero-width space first
	"qq:\u00a01",                                       // no-break space
	"qq:1\u0301",                                       // combining acute accent
	"qq:1\ufeff",                                       // byte order mark
	"qq:1%", "qq:1_", "qq:1*", "qq:%", "qq:_", "qq:1?", // LIKE and glob patterns
	"qq:1'", `qq:1"`, `qq:1\`, `qq:1\:`, "qq:1;--", "qq:1 OR 1=1", "qq:1 AND *", // SQL and Bleve syntax
	"qq:1#", "qq:1+", "qq:1&x=1", "user_id:qq:1", "*", "group:1", "qq:1@group",
}

// drillMarker is the prefix of every marker token of user i: "mk" and three
// digits, so one never starts another, and markerRE finds them all.
func drillMarker(i int) string { return fmt.Sprintf("mk%03dx", i) }

var markerRE = regexp.MustCompile(`mk(\d{3})x`)

// userIDRE finds the user_id fields of a JSON answer (job rows).
var userIDRE = regexp.MustCompile(`"user_id":("(?:[^"\\]|\\.)*")`)

// Keys of the isolation drill: one may act only for users starting with
// "qq:", the other for any user.
const (
	drillKeyQQ  = "drill-key-qq-0123456789"
	drillKeyAll = "drill-key-all-0123456789"
)

func drillKeyFor(user string) string {
	if strings.HasPrefix(user, "qq:") {
		return drillKeyQQ
	}
	return drillKeyAll
}

// TestDrillIsolation stores messages, an ended turn (events, profiles, a
// memo) and pinned memories for look-alike users, all with the same
// message, request, memory, sender and group ids, then sends random requests over
// every route that reads user data, and every MCP tool, as each user (with
// API keys, one limited to "qq:" users), and checks that no answer holds a
// byte of another user: no other user's marker token, no other user_id.
func TestDrillIsolation(t *testing.T) {
	if testing.Short() {
		t.Skip("drill")
	}
	t.Parallel() // with TestDrillKill9, which mostly waits
	users := lookAlikeUsers
	if len(users) < 50 {
		t.Fatalf("%d users, want at least 50", len(users))
	}
	perUser := drillScale(10, 120)
	ts := startServer(t, withEnv(fastQueue, "RECALLD_API_KEYS", drillKeyQQ+"=qq:,"+drillKeyAll))
	start := time.Now()
	clients := make([]*client, len(users))
	for i, u := range users {
		clients[i] = ts.as(u).withKey(drillKeyFor(u))
	}
	now := time.Now().UTC().Truncate(time.Second)
	// Every user stores the same ids (messages m0..m5, turns t1 and t2,
	// memories pin1 and pin2, sender 10001, group g1) with its own markers.
	setupHC := newDrillHTTP(time.Minute)
	var setupWG sync.WaitGroup
	next := make(chan int)
	for range 4 {
		setupWG.Go(func() {
			for i := range next {
				storeIsolationData(t, drillClient{hc: setupHC, base: ts.base, user: users[i], key: drillKeyFor(users[i])}, i, now)
			}
		})
	}
	for i := range users {
		next <- i
	}
	close(next)
	setupWG.Wait()
	if t.Failed() {
		t.FailNow()
	}
	stored := time.Since(start)
	for i, c := range clients {
		deadline := time.Now().Add(2 * time.Minute)
		for {
			var res httpapi.JobsResponse
			c.Do("GET", "/jobs"+q("state", "done"), nil, http.StatusOK, &res)
			if len(res.Jobs) == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("user %q: its job is not done after 2 minutes", users[i])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	ts.waitIndexed()
	setup := time.Since(start)

	// A bearer key limited to "qq:" may act for no look-alike outside it.
	refused := 0
	for _, u := range users {
		if strings.HasPrefix(u, "qq:") {
			continue
		}
		if st, b := ts.as(u).withKey(drillKeyQQ).Raw("GET", "/messages", nil); st != http.StatusForbidden {
			t.Errorf("key for qq: acting for %q: %d %s", u, st, b)
		}
		refused++
	}
	// A header with a trailing space is the same field value on the wire
	// (HTTP strips surrounding whitespace): it is qq:1, not another user.
	_, b1 := clients[0].Raw("GET", "/messages", nil)
	_, b2 := ts.as("qq:1 ").withKey(drillKeyQQ).Raw("GET", "/messages", nil)
	if string(b1) != string(b2) {
		t.Errorf("\"qq:1 \" does not read as qq:1:\n%s\n%s", b1, b2)
	}

	var (
		requests, foreign, ownHits atomic.Int64
		bytesRead                  atomic.Int64
		lat                        latencies
		wg                         sync.WaitGroup
	)
	hc := ts.hc // validates every answer against openapi.yaml
	work := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range work {
				r := rand.New(rand.NewPCG(uint64(i), 99))
				dc := drillClient{hc: hc, base: ts.base, user: users[i], key: drillKeyFor(users[i])}
				for range perUser {
					req := isolationRequest(r, i, len(users))
					resp := dc.send(t.Context(), req.method, req.path, req.body)
					requests.Add(1)
					lat.add(req.name, resp.dur)
					bytesRead.Add(int64(len(resp.body)))
					if resp.err != nil || (resp.status >= 300 && !(resp.status == http.StatusNotFound && req.may404)) {
						t.Errorf("%s as %q: %s", req.name, users[i], resp)
						continue
					}
					if req.path == "/mcp" {
						if failed, msg := mcpToolFailed(resp.body); failed && !(req.may404 && strings.HasPrefix(msg, httpapi.CodeNotFound)) {
							t.Errorf("%s as %q: %s", req.name, users[i], msg)
						}
					}
					body := resp.body
					if req.echo != "" {
						e, _ := json.Marshal(req.echo)
						body = bytes.ReplaceAll(body, e[1:len(e)-1], nil)
					}
					own, bad := markersIn(body, i)
					ownHits.Add(int64(own))
					if bad != "" {
						foreign.Add(1)
						t.Errorf("%s as %q: answer holds %s of another user: %.400s", req.name, users[i], bad, resp.body)
					}
					if u := foreignUserID(resp.body, users[i]); u != "" {
						foreign.Add(1)
						t.Errorf("%s as %q: answer names user_id %q", req.name, users[i], u)
					}
				}
			}
		})
	}
	for i := range users {
		work <- i
	}
	close(work)
	wg.Wait()
	if ownHits.Load() == 0 {
		t.Fatal("no answer held the caller's own data: the drill checked nothing")
	}
	drillFigure(t, "isolation", "%d users, %d requests over %d routes and MCP tools, %d MB read, %d own markers seen, %d foreign answers; "+
		"%d look-alikes refused to the qq: key; stored in %s, historian done at %s, total %s",
		len(users), requests.Load(), len(isolationRoutes), bytesRead.Load()>>20, ownHits.Load(), foreign.Load(), refused,
		stored.Round(time.Millisecond), setup.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	lat.report(t, "isolation")
}

// markersIn counts user i's marker tokens in b and returns the first marker
// of another user, if any.
func markersIn(b []byte, i int) (own int, foreign string) {
	me := fmt.Sprintf("%03d", i)
	for _, m := range markerRE.FindAllSubmatch(b, -1) {
		if string(m[1]) == me {
			own++
		} else if foreign == "" {
			foreign = string(m[0])
		}
	}
	return own, foreign
}

// foreignUserID returns a user_id in b other than user, if any.
func foreignUserID(b []byte, user string) string {
	for _, m := range userIDRE.FindAllSubmatch(b, -1) {
		var u string
		if err := json.Unmarshal(m[1], &u); err != nil || u != user {
			return string(m[1])
		}
	}
	return ""
}

// isolationReq is one request of the isolation drill.
type isolationReq struct {
	name         string
	method, path string
	body         any
	may404       bool   // a profile or message that need not exist
	echo         string // text of the request the answer repeats (the query /context built)
}

// isolationRoutes build the requests: every route that reads user data and
// every MCP tool that does, each sometimes aimed at another user's marker,
// content or names. r picks the variant, i is the caller, n the users.
var isolationRoutes = []func(r *rand.Rand, mine, other string) isolationReq{
	func(r *rand.Rand, mine, other string) isolationReq {
		p := q("page_size", strconv.Itoa(1+r.IntN(10)))
		if r.IntN(2) == 0 {
			p = q("page_size", "200", "role", []string{"user", "assistant"}[r.IntN(2)])
		}
		return isolationReq{name: "GET /messages", method: "GET", path: "/messages" + p}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		return isolationReq{name: "neighbors", method: "GET", path: "/messages/m" + strconv.Itoa(r.IntN(7)) + "/neighbors" + q("before", "5", "after", "5"), may404: true}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		text := []string{other, other + "3q", "火锅 budget", "Atlas", `"project Atlas"`, `"` + other + `1q 我们周五去吃火锅"`, mine + " " + other}[r.IntN(7)]
		return isolationReq{name: "POST /search/lexical", method: "POST", path: "/search/lexical",
			body: map[string]any{"query_text": text, "match": []string{"all", "any"}[r.IntN(2)], "contextual": r.IntN(2) == 0, "page_size": 50}}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		text := []string{other + "2q 我不吃辣，记得点鸳鸯锅", "hotpot near the office", other, "杭州出差"}[r.IntN(4)]
		return isolationReq{name: "POST /search/semantic", method: "POST", path: "/search/semantic", body: map[string]any{"query_text": text, "top_k": 100}}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		qs := []string{"我吃不吃辣？", "what did " + other + " say about the budget?", "周五去哪里吃火锅", "where does Ann live?"}
		return isolationReq{name: "POST /recall", method: "POST", path: "/recall", body: map[string]any{"question": qs[r.IntN(len(qs))]}}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		body := map[string]any{"query": []string{"Ann 住在哪里", other, "上海开会", "oolong tea"}[r.IntN(4)], "top_k": 20, "deep": r.IntN(4) == 0}
		if r.IntN(2) == 0 {
			body["request_type"], body["group_id"] = "group", "g1"
		}
		return isolationReq{name: "POST /events/search", method: "POST", path: "/events/search", body: body}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		typ, id := "user", "10001"
		if r.IntN(2) == 0 {
			typ, id = "group", "g1"
		}
		path := "/profiles/" + typ + "/" + id
		if r.IntN(3) == 0 {
			path += "/revisions"
		}
		return isolationReq{name: "GET /profiles", method: "GET", path: path, may404: true}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		return isolationReq{name: "POST /profiles/search", method: "POST", path: "/profiles/search",
			body: map[string]any{"query": []string{"Ann", "Ann" + other + "nq", "杭州", "Grp" + other + "gq"}[r.IntN(4)]}}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		msg := []string{"你还记得我住哪吗", other + " 在吗", "budget?"}[r.IntN(3)]
		body := map[string]any{"message": msg, "sender_id": "10001", "sender_name": "Ann"}
		if r.IntN(2) == 0 {
			body["group_id"] = "g1"
		}
		return isolationReq{name: "POST /context", method: "POST", path: "/context", body: body, echo: msg}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		return isolationReq{name: "GET /memos", method: "GET", path: "/memos" + []string{"", q("group_id", "g1"), q("sender_id", "10001")}[r.IntN(3)]}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		switch r.IntN(3) {
		case 0:
			return isolationReq{name: "GET /memories", method: "GET", path: "/memories" + []string{"", q("group_id", "g1")}[r.IntN(2)]}
		case 1:
			return isolationReq{name: "GET /memories/{id}", method: "GET", path: "/memories/pin" + strconv.Itoa(1+r.IntN(2))}
		}
		return isolationReq{name: "GET /jobs", method: "GET", path: "/jobs" + q("limit", "500")}
	},
	func(r *rand.Rand, mine, other string) isolationReq {
		tools := []struct {
			name string
			args map[string]any
		}{
			{"recall", map[string]any{"question": "周五去哪里吃火锅？"}},
			{"messages_list", map[string]any{"page_size": 50}},
			{"lexical_search", map[string]any{"query_text": other + " 火锅 Atlas", "match": "any", "page_size": 50}},
			{"semantic_search", map[string]any{"query_text": other + "4q 周末我要去杭州出差", "top_k": 50}},
			{"neighbors", map[string]any{"message_id": "m" + strconv.Itoa(r.IntN(6)), "before": 10, "after": 10}},
			{"search_events", map[string]any{"query": "Ann 杭州 火锅 " + other, "top_k": 20, "deep": r.IntN(3) == 0}},
			{"get_profile", map[string]any{"entity_type": "user", "entity_id": "10001"}},
			{"search_profiles", map[string]any{"query": "Ann " + other}},
			{"memory_list", map[string]any{}},
		}
		tool := tools[r.IntN(len(tools))]
		return isolationReq{name: "MCP " + tool.name, method: "POST", path: "/mcp", body: mcpCall(1, tool.name, tool.args), may404: tool.name == "get_profile"}
	},
}

// isolationRequest picks a route and another user to aim at.
func isolationRequest(r *rand.Rand, i, n int) isolationReq {
	j := r.IntN(n - 1)
	if j >= i {
		j++
	}
	return isolationRoutes[r.IntN(len(isolationRoutes))](r, drillMarker(i), drillMarker(j))
}

// storeIsolationData stores user i's messages, ended turn and pinned
// memories through c, each with i's marker. It runs on its own goroutine:
// failures are t.Errorf.
func storeIsolationData(t *testing.T, c drillClient, i int, now time.Time) {
	mk := drillMarker(i)
	var msgs []map[string]any
	for j, content := range []string{
		"%s%dq 我们周五去吃火锅，顺便聊聊 project Atlas 的 budget",
		"%s%dq sounds good, I will book the hotpot place near the office",
		"%s%dq 我不吃辣，记得点鸳鸯锅 and bring the budget sheet",
		"%s%dq noted: mild broth, Friday 7pm, Atlas budget review after dinner",
		"%s%dq 周末我要去杭州出差，下周一回来 project Atlas",
		"%s%dq have a good trip to Hangzhou, the budget can wait",
	} {
		m := msgJSON("m"+strconv.Itoa(j), []string{"user", "assistant"}[j%2], fmt.Sprintf(content, mk, j), j)
		m["group_id"] = "g1"
		msgs = append(msgs, m)
	}
	reqs := []struct {
		path string
		body any
		want int
	}{
		{"/messages", map[string]any{"messages": msgs}, http.StatusOK},
		{"/memories", map[string]any{"id": "pin1", "content": "记住 " + mk + "p1q 以后用英文回复", "tags": []string{"style"}}, http.StatusCreated},
		{"/memories", map[string]any{"id": "pin2", "content": mk + "p2q no spicy food in group", "group_id": "g1"}, http.StatusCreated},
	}
	// One ended turn: in private for even users, in group g1 for odd ones
	// (the historian's time is most of the drill's).
	turn := map[string]any{"request_id": "t1", "memo": mk + "m1q 聊了火锅",
		"observations": []string{"我住在杭州，我喜欢吃火锅", "I work at Atlas Labs as an engineer"},
		"sender_id":    "10001", "sender_name": "Ann" + mk + "nq", "request_type": "private",
		"timestamp": now.Add(-48 * time.Hour).Format(time.RFC3339)}
	if i%2 == 1 {
		turn["group_id"], turn["group_name"], turn["request_type"] = "g1", "Grp"+mk+"gq", "group"
	}
	reqs = append(reqs, struct {
		path string
		body any
		want int
	}{"/turns/end", turn, http.StatusAccepted})
	for _, r := range reqs {
		if resp := c.send(t.Context(), "POST", r.path, r.body); resp.err != nil || resp.status != r.want {
			t.Errorf("POST %s as %q: %s, want %d", r.path, c.user, resp, r.want)
		}
	}
}
