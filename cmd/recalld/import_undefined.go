package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/storage"
)

const importUndefinedUsage = `Usage:
  recalld import-undefined -user U [-at TIME] [-tz ZONE] FILE|DIR...

Migrates the memory of an Undefined bot (github.com/69gg/Undefined) into
recalld, for user U (the X-Recall-User the bot will use):

  data/end_summaries.json        a JSON array of end summaries, each either a
                                 bare string (the oldest format) or
                                 {"summary", "timestamp", "location": {"type":
                                 "private"|"group", "name"}}: each becomes a memo
  data/cognitive/queues/*/…json  jobs of its cognitive queue (one JSON object
                                 each, or a directory of them): memo (or
                                 action_summary), observations (or new_info),
                                 group_id, sender_id, sender_name, request_type,
                                 timestamp_utc, source_message, recent_messages…

A record with observations is queued as an ended turn (with its memo), and
the historian of a running or later "recalld serve" turns the observations
into events as usual; a record with only a memo stores the memo. Each record
gets a request id from its content ("undefined:…"), so running the import
again stores nothing twice. A summary repeating the memo of a queue job given
in the same run (same text, within two minutes) is the same turn and is
skipped. Bare strings have no time: they are dated -at (default: the file's
modification time); timestamps without a UTC offset are read in -tz. A record
that cannot be imported is reported with its file and index, and the others
are imported; the exit status is then 1.

Flags:
`

// importUndefined migrates Undefined's end summaries and queue jobs.
func (a *app) importUndefined(ctx context.Context, args []string) error {
	var user, at, tz string
	cfg, rest, err := config.Load("import-undefined", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "the recalld user to import into (required)")
		fs.StringVar(&at, "at", "", "RFC 3339 time of records without one (default: the file's modification time)")
		fs.StringVar(&tz, "tz", "", "time zone of timestamps without an offset (default: [cognitive.historian] timezone)")
		fs.Usage = func() {
			fmt.Fprint(fs.Output(), importUndefinedUsage)
			fs.PrintDefaults()
		}
	})
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		fmt.Fprint(a.stderr, importUndefinedUsage)
		return fmt.Errorf("%w: import-undefined takes one or more FILEs or DIRs", errUsage)
	}
	if user == "" {
		return fmt.Errorf("%w: -user is required", errUsage)
	}
	if err := httpapi.CheckUserID(user); err != nil {
		return fmt.Errorf("-user: %s", err.(*httpapi.Error).Message)
	}
	var defaultAt time.Time
	if at != "" {
		if defaultAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return fmt.Errorf("%w: -at %q is not an RFC 3339 time", errUsage, at)
		}
	}
	loc, err := time.LoadLocation(cmp.Or(tz, cfg.Cognitive.Historian.TimeZone))
	if err != nil {
		return fmt.Errorf("-tz: %w", err)
	}
	turns, err := ingest.ReadUndefinedPaths(rest, ingest.LegacyOptions{DefaultTime: defaultAt, Location: loc})
	if err != nil {
		return err
	}
	turns, merged := ingest.MergeUndefined(turns)

	store, err := storage.OpenQueue(ctx, storage.QueueConfig{Dir: cfg.DataDir, Logger: config.NewLogger(cfg, a.stderr)})
	if err != nil {
		return err
	}
	defer store.Close()
	q := ingest.NewQueue(store)

	var memos, queued, present, failed int
	var errs []string
	bar := a.progress(int64(len(turns)), "importing")
	for _, lt := range turns {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err := lt.Err
		if err == nil {
			var r ingest.Receipt
			r, err = q.Import(ctx, user, lt.Turn)
			switch {
			case err != nil:
			case r.Duplicate:
				present++
			case r.Queued:
				queued++
			default:
				memos++
			}
		}
		if err != nil {
			failed++
			errs = append(errs, fmt.Sprintf("%s: %s", lt.Source, importErrorText(err)))
		}
		_ = bar.Add(1)
	}
	_ = bar.Finish()
	for _, e := range errs {
		fmt.Fprintln(a.stderr, e)
	}
	fmt.Fprintf(a.stdout, "imported %d memos and %d turns for the historian; %d already present, %d merged into queue jobs, %d failed\n",
		memos, queued, present, merged, failed)
	if failed > 0 {
		return fmt.Errorf("%d of %d records were not imported (listed above)", failed, len(turns))
	}
	return nil
}

// importErrorText is what was wrong with a record: an invalid turn's or
// argument's message, else err's text.
func importErrorText(err error) string {
	if turnErr := new(ingest.InvalidTurnError); errors.As(err, &turnErr) {
		return turnErr.Msg
	} else if storeErr := new(storage.Error); errors.As(err, &storeErr) && errors.Is(storeErr, storage.ErrInvalid) {
		return storeErr.Msg
	}
	return err.Error()
}
