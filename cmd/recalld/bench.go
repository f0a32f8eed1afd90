package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/recalld/recalld/internal/popbench"
)

// benchCmd runs the multi-tenant benchmark (internal/popbench) and prints
// its report as Markdown (or JSON with -json).
func (a *app) benchCmd(ctx context.Context, args []string) error {
	p := popbench.Default
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	quick := fs.Bool("quick", false, fmt.Sprintf("a small population (%d users, %d heavy × %d messages) that runs in a minute or two", popbench.Quick.Users, popbench.Quick.HeavyUsers, popbench.Quick.HeavyMessages))
	users := fs.Int("users", p.Users, "users, heavy ones included")
	heavy := fs.Int("heavy", p.HeavyUsers, "heavy users")
	heavyMsgs := fs.Int("heavy-messages", p.HeavyMessages, "messages of each heavy user")
	lightMax := fs.Int("light-max", p.LightMax, "most messages of a light user (their counts are Zipf-distributed over 1..light-max)")
	seed := fs.Uint64("seed", p.Seed, "random seed of the population")
	queries := fs.Int("queries", 200, "calls of each operation for each class of user")
	dir := fs.String("dir", "", "directory of the benchmark's store, kept and reused by a later run with the same population (default: a temporary directory, removed)")
	cacheMB := fs.Int64("sqlite-cache-mb", 128, "SQLite page cache of the writer connection, as sqlite_cache_mb")
	mmapMB := fs.Int64("sqlite-mmap-mb", 256, "SQLite mmap of recalld.db per connection, as sqlite_mmap_mb (0: none)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: bench takes no arguments", errUsage)
	}
	if *quick {
		p = popbench.Quick
		fs.Visit(func(f *flag.Flag) { // explicit flags still win
			switch f.Name {
			case "users":
				p.Users = *users
			case "heavy":
				p.HeavyUsers = *heavy
			case "heavy-messages":
				p.HeavyMessages = *heavyMsgs
			case "light-max":
				p.LightMax = *lightMax
			case "seed":
				p.Seed = *seed
			}
		})
	} else {
		p = popbench.Population{Users: *users, HeavyUsers: *heavy, HeavyMessages: *heavyMsgs, LightMax: *lightMax, Seed: *seed}
	}
	cfg := popbench.Config{Population: p, Dir: *dir, Queries: *queries, CacheBytes: *cacheMB << 20, MmapBytes: *mmapMB << 20,
		Logger: slog.New(slog.NewTextHandler(a.stderr, nil))}
	if *mmapMB == 0 {
		cfg.MmapBytes = -1 // storage: none
	}
	if cfg.Dir == "" {
		tmp, err := os.MkdirTemp("", "recalld-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		cfg.Dir = tmp
	}
	rep, err := popbench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteMarkdown(a.stdout)
}
