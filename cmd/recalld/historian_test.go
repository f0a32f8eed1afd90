package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/llmtest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// TestServeLLMHistorian runs serve with the LLM historian against a local
// chat server: an ended turn becomes the model's rewrite, stored as an event.
func TestServeLLMHistorian(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"rewrites": []map[string]any{
		{"index": 0, "text": "张三(qq:1)于2026年3月3日去了北京", "entity_ids": []string{"qq:1"}},
		{"index": 1, "text": "张三 (qq:1) likes oolong tea", "entity_ids": []string{"qq:1"}},
	}})
	f := llmtest.New(t, llmtest.ToolCall("record_rewrites", string(args)))
	ts := startServer(t, withEnv(fastQueue, "RECALLD_HISTORIAN_MODE", "llm", "RECALLD_HISTORIAN_LLM_URL", f.URL,
		"RECALLD_HISTORIAN_LLM_MODEL", "fake-historian", "RECALLD_HISTORIAN_LLM_API_KEY", "sk-historian"))
	u := ts.as("qq:1")
	var r ingest.Receipt
	u.Do("POST", "/turns/end", turn("req-llm", "我昨天去了北京", "I like oolong tea"), http.StatusAccepted, &r)
	u.waitJob(r.JobID, "done")
	ts.stop()

	reqs := f.Requests()
	if len(reqs) != 1 || reqs[0].Model != "fake-historian" || reqs[0].Auth != "Bearer sk-historian" {
		t.Fatalf("model requests %+v", reqs)
	}
	if sys := llmtest.Text(reqs[0].Messages[0].Content); !strings.Contains(sys, "[14:29] 张三 (id qq:1): 我昨天去了北京") {
		t.Errorf("system prompt lacks the recent message:\n%s", sys)
	}
	st := storagetest.Open(t, storage.Config{Dir: ts.dataDir, NoIndexer: true})
	evs, err := st.ListEvents(t.Context(), "qq:1", storage.EventFilter{JobID: r.JobID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range evs {
		got[e.Content] = e.IsAbsolute && e.Warning == ""
	}
	want := map[string]bool{"张三(qq:1)于2026年3月3日去了北京": true, "张三 (qq:1) likes oolong tea": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
}

// TestServeHistorianKinds: serve gives its historian the WordNet and the
// dictionary it loads for recall, so an ended turn naming an animal no
// list holds (荷兰猪, a guinea pig) puts a pet into the user's profile.
func TestServeHistorianKinds(t *testing.T) {
	wn, dict := filepath.Join("..", "..", "models", "wordnet"), filepath.Join("..", "..", "models", "cc-cedict")
	for _, dir := range []string{wn, dict} {
		if _, err := os.Stat(dir); err != nil {
			t.Skipf("%s not installed (make setup): %v", dir, err)
		}
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want bool
	}{
		{"with WordNet", withEnv(fastQueue, "RECALLD_WORDNET_DIR", wn, "RECALLD_DICTIONARY_DIR", dict), true},
		{"without", withEnv(fastQueue, "RECALLD_WORDNET_DIR", "", "RECALLD_DICTIONARY_DIR", ""), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, tc.env)
			u := ts.as("qq:1")
			var r ingest.Receipt
			u.Do("POST", "/turns/end", turn("req-kinds", "我家里有只荷兰猪，特别能吃"), http.StatusAccepted, &r)
			u.waitJob(r.JobID, "done")
			if !tc.want {
				// Nothing learned: no profile at all.
				u.Do("GET", "/profiles/user/qq:1", nil, http.StatusNotFound, nil)
				return
			}
			var prof storage.Profile
			u.Do("GET", "/profiles/user/qq:1", nil, http.StatusOK, &prof)
			if !slices.ContainsFunc(prof.Traits, func(tr storage.Trait) bool { return tr.Category == "pet" && tr.Value == "荷兰猪" }) {
				t.Errorf("no pet 荷兰猪 in the profile: %+v", prof.Traits)
			}
		})
	}
}

// TestServeRefusesHistorianWithoutModel: serve does not start with the llm
// historian and no model.
func TestServeRefusesHistorianWithoutModel(t *testing.T) {
	a := &app{getenv: func(k string) string { return map[string]string{"RECALLD_HISTORIAN_MODE": "llm"}[k] },
		stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
	err := a.run(t.Context(), []string{"serve", "-addr", "127.0.0.1:0", "-data", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `cognitive.historian.mode "llm" needs a model`) {
		t.Fatalf("err = %v", err)
	}
}
