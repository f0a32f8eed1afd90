package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/storage"
)

// TestConsoleRoutes covers the routes the console adds: the users list
// with totals, one user's summary, the event and profile lists, the page
// itself, and /metrics moving with the requests.
func TestConsoleRoutes(t *testing.T) {
	ts := startServer(t, nil)
	for _, c := range []struct {
		user string
		n    int
	}{{"qq:1", 3}, {"qq:2", 1}, {"tg:1", 2}} {
		var msgs []any
		for i := range c.n {
			msgs = append(msgs, msgJSON(string(rune('a'+i)), "user", "我喜欢喝乌龙茶 "+c.user, i))
		}
		ts.as(c.user).Do("POST", "/messages", map[string]any{"messages": msgs}, http.StatusOK, nil)
	}
	ts.as("qq:3").Do("POST", "/memories", map[string]any{"content": "vegetarian"}, http.StatusCreated, nil)

	var all httpapi.UsersResponse
	ts.as("").Do("GET", "/users", nil, http.StatusOK, &all)
	if ids := userIDs(all.Users); strings.Join(ids, ",") != "qq:1,qq:2,qq:3,tg:1" {
		t.Fatalf("users %v", ids)
	}
	if all.Totals.Users != 4 || all.Totals.Messages != 6 || all.Totals.Memories != 1 {
		t.Errorf("totals %+v", all.Totals)
	}
	var page httpapi.UsersResponse
	ts.as("").Do("GET", "/users?prefix=qq:&limit=2", nil, http.StatusOK, &page)
	if ids := userIDs(page.Users); strings.Join(ids, ",") != "qq:1,qq:2" || page.NextAfter != "qq:2" || page.Totals.Users != 3 {
		t.Fatalf("first page %v next %q totals %+v", ids, page.NextAfter, page.Totals)
	}
	page = httpapi.UsersResponse{}
	ts.as("").Do("GET", "/users?prefix=qq:&limit=2&after=qq:2", nil, http.StatusOK, &page)
	if ids := userIDs(page.Users); strings.Join(ids, ",") != "qq:3" || page.NextAfter != "" {
		t.Fatalf("second page %v next %q", ids, page.NextAfter)
	}
	if status, _ := ts.as("").Raw("GET", "/users?limit=0", nil); status != http.StatusUnprocessableEntity {
		t.Errorf("limit=0: %d", status)
	}

	var me storage.UserSummary
	ts.as("qq:1").Do("GET", "/users/me", nil, http.StatusOK, &me)
	if me.UserID != "qq:1" || me.Messages != 3 || me.TextBytes == 0 || me.LastActive.IsZero() {
		t.Errorf("summary %+v", me)
	}
	var evs struct {
		Events []storage.Event `json:"events"`
	}
	ts.as("qq:1").Do("GET", "/events?limit=10", nil, http.StatusOK, &evs)
	if len(evs.Events) != 0 {
		t.Errorf("events %v", evs.Events)
	}
	if status, _ := ts.as("qq:1").Raw("GET", "/events?before=yesterday", nil); status != http.StatusUnprocessableEntity {
		t.Errorf("before=yesterday: %d", status)
	}
	var prs struct {
		Profiles []storage.Profile `json:"profiles"`
	}
	ts.as("qq:1").Do("GET", "/profiles?entity_type=user", nil, http.StatusOK, &prs)

	for _, c := range []struct {
		path, ctype string
		status      int
		contains    string
	}{
		{"/console", "text/html", 200, "/console/assets/app.js"},
		{"/console/assets/app.js", "text/javascript", 200, "X-Recall-User"},
		{"/console/assets/app.css", "text/css", 200, "--accent"},
		{"/console/assets/missing.js", "text/plain", 404, ""},
	} {
		status, body := ts.as("").Raw("GET", c.path, nil)
		if status != c.status || !strings.Contains(string(body), c.contains) {
			t.Errorf("GET %s: %d, want %d with %q", c.path, status, c.status, c.contains)
		}
	}

	status, body := ts.as("").Raw("GET", "/metrics", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /metrics: %d", status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	found := false
	for _, m := range fams["recalld_http_requests_total"].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if labels["route"] == "/users" && labels["status"] == "200" && m.GetCounter().GetValue() >= 3 {
			found = true
		}
	}
	if !found {
		t.Errorf("GET /users not counted in recalld_http_requests_total")
	}
	if _, ok := fams["recalld_index_pending"]; !ok {
		t.Error("no recalld_index_pending gauge")
	}
	if _, ok := fams["recalld_embedder_call_duration_seconds"]; !ok {
		t.Error("no embedder latency histogram")
	}
}

func userIDs(us []storage.UserSummary) []string {
	out := make([]string, 0, len(us))
	for _, u := range us {
		out = append(out, u.UserID)
	}
	return out
}

