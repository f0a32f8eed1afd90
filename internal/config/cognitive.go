package config

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"time"
	_ "time/tzdata" // the historian's time zone must load on hosts without a zoneinfo database

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/queryapi"
)

// CognitiveConfig is the [cognitive] section: the historian and its queue,
// and the cognitive tools' search knobs.
type CognitiveConfig struct {
	Queue     CognitiveQueue     `toml:"queue"`
	Historian CognitiveHistorian `toml:"historian"`
	Query     CognitiveQuery     `toml:"query"`
	Profile   CognitiveProfile   `toml:"profile"`
}

// CognitiveQuery is [cognitive.query], the knobs of search_events and of
// the events injected into /context. Handlers read it at call time and pass
// it by value, so a reloaded value applies to the next request.
type CognitiveQuery struct {
	// AutoTopK is how many events /context injects.
	AutoTopK int `toml:"auto_top_k"`
	// ToolDefaultTopK is search_events' top_k when the caller gives none.
	ToolDefaultTopK int `toml:"tool_default_top_k"`
	// HalfLifeAutoDays and HalfLifeToolDays are the half-lives of the time
	// decay of injected events and of search_events, in days.
	HalfLifeAutoDays float64 `toml:"time_decay_half_life_auto_days"`
	HalfLifeToolDays float64 `toml:"time_decay_half_life_tool_days"`
	// Boost is the most the decay adds: final = sim × (1 + boost × decay).
	Boost float64 `toml:"time_decay_boost"`
	// MinSimilarity is the similarity below which no boost applies.
	MinSimilarity float64 `toml:"time_decay_min_similarity"`
	// CandidateMultiplier: each ranking contributes top_k × it candidates to the rerank.
	CandidateMultiplier int `toml:"rerank_candidate_multiplier"`
	// RecentMemosInjectK is how many of the latest memos /context injects.
	RecentMemosInjectK int `toml:"recent_end_summaries_inject_k"`
	// ContextLineMax cuts each line of the /context block to this many characters.
	ContextLineMax int `toml:"context_line_max"`
}

// Defaults of the /context knobs.
const (
	defaultRecentMemosInjectK = 5
	defaultContextLineMax     = 240
	maxRecentMemosInjectK     = 50
)

// events returns the knobs as queryapi takes them.
func (q CognitiveQuery) Events() queryapi.EventSearchConfig {
	day := float64(24 * time.Hour)
	return queryapi.EventSearchConfig{
		AutoTopK: q.AutoTopK, ToolDefaultTopK: q.ToolDefaultTopK,
		HalfLifeAuto: time.Duration(q.HalfLifeAutoDays * day), HalfLifeTool: time.Duration(q.HalfLifeToolDays * day),
		Boost: q.Boost, MinSimilarity: q.MinSimilarity, CandidateMultiplier: q.CandidateMultiplier,
	}
}

func defaultCognitiveQuery() CognitiveQuery {
	d := queryapi.DefaultEventSearchConfig()
	return CognitiveQuery{
		AutoTopK: d.AutoTopK, ToolDefaultTopK: d.ToolDefaultTopK,
		HalfLifeAutoDays: d.HalfLifeAuto.Hours() / 24, HalfLifeToolDays: d.HalfLifeTool.Hours() / 24,
		Boost: d.Boost, MinSimilarity: d.MinSimilarity, CandidateMultiplier: d.CandidateMultiplier,
		RecentMemosInjectK: defaultRecentMemosInjectK, ContextLineMax: defaultContextLineMax,
	}
}

