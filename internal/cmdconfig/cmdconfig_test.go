package cmdconfig

import (
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
