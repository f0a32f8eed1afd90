package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/profilemd"
	"github.com/recalld/recalld/storage"
)

const profilesUsage = `Usage:
  recalld profiles export    -user U [-out DIR] [-type user|group]
  recalld profiles show      -user U TYPE ID
  recalld profiles revisions -user U TYPE ID
  recalld profiles restore   -user U TYPE ID REVISION

export writes one Markdown file with YAML front matter per profile of user U
(the memory owner) to DIR/TYPE/ID.md (default DIR: profiles). TYPE is user
or group. The commands work on the database beside a running server.
`

// profilesCmd exports, shows and restores the historian's profiles.
func (a *app) profilesCmd(ctx context.Context, args []string) error {
	one := func(sub string) subcommand {
		return subcommand{sub, func(ctx context.Context, args []string) error { return a.profileOne(ctx, sub, args) }}
	}
	return a.subcommands(ctx, "profiles", profilesUsage, args, []subcommand{
		{"export", a.profilesExport}, one("show"), one("revisions"), one("restore")})
}

func (a *app) profilesExport(ctx context.Context, args []string) error {
	var user, out, typ string
	cfg, rest, err := config.Load("profiles export", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "the memory owner whose profiles to export (required)")
		fs.StringVar(&out, "out", "profiles", "directory to write to")
		fs.StringVar(&typ, "type", "", "only user or only group profiles")
	})
	if err != nil {
		return err
	}
	if user == "" || len(rest) > 0 {
		return fmt.Errorf("%w: profiles export takes -user U and no arguments", errUsage)
	}
	store, err := cmdconfig.OpenQueue(ctx, cfg, config.NewLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	ps, err := store.ListProfiles(ctx, user, typ, storage.MaxProfileList)
	if err != nil {
		return err
	}
	for _, p := range ps {
		b, err := profilemd.Encode(p)
		if err != nil {
			return fmt.Errorf("profile %s/%s: %w", p.EntityType, p.EntityID, err)
		}
		dir := filepath.Join(out, p.EntityType)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, profilemd.FileName(p.EntityID)), b, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stdout, "exported %d profiles to %s\n", len(ps), out)
	return nil
}

// profileOne runs show, revisions or restore on one profile.
func (a *app) profileOne(ctx context.Context, sub string, args []string) error {
	var user string
	cfg, rest, err := config.Load("profiles "+sub, args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "the memory owner (required)")
	})
	if err != nil {
		return err
	}
	want := 2
	if sub == "restore" {
		want = 3
	}
	if user == "" || len(rest) != want {
		return fmt.Errorf("%w: profiles %s takes -user U, TYPE and ID%s", errUsage, sub, map[bool]string{true: " and REVISION"}[want == 3])
	}
	typ, id := rest[0], rest[1]
	store, err := cmdconfig.OpenQueue(ctx, cfg, config.NewLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	var v any
	switch sub {
	case "show":
		p, err := store.GetProfile(ctx, user, typ, id)
		if err != nil {
			return profileErr(err, typ, id)
		}
		b, err := profilemd.Encode(p)
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(b)
		return err
	case "revisions":
		v, err = store.ProfileRevisions(ctx, user, typ, id)
	case "restore":
		rev, perr := strconv.Atoi(rest[2])
		if perr != nil {
			return fmt.Errorf("%w: revision %q is not a number", errUsage, rest[2])
		}
		v, err = store.RestoreProfile(ctx, user, typ, id, rev)
	}
	if err != nil {
		return profileErr(err, typ, id)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", b)
	return err
}

func profileErr(err error, typ, id string) error {
	var named *storage.Error // a missing revision, which names itself
	if errors.Is(err, storage.ErrNotFound) && !errors.As(err, &named) {
		return fmt.Errorf("no %s profile %s", typ, id)
	}
	return err
}