// applyEnv overrides q with the RECALLD_QUERY_* variables that are set.
func (q *CognitiveQuery) applyEnv(getenv func(string) string) error {
	var errs []error
	num := func(key string, dst *float64) {
		if v := getenv(key); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %q is not a number", key, v))
			}
			*dst = f
		}
	}
	integer := func(key string, dst *int) {
		if v := getenv(key); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %q is not an integer", key, v))
			}
			*dst = n
		}
	}
	integer("RECALLD_QUERY_AUTO_TOP_K", &q.AutoTopK)
	integer("RECALLD_QUERY_TOOL_TOP_K", &q.ToolDefaultTopK)
	num("RECALLD_QUERY_HALF_LIFE_AUTO_DAYS", &q.HalfLifeAutoDays)
	num("RECALLD_QUERY_HALF_LIFE_TOOL_DAYS", &q.HalfLifeToolDays)
	num("RECALLD_QUERY_DECAY_BOOST", &q.Boost)
	num("RECALLD_QUERY_DECAY_MIN_SIMILARITY", &q.MinSimilarity)
	integer("RECALLD_QUERY_CANDIDATE_MULTIPLIER", &q.CandidateMultiplier)
	integer("RECALLD_QUERY_MEMOS_INJECT_K", &q.RecentMemosInjectK)
	integer("RECALLD_QUERY_CONTEXT_LINE_MAX", &q.ContextLineMax)
	return errors.Join(errs...)
}

func (q CognitiveQuery) validate() error {
	for _, d := range []float64{q.HalfLifeAutoDays, q.HalfLifeToolDays} {
		if !(d > 0 && d <= maxHalfLifeDays) { // NaN fails too
			return fmt.Errorf("cognitive.query: half-lives must be more than 0 and at most %d days", maxHalfLifeDays)
		}
	}
	if q.RecentMemosInjectK < 0 || q.RecentMemosInjectK > maxRecentMemosInjectK {
		return fmt.Errorf("cognitive.query: recent_end_summaries_inject_k %d must be in 0..%d", q.RecentMemosInjectK, maxRecentMemosInjectK)
	}
	if q.ContextLineMax < 20 || q.ContextLineMax > 4000 {
		return fmt.Errorf("cognitive.query: context_line_max %d must be in 20..4000", q.ContextLineMax)
	}
	if err := q.Events().Validate(); err != nil {
		return fmt.Errorf("cognitive.query: %w", err)
	}
	return nil
}

// maxHalfLifeDays keeps a half-life inside time.Duration.
const maxHalfLifeDays = 36500

// CognitiveQueue is [cognitive.queue], the end-of-turn job queue.
type CognitiveQueue struct {
	// PollInterval is how long the worker sleeps when no job waits.
	PollInterval Duration `toml:"poll_interval"`
	// StaleJobTimeout is the lease of a claimed job: a job still processing
	// after it (its worker died) goes back to pending, at start and every minute.
	StaleJobTimeout Duration `toml:"stale_job_timeout"`
	// JobMaxRetries is how many times a failing job is tried again before it
	// is kept as failed with its error.
	JobMaxRetries int `toml:"job_max_retries"`
	// RetryBackoff delays the first retry, doubling for each further one (at most a minute).
	RetryBackoff Duration `toml:"retry_backoff"`
	// FailedMaxAge and FailedMaxCount bound the failed jobs kept (0: no bound).
	FailedMaxAge   Duration `toml:"failed_max_age"`
	FailedMaxCount int      `toml:"failed_max_count"`
}

// CognitiveHistorian is [cognitive.historian].
type CognitiveHistorian struct {
	// Mode chooses the historian: "offline" (rules, the default) or "llm"
	// (a language model at [models.historian] over [llm], with the rules
	// as its fallback).
	Mode string `toml:"mode"`
	// TimeZone resolves relative times in observations ("yesterday" is a date there).
	TimeZone string `toml:"timezone"`
	// SourceMax is how many characters of the source message an event keeps.
	SourceMax int `toml:"source_max"`
	// RewriteMaxRetry is how many times the LLM historian sends rewrites its
	// gate rejects back to the model, naming the offending words.
	RewriteMaxRetry int `toml:"rewrite_max_retry"`
}

// Historian modes.
const (
	HistorianOffline = "offline"
	HistorianLLM     = "llm"
)

// ModelsConfig is [models.*]: the model of one task, where it differs from
// [llm]. Only the historian has one.
type ModelsConfig struct {
	Historian ModelConfig `toml:"historian"`
}

