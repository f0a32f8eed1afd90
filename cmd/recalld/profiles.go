package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/recalld/recalld/internal/config"
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
	if len(args) == 0 {
		fmt.Fprint(a.stderr, profilesUsage)
		return fmt.Errorf("%w: profiles needs export, show, revisions or restore", errUsage)
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "export":
		return a.profilesExport(ctx, rest)
	case "show", "revisions", "restore":
		return a.profileOne(ctx, sub, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(a.stdout, profilesUsage)
		return nil
	}
	fmt.Fprint(a.stderr, profilesUsage)
	return fmt.Errorf("%w: unknown profiles command %q", errUsage, sub)
}

// profileFrontMatter is the YAML front matter of an exported profile.
type profileFrontMatter struct {
	EntityType string          `yaml:"entity_type"`
	EntityID   string          `yaml:"entity_id"`
	Name       string          `yaml:"name,omitempty"`
	Tags       []string        `yaml:"tags"`
	Revision   int             `yaml:"revision"`
	UpdatedAt  time.Time       `yaml:"updated_at"`
	Traits     []exportedTrait `yaml:"traits"`
}

type exportedTrait struct {
	Category  string    `yaml:"category"`
	Slot      string    `yaml:"slot"`
	Value     string    `yaml:"value"`
	Polarity  string    `yaml:"polarity,omitempty"`
	Lang      string    `yaml:"lang,omitempty"`
	FirstSeen time.Time `yaml:"first_seen"`
	LastSeen  time.Time `yaml:"last_seen"`
	Source    string    `yaml:"source_event_id,omitempty"`
}

// profileMarkdown renders p as Markdown with YAML front matter: the front
// matter holds the data, the body the summary and the traits for reading.
func profileMarkdown(p storage.Profile) ([]byte, error) {
	fm := profileFrontMatter{EntityType: p.EntityType, EntityID: p.EntityID, Name: p.Name, Tags: p.Tags,
		Revision: p.Revision, UpdatedAt: p.UpdatedAt, Traits: []exportedTrait{}}
	for _, t := range p.Traits {
		fm.Traits = append(fm.Traits, exportedTrait{Category: t.Category, Slot: t.Slot, Value: t.Value, Polarity: t.Polarity,
			Lang: t.Lang, FirstSeen: t.FirstSeen, LastSeen: t.LastSeen, Source: t.SourceEventID})
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	b.WriteString("---\n\n")
	title := p.Name
	if title == "" {
		title = p.EntityID
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	if p.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", p.Summary)
	}
	if len(p.Traits) > 0 {
		b.WriteString("## Traits\n\n")
		for _, t := range p.Traits {
			pol := ""
			if t.Polarity == storage.PolarityNegative {
				pol = " (not)"
			}
			fmt.Fprintf(&b, "- **%s**: %s%s (since %s)\n", t.Category, t.Value, pol, t.FirstSeen.Format(time.DateOnly))
		}
	}
	return b.Bytes(), nil
}

// exportName is a file name for an entity id: the id when it is safe, else
// the id with unsafe characters replaced and a short hash of it.
func exportName(id string) string {
	safe := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
	if safe == id && !strings.HasPrefix(id, ".") {
		return id + ".md"
	}
	sum := sha256.Sum256([]byte(id))
	return safe + "-" + hex.EncodeToString(sum[:4]) + ".md"
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
	store, err := openQueue(ctx, cfg, config.NewLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	ps, err := store.ListProfiles(ctx, user, typ, storage.MaxProfileList)
	if err != nil {
		return err
	}
	for _, p := range ps {
		b, err := profileMarkdown(p)
		if err != nil {
			return fmt.Errorf("profile %s/%s: %w", p.EntityType, p.EntityID, err)
		}
		dir := filepath.Join(out, p.EntityType)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, exportName(p.EntityID)), b, 0o644); err != nil {
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
	store, err := openQueue(ctx, cfg, config.NewLogger(cfg, a.stderr))
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
		b, err := profileMarkdown(p)
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
	if errors.Is(err, storage.ErrNotFound) && !strings.Contains(err.Error(), "revision") {
		return fmt.Errorf("no %s profile %s", typ, id)
	}
	return err
}
