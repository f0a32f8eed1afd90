package metrics_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/recalld/recalld/internal/metrics"
)

// scrape reads the page at url and parses it with the Prometheus parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	return fams
}

// value is the value of the family's series whose labels include want.
func value(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func TestMetricsMove(t *testing.T) {
	m := metrics.New()
	m.WatchState(func(context.Context) (metrics.State, error) {
		return metrics.State{Pending: 3, Unvectored: 1, Indexed: 42, Jobs: map[string]int{"pending": 2, "failed": 1},
			Embedder: "ok", StoreBreaker: "closed", ConfigReloads: 1}, nil
	})
	e := echo.New()
	e.Use(m.Middleware())
	e.GET("/messages/:id", func(c echo.Context) error {
		if c.Param("id") == "missing" {
			return echo.NewHTTPError(http.StatusNotFound, "no such message")
		}
		return c.JSON(http.StatusOK, map[string]string{"id": c.Param("id")})
	})
	e.GET("/metrics", echo.WrapHandler(m.Handler()))
	srv := httptest.NewServer(e)
	defer srv.Close()

	before := scrape(t, srv.URL+"/metrics")
	if _, ok := value(before, "recalld_http_requests_total", map[string]string{"route": "/messages/:id"}); ok {
		t.Fatal("a request counted before any was made")
	}
	for _, id := range []string{"a", "b", "missing"} {
		resp, err := http.Get(srv.URL + "/messages/" + id)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	m.Recall(map[string]time.Duration{"observe": time.Millisecond, "total": 5 * time.Millisecond},
		"no_evidence", "offline", 2, []string{"lexical_search", "semantic_search", "lexical_search"})
	m.Job("done", 10*time.Millisecond)
	m.Job("failed", time.Millisecond)
	m.Embedded(8, 3*time.Millisecond, nil)
	m.Embedded(1, time.Millisecond, errors.New("down"))
	m.Indexed(8)

	after := scrape(t, srv.URL+"/metrics")
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"recalld_http_requests_total", map[string]string{"route": "/messages/:id", "status": "200", "method": "GET"}, 2},
		{"recalld_http_requests_total", map[string]string{"route": "/messages/:id", "status": "404"}, 1},
		{"recalld_http_request_duration_seconds", map[string]string{"route": "/messages/:id"}, 3},
		{"recalld_recall_stage_duration_seconds", map[string]string{"stage": "observe"}, 1},
		{"recalld_recall_stops_total", map[string]string{"reason": "no_evidence", "brain": "offline"}, 1},
		{"recalld_recall_conflicts_total", nil, 2},
		{"recalld_tool_calls_total", map[string]string{"tool": "lexical_search"}, 2},
		{"recalld_jobs_attempts_total", map[string]string{"outcome": "failed"}, 1},
		{"recalld_job_duration_seconds", nil, 2},
		{"recalld_embedder_calls_total", map[string]string{"result": "error"}, 1},
		{"recalld_embedder_texts_total", nil, 9},
		{"recalld_index_entries_total", nil, 8},
		{"recalld_config_reloads_total", nil, 1},
		{"recalld_config_reload_error", nil, 0},
		{"recalld_index_pending", nil, 3},
		{"recalld_index_messages", nil, 42},
		{"recalld_jobs", map[string]string{"state": "failed"}, 1},
		{"recalld_embedder_state", map[string]string{"state": "ok"}, 1},
		{"recalld_store_breaker_state", map[string]string{"state": "open"}, 0},
		{"recalld_state_scrape_error", nil, 0},
	} {
		got, ok := value(after, c.name, c.labels)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	// The scrape itself is counted by the next one, under its route.
	if got, _ := value(scrape(t, srv.URL+"/metrics"), "recalld_http_requests_total", map[string]string{"route": "/metrics"}); got < 2 {
		t.Errorf("scrapes counted %v, want ≥ 2", got)
	}
}

func TestStateErrorIsAGauge(t *testing.T) {
	m := metrics.New()
	m.WatchState(func(context.Context) (metrics.State, error) { return metrics.State{}, errors.New("store closed") })
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	fams := scrape(t, srv.URL)
	if got, ok := value(fams, "recalld_state_scrape_error", nil); !ok || got != 1 {
		t.Errorf("recalld_state_scrape_error = %v (present %v), want 1", got, ok)
	}
	if _, ok := fams["recalld_index_pending"]; ok {
		t.Error("gauges reported from a state that failed to read")
	}
}

func TestNilMetricsRecordNothing(t *testing.T) {
	var m *metrics.Metrics
	m.Recall(nil, "enough_evidence", "offline", 0, nil)
	m.Job("done", 0)
	m.Embedded(1, 0, nil)
	m.Indexed(1)
}
