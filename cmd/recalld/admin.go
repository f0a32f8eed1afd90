package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/storage"
)

// importBatch is how many lines of one user go into one transaction.
const importBatch = 500

func (a *app) progress(max int64, desc string) *progressbar.ProgressBar {
	return progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionThrottle(200*time.Millisecond),
		// The spinner's ticker goroutine reads the bar unlocked (a data race in
		// progressbar v3.19.1); render on updates only.
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(a.stderr) }),
	)
}

// importCmd loads messages from a JSON Lines file: one message object per
// line, in the POST /messages shape plus user_id (or -user for lines without
// one). Re-running it is a no-op for lines already stored.
func (a *app) importCmd(ctx context.Context, args []string) error {
	var user string
	cfg, rest, err := config.Load("import", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&user, "user", "", "user_id for lines that have none")
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: import takes one FILE (or - for stdin)", errUsage)
	}
	if user != "" {
		if err := httpapi.CheckUserID(user); err != nil {
			return fmt.Errorf("-user: %s", err.(*httpapi.Error).Message)
		}
	}
	var (
		in   io.Reader = a.stdin
		size int64     = -1
	)
	if rest[0] != "-" {
		f, err := os.Open(rest[0])
		if err != nil {
			return err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		in = f
	}
	store, _, err := cmdconfig.OpenStore(ctx, cfg, config.NewLogger(cfg, a.stderr), false)
	if err != nil {
		return err
	}
	defer store.Close()

	bar := a.progress(size, "importing")
	r := bufio.NewReaderSize(io.TeeReader(in, bar), 1<<20)
	pending := map[string][]storage.Message{}
	lines := map[string][]int{} // the line of each pending message
	var total storage.InsertResult
	flush := func(u string) error {
		res, err := store.Insert(ctx, u, pending[u])
		if err != nil {
			ls := lines[u]
			return fmt.Errorf("lines %d..%d (user %q, stored up to the batch before): %w", ls[0], ls[len(ls)-1], u, err)
		}
		total.Inserted += res.Inserted
		total.Duplicate += res.Duplicate
		delete(pending, u)
		delete(lines, u)
		return nil
	}
	for line := 1; ; line++ {
		b, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			m, u, perr := httpapi.DecodeMessageLine(b, user)
			if perr != nil {
				return fmt.Errorf("line %d: %w", line, perr)
			}
			pending[u] = append(pending[u], m)
			lines[u] = append(lines[u], line)
			if len(pending[u]) >= importBatch {
				if err := flush(u); err != nil {
					return err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read line %d: %w", line, err)
		}
	}
	for u := range pending {
		if err := flush(u); err != nil {
			return err
		}
	}
	_ = bar.Finish()
	fmt.Fprintf(a.stdout, "imported %d messages (%d already present)\n", total.Inserted, total.Duplicate)
	return a.drain(ctx, store)
}

// drain indexes the outbox with a progress bar.
func (a *app) drain(ctx context.Context, store *storage.Store) error {
	st, err := store.Status(ctx)
	if err != nil || st.Pending == 0 {
		return err
	}
	return a.withProgress(int64(st.Pending), "indexing", func(p func(done, left int)) error { return store.Drain(ctx, p) })
}

// withProgress runs fn with a progress bar that fn's done/left callback moves.
func (a *app) withProgress(max int64, desc string, fn func(progress func(done, left int)) error) error {
	bar := a.progress(max, desc)
	err := fn(func(done, left int) {
		bar.ChangeMax(done + left)
		_ = bar.Set(done)
	})
	_ = bar.Finish()
	return err
}

// reindex rebuilds the derived indexes with the configured embedder, for
// example after changing it.
func (a *app) reindex(ctx context.Context, args []string) error {
	cfg, rest, err := config.Load("reindex", args, a.getenv, a.stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: reindex takes no arguments", errUsage)
	}
	store, _, err := cmdconfig.OpenStore(ctx, cfg, config.NewLogger(cfg, a.stderr), true)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := a.withProgress(-1, "reindexing", func(p func(done, left int)) error { return store.Reindex(ctx, p) }); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "reindexed with %s\n", store.EmbedderName())
	return nil
}
