package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/internal/mcpapi"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// mcpCmd serves the MCP tools on stdin/stdout for the one user named at start.
func (a *app) mcpCmd(ctx context.Context, args []string) error {
	var user, key string
	cfg, rest, err := config.Load("mcp", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", a.getenv("RECALLD_MCP_USER"), "the user every tool acts for (env RECALLD_MCP_USER; required)")
		fs.StringVar(&key, "key", a.getenv("RECALLD_MCP_KEY"), "an API key that may act for -user; required when api_keys are configured (env RECALLD_MCP_KEY)")
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: mcp takes no arguments, got %q", errUsage, rest)
	}
	if user == "" {
		return fmt.Errorf("%w: mcp needs -user (or RECALLD_MCP_USER)", errUsage)
	}
	if err := httpapi.Authorize(cfg, key, user); err != nil {
		return fmt.Errorf("mcp -user %q: %s", user, err.(*httpapi.Error).Message) // Authorize returns *httpapi.Error
	}
	log := config.NewLogger(cfg, a.stderr)
	store, _, err := cmdconfig.OpenStore(ctx, cfg, log, false)
	if errors.Is(err, storage.ErrLocked) {
		return fmt.Errorf("%w: stop the recalld that holds %s, or point the MCP client at its POST /mcp", err, cfg.DataDir)
	}
	if err != nil {
		return err
	}
	ag, err := cmdconfig.NewAgent(store, log, cfg)
	if err != nil {
		return errors.Join(err, store.Close())
	}
	tools := mcpapi.New(mcpapi.Config{Tools: cmdconfig.NewQueryService(store, cfg), Agent: ag, Log: log,
		Events:  func() queryapi.EventSearchConfig { return cfg.Cognitive.Query.Events() },
		Timeout: cfg.RequestTimeout.Duration, Version: version()})
	log.Info("serving MCP on stdio", "version", version(), "user", user, "data_dir", cfg.DataDir)
	err = tools.ServeStdio(ctx, user, a.stdin, a.stdout)
	return errors.Join(err, store.Close())
}
