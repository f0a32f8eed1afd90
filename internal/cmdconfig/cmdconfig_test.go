package cmdconfig

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recalld/recalld/internal/config"
)

func TestStorageMemory(t *testing.T) {
	for _, tc := range []struct {
		cacheMB, mmapMB, wantCache, wantMmap int64
	}{{128, 256, 128 << 20, 256 << 20}, {16, 0, 16 << 20, -1}} {
		cfg := config.DefaultConfig()
		cfg.SQLiteCacheMB, cfg.SQLiteMmapMB = tc.cacheMB, tc.mmapMB
		if c, m := storageMemory(cfg); c != tc.wantCache || m != tc.wantMmap {
			t.Errorf("storageMemory(%d MB, %d MB) = %d, %d; want %d, %d", tc.cacheMB, tc.mmapMB, c, m, tc.wantCache, tc.wantMmap)
		}
	}
}

// TestNewEmbedderFallbacks checks that missing model files never fail the
// embedder: without e5 the composite takes USE-Lite and says why, without
// USE-Lite as well it is hashing alone.
func TestNewEmbedderFallbacks(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	missing := t.TempDir()
	for _, tc := range []struct {
		name         string
		useDir       string
		wantPrefix   string
		wantFallback string
	}{
		{"e5 missing", "../../models/use-lite", "use-lite", "e5-small-v2 not loaded, USE-Lite instead"},
		{"e5 and USE-Lite missing", missing, "hash-ngram", "USE-Lite not loaded, hashing only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.useDir != missing {
				if _, err := os.Stat(filepath.Join(tc.useDir, "model.json")); err != nil {
					t.Skipf("USE-Lite not installed in %s (make setup)", tc.useDir)
				}
			}
			cfg := config.DefaultConfig().Embedder
			cfg.EnModel, cfg.E5ModelDir, cfg.ModelDir, cfg.ZhWeight = "e5", missing, tc.useDir, 0
			emb, fallback, err := NewEmbedder(t.Context(), cfg, log)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(emb.Name(), tc.wantPrefix) {
				t.Errorf("embedder %q, want one starting with %q", emb.Name(), tc.wantPrefix)
			}
			if !strings.Contains(fallback, tc.wantFallback) {
				t.Errorf("fallback %q, want it to say %q", fallback, tc.wantFallback)
			}
		})
	}
}

// TestNewEmbedderE5 checks that en_model e5 puts e5-small-v2, on Latin
// texts only, in the composite when its files are installed.
func TestNewEmbedderE5(t *testing.T) {
	dir := "../../models/e5-small-v2"
	if _, err := os.Stat(filepath.Join(dir, "e5-small-v2-q.onnx")); err != nil {
		t.Skipf("e5-small-v2 not installed in %s (make setup)", dir)
	}
	cfg := config.DefaultConfig().Embedder
	cfg.EnModel, cfg.E5ModelDir, cfg.ZhWeight = "e5", dir, 0
	emb, fallback, err := NewEmbedder(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(emb.Name(), "e5-small-v2-384-latin+hash-ngram") || fallback != "" {
		t.Errorf("embedder %q (fallback %q), want e5-small-v2-384-latin with hashing", emb.Name(), fallback)
	}
}

// TestNewEmbedderMultilingual: a positive multilingual_weight puts
// multilingual-e5-small (centered) last in the composite when its file is
// installed, and says why it is left out when not.
func TestNewEmbedderMultilingual(t *testing.T) {
	for _, f := range []string{"../../models/use-lite/model.json", "../../models/multilingual-e5-small/e5-small-q4.bin"} {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s not installed (make setup)", f)
		}
	}
	cfg := config.DefaultConfig().Embedder
	cfg.ModelDir, cfg.ZhWeight, cfg.MultilingualWeight = "../../models/use-lite", 0, 0.2
	cfg.MultilingualModelDir = "../../models/multilingual-e5-small"
	emb, fallback, err := NewEmbedder(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(emb.Name(), "+multilingual-e5-small-c") || !strings.HasSuffix(emb.Name(), "-w40-20") || fallback != "" {
		t.Errorf("embedder %q (fallback %q), want USE-Lite, multilingual-e5-small and hashing at 40/20", emb.Name(), fallback)
	}
	cfg.MultilingualModelDir = t.TempDir()
	emb, fallback, err = NewEmbedder(t.Context(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(emb.Name(), "multilingual") || !strings.Contains(fallback, "multilingual-e5-small not loaded") {
		t.Errorf("embedder %q (fallback %q), want it without the multilingual part, saying so", emb.Name(), fallback)
	}
}
