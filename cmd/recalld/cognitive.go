package main

import (
	"errors"
	"fmt"
	"strconv"
	"time"
	_ "time/tzdata" // the historian's time zone must load on hosts without a zoneinfo database
)

// CognitiveConfig is the [cognitive] section: the historian and its queue.
type CognitiveConfig struct {
	Queue     CognitiveQueue     `toml:"queue"`
	Historian CognitiveHistorian `toml:"historian"`
}

// CognitiveQueue is [cognitive.queue], the end-of-turn job queue.
type CognitiveQueue struct {
	// PollInterval is how long the worker sleeps when no job waits.
	PollInterval duration `toml:"poll_interval"`
	// StaleJobTimeout is the lease of a claimed job: a job still processing
	// after it (its worker died) goes back to pending, at start and every minute.
	StaleJobTimeout duration `toml:"stale_job_timeout"`
	// JobMaxRetries is how many times a failing job is tried again before it
	// is kept as failed with its error.
	JobMaxRetries int `toml:"job_max_retries"`
	// RetryBackoff delays the first retry, doubling for each further one (at most a minute).
	RetryBackoff duration `toml:"retry_backoff"`
	// FailedMaxAge and FailedMaxCount bound the failed jobs kept (0: no bound).
	FailedMaxAge   duration `toml:"failed_max_age"`
	FailedMaxCount int      `toml:"failed_max_count"`
}

// CognitiveHistorian is [cognitive.historian].
type CognitiveHistorian struct {
	// TimeZone resolves relative times in observations ("yesterday" is a date there).
	TimeZone string `toml:"timezone"`
	// SourceMax is how many characters of the source message an event keeps.
	SourceMax int `toml:"source_max"`
}

func defaultCognitive() CognitiveConfig {
	return CognitiveConfig{
		Queue: CognitiveQueue{
			PollInterval:    duration{time.Second},
			StaleJobTimeout: duration{300 * time.Second},
			JobMaxRetries:   3,
			RetryBackoff:    duration{time.Second},
			FailedMaxAge:    duration{30 * 24 * time.Hour},
			FailedMaxCount:  500,
		},
		Historian: CognitiveHistorian{TimeZone: "Asia/Shanghai", SourceMax: 800},
	}
}

// applyEnv overrides c with the RECALLD_* variables of the section that are set.
func (c *CognitiveConfig) applyEnv(getenv func(string) string) error {
	var errs []error
	dur := func(key string, dst *duration) {
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
	if v := getenv("RECALLD_TIMEZONE"); v != "" {
		c.Historian.TimeZone = v
	}
	return errors.Join(errs...)
}

func (c CognitiveConfig) validate() error {
	var errs []error
	q := c.Queue
	for _, d := range []struct {
		name string
		v    duration
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
	if c.Historian.SourceMax < 1 {
		errs = append(errs, fmt.Errorf("cognitive.historian.source_max %d must be positive", c.Historian.SourceMax))
	}
	return errors.Join(errs...)
}
