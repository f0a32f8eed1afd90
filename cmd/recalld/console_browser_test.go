package main

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// chromiumPath finds the browser the console tests drive (Debian's
// chromium, which `make setup` installs), or "".
func chromiumPath() string {
	if p := os.Getenv("RECALLD_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browser starts a headless chromium for the test, in English unless lang
// says otherwise.
func browser(t *testing.T, lang string) context.Context {
	t.Helper()
	path := chromiumPath()
	if path == "" {
		t.Skip("chromium not found: `make setup` installs it (apt-get install chromium); set RECALLD_CHROMIUM to use another")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // root in CI containers
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("lang", lang),
		chromedp.Flag("accept-lang", lang),
	)
	actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
	t.Cleanup(cancel)
	// chromedp logs CDP events it has no type for (newer chromium's
	// top-layer events when a dialog opens); they are not failures.
	quiet := func(format string, args ...any) {
		if !strings.HasPrefix(format, "unhandled") {
			log.Printf(format, args...)
		}
	}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(quiet))
	t.Cleanup(cancel)
	if err := chromedp.Run(ctx); err != nil { // start the browser
		t.Fatal(err)
	}
	return ctx
}

// shots saves screenshots under RECALLD_SCREENSHOTS (make screenshots
// points it at docs/), else in a temporary directory.
type shots struct {
	t   *testing.T
	dir string
}

func newShots(t *testing.T) shots {
	dir := os.Getenv("RECALLD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	return shots{t, dir}
}

func (s shots) take(name string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var buf []byte
		if err := chromedp.FullScreenshot(&buf, 85).Do(ctx); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(s.dir, name+".jpg"), buf, 0o644)
	})
}

