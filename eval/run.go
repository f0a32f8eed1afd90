package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/recalld/recalld/internal/embed"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// Config configures Run.
type Config struct {
	// Suites are suite files: the project's fixture format or LoCoMo.
	Suites []string
	// Runners are names of built-in runners (BuiltinRunners). When both
	// Runners and Extra are empty, all built-in runners run.
	Runners []string
	// Extra are more runners, asked after the built-in ones (the agent).
	Extra []Runner
	// OutDir receives report.json, report.md and the SVG plots; "" writes nothing.
	OutDir string
	// DataDir is where a fresh store is made for each suite and removed
	// afterwards; "" means the system's temporary directory.
	DataDir string
	// KeepData leaves the suites' stores in DataDir.
	KeepData bool
	// Embedder makes the vectors; nil means the built-in hashing embedder.
	Embedder embed.Embedder
	// Kernel names the sentence models' matrix kernel ("avx2-fma",
	// "scalar"): the report says it, since the two differ in the last
	// bits and that moves a few LoCoMo questions (README, eleventh
	// session). "" leaves it out.
	Kernel string
	// Degraded lists what the run goes without that a default run has: a
	// sentence model or the dictionary that could not be loaded (run from
	// outside the repository, say, where the relative model directories do
	// not resolve). The report and its summary say so, since such a run's
	// figures differ from a full run's on the same code.
	Degraded []string
	// Depth is how many messages a runner ranks per question (default 25,
	// at least 25 so that recall@25 means what it says).
	Depth int
	// Floors are quality floors checked after the reports are written.
	Floors []Floor
	// Progress receives progress bars; nil shows none.
	Progress io.Writer
	// Logger receives loader warnings and per-case runner errors; nil discards.
	Logger *slog.Logger
}

// Run loads every suite, ingests each into a fresh store, asks every case of
// every runner, and writes the reports to cfg.OutDir. A runner that fails on
// a case is logged, counted in "errors" and scored as ranking nothing (not
// as abstaining). When a floor is missed, Run returns the report and an
// error wrapping ErrBelowFloor; the reports are written all the same.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "eval")
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	switch {
	case cfg.Depth == 0:
		cfg.Depth = DefaultDepth
	case cfg.Depth < DefaultDepth:
		return nil, fmt.Errorf("eval: depth %d is below %d", cfg.Depth, DefaultDepth)
	}
	if len(cfg.Suites) == 0 {
		return nil, errors.New("eval: no suite given")
	}
	runners, err := resolveRunners(cfg.Runners, cfg.Extra)
	if err != nil {
		return nil, err
	}
	for _, f := range cfg.Floors {
		if err := f.check(); err != nil {
			return nil, err
		}
	}
	suites := make([]*Suite, 0, len(cfg.Suites))
	keys := make(map[string]int)
	for _, path := range cfg.Suites {
		s, err := LoadSuite(path, log)
		if err != nil {
			return nil, err
		}
		if keys[s.Key]++; keys[s.Key] > 1 {
			s.Key = fmt.Sprintf("%s-%d", s.Key, keys[s.Key])
		}
		suites = append(suites, s)
	}
	emb := cfg.Embedder
	if emb == nil {
		emb = embed.NewHashing(0)
	}
	rep := newReport(runners, cfg.Depth, emb.Name())
	rep.Kernel = cfg.Kernel
	rep.Degraded = slices.Clone(cfg.Degraded)
	for _, s := range suites {
		sr, err := runSuite(ctx, cfg, emb, s, runners, log)
		if err != nil {
			return nil, fmt.Errorf("eval: suite %s: %w", s.Key, err)
		}
		rep.Suites = append(rep.Suites, sr)
	}
	rep.pool()
	if cfg.OutDir != "" {
		if err := rep.Write(cfg.OutDir); err != nil {
			return rep, err
		}
	}
	return rep, rep.CheckFloors(cfg.Floors)
}

func resolveRunners(names []string, extra []Runner) ([]Runner, error) {
	if len(names) == 0 && len(extra) == 0 {
		names = BuiltinRunners()
	}
	var out []Runner
	seen := make(map[string]bool)
	for _, n := range names {
		r, err := NewRunner(n)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	out = append(out, extra...)
	for _, r := range out {
		if seen[r.Name()] {
			return nil, fmt.Errorf("eval: runner %q given twice", r.Name())
		}
		seen[r.Name()] = true
	}
	return out, nil
}

func newBar(w io.Writer, n int, desc string) *progressbar.ProgressBar {
	if w == nil {
		w = io.Discard
	}
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
}

// runSuite ingests s into a fresh store and asks every case of every runner.
func runSuite(ctx context.Context, cfg Config, emb embed.Embedder, s *Suite, runners []Runner, log *slog.Logger) (sr *SuiteReport, err error) {
	if cfg.DataDir != "" {
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return nil, err
		}
	}
	dir, err := os.MkdirTemp(cfg.DataDir, "recalld-eval-"+s.Key+"-*")
	if err != nil {
		return nil, err
	}
	if !cfg.KeepData {
		defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	}
	store, err := storage.Open(ctx, storage.Config{Dir: filepath.Join(dir, "store"), Embedder: emb, NoIndexer: true, Logger: cfg.Logger})
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, store.Close()) }()
	if err := ingest(ctx, store, s, cfg.Progress); err != nil {
		return nil, err
	}
	svc := queryapi.New(store)
	return ask(ctx, svc, s, runners, cfg, log)
}

const insertBatch = 500

