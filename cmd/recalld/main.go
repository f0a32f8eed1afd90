// Command recalld is the recalld memory service: `recalld serve` runs the HTTP
// API; import, reindex and version are operator commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/recalld/recalld/ingest"
)

const usage = `recalld: an evidence-backed memory service for chat bots

Usage:
  recalld serve   [flags]        run the HTTP API (default 127.0.0.1:8080, data in ./data)
  recalld import  [flags] FILE   import messages from a JSON Lines file ("-" reads stdin)
  recalld import-undefined -user U FILE|DIR...
                                 migrate an Undefined bot's end_summaries.json and
                                 queue jobs into memos and end-of-turn jobs
  recalld reindex [flags]        rebuild the vector and lexical indexes from the messages
  recalld recall  -user U [-json] [-trace] [-now T] QUESTION
                                 answer a recall question from the command line
  recalld skill new NAME [-dir DIR] [-description TEXT]
                                 scaffold a retrieval skill folder from the template
  recalld skill check DIR        validate a skill folder
  recalld eval --suite FILE [--suite FILE…] [--runners lexical,semantic,hybrid,agent] [--out DIR] [--min-recall F]
                                 score retrieval and the recall agent; report.md/json with SVG plots
  recalld bench [-quick] [-users N] [-heavy N] [-heavy-messages N] [-dir DIR] [-json]
                                 a multi-tenant benchmark: disk, RSS, rates, latencies per class
  recalld mcp -user U [-key K]    serve the memory tools to an MCP client on stdin/stdout
                                 (POST /mcp of serve speaks MCP over HTTP)
  recalld jobs list|show|retry|purge
                                 inspect and replay the historian's job queue
  recalld profiles export|show|revisions|restore -user U
                                 export profiles as Markdown, show or restore one
  recalld version                print the version

Run "recalld COMMAND -h" for the flags of a command. Every flag has an
environment variable (RECALLD_*) and a key in the TOML file given by -config.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &app{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	if err := a.run(ctx, os.Args[1:]); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "recalld:", err)
		}
		os.Exit(exitCode(err))
	}
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

func exitCode(err error) int {
	if errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
		return 2
	}
	return 1
}

// app is one invocation of the command, with its environment injected so that
// tests can run it in-process.
type app struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
	// onListen, if set, is called with the bound address once serve listens.
	onListen func(net.Addr)
	// processor, if set, replaces the offline historian in serve (tests).
	processor ingest.Processor
}

func (a *app) run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, usage)
		return fmt.Errorf("%w: no command", errUsage)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return a.serve(ctx, rest)
	case "import":
		return a.importCmd(ctx, rest)
	case "import-undefined":
		return a.importUndefined(ctx, rest)
	case "reindex":
		return a.reindex(ctx, rest)
	case "recall":
		return a.recallCmd(ctx, rest)
	case "skill":
		return a.skillCmd(ctx, rest)
	case "mcp":
		return a.mcpCmd(ctx, rest)
	case "jobs":
		return a.jobsCmd(ctx, rest)
	case "profiles":
		return a.profilesCmd(ctx, rest)
	case "eval":
		return a.evalCmd(ctx, rest)
	case "bench":
		return a.benchCmd(ctx, rest)
	case "version", "-version", "--version":
		fmt.Fprintln(a.stdout, "recalld", version())
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(a.stdout, usage)
		return nil
	}
	fmt.Fprint(a.stderr, usage)
	return fmt.Errorf("%w: unknown command %q", errUsage, cmd)
}

// subcommand is one command of a command group (jobs, profiles).
type subcommand struct {
	name string
	run  func(context.Context, []string) error
}

// subcommands runs the subcommand args[0] of group cmd, or prints usage:
// to stdout when asked for help, to stderr with a usage error otherwise.
func (a *app) subcommands(ctx context.Context, cmd, usage string, args []string, subs []subcommand) error {
	if len(args) == 0 {
		names := make([]string, len(subs))
		for i, s := range subs {
			names[i] = s.name
		}
		fmt.Fprint(a.stderr, usage)
		return fmt.Errorf("%w: %s needs %s or %s", errUsage, cmd, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	for _, s := range subs {
		if s.name == args[0] {
			return s.run(ctx, args[1:])
		}
	}
	if h := args[0]; h == "help" || h == "-h" || h == "-help" || h == "--help" {
		fmt.Fprint(a.stdout, usage)
		return nil
	}
	fmt.Fprint(a.stderr, usage)
	return fmt.Errorf("%w: unknown %s command %q", errUsage, cmd, args[0])
}

// version is the module version, or the VCS revision of a development build.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := bi.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "dev-" + rev
}
