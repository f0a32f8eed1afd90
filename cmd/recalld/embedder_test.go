package main

import (
	"bytes"
	"errors"
	"github.com/recalld/recalld/internal/embed/bge"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/httpapi"
)

// useModelDir is where `make setup` puts USE-Lite, seen from this package.
const useModelDir = "../../models/use-lite"

// bgeModelDir is where `make setup` puts bge-small-zh, seen from this package.
const bgeModelDir = "../../models/bge-small-zh"

// TestEmbedderFallback starts the server with the default embedder kind on
// missing and corrupt model files: it must serve with the hashing embedder,
// say so in its log and in /healthz, and still find messages.
func TestEmbedderFallback(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
	}{
		{"missing", nil},
		{"corrupt model.json", map[string]string{"model.json": `{"modelTopology": {"node": [`, "vocab.json": `[]`}},
		{"short shard", map[string]string{
			"model.json": `{"modelTopology":{"node":[{"name":"w","op":"Const"}]},"weightsManifest":[{"paths":["s1"],"weights":[{"name":"w","shape":[8],"dtype":"float32"}]}]}`,
			"s1":         "1234", "vocab.json": `[]`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "use-lite")
			if tt.files != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, body := range tt.files {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			logs := &syncBuffer{}
			ts := startServerWith(t, func(a *app) { a.stderr = logs }, nil, "-embedder", "use", "-embedder-model-dir", dir)
			var h httpapi.HealthResponse
			ts.as("").Do("GET", "/healthz", nil, 200, &h)
			if h.Embedder != "hash-ngram-v1-1024" || !strings.Contains(h.EmbedderFallback, "USE-Lite not loaded") {
				t.Fatalf("healthz = %+v, want the hashing embedder and a fallback note", h)
			}
			if !strings.Contains(logs.String(), "USE-Lite model not loaded") {
				t.Errorf("log does not mention the fallback:\n%s", logs.String())
			}
			u := ts.as("qq:1")
			u.Do("POST", "/messages", map[string]any{"messages": []map[string]any{msgJSON("m1", "user", "I love spicy noodles", 0)}}, 200, nil)
			ts.waitIndexed()
			var p struct {
				Hits []struct {
					MessageID string `json:"message_id"`
				}
			}
			u.Do("POST", "/search/semantic", map[string]any{"query_text": "spicy noodles"}, 200, &p)
			if len(p.Hits) != 1 || p.Hits[0].MessageID != "m1" {
				t.Fatalf("semantic search on the fallback: %+v", p)
			}
		})
	}
}

// TestServeWithUSELite runs the default embedder on the real models
// (USE-Lite, bge-small-zh and hashing): the composite's name in /healthz,
// English and Chinese paraphrases found by semantic search, and a store
// made with the hashing embedder refused until `recalld reindex`. Without
// bge-small-zh the composite is the one of earlier versions, with a note.
func TestServeWithUSELite(t *testing.T) {
	if _, err := os.Stat(filepath.Join(useModelDir, "model.json")); errors.Is(err, os.ErrNotExist) {
		t.Skipf("model files not found in %s: run scripts/fetch-models.sh (make setup) to test USE-Lite", useModelDir)
	}
	if _, err := os.Stat(filepath.Join(bgeModelDir, bge.ModelFile)); errors.Is(err, os.ErrNotExist) {
		t.Skipf("model files not found in %s: run scripts/fetch-bge-zh.sh (make setup) to test bge-small-zh", bgeModelDir)
	}
	models := []string{"-embedder-model-dir", useModelDir, "-embedder-zh-model-dir", bgeModelDir}
	data := t.TempDir()
	// A store made with the hashing embedder, as before USE-Lite.
	var out bytes.Buffer
	a := &app{getenv: func(string) string { return "" }, stdout: &out, stderr: io.Discard}
	file := writeFile(t, "m.jsonl", `{"id":"s1","user_id":"qq:1","role":"user","content":"I really can't handle hot, fiery dishes","created_at":"2026-03-01T12:00:00Z"}
{"id":"s2","user_id":"qq:1","role":"user","content":"The quarterly report is due next week","created_at":"2026-03-01T12:01:00Z"}
{"id":"s3","user_id":"qq:1","role":"user","content":"最近每天下班练半小时尤克里里，手指头都磨出茧了","created_at":"2026-03-01T12:02:00Z"}
{"id":"s4","user_id":"qq:1","role":"user","content":"周末去公司加班，把季度报表赶完了","created_at":"2026-03-01T12:03:00Z"}`)
	if err := a.run(t.Context(), []string{"import", "-data", data, "-embedder", "hash", file}); err != nil {
		t.Fatal(err)
	}
	err := a.run(t.Context(), append([]string{"serve", "-data", data, "-addr", "127.0.0.1:0"}, models...))
	if err == nil || !strings.Contains(err.Error(), "recalld reindex") {
		t.Fatalf("serve on a hashing store with USE-Lite: %v, want advice to reindex", err)
	}
	if err := a.run(t.Context(), append([]string{"reindex", "-data", data}, models...)); err != nil {
		t.Fatal(err)
	}
	const name = "use-lite-v1-512+bge-small-zh-v1.5-512+hash-ngram-v1-1024-w33-35"
	if !strings.Contains(out.String(), "reindexed with "+name) {
		t.Fatalf("reindex output %q", out.String())
	}
	ts := startServer(t, nil, append([]string{"-data", data, "-embedder", "use"}, models...)...)
	var h httpapi.HealthResponse
	ts.as("").Do("GET", "/healthz", nil, 200, &h)
	if h.Embedder != name || h.Dim != 2048 || h.EmbedderFallback != "" {
		t.Fatalf("healthz = %+v", h)
	}
	for _, tt := range []struct{ query, want string }{
		// No word in common with s1: only the meaning part can find it.
		{"Do I like spicy food?", "s1"},
		// No character in common with s3: only bge-small-zh can find it.
		{"我在学什么乐器？", "s3"},
	} {
		var p struct {
			Hits []struct {
				MessageID string `json:"message_id"`
			}
		}
		ts.as("qq:1").Do("POST", "/search/semantic", map[string]any{"query_text": tt.query, "top_k": 1}, 200, &p)
		if len(p.Hits) != 1 || p.Hits[0].MessageID != tt.want {
			t.Errorf("paraphrase search %q: %+v, want %s", tt.query, p, tt.want)
		}
	}
}

// TestServeWithoutBGE starts the default embedder with USE-Lite but no
// bge-small-zh: it serves with the composite of earlier versions (so their
// stores open as they are) and says why in /healthz.
func TestServeWithoutBGE(t *testing.T) {
	if _, err := os.Stat(filepath.Join(useModelDir, "model.json")); errors.Is(err, os.ErrNotExist) {
		t.Skipf("model files not found in %s: run scripts/fetch-models.sh (make setup) to test USE-Lite", useModelDir)
	}
	ts := startServer(t, nil, "-embedder", "use", "-embedder-model-dir", useModelDir, "-embedder-zh-model-dir", filepath.Join(t.TempDir(), "none"))
	var h httpapi.HealthResponse
	ts.as("").Do("GET", "/healthz", nil, 200, &h)
	if h.Embedder != "use-lite-v1-512+hash-ngram-v1-1024-w50" || h.Dim != 1536 || !strings.Contains(h.EmbedderFallback, "bge-small-zh not loaded") {
		t.Fatalf("healthz = %+v, want the USE-Lite composite and a note on bge", h)
	}
}
