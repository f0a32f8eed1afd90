// Package httpapi is recalld's HTTP API: the echo routes, authentication
// (API keys and X-Recall-User), decoding and the body checks, per-user
// fairness, the health probes, the one table that maps errors to a status,
// a code and a client message (errors.go), and the mount of the MCP
// transport at POST /mcp. Handlers only decode, call and encode; the parts
// they call (store, query tools, agent, the store gate, the live config)
// come built in Config.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/breaker"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/metrics"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// HeaderUser names the user a request acts for (the trust model); maxUserIDLen bounds it.
const (
	HeaderUser   = "X-Recall-User"
	maxUserIDLen = 256
	userKey      = "recalld.user"
)

// Config is what the HTTP API runs on. The serve command builds each part
// and closes them after the server has stopped.
type Config struct {
	// Config is the configuration the server started with. Reloadable
	// sections ([cognitive.historian], ...) are read per call from Live.
	Config config.Config
	Live   *config.Live
	// Gate is the store's circuit breaker, around every route that uses the
	// store; the worker and the MCP tools share it.
	Gate  *breaker.Breaker
	Log   *slog.Logger
	Store *storage.Store
	// Tools are the user-bound query tools over Store.
	Tools *queryapi.Service
	Agent *agent.Agent
	// MCP serves POST /mcp.
	MCP MCP
	// Version is what /healthz shows.
	Version string
	// Degraded is what was found wrong at start (an unreachable embedder,
	// say), "" for nothing; /healthz shows it.
	Degraded string
	// EmbedderFallback is why the configured embedder could not be used
	// (the hashing embedder serves instead), or "".
	EmbedderFallback string
	// Metrics records the routes, recalls and state for /metrics; serve
	// also gives it to the store and the worker. nil: a fresh one.
	Metrics *metrics.Metrics
}

// Server holds what the HTTP handlers need. Handlers only decode, call and encode.
type Server struct {
	cfg      config.Config
	live     *config.Live
	gate     *breaker.Breaker
	slots    *userSlots // each user's running requests; nil: no bound
	degraded []string
	log      *slog.Logger
	store    *storage.Store
	tools    *queryapi.Service
	agent    *agent.Agent
	queue    *ingest.Queue
	version  string
	mcp      MCP
	e        *echo.Echo

	embedderFallback string
	metrics          *metrics.Metrics
	conflicts        *conflictLog // recent conflicts recalls settled
}

// New builds the routes of the HTTP API over c.
func New(c Config) *Server {
	cfg := c.Config
	s := &Server{cfg: cfg, live: c.Live, gate: c.Gate, log: c.Log.With("component", "http"),
		store: c.Store, tools: c.Tools, agent: c.Agent, queue: ingest.NewQueue(c.Store), version: c.Version,
		mcp: c.MCP, embedderFallback: c.EmbedderFallback, metrics: c.Metrics, conflicts: newConflictLog(conflictKeep)}
	if c.Degraded != "" {
		s.degraded = []string{c.Degraded}
	}
	if s.metrics == nil {
		s.metrics = metrics.New()
	}
	s.metrics.WatchState(s.metricsState)
	if cfg.PerUserInflight > 0 {
		s.slots = newUserSlots(cfg.PerUserInflight)
	}
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = errorHandler(s.log)
	e.Use(s.metrics.Middleware())
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			s.log.Error("panic in handler", "path", c.Path(), "err", err, "stack", string(stack))
			return err
		},
	}))
	e.Use(middleware.BodyLimit(strconv.FormatInt(cfg.BodyLimit, 10) + "B"))
	e.Use(s.timeout)

	e.GET("/healthz", s.healthz)
	e.GET("/readyz", s.readyz)

	// Authentication is per route, not an echo.Group: a group's middleware
	// turns every unmatched method into 404 instead of 405. Every
	// authenticated route uses the store, so it runs behind the breaker.
	// Each user's requests run a few at a time (fairShare), so no user's
	// burst takes the cores from the others.
	auth := func(next echo.HandlerFunc) echo.HandlerFunc {
		return s.authenticate(s.fairShare(s.guard(next)))
	}
	e.POST("/messages", s.postMessages, auth)
	e.GET("/messages", toolRoute(s, listParams, (*queryapi.Tools).MessagesList), auth)
	e.DELETE("/messages/:id", s.deleteMessage, auth)
	e.GET("/messages/:id/neighbors", s.neighbors, auth)
	e.POST("/search/lexical", toolRoute(s, jsonBody[queryapi.LexicalParams], (*queryapi.Tools).LexicalSearch), auth)
	e.POST("/search/semantic", toolRoute(s, jsonBody[queryapi.SemanticParams], (*queryapi.Tools).SemanticSearch), auth)
	e.DELETE("/users/me", s.forgetUser, auth)
	e.POST("/recall", s.recall, auth)
	e.POST("/turns/end", s.endTurn, auth)
	e.GET("/jobs", s.listJobs, auth)
	s.registerEventRoutes(e, auth)
	s.registerContextRoutes(e, auth)
	s.profileRoutes(e, auth)
	s.registerMemories(e, auth)
	s.registerConsole(e, auth)
	// MCP tool calls ask the breaker themselves: a POST may be a handshake
	// that touches no store, or a tool call that fails inside a 200.
	e.POST("/mcp", s.serveMCP, s.authenticate)
	s.e = e
	return s
}

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.e.ServeHTTP(w, r) }

// Routes lists the routes as echo registered them.
func (s *Server) Routes() []*echo.Route { return s.e.Routes() }

// timeout bounds every request's context by RequestTimeout.
func (s *Server) timeout(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if s.cfg.RequestTimeout.Duration <= 0 {
			return next(c)
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.RequestTimeout.Duration)
		defer cancel()
		c.SetRequest(c.Request().WithContext(ctx))
		return next(c)
	}
}

// refused is the response to a request the store's circuit did not let through.
func (s *Server) refused(c echo.Context) error {
	c.Response().Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(s.gate.RetryAfter().Seconds()))))
	msg := "the store is failing; requests are refused until a probe succeeds"
	if s.gate.State() == breaker.HalfOpen {
		msg = "the store is being probed after failures; retry shortly"
	}
	return &Error{http.StatusServiceUnavailable, CodeStoreUnavailable, msg}
}

// guard runs a handler that uses the store through the breaker.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := breaker.Do(s.gate, func() error { return next(c) })
		if errors.Is(err, breaker.ErrRefused) {
			return s.refused(c)
		}
		return err
	}
}
