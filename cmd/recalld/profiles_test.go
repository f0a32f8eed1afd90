package main

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/profilemd"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// waitProfile polls GET /profiles/... until the profile has revision rev.
func (c *client) waitProfile(typ, id string, rev int) storage.Profile {
	c.ts.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	path := "/profiles/" + typ + "/" + url.PathEscape(id)
	for {
		status, b := c.Raw("GET", path, nil)
		var p storage.Profile
		if status == http.StatusOK {
			if err := jsonUnmarshal(b, &p); err != nil {
				c.ts.t.Fatal(err)
			}
			if p.Revision >= rev {
				return p
			}
		}
		if time.Now().After(deadline) {
			c.ts.t.Fatalf("profile %s/%s never reached revision %d: %d %s", typ, id, rev, status, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func endTurnHTTP(c *client, body map[string]any) ingest.Receipt {
	c.ts.t.Helper()
	var r ingest.Receipt
	c.Do("POST", "/turns/end", body, http.StatusAccepted, &r)
	c.waitJob(r.JobID, storage.JobDone)
	return r
}

func profileTurn(id, sender, name, at string, obs ...string) map[string]any {
	return map[string]any{"request_id": id, "observations": obs, "sender_id": sender, "sender_name": name, "timestamp": at}
}

// TestProfilesHTTP runs /turns/end → job → historian → profile → get and
// search over HTTP in zh and en, with overrides, revisions and restore, a
// replay that changes nothing, user isolation and group separation; every
// response is checked against openapi.yaml.
func TestProfilesHTTP(t *testing.T) {
	ts := startServer(t, withEnv(fastQueue, "RECALLD_PROFILE_REVISION_KEEP", "3"))
	u := ts.as("bot:1")

	endTurnHTTP(u, profileTurn("z1", "qq:1", "张三", "2026-03-04T06:30:00Z", "我住在北京，是一名程序员", "我喜欢吃火锅", "我今天很开心"))
	endTurnHTTP(u, profileTurn("e1", "tg:7", "Alice", "2026-03-04T06:30:00Z", "I live in London and I work as a nurse", "I love spicy food"))
	p := u.waitProfile("user", "qq:1", 1)
	if p.Summary != "张三：住在北京；是程序员；喜欢吃火锅。" || p.UserID != "bot:1" || p.Name != "张三" {
		t.Fatalf("zh profile %+v", p)
	}
	a := u.waitProfile("user", "tg:7", 1)
	if a.Summary != "Alice: lives in London; works as nurse; likes spicy food." {
		t.Fatalf("en profile %q", a.Summary)
	}

	// Newer facts override older ones; a joke changes nothing.
	endTurnHTTP(u, profileTurn("z2", "qq:1", "张三", "2026-03-10T06:30:00Z", "我搬到上海了", "我不吃火锅了", "我是宇航员哈哈"))
	endTurnHTTP(u, profileTurn("e2", "tg:7", "Alice", "2026-03-10T06:30:00Z", "I moved to Berlin", "I stopped eating spicy food"))
	p = u.waitProfile("user", "qq:1", 2)
	if p.Summary != "张三：住在上海；是程序员；不吃火锅。" {
		t.Fatalf("zh after override %q", p.Summary)
	}
	if a = u.waitProfile("user", "tg:7", 2); a.Summary != "Alice: lives in Berlin; works as nurse; doesn't eat spicy food." {
		t.Fatalf("en after override %q", a.Summary)
	}

	// Replaying a request id changes nothing.
	var r ingest.Receipt
	u.Do("POST", "/turns/end", profileTurn("z2", "qq:1", "张三", "2026-03-11T06:30:00Z", "我搬到深圳了"), http.StatusAccepted, &r)
	if !r.Duplicate {
		t.Fatalf("replay %+v", r)
	}
	var again storage.Profile
	u.Do("GET", "/profiles/user/qq:1", nil, 200, &again)
	if diff := cmp.Diff(p, again); diff != "" {
		t.Fatalf("replay changed the profile (-want +got):\n%s", diff)
	}

	// Search, in both languages and by entity type.
	var page queryapi.ProfilePage
	u.Do("POST", "/profiles/search", map[string]any{"query": "住在上海的程序员", "top_k": 1}, 200, &page)
	if len(page.Profiles) != 1 || page.Profiles[0].EntityID != "qq:1" {
		t.Fatalf("zh search %+v", page)
	}
	u.Do("POST", "/profiles/search", map[string]any{"query": "nurse in Berlin"}, 200, &page)
	if len(page.Profiles) == 0 || page.Profiles[0].EntityID != "tg:7" || page.Profiles[0].Score <= 0 {
		t.Fatalf("en search %+v", page)
	}

	// A group turn makes a group profile, separate from another group's.
	endTurnHTTP(u, map[string]any{"request_id": "g1", "observations": []string{"我们周末去杭州旅行"}, "sender_id": "qq:1",
		"sender_name": "张三", "group_id": "g/trips", "group_name": "旅行群", "timestamp": "2026-03-12T06:30:00Z"})
	endTurnHTTP(u, map[string]any{"request_id": "g2", "observations": []string{"I deployed the new server"}, "sender_id": "tg:7",
		"sender_name": "Alice", "group_id": "g-ops", "group_name": "Ops", "timestamp": "2026-03-12T06:30:00Z"})
	g := u.waitProfile("group", "g/trips", 1)
	if g.Name != "旅行群" || !slices.Equal(g.Tags, []string{"旅行"}) || strings.Contains(g.Summary, "Alice") {
		t.Fatalf("group %+v", g)
	}
	u.Do("POST", "/profiles/search", map[string]any{"query": "旅行", "entity_type": "group"}, 200, &page)
	if len(page.Profiles) == 0 || page.Profiles[0].EntityID != "g/trips" {
		t.Fatalf("group search %+v", page)
	}
	for _, h := range page.Profiles {
		if h.EntityType != "group" {
			t.Fatalf("entity_type group returned %s", h.EntityType)
		}
	}

	// Another user sees nothing.
	v := ts.as("bot:2")
	if status, b := v.Raw("GET", "/profiles/user/qq:1", nil); status != 404 || !strings.Contains(string(b), "not_found") {
		t.Fatalf("bot:2 get: %d %s", status, b)
	}
	v.Do("POST", "/profiles/search", map[string]any{"query": "上海 程序员 Berlin nurse 旅行"}, 200, &page)
	if len(page.Profiles) != 0 {
		t.Fatalf("bot:2 found %+v", page.Profiles)
	}
	if status, _ := v.Raw("POST", "/profiles/user/qq:1/restore", map[string]any{"revision": 1}); status != 404 {
		t.Fatalf("bot:2 restore: %d", status)
	}

	// Revisions (revision_keep 3 from the environment) and restore.
	for i, city := range []string{"深圳", "广州", "杭州"} {
		endTurnHTTP(u, profileTurn("m"+city, "qq:1", "张三", time.Date(2026, 3, 20+i, 6, 0, 0, 0, time.UTC).Format(time.RFC3339), "我搬到"+city+"了"))
	}
	u.waitProfile("user", "qq:1", 5)
	var revs queryapi.RevisionList
	u.Do("GET", "/profiles/user/qq:1/revisions", nil, 200, &revs)
	var nums []int
	for _, r := range revs.Revisions {
		nums = append(nums, r.Revision)
	}
	if !slices.Equal(nums, []int{5, 4, 3}) || revs.Revisions[2].Profile.Traits[0].Value != "深圳" {
		t.Fatalf("revisions %v %+v", nums, revs.Revisions)
	}
	var restored storage.Profile
	u.Do("POST", "/profiles/user/qq:1/restore", map[string]any{"revision": 3}, 200, &restored)
	if restored.Revision != 6 || restored.Traits[0].Value != "深圳" || !strings.Contains(restored.Summary, "住在深圳") {
		t.Fatalf("restored %+v", restored)
	}
	if status, b := u.Raw("POST", "/profiles/user/qq:1/restore", map[string]any{"revision": 1}); status != 404 ||
		!strings.Contains(string(b), "not kept") {
		t.Fatalf("restore of a dropped revision: %d %s", status, b)
	}
}

func TestProfilesBadInput(t *testing.T) {
	ts := startServer(t, nil)
	u := ts.as("bot:1")
	tests := []struct {
		name   string
		method string
		path   string
		body   any
		status int
	}{
		{"unknown type", "GET", "/profiles/robot/x", nil, 422},
		{"missing", "GET", "/profiles/user/nobody", nil, 404},
		{"query param", "GET", "/profiles/user/x?full=1", nil, 400},
		{"revisions of missing", "GET", "/profiles/group/g1/revisions", nil, 404},
		{"empty query", "POST", "/profiles/search", map[string]any{"query": " "}, 422},
		{"top_k", "POST", "/profiles/search", map[string]any{"query": "x", "top_k": 101}, 422},
		{"bad type", "POST", "/profiles/search", map[string]any{"query": "x", "entity_type": "bot"}, 422},
		{"unknown field", "POST", "/profiles/search", map[string]any{"query": "x", "user_id": "bot:2"}, 400},
		{"restore no body", "POST", "/profiles/user/x/restore", nil, 400},
		{"restore zero", "POST", "/profiles/user/x/restore", map[string]any{"revision": 0}, 422},
		{"restore missing", "POST", "/profiles/user/x/restore", map[string]any{"revision": 1}, 404},
		{"wrong method", "DELETE", "/profiles/user/x", nil, 405},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, b := u.Raw(tt.method, tt.path, tt.body)
			if status != tt.status || !bytes.Contains(b, []byte(`"error"`)) {
				t.Fatalf("%d %s, want %d", status, b, tt.status)
			}
		})
	}
	// No user: 400 before anything else.
	if status, _ := ts.as("").Raw("GET", "/profiles/user/x", nil); status != 400 {
		t.Fatalf("no user: %d", status)
	}
}

// TestProfilesExport exports the profiles as Markdown with YAML front matter
// beside a running server and parses the files back.
func TestProfilesExport(t *testing.T) {
	ts := startServer(t, fastQueue)
	u := ts.as("bot:1")
	endTurnHTTP(u, profileTurn("z1", "qq:1", "张三", "2026-03-04T06:30:00Z", "我住在北京", "我对花生过敏", "我养了一只猫"))
	endTurnHTTP(u, map[string]any{"request_id": "g1", "observations": []string{"I booked a hotel for the trip"}, "sender_id": "tg/7",
		"sender_name": "Alice", "group_id": "g1", "group_name": "Trips", "timestamp": "2026-03-05T06:30:00Z"})
	u.waitProfile("group", "g1", 1)
	endTurnHTTP(ts.as("bot:2"), profileTurn("x", "qq:9", "李四", "2026-03-04T06:30:00Z", "我住在成都"))

	out := t.TempDir()
	got, err := runCLI(t, "profiles", "export", "-data", ts.dataDir, "-user", "bot:1", "-out", out)
	if err != nil || !strings.Contains(got, "exported 2 profiles") {
		t.Fatalf("export: %q %v", got, err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*", "*.md"))
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(out, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	if diff := cmp.Diff([]string{"group/g1.md", "user/" + profilemd.FileName("qq:1")}, sorted(rel)); diff != "" {
		t.Fatalf("files (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(filepath.Join(out, "user", profilemd.FileName("qq:1")))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	front, body, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
	if !strings.HasPrefix(text, "---\n") || !ok {
		t.Fatalf("no front matter:\n%s", text)
	}
	var fm profilemd.FrontMatter
	dec := yaml.NewDecoder(strings.NewReader(front))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		t.Fatalf("front matter: %v\n%s", err, front)
	}
	if fm.EntityType != "user" || fm.EntityID != "qq:1" || fm.Name != "张三" || fm.Revision != 1 || len(fm.Traits) != 3 {
		t.Fatalf("front matter %+v", fm)
	}
	want := []string{"location=北京", "pet=猫", "allergy=花生"}
	var traits []string
	for _, tr := range fm.Traits {
		traits = append(traits, tr.Category+"="+tr.Value)
		if tr.FirstSeen.IsZero() || !strings.Contains(tr.Source, ":sender") {
			t.Fatalf("trait %+v", tr)
		}
	}
	if diff := cmp.Diff(want, traits); diff != "" {
		t.Fatalf("traits (-want +got):\n%s", diff)
	}
	if !strings.Contains(body, "# 张三") || !strings.Contains(body, "张三：住在北京；养了猫；对花生过敏。") {
		t.Fatalf("body:\n%s", body)
	}

	// show and restore from the command line.
	got, err = runCLI(t, "profiles", "show", "-data", ts.dataDir, "-user", "bot:1", "group", "g1")
	if err != nil || !strings.Contains(got, "entity_id: g1") || !strings.Contains(got, "Trips: often talks about travel; members include Alice.") {
		t.Fatalf("show: %v\n%s", err, got)
	}
	if _, err := runCLI(t, "profiles", "show", "-data", ts.dataDir, "-user", "bot:2", "group", "g1"); err == nil {
		t.Fatal("bot:2 sees bot:1's group")
	}
	got, err = runCLI(t, "profiles", "restore", "-data", ts.dataDir, "-user", "bot:1", "user", "qq:1", "1")
	if err != nil || !strings.Contains(got, `"revision": 1`) {
		t.Fatalf("restore current: %v %s", err, got)
	}
	if _, err := runCLI(t, "profiles", "export", "-data", ts.dataDir); err == nil {
		t.Fatal("export without -user")
	}
}

func TestProfileConfig(t *testing.T) {
	path := writeFile(t, "recalld.toml", "[cognitive.profile]\nprofile_top_k = 3\nrevision_keep = 9\n")
	cfg, _, err := config.Load("serve", []string{"-config", path}, func(string) string { return "" }, io.Discard)
	if err != nil || cfg.Cognitive.Profile != (config.CognitiveProfile{ProfileTopK: 3, RevisionKeep: 9}) {
		t.Fatalf("%+v %v", cfg.Cognitive.Profile, err)
	}
	env := map[string]string{"RECALLD_PROFILE_TOP_K": "12"}
	cfg, _, err = config.Load("serve", []string{"-config", path}, func(k string) string { return env[k] }, io.Discard)
	if err != nil || cfg.Cognitive.Profile.ProfileTopK != 12 {
		t.Fatalf("env: %+v %v", cfg.Cognitive.Profile, err)
	}
	if d := config.DefaultConfig().Cognitive.Profile; d != (config.CognitiveProfile{ProfileTopK: 8, RevisionKeep: 5}) {
		t.Fatalf("defaults %+v", d)
	}
	for _, bad := range []map[string]string{{"RECALLD_PROFILE_TOP_K": "0"}, {"RECALLD_PROFILE_TOP_K": "x"},
		{"RECALLD_PROFILE_REVISION_KEEP": "0"}, {"RECALLD_PROFILE_REVISION_KEEP": "1001"}} {
		if _, _, err := config.Load("serve", nil, func(k string) string { return bad[k] }, io.Discard); err == nil {
			t.Fatalf("%v accepted", bad)
		}
	}
}