// pageText is what the page shows, for a failing step's message.
func pageText(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var s string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.body.innerText`, &s)); err != nil {
		return err.Error()
	}
	return s
}

// failOnce fails a job the first time it sees its request id when the
// observation says FAIL, and otherwise runs the offline historian.
type failOnce struct {
	next ingest.Processor
	mu   sync.Mutex
	seen map[string]bool
}

func (f *failOnce) Process(ctx context.Context, job ingest.Job) (ingest.Result, error) {
	f.mu.Lock()
	first := !f.seen[job.Turn.RequestID]
	f.seen[job.Turn.RequestID] = true
	f.mu.Unlock()
	if first && strings.Contains(strings.Join(job.Turn.Observations, " "), "FAIL") {
		return ingest.Result{}, errors.New("historian down for this turn")
	}
	return f.next.Process(ctx, job)
}

// seedConsole stores what the console test looks at: a user's chat with a
// changed preference, two ended turns (events and two profile revisions),
// a failed job and a pinned memory.
func seedConsole(t *testing.T, ts *testServer, user string) (failedJob string) {
	t.Helper()
	u := ts.as(user)
	msgs := []any{
		msgJSON("m1", "user", "我喜欢喝乌龙茶，每天下午一杯", 0),
		msgJSON("m2", "assistant", "好的，记住了：你喜欢乌龙茶。", 1),
		msgJSON("m3", "user", "We decided project Atlas ships in March.", 60),
		msgJSON("m4", "user", "最近我不喝乌龙茶了，改喝咖啡", 24*60),
		msgJSON("m5", "user", "I'm allergic to peanuts.", 25*60),
	}
	u.Do("POST", "/messages", map[string]any{"messages": msgs}, http.StatusOK, nil)
	for _, id := range []string{"qq:20002", "qq:20003"} {
		ts.as(id).Do("POST", "/messages", map[string]any{"messages": []any{msgJSON("x", "user", "hello from "+id, 0)}}, http.StatusOK, nil)
	}
	var r ingest.Receipt
	u.Do("POST", "/turns/end", turn("t1", "我住在杭州"), http.StatusAccepted, &r)
	u.waitJob(r.JobID, "done")
	u.Do("POST", "/turns/end", turn("t2", "我今天开始学吉他了，每周三晚上上课"), http.StatusAccepted, &r)
	u.waitJob(r.JobID, "done")
	u.Do("POST", "/turns/end", turn("t3", "FAIL this turn"), http.StatusAccepted, &r)
	u.waitJob(r.JobID, "failed")
	u.Do("POST", "/memories", map[string]any{"id": "diet", "content": "不吃花生", "tags": []string{"diet"}}, http.StatusCreated, nil)
	return r.JobID
}

// TestConsoleBrowser drives the console in a real chromium against a real
// `recalld serve` on loopback: find a user, search, open a message in its
// conversation, run a recall and read its evidence and trace, edit a
// pinned memory, restore a profile revision, retry a failed job.
func TestConsoleBrowser(t *testing.T) {
	ctx := browser(t, "en-US")
	proc := &failOnce{next: ingest.NewHistorian(ingest.HistorianConfig{Location: time.UTC}), seen: map[string]bool{}}
	ts := startServerWith(t, func(a *app) { a.processor = proc }, withEnv(fastQueue, "RECALLD_JOB_MAX_RETRIES", "0"))
	const user = "qq:10001"
	failed := seedConsole(t, ts, user)
	shot := newShots(t)
	base := ts.base + "/console"
	userURL := func(tab string) string { return base + "#/u/" + strings.ReplaceAll(user, ":", "%3A") + "/" + tab }

	var text string
	run := func(step string, actions ...chromedp.Action) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Run(sctx, actions...); err != nil {
			t.Fatalf("%s: %v\npage: %s", step, err, pageText(ctx))
		}
	}

	// Home: the health panel and the users.
	run("open the console",
		chromedp.Navigate(base),
		chromedp.WaitVisible(`#users-table a.user-link`, chromedp.ByQuery),
		chromedp.WaitVisible(`#health-failed`, chromedp.ByQuery),
		chromedp.Text(`#health-failed .value`, &text, chromedp.ByQuery),
	)
	if text != "1" {
		t.Errorf("health panel: failed jobs %q, want 1", text)
	}
	run("find the user",
		chromedp.SetValue(`#user-search`, "qq:1", chromedp.ByQuery),
		chromedp.Click(`#user-search-go`, chromedp.ByQuery),
		// The list reloads: the other users gone and this one back.
		chromedp.WaitNotPresent(`//a[contains(@class,"user-link") and text()="qq:20002"]`, chromedp.BySearch),
		chromedp.WaitVisible(`//a[contains(@class,"user-link") and text()="`+user+`"]`, chromedp.BySearch),
		chromedp.Text(`#users-table tbody`, &text, chromedp.ByQuery),
	)
	if !strings.Contains(text, user) {
		t.Fatalf("users matching qq:1: %q", text)
	}
	run("home screenshot", chromedp.Navigate(base), chromedp.WaitVisible(`#users-table a.user-link`, chromedp.ByQuery), shot.take("console-home"))

	// Messages: a lexical search with highlighted hits, then one hit in its conversation.
	run("search messages",
		chromedp.Navigate(base),
		chromedp.Click(`//a[contains(@class,"user-link") and text()="`+user+`"]`, chromedp.BySearch),
		chromedp.WaitVisible(`#messages-table`, chromedp.ByQuery),
		chromedp.SetValue(`#msg-mode`, "lexical", chromedp.ByQuery),
		chromedp.SetValue(`#msg-query`, "乌龙茶", chromedp.ByQuery),
		chromedp.Click(`#msg-go`, chromedp.ByQuery),
		chromedp.WaitVisible(`#messages-table mark`, chromedp.ByQuery),
		chromedp.Text(`#messages-table tbody`, &text, chromedp.ByQuery),
		shot.take("console-messages"),
	)
	if !strings.Contains(text, "我喜欢喝乌龙茶") || strings.Contains(text, "project Atlas") {
		t.Errorf("search 乌龙茶 shows %q", text)
	}
	run("open in context",
		chromedp.Click(`#messages-table tr[data-id="m1"] button.ctx`, chromedp.ByQuery),
		chromedp.WaitVisible(`#context-table tr.anchor`, chromedp.ByQuery),
		chromedp.Text(`#context-table tbody`, &text, chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById('dialog').close()`, nil),
	)
	if !strings.Contains(text, "project Atlas") || !strings.Contains(text, "记住了") {
		t.Errorf("context of m1 shows %q, want its neighbours", text)
	}

	// Recall playground: the view with its evidence and the trace.
	run("recall",
		chromedp.Navigate(userURL("recall")),
		chromedp.WaitVisible(`#rc-question`, chromedp.ByQuery),
		chromedp.SetValue(`#rc-question`, "我现在喝什么？还喝乌龙茶吗？", chromedp.ByQuery),
		chromedp.Click(`#rc-ask`, chromedp.ByQuery),
		chromedp.WaitVisible(`#recall-result`, chromedp.ByQuery),
		chromedp.WaitVisible(`#rc-trace`, chromedp.ByQuery),
		chromedp.Text(`#rc-evidence`, &text, chromedp.ByQuery),
		shot.take("console-recall"),
	)
	if !strings.Contains(text, "乌龙茶") {
		t.Errorf("recall evidence %q, want the tea messages", text)
	}

	// Pinned memories: edit one.
	run("edit a pinned memory",
		chromedp.Navigate(userURL("memories")),
		chromedp.WaitVisible(`.memory[data-id="diet"] button.edit`, chromedp.ByQuery),
		chromedp.Click(`.memory[data-id="diet"] button.edit`, chromedp.ByQuery),
		chromedp.SetValue(`.memory[data-id="diet"] textarea.edit-content`, "不吃花生，也不吃腰果", chromedp.ByQuery),
		chromedp.Click(`.memory[data-id="diet"] button.save`, chromedp.ByQuery),
		chromedp.WaitVisible(`.memory[data-id="diet"] .mem-text`, chromedp.ByQuery),
		chromedp.Text(`.memory[data-id="diet"] .mem-text`, &text, chromedp.ByQuery),
	)
	var mem storage.Memory
	ts.as(user).Do("GET", "/memories/diet", nil, http.StatusOK, &mem)
	if text != "不吃花生，也不吃腰果" || mem.Content != text {
		t.Errorf("edited memory: page %q, store %q", text, mem.Content)
	}

	// Profiles: restore the first revision of the profile the turns built.
	var revs queryapi.RevisionList
	ts.as(user).Do("GET", "/profiles/user/qq:1/revisions", nil, http.StatusOK, &revs)
	if len(revs.Revisions) < 2 {
		t.Fatalf("profile revisions %d, want 2 to restore one", len(revs.Revisions))
	}
	run("restore a profile revision",
		chromedp.Navigate(userURL("profiles")),
		chromedp.WaitVisible(`#revisions tr[data-rev="1"] button.diff`, chromedp.ByQuery),
		chromedp.Click(`#revisions tr[data-rev="1"] button.diff`, chromedp.ByQuery),
		chromedp.WaitVisible(`#revision-diff table`, chromedp.ByQuery),
		shot.take("console-profile"),
		chromedp.Click(`#revisions tr[data-rev="1"] button.restore`, chromedp.ByQuery),
		chromedp.WaitVisible(`#confirm-ok`, chromedp.ByQuery),
		chromedp.Click(`#confirm-ok`, chromedp.ByQuery),
		chromedp.WaitVisible(`#revisions tr[data-rev="3"]`, chromedp.ByQuery),
	)
	var prof storage.Profile
	ts.as(user).Do("GET", "/profiles/user/qq:1", nil, http.StatusOK, &prof)
	if prof.Revision != 3 || len(prof.Traits) != len(revs.Revisions[len(revs.Revisions)-1].Profile.Traits) {
		t.Errorf("after restoring revision 1: revision %d with %d traits", prof.Revision, len(prof.Traits))
	}

	// Jobs: retry the failed one; the historian succeeds the second time.
	run("retry a failed job",
		chromedp.Navigate(userURL("jobs")),
		chromedp.WaitVisible(`#jobs-table tr[data-id="`+failed+`"] button.retry`, chromedp.ByQuery),
		shot.take("console-jobs"),
		chromedp.Click(`#jobs-table tr[data-id="`+failed+`"] button.retry`, chromedp.ByQuery),
		chromedp.WaitNotPresent(`#jobs-table tr[data-id="`+failed+`"][data-state="failed"]`, chromedp.ByQuery),
	)
	ts.as(user).waitJob(failed, "done")

	// On a phone's screen: the tabs scroll, tables scroll inside the page.
	run("phone",
		chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)),
		chromedp.Navigate(userURL("messages")),
		chromedp.WaitVisible(`#messages-table`, chromedp.ByQuery),
		shot.take("console-phone"),
		chromedp.EmulateViewport(1280, 900),
	)

	// The page in Chinese.
	run("zh",
		chromedp.Navigate(userURL("recall")),
		chromedp.WaitVisible(`#lang-toggle`, chromedp.ByQuery),
		chromedp.Click(`#lang-toggle`, chromedp.ByQuery),
		chromedp.WaitVisible(`#rc-question`, chromedp.ByQuery),
		chromedp.Text(`#tab-recall`, &text, chromedp.ByQuery),
	)
	if text != "回忆试验" {
		t.Errorf("recall tab in Chinese reads %q", text)
	}
	run("zh recall",
		chromedp.SetValue(`#rc-question`, "我对什么过敏？", chromedp.ByQuery),
		chromedp.Click(`#rc-ask`, chromedp.ByQuery),
		chromedp.WaitVisible(`#recall-result`, chromedp.ByQuery),
		shot.take("console-recall-zh"),
	)
}

