package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
)

// recallCmd answers one question from the command line.
func (a *app) recallCmd(ctx context.Context, args []string) error {
	var (
		user, now    string
		asJSON, tr   bool
		sinceS, till string
	)
	cfg, rest, err := config.Load("recall", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "the user whose memory to search (required)")
		fs.StringVar(&now, "now", "", "the clock for relative times (RFC 3339)")
		fs.StringVar(&sinceS, "since", "", "search messages at or after this time (RFC 3339)")
		fs.StringVar(&till, "until", "", "search messages before this time (RFC 3339)")
		fs.BoolVar(&asJSON, "json", false, "print the raw answer as JSON")
		fs.BoolVar(&tr, "trace", false, "include the agent's steps")
	})
	if err != nil {
		return err
	}
	if user == "" || len(rest) == 0 {
		return fmt.Errorf("%w: recall needs -user and a question", errUsage)
	}
	log := config.NewLogger(cfg, a.stderr)
	store, _, err := cmdconfig.OpenStore(ctx, cfg, log, false)
	if err != nil {
		return err
	}
	defer store.Close()
	ag, err := cmdconfig.NewAgent(store, log, cfg)
	if err != nil {
		return err
	}
	req := agent.Request{Question: strings.Join(rest, " "), Context: agent.RequestContext{Now: now}, Options: agent.Options{Trace: tr}}
	if sinceS != "" || till != "" {
		req.Context.TimeRange = &agent.TimeRange{Since: sinceS, Until: till}
	}
	resp, err := ag.Recall(ctx, user, req)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(resp)
	}
	printRecall(a.stdout, resp)
	return nil
}

// printRecall writes the view for people: items, quoted evidence with dates, limits.
func printRecall(w io.Writer, r *agent.Response) {
	fmt.Fprintln(w, r.Answer)
	for _, sec := range []struct {
		name  string
		items []agent.Item
	}{{"Preferences", r.MemoryView.Preferences}, {"Profile", r.MemoryView.Profile}, {"Constraints", r.MemoryView.Constraints}} {
		if len(sec.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", sec.name)
		for _, it := range sec.items {
			fmt.Fprintf(w, "  - %s [%s, as of %s] ← %s\n", it.Statement, it.Status, it.AsOf.Format("2006-01-02"), strings.Join(it.EvidenceIDs, ", "))
		}
	}
	if len(r.Evidence) > 0 {
		fmt.Fprintln(w, "\nEvidence:")
		for _, e := range r.Evidence {
			cut := ""
			if e.Cut {
				cut = " …(cut)"
			}
			fmt.Fprintf(w, "  [%s] %s %s (%s): %q%s\n", e.MessageID, e.CreatedAt.Format("2006-01-02 15:04"), e.SenderName, e.Role, e.Content, cut)
		}
	}
	for _, c := range r.Conflicts {
		fmt.Fprintf(w, "\nConflict on %s (%s): kept %s over %s\n", c.Topic, c.Reason, strings.Join(c.Kept, ", "), strings.Join(c.Superseded, ", "))
	}
	l := r.Limits
	fmt.Fprintf(w, "\nLimits: role %s, %d messages considered, %d tool calls in %d rounds, stopped: %s, brain %s\n",
		l.Role, l.MessagesConsidered, l.ToolsCalled, l.Rounds, l.StopReason, l.Brain)
	if l.TimeRange.Since != "" || l.TimeRange.Until != "" {
		fmt.Fprintf(w, "  time range: %s – %s\n", l.TimeRange.Since, l.TimeRange.Until)
	}
	for _, n := range l.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	for _, s := range r.Trace {
		fmt.Fprintf(w, "  trace %d %s %s hits=%d %s\n", s.Round, s.Phase, s.Tool, s.Hits, s.Decision)
	}
}
