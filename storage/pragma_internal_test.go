package storage

import "testing"

// TestMemoryPragmas: the writer's page cache and mmap follow the config,
// with bounded defaults, so that SQLite's share of the RSS is known.
func TestMemoryPragmas(t *testing.T) {
	for _, tc := range []struct {
		name              string
		cfg               Config
		wantCache, wantMm int64
	}{
		{"defaults", Config{}, -(128 << 10), 256 << 20},
		{"set", Config{CacheBytes: 16 << 20, MmapBytes: 64 << 20}, -(16 << 10), 64 << 20},
		{"no mmap", Config{MmapBytes: -1}, -(128 << 10), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Dir, cfg.NoIndexer = t.TempDir(), true
			s, err := Open(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var cache, mm int64
			if err := s.w.QueryRowContext(t.Context(), `PRAGMA cache_size`).Scan(&cache); err != nil {
				t.Fatal(err)
			}
			if err := s.w.QueryRowContext(t.Context(), `PRAGMA mmap_size`).Scan(&mm); err != nil {
				t.Fatal(err)
			}
			if cache != tc.wantCache || mm != tc.wantMm {
				t.Errorf("cache_size %d, mmap_size %d; want %d, %d", cache, mm, tc.wantCache, tc.wantMm)
			}
		})
	}
}
