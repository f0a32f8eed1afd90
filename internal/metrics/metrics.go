// Package metrics holds recalld's Prometheus metrics: counters and
// histograms the HTTP routes, the recall agent, the store and the historian
// queue update as they work, and gauges read from the store at each scrape.
// GET /metrics serves them in the Prometheus text format; the README lists
// every name with a PromQL example.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Buckets of request and recall latencies, in seconds: 1 ms to 10 s.
var latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// State is what the gauges show at a scrape: read from the store and the
// breakers by the function given to New.
type State struct {
	Pending    int            // outbox entries not yet indexed
	Unvectored int            // messages waiting for their vector
	Indexed    int            // messages with their indexes written
	Jobs       map[string]int // historian jobs by state
	// Embedder is "ok", "unavailable" or "off" (storage.Semantic*).
	Embedder string
	// StoreBreaker is "closed", "half-open" or "open".
	StoreBreaker string
	// ConfigReloads counts the live reloads that applied a valid file;
	// ConfigError is whether the last attempt failed.
	ConfigReloads int
	ConfigError   bool
}

// Metrics is one registry of recalld's metrics. Its methods are safe for
// concurrent use; a nil *Metrics records nothing.
type Metrics struct {
	reg *prometheus.Registry

	requests    *prometheus.CounterVec
	reqLatency  *prometheus.HistogramVec
	stages      *prometheus.HistogramVec
	stops       *prometheus.CounterVec
	conflicts   prometheus.Counter
	toolCalls   *prometheus.CounterVec
	jobs        *prometheus.CounterVec
	jobLatency  prometheus.Histogram
	embedCalls  *prometheus.CounterVec
	embedTexts  prometheus.Counter
	embedTime   prometheus.Histogram
	indexed     prometheus.Counter
	stateReader func(context.Context) (State, error)
}

// New returns the metrics. Gauges of the store's state come with WatchState.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recalld_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "status"}),
		reqLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "recalld_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern and method.",
			Buckets: latencyBuckets,
		}, []string{"route", "method"}),
		stages: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "recalld_recall_stage_duration_seconds",
			Help:    "Time a recall spent in each stage: observe, search, tools, synthesize, verify, total.",
			Buckets: latencyBuckets,
		}, []string{"stage"}),
		stops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recalld_recall_stops_total",
			Help: "Recalls answered, by why the loop stopped (enough_evidence, no_evidence, budget, ...) and brain.",
		}, []string{"reason", "brain"}),
		conflicts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recalld_recall_conflicts_total",
			Help: "Conflicts recalls found and settled (a later statement superseding an earlier one, ...).",
		}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recalld_tool_calls_total",
			Help: "Tool calls recalls made, by tool (clients' direct calls count under their HTTP route).",
		}, []string{"tool"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recalld_jobs_attempts_total",
			Help: "Historian job attempts, by outcome: done, retry (runs again later), failed (kept for inspection).",
		}, []string{"outcome"}),
		jobLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "recalld_job_duration_seconds",
			Help:    "Time the historian took per job attempt.",
			Buckets: latencyBuckets,
		}),
		embedCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "recalld_embedder_calls_total",
			Help: "Embedder calls, by result (ok, error).",
		}, []string{"result"}),
		embedTexts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recalld_embedder_texts_total",
			Help: "Texts sent to the embedder.",
		}),
		embedTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "recalld_embedder_call_duration_seconds",
			Help:    "Time of one embedder call (a batch while indexing, one query while searching).",
			Buckets: latencyBuckets,
		}),
		indexed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "recalld_index_entries_total",
			Help: "Outbox entries the indexer finished: messages and events indexed, deletions applied.",
		}),
	}
	m.reg.MustRegister(m.requests, m.reqLatency, m.stages, m.stops, m.conflicts, m.toolCalls,
		m.jobs, m.jobLatency, m.embedCalls, m.embedTexts, m.embedTime, m.indexed,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// WatchState adds the gauges that call state at each scrape (with a
// timeout of 5 s). Call it once.
func (m *Metrics) WatchState(state func(context.Context) (State, error)) {
	m.stateReader = state
	m.reg.MustRegister(stateCollector{m})
}

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Middleware counts and times every request by its route pattern (never
// the raw path: ids would make a series per message).
func (m *Metrics) Middleware() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if m == nil {
				return next(c)
			}
			start := time.Now()
			if err := next(c); err != nil {
				// Let the error handler write the answer now, as echo's
				// own logger does, so that its status is the one counted.
				c.Error(err)
			}
			status := c.Response().Status
			route := c.Path()
			if route == "" {
				route = "unmatched"
			}
			method := c.Request().Method
			m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
			m.reqLatency.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
			return nil
		}
	}
}