// ModelConfig is one [models.*] section. Empty fields take [llm]'s.
type ModelConfig struct {
	BaseURL string `toml:"base_url"`
	Model   string `toml:"model"`
	APIKey  string `toml:"api_key"`
	// Timeout bounds each call (default 60s).
	Timeout Duration `toml:"timeout"`
}

// applyEnv overrides m with the RECALLD_HISTORIAN_LLM_* variables that are set.
func (m *ModelsConfig) applyEnv(getenv func(string) string) error {
	for _, f := range []struct {
		key string
		dst *string
	}{{"RECALLD_HISTORIAN_LLM_URL", &m.Historian.BaseURL}, {"RECALLD_HISTORIAN_LLM_MODEL", &m.Historian.Model},
		{"RECALLD_HISTORIAN_LLM_API_KEY", &m.Historian.APIKey}} {
		if v := getenv(f.key); v != "" {
			*f.dst = v
		}
	}
	return nil
}

// historianModel is the endpoint of the LLM historian: [models.historian],
// each empty field taken from [llm].
func (c Config) HistorianModel() ModelConfig {
	m := c.Models.Historian
	m.BaseURL = cmp.Or(m.BaseURL, c.LLM.BaseURL)
	m.Model = cmp.Or(m.Model, c.LLM.Model)
	m.APIKey = cmp.Or(m.APIKey, c.LLM.APIKey)
	return m
}

// validateHistorian checks what the historian's mode needs: the llm mode
// a model, and model calls that fit in a job's lease.
func (c Config) validateHistorian() error {
	h := c.Cognitive.Historian
	if h.Mode != HistorianLLM {
		return nil
	}
	m := c.HistorianModel()
	if m.Model == "" {
		return errors.New(`cognitive.historian.mode "llm" needs a model: set [models.historian] model or [llm] model (env RECALLD_HISTORIAN_LLM_MODEL or RECALLD_LLM_MODEL), and base_url unless it is OpenAI`)
	}
	calls := time.Duration(2 + h.RewriteMaxRetry)
	if t := cmp.Or(m.Timeout.Duration, time.Minute); t*calls >= c.Cognitive.Queue.StaleJobTimeout.Duration {
		return fmt.Errorf("models.historian.timeout %s × %d calls (2 + rewrite_max_retry) must stay below cognitive.queue.stale_job_timeout %s, or a slow job would run twice",
			t, calls, c.Cognitive.Queue.StaleJobTimeout)
	}
	return nil
}

// CognitiveProfile is [cognitive.profile], the profiles the historian keeps.
type CognitiveProfile struct {
	// ProfileTopK is how many profiles search_profiles returns when the
	// caller does not say.
	ProfileTopK int `toml:"profile_top_k"`
	// RevisionKeep is how many revisions of each profile are kept for restore.
	RevisionKeep int `toml:"revision_keep"`
}

// Bounds of [cognitive.profile].
const (
	maxProfileTopK  = 100
	maxRevisionKeep = 1000
)

func defaultCognitive() CognitiveConfig {
	return CognitiveConfig{
		Queue: CognitiveQueue{
			PollInterval:    Duration{time.Second},
			StaleJobTimeout: Duration{300 * time.Second},
			JobMaxRetries:   3,
			RetryBackoff:    Duration{time.Second},
			FailedMaxAge:    Duration{30 * 24 * time.Hour},
			FailedMaxCount:  500,
		},
		Historian: CognitiveHistorian{Mode: HistorianOffline, TimeZone: "Asia/Shanghai", SourceMax: 800,
			RewriteMaxRetry: ingest.DefaultRewriteMaxRetry},
		Query:   defaultCognitiveQuery(),
		Profile: CognitiveProfile{ProfileTopK: 8, RevisionKeep: 5},
	}
}

