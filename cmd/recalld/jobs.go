package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/storage"
)

const jobsUsage = `Usage:
  recalld jobs list  [-state pending|processing|done|failed] [-user U] [-limit N] [-json]
  recalld jobs show  ID
  recalld jobs retry [-user U] ID... | -all-failed [-user U]
  recalld jobs purge [-state failed|done] [-older-than DURATION] [-keep N]

The commands open the queue beside a running server; they never touch the
search indexes. purge defaults to [cognitive.queue] failed_max_age and
failed_max_count.
`

// jobsCmd inspects and replays the historian's job queue.
func (a *app) jobsCmd(ctx context.Context, args []string) error {
	return a.subcommands(ctx, "jobs", jobsUsage, args, []subcommand{
		{"list", a.jobsList}, {"show", a.jobsShow}, {"retry", a.jobsRetry}, {"purge", a.jobsPurge}})
}

func (a *app) jobsList(ctx context.Context, args []string) error {
	var (
		f      = storage.JobFilter{Limit: 50}
		asJSON bool
	)
	cfg, rest, err := config.Load("jobs list", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&f.State, "state", "", "only jobs in this state")
		fs.StringVar(&f.UserID, "user", "", "only this user's jobs")
		fs.IntVar(&f.Limit, "limit", f.Limit, "most jobs to list, newest first")
		fs.BoolVar(&asJSON, "json", false, "print one JSON object per job")
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: jobs list takes no arguments", errUsage)
	}
	store, err := cmdconfig.OpenQueue(ctx, cfg, config.NewLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	jobs, err := store.ListJobs(ctx, f)
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(a.stdout)
		for _, j := range jobs {
			if err := enc.Encode(j); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUSER\tSTATE\tATTEMPTS\tUPDATED\tERROR")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", j.ID, j.UserID, j.State, j.Attempts,
			j.UpdatedAt.Local().Format(time.DateTime), oneLine(j.Error, 80))
	}
	return tw.Flush()
}

// oneLine is the first line of s, cut to max characters.
func oneLine(s string, max int) string {
	s, _, cut := strings.Cut(s, "\n")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	} else if cut {
		return s + " …"
	}
	return s
}

func (a *app) jobsShow(ctx context.Context, args []string) error {
	cfg, rest, err := config.Load("jobs show", args, a.getenv, a.stderr)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: jobs show takes one job id", errUsage)
	}
	store, err := cmdconfig.OpenQueue(ctx, cfg, config.NewLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	j, err := store.GetJob(ctx, "", rest[0])
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("no job %s", rest[0])
	}
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", b)
	return err
}

func (a *app) jobsRetry(ctx context.Context, args []string) error {
	var (
		user      string
		allFailed bool
	)
	cfg, ids, err := config.Load("jobs retry", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "only this user's jobs")
		fs.BoolVar(&allFailed, "all-failed", false, "retry every failed job (of -user, if given)")
	})
	if err != nil {
		return err
	}
	if allFailed == (len(ids) > 0) {
		return fmt.Errorf("%w: jobs retry takes job ids or -all-failed", errUsage)
	}
	store, err := cmdconfig.OpenQueue(ctx, cfg, config.NewLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	if allFailed {
		// Page through the failed jobs; a job that fails again meanwhile is
		// not retried twice.
		seen := map[string]bool{}
		for {
			jobs, err := store.ListJobs(ctx, storage.JobFilter{UserID: user, State: storage.JobFailed, Limit: storage.MaxJobList})
			if err != nil {
				return err
			}
			fresh := 0
			for _, j := range jobs {
				if seen[j.ID] {
					continue
				}
				seen[j.ID], fresh = true, fresh+1
				if _, err := store.RetryJob(ctx, user, j.ID); err != nil && !errors.Is(err, storage.ErrJobState) {
					return err
				}
			}
			if fresh == 0 {
				break
			}
		}
		fmt.Fprintf(a.stdout, "retried %d failed jobs\n", len(seen))
		return nil
	}
	var errs []error
	for _, id := range ids {
		if _, err := store.RetryJob(ctx, user, id); err != nil {
			if errors.Is(err, storage.ErrNotFound) {
				err = fmt.Errorf("no job %s", id)
			}
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(a.stdout, "retried %s\n", id)
	}
	return errors.Join(errs...)
}

func (a *app) jobsPurge(ctx context.Context, args []string) error {
	def := config.DefaultConfig().Cognitive.Queue
	var (
		state     string
		olderThan = config.Duration{Duration: -1}
		keep      int
	)
	cfg, rest, err := config.Load("jobs purge", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&state, "state", storage.JobFailed, "failed or done")
		fs.Var(&olderThan, "older-than", fmt.Sprintf("delete jobs last updated longer ago (default failed_max_age, %s)", def.FailedMaxAge))
		fs.IntVar(&keep, "keep", -1, fmt.Sprintf("keep at most this many, newest first (default failed_max_count, %d)", def.FailedMaxCount))
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: jobs purge takes no arguments", errUsage)
	}
	if olderThan.Duration < 0 {
		olderThan = cfg.Cognitive.Queue.FailedMaxAge
	}
	if keep < 0 {
		keep = cfg.Cognitive.Queue.FailedMaxCount
	}
	store, err := cmdconfig.OpenQueue(ctx, cfg, config.NewLogger(cfg, a.stderr))
	if err != nil {
		return err
	}
	defer store.Close()
	n, err := store.PurgeJobs(ctx, storage.JobPurge{State: state, OlderThan: olderThan.Duration, Keep: keep})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "purged %d %s jobs\n", n, state)
	return nil
}