// TestConsoleScope: with API keys, GET /users lists only the users the
// key's prefix covers, and /metrics needs metrics_key when one is set.
func TestConsoleScope(t *testing.T) {
	const qqKey, allKey, metricsKey = "k-qqqqqqqqqqqqqqqq", "k-aaaaaaaaaaaaaaaa", "m-mmmmmmmmmmmmmmmm"
	ts := startServer(t, map[string]string{"RECALLD_API_KEYS": qqKey + "=qq:," + allKey, "RECALLD_METRICS_KEY": metricsKey})
	ts.as("qq:1").withKey(qqKey).Do("POST", "/messages", map[string]any{"messages": []any{msgJSON("a", "user", "hi there", 0)}}, http.StatusOK, nil)
	ts.as("tg:1").withKey(allKey).Do("POST", "/messages", map[string]any{"messages": []any{msgJSON("a", "user", "hello", 0)}}, http.StatusOK, nil)

	for _, c := range []struct {
		name, key, query string
		want             string
	}{
		{"qq key", qqKey, "", "qq:1"},
		{"qq key, wider prefix", qqKey, "?prefix=q", "qq:1"},
		{"qq key, other scope", qqKey, "?prefix=tg:", ""},
		{"all key", allKey, "", "qq:1,tg:1"},
	} {
		var r httpapi.UsersResponse
		ts.as("").withKey(c.key).Do("GET", "/users"+c.query, nil, http.StatusOK, &r)
		if got := strings.Join(userIDs(r.Users), ","); got != c.want {
			t.Errorf("%s: users %q, want %q", c.name, got, c.want)
		}
	}
	if status, _ := ts.as("").Raw("GET", "/users", nil); status != http.StatusUnauthorized {
		t.Errorf("/users without a key: %d", status)
	}
	if status, _ := ts.as("").withKey("k-nonononononononono").Raw("GET", "/conflicts", nil); status != http.StatusUnauthorized {
		t.Errorf("/conflicts with an unknown key: %d", status)
	}
	if status, _ := ts.as("tg:1").withKey(qqKey).Raw("GET", "/users/me", nil); status != http.StatusForbidden {
		t.Errorf("/users/me of another scope: %d", status)
	}
	if status, _ := ts.as("").Raw("GET", "/metrics", nil); status != http.StatusUnauthorized {
		t.Errorf("/metrics without metrics_key: %d", status)
	}
	if status, _ := ts.as("").withKey(allKey).Raw("GET", "/metrics", nil); status != http.StatusUnauthorized {
		t.Errorf("/metrics with an API key: %d", status)
	}
	if status, _ := ts.as("").withKey(metricsKey).Raw("GET", "/metrics", nil); status != http.StatusOK {
		t.Errorf("/metrics with metrics_key: %d", status)
	}
}

// TestRetryAndPurgeJobs: a failed job is queued again by POST
// /jobs/{id}/retry and a user's failed jobs go with DELETE /jobs; another
// user cannot touch them.
func TestRetryAndPurgeJobs(t *testing.T) {
	proc := &flaky{n: 2}
	ts := startServerWith(t, func(a *app) { a.processor = proc }, withEnv(fastQueue, "RECALLD_JOB_MAX_RETRIES", "0"))
	u := ts.as("qq:7")
	var r ingest.Receipt
	u.Do("POST", "/turns/end", turn("r1", "我明天去上海"), http.StatusAccepted, &r)
	u.waitJob(r.JobID, "failed")

	if status, _ := ts.as("qq:8").Raw("POST", "/jobs/"+r.JobID+"/retry", nil); status != http.StatusNotFound {
		t.Errorf("another user's retry: %d, want 404", status)
	}
	var j storage.Job
	u.Do("POST", "/jobs/"+r.JobID+"/retry", nil, http.StatusOK, &j)
	if j.State != storage.JobPending || j.Attempts != 0 {
		t.Errorf("retried job %+v", j)
	}
	u.waitJob(r.JobID, "failed") // the historian fails once more
	var del httpapi.DeleteResponse
	ts.as("qq:8").Do("DELETE", "/jobs?state=failed", nil, http.StatusOK, &del)
	if del.Deleted != 0 {
		t.Errorf("qq:8 purged %d of qq:7's jobs", del.Deleted)
	}
	u.Do("DELETE", "/jobs?state=failed", nil, http.StatusOK, &del)
	if del.Deleted != 1 {
		t.Errorf("purged %d, want 1", del.Deleted)
	}
	if status, _ := u.Raw("DELETE", "/jobs?state=pending", nil); status != http.StatusUnprocessableEntity {
		t.Errorf("purging pending jobs: %d, want 422", status)
	}
	u.Do("POST", "/jobs/"+r.JobID+"/retry", nil, http.StatusNotFound, nil)
}