// Recall records one answered recall: each stage's time, why it stopped,
// the conflicts it settled and the tools it called.
func (m *Metrics) Recall(stages map[string]time.Duration, reason, brain string, conflicts int, tools []string) {
	if m == nil {
		return
	}
	for stage, d := range stages {
		m.stages.WithLabelValues(stage).Observe(d.Seconds())
	}
	m.stops.WithLabelValues(reason, brain).Inc()
	m.conflicts.Add(float64(conflicts))
	for _, t := range tools {
		m.toolCalls.WithLabelValues(t).Inc()
	}
}

// Job records how a historian job attempt ended (ingest.Outcome*).
func (m *Metrics) Job(outcome string, took time.Duration) {
	if m == nil {
		return
	}
	m.jobs.WithLabelValues(outcome).Inc()
	m.jobLatency.Observe(took.Seconds())
}

// Embedded records one embedder call; it makes *Metrics a storage.Observer.
func (m *Metrics) Embedded(texts int, d time.Duration, err error) {
	if m == nil {
		return
	}
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.embedCalls.WithLabelValues(result).Inc()
	m.embedTexts.Add(float64(texts))
	m.embedTime.Observe(d.Seconds())
}

// Indexed records outbox entries the indexer finished (storage.Observer).
func (m *Metrics) Indexed(entries int) {
	if m == nil {
		return
	}
	m.indexed.Add(float64(entries))
}

// Values a scrape reads for the console's health panel.
var (
	pendingDesc    = prometheus.NewDesc("recalld_index_pending", "Outbox entries waiting for the indexer.", nil, nil)
	unvectoredDesc = prometheus.NewDesc("recalld_index_unvectored", "Messages indexed lexically that wait for their vector.", nil, nil)
	indexedDesc    = prometheus.NewDesc("recalld_index_messages", "Messages with their indexes written.", nil, nil)
	jobsDesc       = prometheus.NewDesc("recalld_jobs", "Historian jobs in the queue, by state.", []string{"state"}, nil)
	embedderDesc   = prometheus.NewDesc("recalld_embedder_state", "1 for the embedder's current state (ok, unavailable, off), 0 for the others.", []string{"state"}, nil)
	breakerDesc    = prometheus.NewDesc("recalld_store_breaker_state", "1 for the store breaker's current state (closed, half-open, open), 0 for the others.", []string{"state"}, nil)
	reloadsDesc    = prometheus.NewDesc("recalld_config_reloads_total", "Live configuration reloads that applied a valid file.", nil, nil)
	reloadErrDesc  = prometheus.NewDesc("recalld_config_reload_error", "1 when the last configuration reload failed (the running config stays).", nil, nil)
	scrapeErrDesc  = prometheus.NewDesc("recalld_state_scrape_error", "1 when the last scrape could not read the store's state.", nil, nil)
)

// stateCollector reads State at each scrape.
type stateCollector struct{ m *Metrics }

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{pendingDesc, unvectoredDesc, indexedDesc, jobsDesc, embedderDesc, breakerDesc, reloadsDesc, reloadErrDesc, scrapeErrDesc} {
		ch <- d
	}
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.m.stateReader(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, 1)
		return
	}
	ch <- prometheus.MustNewConstMetric(scrapeErrDesc, prometheus.GaugeValue, 0)
	ch <- prometheus.MustNewConstMetric(pendingDesc, prometheus.GaugeValue, float64(st.Pending))
	ch <- prometheus.MustNewConstMetric(unvectoredDesc, prometheus.GaugeValue, float64(st.Unvectored))
	ch <- prometheus.MustNewConstMetric(indexedDesc, prometheus.GaugeValue, float64(st.Indexed))
	for state, n := range st.Jobs {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(n), state)
	}
	oneHot(ch, embedderDesc, st.Embedder, "ok", "unavailable", "off")
	oneHot(ch, breakerDesc, st.StoreBreaker, "closed", "half-open", "open")
	ch <- prometheus.MustNewConstMetric(reloadsDesc, prometheus.CounterValue, float64(st.ConfigReloads))
	reloadErr := 0.0
	if st.ConfigError {
		reloadErr = 1
	}
	ch <- prometheus.MustNewConstMetric(reloadErrDesc, prometheus.GaugeValue, reloadErr)
}

func oneHot(ch chan<- prometheus.Metric, d *prometheus.Desc, cur string, states ...string) {
	for _, s := range states {
		v := 0.0
		if s == cur {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, s)
	}
}