// TestConsoleBrowserKey: with API keys the console asks for one and then
// shows only the users it may act for.
func TestConsoleBrowserKey(t *testing.T) {
	ctx := browser(t, "en-US")
	const qqKey, allKey = "k-qqqqqqqqqqqqqqqq", "k-aaaaaaaaaaaaaaaa"
	ts := startServer(t, map[string]string{"RECALLD_API_KEYS": qqKey + "=qq:," + allKey})
	ts.as("qq:1").withKey(qqKey).Do("POST", "/messages", map[string]any{"messages": []any{msgJSON("a", "user", "hi", 0)}}, http.StatusOK, nil)
	ts.as("tg:1").withKey(allKey).Do("POST", "/messages", map[string]any{"messages": []any{msgJSON("a", "user", "hi", 0)}}, http.StatusOK, nil)
	var text string
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	err := chromedp.Run(ctx,
		chromedp.Navigate(ts.base+"/console"),
		chromedp.WaitVisible(`#key-input`, chromedp.ByQuery),
		chromedp.SetValue(`#key-input`, qqKey, chromedp.ByQuery),
		chromedp.Click(`#key-save`, chromedp.ByQuery),
		chromedp.WaitVisible(`#users-table a.user-link`, chromedp.ByQuery),
		chromedp.Text(`#users-table tbody`, &text, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "qq:1") || strings.Contains(text, "tg:1") {
		t.Errorf("users with the qq: key: %q", text)
	}
}
