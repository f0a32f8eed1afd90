package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// killDrillEnv is the server's environment in the kill drill: a fast
// historian, a lease shorter than a restart, and retries enough that a job
// cut off by many kills is not given up.
var killDrillEnv = map[string]string{
	"RECALLD_JOB_POLL_INTERVAL": "20ms", "RECALLD_JOB_RETRY_BACKOFF": "20ms",
	"RECALLD_STALE_JOB_TIMEOUT": "1s", "RECALLD_JOB_MAX_RETRIES": "1000",
}

// killLedger is what the clients of the kill drill sent and what the
// server acknowledged.
type killLedger struct {
	mu         sync.Mutex
	sent       map[string]bool              // every message id ever sent
	acked      map[string]map[string]string // user → message id → content
	turns      map[string]string            // acknowledged request id → user
	turnMarker map[string]string            // request id → the marker of its observation
	resent     int                          // batches re-sent after a failed attempt
	committed  int                          // re-sent batches or turns the server had committed before the failure
}

// TestDrillKill9 runs the real server in a child process and kills it with
// SIGKILL at random times while clients post messages and end turns (so the
// kills land during ingest, indexing and historian work), restarting it on
// the same data dir each time. Clients re-send what was not acknowledged,
// as a bot does. At the end every acknowledged message is stored exactly
// once, found by a lexical search for its marker and by its vector, the
// lexical index holds as many documents as SQLite, and every acknowledged
// turn has one memo, one done job and its event.
func TestDrillKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("drill: spawns child processes")
	}
	t.Parallel() // it mostly waits for kills and restarts
	kills := drillScale(5, 40)
	upMin, upMax := 400*time.Millisecond, drillScale(1500*time.Millisecond, 4*time.Second)
	dir := t.TempDir()
	led := &killLedger{sent: map[string]bool{}, acked: map[string]map[string]string{}, turns: map[string]string{}, turnMarker: map[string]string{}}
	var base atomic.Pointer[string]
	none := ""
	base.Store(&none)
	hc := newDrillHTTP(10 * time.Second)
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	const msgClients = 3
	for c := range msgClients {
		wg.Go(func() { killMessageClient(ctx, t, hc, &base, led, c) })
	}
	wg.Go(func() { killTurnClient(ctx, t, hc, &base, led) })

	r := rand.New(rand.NewPCG(42, 9))
	start := time.Now()
	var backlog int
	var restarts []time.Duration
	for k := range kills {
		cs := startChild(t, dir, killDrillEnv)
		restarts = append(restarts, cs.started)
		b := cs.base
		base.Store(&b)
		time.Sleep(upMin + time.Duration(r.Int64N(int64(upMax-upMin))))
		// Where the kill lands: the outbox backlog (indexing) and the
		// jobs being processed, read just before it.
		var h httpapi.HealthResponse
		if resp := (drillClient{hc: hc, base: b}).send(ctx, "GET", "/healthz", nil); resp.err == nil && json.Unmarshal(resp.body, &h) == nil && h.Pending > 0 {
			backlog++
		}
		base.Store(&none)
		cs.kill()
		if out := cs.logs.String(); strings.Contains(out, "panic") {
			t.Errorf("server log before kill %d:\n%s", k, out)
		}
	}
	stop()
	wg.Wait()
	cycle := time.Since(start)

	// Let the killed claims' leases expire, then serve the data dir in
	// process and check it.
	time.Sleep(1100 * time.Millisecond)
	recoverStart := time.Now()
	ts := startServer(t, killDrillEnv, "-data", dir)
	ts.waitIndexed()
	drained := time.Since(recoverStart)
	turnUsers := map[string]bool{}
	for _, u := range led.turns {
		turnUsers[u] = true
	}
	for u := range turnUsers {
		waitJobsSettled(t, ts.as(u))
	}
	// The jobs done last wrote events, which go through the index outbox
	// as messages do: the check below waits for them too.
	ts.waitIndexed()
	recovered := time.Since(recoverStart)
	var h httpapi.HealthResponse
	ts.as("").Do("GET", "/healthz", nil, http.StatusOK, &h)
	if h.Pending != 0 || h.Unvectored != 0 {
		t.Errorf("after recovery: %d index entries pending, %d messages without vectors", h.Pending, h.Unvectored)
	}

	nMsgs := 0
	for user, acked := range led.acked {
		nMsgs += len(acked)
		checkKillMessages(t, ts.as(user), acked, led.sent)
	}
	nTurns, nEvents := checkKillTurns(t, ts, led)
	if nMsgs == 0 || nTurns == 0 {
		t.Fatalf("%d messages and %d turns acknowledged: the drill checked nothing", nMsgs, nTurns)
	}
	drillFigure(t, "kill9", "%d SIGKILLs in %s (%d with an indexing backlog); %d messages and %d turns acknowledged, %d re-sent after a failure "+
		"(%d of them committed before it), 0 lost, 0 duplicated; %d events checked; restart to listening p50 %s max %s; recovery: index drained in %s, jobs done in %s",
		kills, cycle.Round(time.Millisecond), backlog, nMsgs, nTurns, led.resent, led.committed, nEvents,
		percentile(restarts, 50), percentile(restarts, 100), drained.Round(time.Millisecond), recovered.Round(time.Millisecond))
}

