package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/popbench"
)

// benchCmd runs the multi-tenant benchmark (internal/popbench) and prints
// its report as Markdown (or JSON with -json).
func (a *app) benchCmd(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	flags := popbench.RegisterFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: bench takes no arguments", errUsage)
	}
	log := slog.New(slog.NewTextHandler(a.stderr, nil))
	cfg := flags.Config(log)
	cfg.Dictionary = cmdconfig.Dictionary(config.DefaultConfig().DictionaryDir, log)
	cfg.WordNet = cmdconfig.WordNet(config.DefaultConfig().WordNetDir, log)
	cfg.WordFreq = cmdconfig.WordFreq(config.DefaultConfig().WordFreqDir, log)
	switch *flags.Embedder {
	case "hash":
	case "default":
		emb, fallback, err := cmdconfig.NewEmbedder(ctx, config.DefaultConfig().Embedder, log)
		if err != nil {
			return err
		}
		if fallback != "" {
			return fmt.Errorf("bench -embedder default: %s", fallback)
		}
		cfg.Embedder = emb
	default:
		return fmt.Errorf("%w: -embedder is hash or default, not %q", errUsage, *flags.Embedder)
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
	if *flags.JSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.WriteMarkdown(a.stdout)
}
