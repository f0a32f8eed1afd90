package popbench

import (
	"flag"
	"fmt"
	"log/slog"
)

// Flags are the benchmark's command-line knobs, registered on a FlagSet by
// RegisterFlags; Config turns them into a Config once the set is parsed.
type Flags struct {
	fs                               *flag.FlagSet
	quick                            *bool
	users, heavy, heavyMsgs, lightMx *int
	seed                             *uint64
	queries                          *int
	dir                              *string
	cacheMB, mmapMB                  *int64
	JSON                             *bool
	// CPUProfile is a file for a CPU profile of the measured calls.
	CPUProfile *string
	// Embedder is "hash" (the benchmark's default) or "default" (the
	// embedder recalld serve uses by default); the command builds it.
	Embedder *string
}

// RegisterFlags adds the benchmark's flags to fs.
func RegisterFlags(fs *flag.FlagSet) *Flags {
	p := Default
	return &Flags{
		fs:         fs,
		quick:      fs.Bool("quick", false, fmt.Sprintf("a small population (%d users, %d heavy × %d messages) that runs in a minute or two", Quick.Users, Quick.HeavyUsers, Quick.HeavyMessages)),
		users:      fs.Int("users", p.Users, "users, heavy ones included"),
		heavy:      fs.Int("heavy", p.HeavyUsers, "heavy users"),
		heavyMsgs:  fs.Int("heavy-messages", p.HeavyMessages, "messages of each heavy user"),
		lightMx:    fs.Int("light-max", p.LightMax, "most messages of a light user (their counts are Zipf-distributed over 1..light-max)"),
		seed:       fs.Uint64("seed", p.Seed, "random seed of the population"),
		queries:    fs.Int("queries", 200, "calls of each operation for each class of user"),
		dir:        fs.String("dir", "", "directory of the benchmark's store, kept and reused by a later run with the same population (default: a temporary directory, removed)"),
		cacheMB:    fs.Int64("sqlite-cache-mb", 128, "SQLite page cache of the writer connection, as sqlite_cache_mb"),
		mmapMB:     fs.Int64("sqlite-mmap-mb", 256, "SQLite mmap of recalld.db per connection, as sqlite_mmap_mb (0: none)"),
		JSON:       fs.Bool("json", false, "print the report as JSON"),
		CPUProfile: fs.String("cpuprofile", "", "write a CPU profile of the measured calls (not the build) to this file"),
		Embedder:   fs.String("embedder", "hash", "hash (hashing, 1024-d: the store's own costs) or default (serve's default embedder: USE-Lite + bge-small-zh + hashing from ./models, 2048-d)"),
	}
}

// Config is the benchmark's configuration from the parsed flags: -quick
// starts from the Quick population, and flags given explicitly still win.
// An empty Dir is left for the caller to fill with a temporary directory.
func (f *Flags) Config(log *slog.Logger) Config {
	p := Population{Users: *f.users, HeavyUsers: *f.heavy, HeavyMessages: *f.heavyMsgs, LightMax: *f.lightMx, Seed: *f.seed}
	if *f.quick {
		p = Quick
		f.fs.Visit(func(fl *flag.Flag) {
			switch fl.Name {
			case "users":
				p.Users = *f.users
			case "heavy":
				p.HeavyUsers = *f.heavy
			case "heavy-messages":
				p.HeavyMessages = *f.heavyMsgs
			case "light-max":
				p.LightMax = *f.lightMx
			case "seed":
				p.Seed = *f.seed
			}
		})
	}
	cfg := Config{Population: p, Dir: *f.dir, Queries: *f.queries, CacheBytes: *f.cacheMB << 20, MmapBytes: *f.mmapMB << 20, CPUProfile: *f.CPUProfile, Logger: log}
	if *f.mmapMB == 0 {
		cfg.MmapBytes = -1 // storage: none
	}
	return cfg
}
