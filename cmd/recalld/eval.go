package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/recalld/recalld/eval"
	"github.com/recalld/recalld/internal/cmdconfig"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/embed/uselite"
)

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// evalCmd scores runners against suites and writes the reports.
func (a *app) evalCmd(ctx context.Context, args []string) error {
	var (
		suites, floors listFlag
		runners        string
		out            string
		keep           bool
	)
	cfg, rest, err := config.Load("eval", args, a.getenv, a.stderr, func(fs *flag.FlagSet) {
		fs.Var(&suites, "suite", "suite file: the fixture format or LoCoMo (repeatable)")
		fs.StringVar(&runners, "runners", "lexical,semantic,hybrid,agent", "runners to compare")
		fs.StringVar(&out, "out", "eval-out", "directory for report.md, report.json and the plots")
		fs.Var(&floors, "min-recall", "quality floor, e.g. 0.6 (recall@10 of every runner) or hybrid:recall@10>=0.7 (repeatable)")
		fs.BoolVar(&keep, "keep-data", false, "keep the suites' stores under -data (default: fresh stores in a temporary directory, removed)")
	})
	if err != nil {
		return err
	}
	if len(rest) > 0 || len(suites) == 0 {
		return fmt.Errorf("%w: eval takes --suite FILE [--suite FILE…] and no arguments", errUsage)
	}
	ec := eval.Config{Suites: suites, OutDir: out, KeepData: keep, Progress: a.stderr, Logger: config.NewLogger(cfg, a.stderr)}
	// Each suite gets a fresh store under -data when one is given (or the
	// stores are kept), else under the system's temporary directory; a
	// server's default data directory is never used for scratch stores.
	if keep || cfg.DataDir != config.DefaultConfig().DataDir {
		ec.DataDir = cfg.DataDir
	}
	if cfg.Embedder.Kind != "hash" || cfg.Embedder.Dim != 0 {
		var fallback string
		if ec.Embedder, fallback, err = cmdconfig.NewEmbedder(ctx, cfg.Embedder, ec.Logger); err != nil {
			return err
		}
		ec.Kernel = uselite.Kernel()
		if fallback != "" {
			ec.Degraded = append(ec.Degraded, "embedder: "+fallback)
		}
	}
	for _, name := range strings.Split(runners, ",") {
		switch name = strings.TrimSpace(name); name {
		case "":
		case eval.RunnerAgent:
			// The agent runs on each suite's own store, so it gets none here.
			ag, err := cmdconfig.NewAgent(nil, ec.Logger, cfg)
			if err != nil {
				return err
			}
			// NewAgent has read them once for the process; these are that read's results.
			if cfg.DictionaryDir != "" && cmdconfig.Dictionary(cfg.DictionaryDir, ec.Logger) == nil {
				ec.Degraded = append(ec.Degraded, fmt.Sprintf("agent: CC-CEDICT not loaded from %s (run scripts/fetch-cedict.sh)", cfg.DictionaryDir))
			}
			if cfg.WordNetDir != "" && cmdconfig.WordNet(cfg.WordNetDir, ec.Logger) == nil {
				ec.Degraded = append(ec.Degraded, fmt.Sprintf("agent: WordNet not loaded from %s (run scripts/fetch-wordnet.sh)", cfg.WordNetDir))
			}
			if cfg.WordFreqDir != "" && cmdconfig.WordFreq(cfg.WordFreqDir, ec.Logger) == nil {
				ec.Degraded = append(ec.Degraded, fmt.Sprintf("agent: word frequencies not loaded from %s (run scripts/fetch-wordfreq.sh)", cfg.WordFreqDir))
			}
			ec.Logger.Info("eval: agent runner", "brain", ag.Brain())
			ec.Extra = append(ec.Extra, eval.AgentRunner{Agent: ag})
		default:
			if !slices.Contains(eval.BuiltinRunners(), name) {
				return fmt.Errorf("%w: unknown runner %q", errUsage, name)
			}
			ec.Runners = append(ec.Runners, name)
		}
	}
	for _, f := range floors {
		fl, err := eval.ParseFloor(f)
		if err != nil {
			return fmt.Errorf("%w: --min-recall %q: %v", errUsage, f, err)
		}
		ec.Floors = append(ec.Floors, fl)
	}
	rep, err := eval.Run(ctx, ec)
	if rep != nil {
		printSummary(a.stdout, rep)
		if out != "" {
			fmt.Fprintf(a.stdout, "wrote %s/report.md, report.json and plots\n", out)
		}
	}
	if errors.Is(err, eval.ErrBelowFloor) {
		return fmt.Errorf("quality floor missed: %w", err)
	}
	return err
}

// printSummary prints each runner's overall numbers on each suite; "–"
// marks a metric the suite does not define (no expected keywords, say).
func printSummary(w io.Writer, rep *eval.Report) {
	for _, d := range rep.Degraded {
		fmt.Fprintf(w, "DEGRADED RUN, not comparable with a full one: %s\n", d)
	}
	for _, s := range rep.Suites {
		fmt.Fprintf(w, "%s (%d cases)\n", s.Key, s.Cases)
		for _, name := range rep.RunnerOrder {
			rr := s.Runners[name]
			line := func(keys ...string) string {
				parts := make([]string, len(keys))
				for i, k := range keys {
					v, ok := rr.Overall[k]
					switch {
					case !ok:
						parts[i] = k + " –"
					case k == eval.MetricLeaks:
						parts[i] = fmt.Sprintf("%s %d", k, int(v))
					case k == eval.MetricP50 || k == eval.MetricP95:
						parts[i] = fmt.Sprintf("%s %.1f", k, v)
					default:
						parts[i] = fmt.Sprintf("%s %.3f", k, v)
					}
				}
				return strings.Join(parts, "  ")
			}
			fmt.Fprintf(w, "  %-9s %s\n", name, line("recall@1", "recall@5", "recall@10", "recall@25", eval.MetricNDCG10, eval.MetricMRR,
				eval.MetricAbstain, eval.MetricLeaks, eval.MetricP50, eval.MetricP95))
			if rr.Agent {
				fmt.Fprintf(w, "  %-9s %s\n", "", line(eval.MetricCitedRecall, eval.MetricCitedPrecision, eval.MetricCitations,
					eval.MetricForbiddenRate, eval.MetricAbsentCorrect, eval.MetricKeywordHits))
			}
			for _, half := range eval.Splits() {
				sc, ok := rr.BySplit[half]
				if !ok {
					continue
				}
				parts := []string{fmt.Sprintf("%d cases", int(sc[eval.MetricCases]+sc[eval.MetricNoEvidence]))}
				for _, k := range []string{"recall@10", eval.MetricCitedRecall, eval.MetricCitedPrecision, eval.MetricAbsentCorrect, eval.MetricAbstain} {
					if v, ok := sc[k]; ok {
						parts = append(parts, fmt.Sprintf("%s %.3f", k, v))
					}
				}
				fmt.Fprintf(w, "  %-9s %s\n", "  "+half, strings.Join(parts, "  "))
			}
		}
	}
}
