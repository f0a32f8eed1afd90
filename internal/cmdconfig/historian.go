package cmdconfig

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/config"
)

// NewHistorian is the historian the worker runs: the one of
// cognitive.historian.mode.
func NewHistorian(cfg config.Config, log *slog.Logger) (ingest.Processor, error) {
	h := cfg.Cognitive.Historian
	loc, err := time.LoadLocation(h.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("cognitive.historian.timezone: %w", err)
	}
	// The fact extractor reads what things are with WordNet and the
	// dictionary recall uses (one copy of each per process).
	kinds := ingest.NewKinds(WordNet(cfg.WordNetDir, log), Dictionary(cfg.DictionaryDir, log))
	rules := ingest.HistorianConfig{Location: loc, SourceMax: h.SourceMax, Kinds: kinds}
	if h.Mode != config.HistorianLLM {
		log.Info("historian", "mode", config.HistorianOffline, "timezone", h.TimeZone)
		return ingest.NewHistorian(rules), nil
	}
	m := cfg.HistorianModel()
	model, err := agent.NewOpenAIModel(cmp.Or(m.BaseURL, agent.DefaultOpenAIBaseURL), m.APIKey, m.Model, nil)
	if err != nil {
		return nil, fmt.Errorf("historian model: %w", err)
	}
	log.Info("historian", "mode", config.HistorianLLM, "model", m.Model, "base_url", cmp.Or(m.BaseURL, agent.DefaultOpenAIBaseURL),
		"rewrite_max_retry", h.RewriteMaxRetry, "timezone", h.TimeZone)
	return ingest.NewLLMHistorian(model, ingest.LLMHistorianConfig{
		HistorianConfig: rules,
		ModelName:       m.Model,
		RewriteMaxRetry: h.RewriteMaxRetry,
		CallTimeout:     m.Timeout.Duration,
		Logger:          log,
	}), nil
}

// LiveHistorian runs each job with the historian of the live
// [cognitive.historian] section, rebuilt when a reload changed it, so that
// its knobs take effect from the next job without a restart.
type LiveHistorian struct {
	live  *config.Live
	build func(config.Config) (ingest.Processor, error)

	mu   sync.Mutex
	cfg  config.CognitiveHistorian // the section proc was built from
	proc ingest.Processor
}

var _ ingest.Processor = (*LiveHistorian)(nil)

func NewLiveHistorian(live *config.Live, build func(config.Config) (ingest.Processor, error)) (*LiveHistorian, error) {
	h := &LiveHistorian{live: live, build: build}
	if _, err := h.current(); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *LiveHistorian) current() (ingest.Processor, error) {
	cfg := h.live.Load()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.proc != nil && reflect.DeepEqual(h.cfg, cfg.Cognitive.Historian) {
		return h.proc, nil
	}
	proc, err := h.build(*cfg)
	if err != nil {
		return nil, err
	}
	h.cfg, h.proc = cfg.Cognitive.Historian, proc
	return proc, nil
}

// Process runs job with the current historian.
func (h *LiveHistorian) Process(ctx context.Context, job ingest.Job) (ingest.Result, error) {
	proc, err := h.current()
	if err != nil {
		return ingest.Result{}, err
	}
	return proc.Process(ctx, job)
}