// killMessageClient posts batches of messages with unique markers as its
// own user until ctx ends, re-sending a batch until it is acknowledged.
func killMessageClient(ctx context.Context, t *testing.T, hc *http.Client, base *atomic.Pointer[string], led *killLedger, c int) {
	user := fmt.Sprintf("drill:kill%d", c)
	created := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for b := 0; ctx.Err() == nil; b++ {
		msgs := make([]map[string]any, drillScale(5, 10))
		contents := map[string]string{}
		for i := range msgs {
			id := fmt.Sprintf("c%d-b%d-%d", c, b, i)
			content := fmt.Sprintf("km%db%di%dz drillword 我们周五去吃火锅 batch %d of client %d", c, b, i, b, c)
			msgs[i] = map[string]any{"id": id, "role": []string{"user", "assistant"}[i%2], "content": content,
				"conversation_id": fmt.Sprintf("conv%d", b%7), "created_at": created.Add(time.Duration(b*len(msgs)+i) * time.Second).Format(time.RFC3339)}
			contents[id] = content
		}
		led.mu.Lock()
		for id := range contents {
			led.sent[id] = true
		}
		led.mu.Unlock()
		for attempt := 0; ctx.Err() == nil; attempt++ {
			if attempt > 0 {
				time.Sleep(30 * time.Millisecond)
			}
			addr := *base.Load()
			if addr == "" {
				continue
			}
			resp := drillClient{hc: hc, base: addr, user: user}.send(ctx, "POST", "/messages", map[string]any{"messages": msgs})
			if resp.err != nil {
				continue // killed mid-request, or not up yet
			}
			if resp.status != http.StatusOK {
				t.Errorf("POST /messages as %s: %s", user, resp)
				continue
			}
			var ack httpapi.PostMessagesResponse
			if err := json.Unmarshal(resp.body, &ack); err != nil || ack.Inserted+ack.Duplicates != len(msgs) {
				t.Errorf("POST /messages: ack %s", resp.body)
			}
			led.mu.Lock()
			if led.acked[user] == nil {
				led.acked[user] = map[string]string{}
			}
			for id, content := range contents {
				led.acked[user][id] = content
			}
			if attempt > 0 {
				led.resent++
				if ack.Duplicates > 0 {
					led.committed++
				}
			} else if ack.Duplicates > 0 {
				t.Errorf("first send of batch %d of %s: %d duplicates", b, user, ack.Duplicates)
			}
			led.mu.Unlock()
			break
		}
		// Ingest outpaces indexing (under -race several times over):
		// the pace keeps a backlog without making recovery long.
		time.Sleep(drillScale(80*time.Millisecond, 40*time.Millisecond))
	}
}