// applyEnv overrides c with the RECALLD_* variables of the section that are set.
func (c *CognitiveConfig) applyEnv(getenv func(string) string) error {
	var errs []error
	dur := func(key string, dst *Duration) {
		if v := getenv(key); v != "" {
			if err := dst.UnmarshalText([]byte(v)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
		}
	}
	dur("RECALLD_JOB_POLL_INTERVAL", &c.Queue.PollInterval)
	dur("RECALLD_STALE_JOB_TIMEOUT", &c.Queue.StaleJobTimeout)
	dur("RECALLD_JOB_RETRY_BACKOFF", &c.Queue.RetryBackoff)
	if v := getenv("RECALLD_JOB_MAX_RETRIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("RECALLD_JOB_MAX_RETRIES: %q is not a number", v))
		}
		c.Queue.JobMaxRetries = n
	}
	for _, n := range []struct {
		key string
		dst *int
	}{{"RECALLD_PROFILE_TOP_K", &c.Profile.ProfileTopK}, {"RECALLD_PROFILE_REVISION_KEEP", &c.Profile.RevisionKeep}} {
		if v := getenv(n.key); v != "" {
			k, err := strconv.Atoi(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %q is not a number", n.key, v))
			}
			*n.dst = k
		}
	}
	if v := getenv("RECALLD_TIMEZONE"); v != "" {
		c.Historian.TimeZone = v
	}
	errs = append(errs, c.Query.applyEnv(getenv))
	if v := getenv("RECALLD_HISTORIAN_MODE"); v != "" {
		c.Historian.Mode = v
	}
	if v := getenv("RECALLD_REWRITE_MAX_RETRY"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("RECALLD_REWRITE_MAX_RETRY: %q is not a number", v))
		}
		c.Historian.RewriteMaxRetry = n
	}
	return errors.Join(errs...)
}

func (c CognitiveConfig) validate() error {
	var errs []error
	q := c.Queue
	for _, d := range []struct {
		name string
		v    Duration
	}{{"poll_interval", q.PollInterval}, {"stale_job_timeout", q.StaleJobTimeout}, {"retry_backoff", q.RetryBackoff}} {
		if d.v.Duration <= 0 {
			errs = append(errs, fmt.Errorf("cognitive.queue.%s %s must be positive", d.name, d.v))
		}
	}
	if q.JobMaxRetries < 0 || q.FailedMaxCount < 0 || q.FailedMaxAge.Duration < 0 {
		errs = append(errs, errors.New("cognitive.queue: job_max_retries, failed_max_count and failed_max_age must not be negative"))
	}
	if _, err := time.LoadLocation(c.Historian.TimeZone); err != nil || c.Historian.TimeZone == "" {
		errs = append(errs, fmt.Errorf("cognitive.historian.timezone %q is not a time zone (e.g. Asia/Shanghai)", c.Historian.TimeZone))
	}
	if p := c.Profile; p.ProfileTopK < 1 || p.ProfileTopK > maxProfileTopK {
		errs = append(errs, fmt.Errorf("cognitive.profile.profile_top_k %d must be in 1..%d", p.ProfileTopK, maxProfileTopK))
	}
	if p := c.Profile; p.RevisionKeep < 1 || p.RevisionKeep > maxRevisionKeep {
		errs = append(errs, fmt.Errorf("cognitive.profile.revision_keep %d must be in 1..%d", p.RevisionKeep, maxRevisionKeep))
	}
	if c.Historian.SourceMax < 1 {
		errs = append(errs, fmt.Errorf("cognitive.historian.source_max %d must be positive", c.Historian.SourceMax))
	}
	errs = append(errs, c.Query.validate())
	if c.Historian.Mode != HistorianOffline && c.Historian.Mode != HistorianLLM {
		errs = append(errs, fmt.Errorf("cognitive.historian.mode %q: want offline or llm", c.Historian.Mode))
	}
	if c.Historian.RewriteMaxRetry < 0 || c.Historian.RewriteMaxRetry > 10 {
		errs = append(errs, fmt.Errorf("cognitive.historian.rewrite_max_retry %d: want 0..10", c.Historian.RewriteMaxRetry))
	}
	return errors.Join(errs...)
}
