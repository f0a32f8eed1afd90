package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/llmtest"
	"github.com/recalld/recalld/storage"
)

func TestHistorianConfig(t *testing.T) {
	file := writeFile(t, "recalld.toml", `
[llm]
base_url = "http://127.0.0.1:11434/v1"
model = "qwen2.5:7b-instruct"
api_key = "llm-key"

[cognitive.historian]
mode = "llm"
rewrite_max_retry = 1

[models.historian]
model = "qwen2.5:14b-instruct"
timeout = "30s"
`)
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		mode      string
		retry     int
		model     ModelConfig // the historian's, after [llm]
		modelsSet ModelConfig // [models.historian] as configured
	}{
		{name: "default", mode: "offline", retry: 2},
		{name: "file: models.historian over llm", args: []string{"-config", file}, mode: "llm", retry: 1,
			model:     ModelConfig{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5:14b-instruct", APIKey: "llm-key", Timeout: duration{30 * time.Second}},
			modelsSet: ModelConfig{Model: "qwen2.5:14b-instruct", Timeout: duration{30 * time.Second}}},
		{name: "env", env: map[string]string{"RECALLD_HISTORIAN_MODE": "llm", "RECALLD_REWRITE_MAX_RETRY": "0",
			"RECALLD_LLM_MODEL": "m1", "RECALLD_HISTORIAN_LLM_URL": "http://127.0.0.1:8000/v1", "RECALLD_HISTORIAN_LLM_API_KEY": "hk"},
			mode: "llm", retry: 0,
			model:     ModelConfig{BaseURL: "http://127.0.0.1:8000/v1", Model: "m1", APIKey: "hk"},
			modelsSet: ModelConfig{BaseURL: "http://127.0.0.1:8000/v1", APIKey: "hk"}},
		{name: "env over file", args: []string{"-config", file}, env: map[string]string{"RECALLD_HISTORIAN_LLM_MODEL": "m2", "RECALLD_HISTORIAN_MODE": "offline"},
			mode: "offline", retry: 1,
			model:     ModelConfig{BaseURL: "http://127.0.0.1:11434/v1", Model: "m2", APIKey: "llm-key", Timeout: duration{30 * time.Second}},
			modelsSet: ModelConfig{Model: "m2", Timeout: duration{30 * time.Second}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := loadConfig("serve", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			h := cfg.Cognitive.Historian
			if h.Mode != tt.mode || h.RewriteMaxRetry != tt.retry {
				t.Errorf("historian %+v, want mode %s retry %d", h, tt.mode, tt.retry)
			}
			if tt.model.Model == "" {
				return
			}
			if diff := cmp.Diff(tt.model, cfg.historianModel()); diff != "" {
				t.Errorf("historian model (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.modelsSet, cfg.Models.Historian); diff != "" {
				t.Errorf("[models.historian] (-want +got):\n%s", diff)
			}
		})
	}

	errs := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"llm without a model", map[string]string{"RECALLD_HISTORIAN_MODE": "llm"}, `mode "llm" needs a model`},
		{"unknown mode", map[string]string{"RECALLD_HISTORIAN_MODE": "magic"}, "want offline or llm"},
		{"negative retry", map[string]string{"RECALLD_REWRITE_MAX_RETRY": "-1"}, "rewrite_max_retry -1"},
		{"retry not a number", map[string]string{"RECALLD_REWRITE_MAX_RETRY": "two"}, "not a number"},
		{"calls outlast the lease", map[string]string{"RECALLD_HISTORIAN_MODE": "llm", "RECALLD_LLM_MODEL": "m", "RECALLD_STALE_JOB_TIMEOUT": "3m"},
			"must stay below cognitive.queue.stale_job_timeout"},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := loadConfig("serve", nil, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}

	t.Run("serve refuses to start", func(t *testing.T) {
		a := &app{getenv: func(k string) string { return map[string]string{"RECALLD_HISTORIAN_MODE": "llm"}[k] },
			stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
		err := a.run(t.Context(), []string{"serve", "-addr", "127.0.0.1:0", "-data", t.TempDir()})
		if err == nil || !strings.Contains(err.Error(), `cognitive.historian.mode "llm" needs a model`) {
			t.Fatalf("err = %v", err)
		}
	})

	t.Run("redacted", func(t *testing.T) {
		c := DefaultConfig()
		c.Models.Historian.APIKey = "sk-historian"
		if r := c.redacted(); r.Models.Historian.APIKey != "***" || c.Models.Historian.APIKey != "sk-historian" {
			t.Fatalf("redacted %+v", r.Models)
		}
	})
}

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
	u.do("POST", "/turns/end", turn("req-llm", "我昨天去了北京", "I like oolong tea"), http.StatusAccepted, &r)
	u.waitJob(r.JobID, "done")
	ts.stop()

	reqs := f.Requests()
	if len(reqs) != 1 || reqs[0].Model != "fake-historian" || reqs[0].Auth != "Bearer sk-historian" {
		t.Fatalf("model requests %+v", reqs)
	}
	if sys := llmtest.Text(reqs[0].Messages[0].Content); !strings.Contains(sys, "[14:29] 张三 (id qq:1): 我昨天去了北京") {
		t.Errorf("system prompt lacks the recent message:\n%s", sys)
	}
	st := openTestStore(t, ts.dataDir)
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