func ingest(ctx context.Context, store *storage.Store, s *Suite, progress io.Writer) error {
	bar := newBar(progress, s.MessageCount(), "ingest "+s.Key)
	defer bar.Close()
	for _, u := range s.Users {
		for batch := range slices.Chunk(u.Messages, insertBatch) {
			msgs := make([]storage.Message, len(batch))
			for i, m := range batch {
				msgs[i] = storage.Message{
					ID: m.ID, ConversationID: m.ConversationID, GroupID: m.GroupID, Role: m.Role,
					SenderID: m.SenderID, SenderName: m.SenderName, Content: m.Content, CreatedAt: m.CreatedAt,
				}
			}
			if _, err := store.Insert(ctx, u.UserID, msgs); err != nil {
				return fmt.Errorf("ingest user %q: %w", u.UserID, err)
			}
		}
	}
	return store.Drain(ctx, func(done, left int) { _ = bar.Set(done) })
}

// ask puts every case to every runner, cases in order and runners in turn
// for each case, so that caches warm evenly.
func ask(ctx context.Context, svc *queryapi.Service, s *Suite, runners []Runner, cfg Config, log *slog.Logger) (*SuiteReport, error) {
	content := make(map[string]map[string]string, len(s.Users)) // user → id → content
	for _, u := range s.Users {
		m := make(map[string]string, len(u.Messages))
		for _, msg := range u.Messages {
			m[msg.ID] = msg.Content
		}
		content[u.UserID] = m
	}
	results := make([][]CaseResult, len(runners))
	bar := newBar(cfg.Progress, len(s.Cases)*len(runners), "ask "+s.Key)
	defer bar.Close()
	for _, c := range s.Cases {
		tools, err := svc.Bind(c.UserID)
		if err != nil {
			return nil, fmt.Errorf("case %q: %w", c.ID, err)
		}
		q := Question{CaseID: c.ID, Text: c.Question, Now: c.Now, Depth: cfg.Depth}
		for i, r := range runners {
			start := time.Now()
			ans, err := r.Ask(ctx, tools, q)
			elapsed := time.Since(start)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			cr := CaseResult{ID: c.ID, Category: c.Category, Split: c.Split, Language: Language(c.Question), LatencyMS: float64(elapsed.Microseconds()) / 1000}
			if err != nil {
				log.Warn("runner failed on case", "runner", r.Name(), "case", c.ID, "err", err)
				cr.Error = err.Error()
				ans = Answer{}
			}
			var texts []string
			seen := make(map[string]bool)
			for _, e := range ans.Ranked {
				if seen[e.MessageID] || len(cr.Ranked) >= cfg.Depth {
					continue
				}
				seen[e.MessageID] = true
				cr.Ranked = append(cr.Ranked, e.MessageID)
				texts = append(texts, e.Content)
			}
			cr.Leaks = countLeaks(content[c.UserID], ans)
			var said []string
			if v := ans.View; v != nil {
				said = append([]string{v.Answer}, v.Statements...)
				cr.View = v
			}
			// A failed case ranks nothing but does not count as abstaining.
			cr.NoEvidence = err == nil && (ans.NoEvidence || len(cr.Ranked) == 0)
			cr.Scores = scoreCase(c, cr.Ranked, texts, said, cr.NoEvidence)
			results[i] = append(results[i], cr)
			_ = bar.Add(1)
		}
	}
	sr := &SuiteReport{
		Key: s.Key, Name: s.Name, Source: s.Source, Format: s.Format,
		Messages: s.MessageCount(), Cases: len(s.Cases), Notes: s.Notes,
		Categories: categoryOrder(s), cases: s.Cases,
		Runners: make(map[string]*RunnerReport, len(runners)),
	}
	for i, r := range runners {
		sr.Runners[r.Name()] = summarize(results[i], s.Cases, cfg.Depth)
	}
	return sr, nil
}

// countLeaks counts the distinct messages an answer returns (ranked or
// cited, and the context quoted with them) that are not the case user's:
// an id the user does not have, or text other than the user's message of
// that id. A quote the answer marks as cut may be a prefix of the text.
func countLeaks(own map[string]string, ans Answer) int {
	var cut []string
	quotes := ans.Ranked
	if ans.View != nil {
		cut = ans.View.Cut
		quotes = append(slices.Clip(quotes), ans.View.Context...)
	}
	type quoted struct{ id, content string }
	checked := make(map[quoted]bool, len(quotes))
	n := 0
	for _, e := range quotes {
		k := quoted{e.MessageID, e.Content}
		if checked[k] {
			continue
		}
		checked[k] = true
		text, ok := own[e.MessageID]
		if !ok || text != e.Content && !(slices.Contains(cut, e.MessageID) && strings.HasPrefix(text, e.Content)) {
			n++
		}
	}
	return n
}

// categoryOrder lists the suite's categories in the order of its format,
// unknown ones last by name.
func categoryOrder(s *Suite) []string {
	var known []string
	switch s.Format {
	case FormatLoCoMo:
		for i := 1; i <= 5; i++ {
			known = append(known, LoCoMoCategories()[i])
		}
	default:
		known = FixtureCategories()
	}
	present := make(map[string]bool)
	for _, c := range s.Cases {
		present[c.Category] = true
	}
	var out, rest []string
	for _, c := range known {
		if present[c] {
			out = append(out, c)
			delete(present, c)
		}
	}
	for c := range present {
		rest = append(rest, c)
	}
	slices.Sort(rest)
	return append(out, rest...)
}