// killTurnClient ends turns with one observation each, every turn with its
// own sender (so its memo can be listed alone), re-sending a turn until it
// is acknowledged. It moves to a new user every 400 turns: GET /jobs lists
// at most 500.
func killTurnClient(ctx context.Context, t *testing.T, hc *http.Client, base *atomic.Pointer[string], led *killLedger) {
	for n := 0; ctx.Err() == nil; n++ {
		user := fmt.Sprintf("drill:turns%d", n/400)
		id := fmt.Sprintf("turn-%d", n)
		marker := fmt.Sprintf("kt%dz", n)
		body := map[string]any{"request_id": id, "memo": "memo " + marker, "observations": []string{"I like the tea brand " + marker},
			"sender_id": fmt.Sprintf("s%d", n), "sender_name": "Ann", "request_type": "private"}
		for attempt := 0; ctx.Err() == nil; attempt++ {
			if attempt > 0 {
				time.Sleep(30 * time.Millisecond)
			}
			addr := *base.Load()
			if addr == "" {
				continue
			}
			resp := drillClient{hc: hc, base: addr, user: user}.send(ctx, "POST", "/turns/end", body)
			if resp.err != nil {
				continue
			}
			var rc ingest.Receipt
			if resp.status != http.StatusAccepted || json.Unmarshal(resp.body, &rc) != nil || !rc.Queued {
				t.Errorf("POST /turns/end as %s: %s", user, resp)
				continue
			}
			led.mu.Lock()
			led.turns[id], led.turnMarker[id] = user, marker
			if attempt > 0 {
				led.resent++
				if rc.Duplicate {
					led.committed++
				}
			} else if rc.Duplicate {
				t.Errorf("first send of %s: duplicate", id)
			}
			led.mu.Unlock()
			break
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// waitJobsSettled waits until none of c's jobs is pending or processing.
func waitJobsSettled(t *testing.T, c *client) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		busy := 0
		for _, state := range []string{"pending", "processing"} {
			var res httpapi.JobsResponse
			c.Do("GET", "/jobs"+q("state", state, "limit", "500"), nil, http.StatusOK, &res)
			busy += len(res.Jobs)
		}
		if busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d jobs still pending or processing after 3 minutes", c.User, busy)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkKillMessages checks one user's messages after the kills: each
// acknowledged message is stored once with its content, nothing was stored
// that was never sent, the lexical index finds each marker in exactly the
// acknowledged message and holds as many of the user's documents as SQLite,
// and the vectors find a sample of them.
func checkKillMessages(t *testing.T, c *client, acked map[string]string, sent map[string]bool) {
	t.Helper()
	stored := map[string]int{}
	var content = map[string]string{}
	cursor := ""
	for {
		var p queryapi.Page
		c.Do("GET", "/messages"+q("page_size", "200", "cursor", cursor), nil, http.StatusOK, &p)
		for _, h := range p.Hits {
			stored[h.MessageID]++
			content[h.MessageID] = h.Content
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	for id, want := range acked {
		if stored[id] != 1 || content[id] != want {
			t.Errorf("%s: acknowledged message %s stored %d times (content %q)", c.User, id, stored[id], content[id])
		}
	}
	for id, n := range stored {
		if !sent[id] || n != 1 {
			t.Errorf("%s: stored message %s (×%d) was never sent", c.User, id, n)
		}
	}
	// Lexical: forty markers a query; each must be found once, in its message.
	todo := make([]string, 0, len(acked))
	for id := range acked {
		todo = append(todo, id)
	}
	for len(todo) > 0 {
		chunk := todo[:min(40, len(todo))]
		todo = todo[len(chunk):]
		var words []string
		want := map[string]string{} // marker → id
		for _, id := range chunk {
			mk, _, _ := strings.Cut(acked[id], " ")
			words = append(words, mk)
			want[mk] = id
		}
		var p queryapi.Page
		c.Do("POST", "/search/lexical", queryapi.LexicalParams{QueryText: strings.Join(words, " "), Match: "any", PageSize: 200}, http.StatusOK, &p)
		found := map[string]int{}
		for _, h := range p.Hits {
			mk, _, _ := strings.Cut(h.Content, " ")
			if want[mk] != h.MessageID {
				t.Errorf("%s: lexical hit %s (%q) for markers %v", c.User, h.MessageID, h.Content, words)
			}
			found[mk]++
		}
		for mk, id := range want {
			if found[mk] != 1 {
				t.Errorf("%s: marker of %s found %d times by the lexical index", c.User, id, found[mk])
			}
		}
	}
	// Counts: the word every message holds pages through the whole index.
	indexed := map[string]int{}
	considered := 0
	cursor = ""
	for {
		var p queryapi.Page
		c.Do("POST", "/search/lexical", queryapi.LexicalParams{QueryText: "drillword", PageSize: 200, Cursor: cursor}, http.StatusOK, &p)
		for _, h := range p.Hits {
			indexed[h.MessageID]++
		}
		considered = p.Considered
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(indexed) != len(stored) || considered != len(stored) {
		t.Errorf("%s: %d messages in SQLite (considered %d), %d documents in the lexical index", c.User, len(stored), considered, len(indexed))
	}
	for id, n := range indexed {
		if n != 1 {
			t.Errorf("%s: lexical index holds %s %d times", c.User, id, n)
		}
	}
	// Vectors: a message's own text finds it first.
	checked := 0
	for id, text := range acked {
		if checked++; checked > drillScale(10, 100) {
			break
		}
		var p queryapi.Page
		c.Do("POST", "/search/semantic", queryapi.SemanticParams{QueryText: text, TopK: 1}, http.StatusOK, &p)
		if len(p.Hits) != 1 || p.Hits[0].MessageID != id {
			t.Errorf("%s: semantic search for the text of %s: %v", c.User, id, ids(p))
		}
	}
}

// checkKillTurns checks every acknowledged turn: one memo, one job, done,
// and (for a sample) its one event. It returns the turns and events checked.
func checkKillTurns(t *testing.T, ts *testServer, led *killLedger) (turns, events int) {
	t.Helper()
	jobsOf := map[string]map[string][]storage.Job{} // user → request id → jobs
	for _, user := range led.turns {
		if jobsOf[user] != nil {
			continue
		}
		var res httpapi.JobsResponse
		ts.as(user).Do("GET", "/jobs"+q("limit", "500"), nil, http.StatusOK, &res)
		jobsOf[user] = map[string][]storage.Job{}
		for _, j := range res.Jobs {
			var p ingest.TurnEnd
			if err := json.Unmarshal(j.Payload, &p); err != nil {
				t.Fatal(err)
			}
			jobsOf[user][p.RequestID] = append(jobsOf[user][p.RequestID], j)
		}
	}
	sample := drillScale(25, 1<<30)
	for id, user := range led.turns {
		turns++
		c := ts.as(user)
		js := jobsOf[user][id]
		if len(js) != 1 || js[0].State != storage.JobDone {
			t.Errorf("turn %s: jobs %+v, want one done", id, js)
			continue
		}
		var memos queryapi.MemoList
		c.Do("GET", "/memos"+q("sender_id", "s"+strings.TrimPrefix(id, "turn-")), nil, http.StatusOK, &memos)
		if len(memos.Memos) != 1 || memos.Memos[0].Content != "memo "+led.turnMarker[id] {
			t.Errorf("turn %s: memos %+v, want one", id, memos.Memos)
		}
		if events >= sample {
			continue
		}
		events++
		var r httpapi.SearchEventsResponse
		mk := led.turnMarker[id]
		c.Do("POST", "/events/search", map[string]any{"query": mk, "top_k": 5}, http.StatusOK, &r)
		holding := 0
		for _, e := range r.Events {
			if containsToken(e.Content, mk) {
				holding++
			}
		}
		if holding != 1 {
			t.Errorf("turn %s: %d events hold %s: %v", id, holding, mk, eventContents(r))
		}
	}
	return turns, events
}

// containsToken reports whether tok occurs in s between non-alphanumeric
// characters (or the ends).
func containsToken(s, tok string) bool {
	alnum := func(b byte) bool { return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
	for i := 0; ; {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			return false
		}
		at, end := i+j, i+j+len(tok)
		if (at == 0 || !alnum(s[at-1])) && (end == len(s) || !alnum(s[end])) {
			return true
		}
		i = at + 1
	}
}
