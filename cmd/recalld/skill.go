package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/skills"
)

var skillNameRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// skillCmd runs `recalld skill new NAME` and `recalld skill check DIR`.
func (a *app) skillCmd(_ context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: skill new NAME [-dir DIR] [-description TEXT] | skill check DIR", errUsage)
	}
	switch args[0] {
	case "new":
		fs := flag.NewFlagSet("recalld skill new", flag.ContinueOnError)
		fs.SetOutput(a.stderr)
		dir := fs.String("dir", "skills", "folder to create the skill in")
		desc := fs.String("description", "", "what the skill recalls and when to use it")
		// The name may come before or after the flags.
		rest := args[1:]
		var name string
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
			name, rest = rest[0], rest[1:]
		}
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if name == "" && fs.NArg() == 1 {
			name = fs.Arg(0)
		}
		if !skillNameRE.MatchString(name) || len(name) > 64 {
			return fmt.Errorf("%w: skill name %q: lowercase letters, digits and hyphens", errUsage, name)
		}
		if *desc == "" {
			*desc = fmt.Sprintf("Recall %s from the user's history with evidence. Describe here what it recalls and when a bot should use it.", strings.ReplaceAll(name, "-", " "))
		}
		out := filepath.Join(*dir, name)
		if _, err := os.Stat(out); err == nil {
			return fmt.Errorf("%s exists; not overwriting", out)
		}
		if err := scaffoldSkill(out, name, *desc); err != nil {
			return err
		}
		if _, err := agent.LoadSkill(os.DirFS(*dir), name); err != nil {
			return fmt.Errorf("scaffold does not validate: %w", err)
		}
		fmt.Fprintf(a.stdout, "created %s (SKILL.md, params.yaml); edit them, then run `recalld skill check %s`\n", out, out)
		return nil
	case "check":
		if len(args) != 2 {
			return fmt.Errorf("%w: skill check DIR", errUsage)
		}
		dir := filepath.Clean(args[1])
		sk, err := agent.LoadSkill(os.DirFS(filepath.Dir(dir)), filepath.Base(dir))
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "ok: %s: %s\n", sk.Name, sk.Description)
		return nil
	}
	return fmt.Errorf("%w: unknown skill command %q", errUsage, args[0])
}

// scaffoldSkill copies the embedded template to dir, filling in the name and description.
func scaffoldSkill(dir, name, desc string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(skills.FS, skills.Template, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(skills.FS, p)
		if err != nil {
			return err
		}
		text := string(b)
		if path.Base(p) == "SKILL.md" {
			text = strings.Replace(text, "name: NAME", "name: "+name, 1)
			text = strings.Replace(text, "description: DESCRIPTION", "description: "+yamlQuote(desc), 1)
			text = strings.ReplaceAll(text, "# NAME", "# "+name)
		}
		return os.WriteFile(filepath.Join(dir, path.Base(p)), []byte(text), 0o644)
	})
}

func yamlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ").Replace(s) + `"`
}
