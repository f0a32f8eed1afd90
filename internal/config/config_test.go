package config

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/queryapi"
)

func TestLoadConfigPrecedence(t *testing.T) {
	file := writeFile(t, "recalld.toml", `
data_dir = "/from/file"
addr = "127.0.0.1:9000"
log_level = "debug"
shutdown_timeout = "5s"

[[api_keys]]
name = "bot-a"
key = "file-key-0123456789abcdef"
user_prefix = "qq:"

[embedder]
kind = "hash"
dim = 512
`)
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want func(*Config)
	}{
		{"defaults", nil, nil, func(c *Config) {}},
		{"file", []string{"-config", file}, nil, func(c *Config) {
			c.DataDir, c.Addr, c.LogLevel = "/from/file", "127.0.0.1:9000", "debug"
			c.ShutdownTimeout = Duration{5 * time.Second}
			c.APIKeys = []APIKey{{Name: "bot-a", Key: "file-key-0123456789abcdef", UserPrefix: "qq:"}}
			c.Embedder.Kind, c.Embedder.Dim = "hash", 512
		}},
		{"env over file", []string{"-config=" + file}, map[string]string{"RECALLD_ADDR": "127.0.0.1:9100", "RECALLD_EMBEDDER_DIM": "256"}, func(c *Config) {
			c.DataDir, c.Addr, c.LogLevel = "/from/file", "127.0.0.1:9100", "debug"
			c.ShutdownTimeout = Duration{5 * time.Second}
			c.APIKeys = []APIKey{{Name: "bot-a", Key: "file-key-0123456789abcdef", UserPrefix: "qq:"}}
			c.Embedder.Kind, c.Embedder.Dim = "hash", 256
		}},
		{"flag over env", []string{"-addr", "127.0.0.1:9200"}, map[string]string{"RECALLD_ADDR": "127.0.0.1:9100", "RECALLD_CONFIG": file}, func(c *Config) {
			c.DataDir, c.Addr, c.LogLevel = "/from/file", "127.0.0.1:9200", "debug"
			c.ShutdownTimeout = Duration{5 * time.Second}
			c.APIKeys = []APIKey{{Name: "bot-a", Key: "file-key-0123456789abcdef", UserPrefix: "qq:"}}
			c.Embedder.Kind, c.Embedder.Dim = "hash", 512
		}},
		{"use model dir and weight", []string{"-embedder-model-dir", "/opt/use"}, map[string]string{"RECALLD_EMBEDDER_MODEL_DIR": "/env/use"}, func(c *Config) {
			c.Embedder.ModelDir = "/opt/use"
		}},
		{"env keys", nil, map[string]string{"RECALLD_API_KEYS": "k-aaaaaaaaaaaaaaaa=qq:, k-bbbbbbbbbbbbbbbb"}, func(c *Config) {
			c.APIKeys = []APIKey{{Name: "env-1", Key: "k-aaaaaaaaaaaaaaaa", UserPrefix: "qq:"}, {Name: "env-2", Key: "k-bbbbbbbbbbbbbbbb"}}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := Load("serve", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			want := DefaultConfig()
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadConfigErrors(t *testing.T) {
	bad := writeFile(t, "bad.toml", "data_dir = \"x\"\nlisten = \"y\"\n")
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"unknown toml key", []string{"-config", bad}, nil, "unknown key"},
		{"missing file", []string{"-config", "/nonexistent/recalld.toml"}, nil, "no such file"},
		{"bad env number", nil, map[string]string{"RECALLD_BODY_LIMIT": "lots"}, "not a number"},
		{"short key", nil, map[string]string{"RECALLD_API_KEYS": "short"}, "at least 16"},
		{"bad embedder", []string{"-embedder", "magic"}, nil, "want use, hash or openai"},
		{"openai without model", []string{"-embedder", "openai"}, nil, "model is required"},
		{"multilingual and zh weights sum to 1", []string{"-embedder-multilingual-weight", "0.65"}, nil, "multilingual_weight"},
		{"use weight out of range", []string{"-config", writeFile(t, "w.toml", "[embedder]\nuse_weight = 1.5\n")}, nil, "use_weight"},
		{"bad level", []string{"-log-level", "loud"}, nil, "log_level"},
		{"negative mmap", nil, map[string]string{"RECALLD_SQLITE_MMAP_MB": "-1"}, "sqlite_mmap_mb"},
		{"no page cache", []string{"-config", writeFile(t, "c.toml", "sqlite_cache_mb = 0\n")}, nil, "sqlite_cache_mb"},
		{"unknown flag", []string{"-nope"}, nil, "not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load("serve", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestRedactedConfig(t *testing.T) {
	c := DefaultConfig()
	c.APIKeys = []APIKey{{Name: "a", Key: "secret-secret-secret"}}
	c.Embedder.APIKey = "sk-secret"
	r := c.Redacted()
	if r.APIKeys[0].Key != "***" || r.Embedder.APIKey != "***" || c.APIKeys[0].Key != "secret-secret-secret" {
		t.Fatalf("redacted = %+v, original = %+v", r, c)
	}
}

func TestChangedKeys(t *testing.T) {
	a := DefaultConfig()
	a.APIKeys = []APIKey{{Name: "bot", Key: "0123456789abcdef"}}
	tests := []struct {
		name   string
		change func(*Config)
		want   []string
	}{
		{"same", func(*Config) {}, nil},
		{"historian", func(c *Config) { c.Cognitive.Historian.SourceMax = 5 }, []string{"cognitive.historian.source_max"}},
		{"secret", func(c *Config) { c.APIKeys[0].Key = "fedcba9876543210" }, []string{"api_keys"}},
		{"embedder", func(c *Config) { c.Embedder.Model = "m"; c.Embedder.Kind = "openai" }, []string{"embedder.kind", "embedder.model"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := a
			b.APIKeys = slices.Clone(a.APIKeys)
			tt.change(&b)
			if diff := cmp.Diff(tt.want, changedKeys(a, b)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestAPIKeyReloadOffLoopback: a reload that removes the last key of a
// server listening beyond loopback is refused; the keys in force stay.
func TestAPIKeyReloadOffLoopback(t *testing.T) {
	path := writeFile(t, "recalld.toml", "")
	for _, tt := range []struct {
		addr    string
		wantErr bool
	}{{"0.0.0.0:8080", true}, {"127.0.0.1:8080", false}} {
		t.Run(tt.addr, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Addr = tt.addr
			cfg.APIKeys = []APIKey{{Name: "bot", Key: "key-for-bot-a-0123456789"}}
			l := NewLive(cfg, slog.New(slog.DiscardHandler))
			next := cfg
			next.APIKeys = nil
			l.reload(path, func() (Config, error) { return next, nil }, "test", true)
			st := l.Status()
			if got := len(l.Load().APIKeys) == 1; got != tt.wantErr || (st.Error != "") != tt.wantErr {
				t.Fatalf("keys kept %v, error %q; want refused %v", got, st.Error, tt.wantErr)
			}
		})
	}
}

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
			model:     ModelConfig{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5:14b-instruct", APIKey: "llm-key", Timeout: Duration{30 * time.Second}},
			modelsSet: ModelConfig{Model: "qwen2.5:14b-instruct", Timeout: Duration{30 * time.Second}}},
		{name: "env", env: map[string]string{"RECALLD_HISTORIAN_MODE": "llm", "RECALLD_REWRITE_MAX_RETRY": "0",
			"RECALLD_LLM_MODEL": "m1", "RECALLD_HISTORIAN_LLM_URL": "http://127.0.0.1:8000/v1", "RECALLD_HISTORIAN_LLM_API_KEY": "hk"},
			mode: "llm", retry: 0,
			model:     ModelConfig{BaseURL: "http://127.0.0.1:8000/v1", Model: "m1", APIKey: "hk"},
			modelsSet: ModelConfig{BaseURL: "http://127.0.0.1:8000/v1", APIKey: "hk"}},
		{name: "env over file", args: []string{"-config", file}, env: map[string]string{"RECALLD_HISTORIAN_LLM_MODEL": "m2", "RECALLD_HISTORIAN_MODE": "offline"},
			mode: "offline", retry: 1,
			model:     ModelConfig{BaseURL: "http://127.0.0.1:11434/v1", Model: "m2", APIKey: "llm-key", Timeout: Duration{30 * time.Second}},
			modelsSet: ModelConfig{Model: "m2", Timeout: Duration{30 * time.Second}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _, err := Load("serve", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
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
			if diff := cmp.Diff(tt.model, cfg.HistorianModel()); diff != "" {
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
			_, _, err := Load("serve", nil, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}

	t.Run("redacted", func(t *testing.T) {
		c := DefaultConfig()
		c.Models.Historian.APIKey = "sk-historian"
		if r := c.Redacted(); r.Models.Historian.APIKey != "***" || c.Models.Historian.APIKey != "sk-historian" {
			t.Fatalf("redacted %+v", r.Models)
		}
	})
}
func TestCognitiveQueryConfig(t *testing.T) {
	if diff := cmp.Diff(queryapi.DefaultEventSearchConfig(), DefaultConfig().Cognitive.Query.Events()); diff != "" {
		t.Fatalf("defaults differ from queryapi's (-queryapi +config):\n%s", diff)
	}
	file := writeFile(t, "recalld.toml", `
[cognitive.query]
auto_top_k = 5
tool_default_top_k = 20
time_decay_half_life_auto_days = 7
time_decay_half_life_tool_days = 30.5
time_decay_boost = 0.3
time_decay_min_similarity = 0.4
rerank_candidate_multiplier = 4
recent_end_summaries_inject_k = 2
context_line_max = 120
`)
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want CognitiveQuery
	}{
		{"defaults", nil, nil, CognitiveQuery{AutoTopK: 3, ToolDefaultTopK: 12, HalfLifeAutoDays: 14, HalfLifeToolDays: 60,
			Boost: 0.2, MinSimilarity: 0.35, CandidateMultiplier: 3, RecentMemosInjectK: 5, ContextLineMax: 240}},
		{"file", []string{"-config", file}, nil, CognitiveQuery{AutoTopK: 5, ToolDefaultTopK: 20, HalfLifeAutoDays: 7, HalfLifeToolDays: 30.5,
			Boost: 0.3, MinSimilarity: 0.4, CandidateMultiplier: 4, RecentMemosInjectK: 2, ContextLineMax: 120}},
		{"env over file", []string{"-config", file}, map[string]string{
			"RECALLD_QUERY_AUTO_TOP_K": "2", "RECALLD_QUERY_TOOL_TOP_K": "8", "RECALLD_QUERY_HALF_LIFE_AUTO_DAYS": "1.5",
			"RECALLD_QUERY_HALF_LIFE_TOOL_DAYS": "90", "RECALLD_QUERY_DECAY_BOOST": "0", "RECALLD_QUERY_DECAY_MIN_SIMILARITY": "0.5",
			"RECALLD_QUERY_CANDIDATE_MULTIPLIER": "1", "RECALLD_QUERY_MEMOS_INJECT_K": "0", "RECALLD_QUERY_CONTEXT_LINE_MAX": "80",
		}, CognitiveQuery{AutoTopK: 2, ToolDefaultTopK: 8, HalfLifeAutoDays: 1.5, HalfLifeToolDays: 90,
			Boost: 0, MinSimilarity: 0.5, CandidateMultiplier: 1, RecentMemosInjectK: 0, ContextLineMax: 80}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := Load("serve", tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Cognitive.Query); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
	if got := (CognitiveQuery{HalfLifeAutoDays: 1.5}).Events().HalfLifeAuto; got != 36*time.Hour {
		t.Fatalf("1.5 days = %s", got)
	}
}

func TestCognitiveQueryConfigErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"not a number", map[string]string{"RECALLD_QUERY_DECAY_BOOST": "much"}, "RECALLD_QUERY_DECAY_BOOST"},
		{"not an integer", map[string]string{"RECALLD_QUERY_AUTO_TOP_K": "2.5"}, "RECALLD_QUERY_AUTO_TOP_K"},
		{"zero top_k", map[string]string{"RECALLD_QUERY_AUTO_TOP_K": "0"}, "auto_top_k"},
		{"top_k too big", map[string]string{"RECALLD_QUERY_TOOL_TOP_K": "101"}, "tool_default_top_k"},
		{"zero half-life", map[string]string{"RECALLD_QUERY_HALF_LIFE_TOOL_DAYS": "0"}, "half-lives"},
		{"NaN half-life", map[string]string{"RECALLD_QUERY_HALF_LIFE_AUTO_DAYS": "NaN"}, "half-lives"},
		{"negative boost", map[string]string{"RECALLD_QUERY_DECAY_BOOST": "-1"}, "time_decay_boost"},
		{"similarity over 1", map[string]string{"RECALLD_QUERY_DECAY_MIN_SIMILARITY": "1.5"}, "time_decay_min_similarity"},
		{"zero multiplier", map[string]string{"RECALLD_QUERY_CANDIDATE_MULTIPLIER": "0"}, "rerank_candidate_multiplier"},
		{"negative memos", map[string]string{"RECALLD_QUERY_MEMOS_INJECT_K": "-1"}, "recent_end_summaries_inject_k"},
		{"line too short", map[string]string{"RECALLD_QUERY_CONTEXT_LINE_MAX": "5"}, "context_line_max"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load("serve", nil, func(k string) string { return tt.env[k] }, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
