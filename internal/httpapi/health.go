package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/internal/breaker"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/storage"
)

type HealthResponse struct {
	// Status is ok, or degraded when Warnings says what is wrong.
	Status   string `json:"status"`
	Version  string `json:"version"`
	Embedder string `json:"embedder"`
	// EmbedderFallback says why the configured embedder is not the one in use.
	EmbedderFallback string `json:"embedder_fallback,omitempty"`
	Dim              int    `json:"dim"`
	// Pending is the outbox backlog, -1 when the store does not answer.
	Pending int    `json:"pending"`
	Auth    bool   `json:"auth"`
	Brain   string `json:"brain"`
	// Semantic is ok, unavailable (the embedder fails: lexical-only until
	// it answers) or off (no vectors for this embedder).
	Semantic string `json:"semantic"`
	// Unvectored counts messages that wait for their vector.
	Unvectored int `json:"unvectored"`
	// Store is the store circuit breaker's state: closed, open or half-open.
	Store    string              `json:"store"`
	Config   config.ReloadStatus `json:"config"`
	Warnings []string            `json:"warnings"`
}

// healthz reports liveness and every degradation. It answers 200 while the
// process runs, also when the store or the embedder fails.
func (s *Server) healthz(c echo.Context) error {
	h := HealthResponse{
		Status: "ok", Version: s.version, Embedder: s.store.EmbedderName(), EmbedderFallback: s.embedderFallback, Pending: -1,
		Auth: len(s.live.Load().APIKeys) > 0, Brain: s.agent.Brain(), Semantic: storage.SemanticOK,
		Config: s.live.Status(), Warnings: slices.Clone(s.degraded),
	}
	st, err := s.storeStatus(c.Request().Context())
	switch {
	case err != nil:
		h.Warnings = append(h.Warnings, "the store does not answer: "+err.Error())
	default:
		h.Dim, h.Pending, h.Semantic, h.Unvectored = st.Dim, st.Pending, st.Semantic, st.Unvectored
	}
	switch h.Semantic {
	case storage.SemanticUnavailable:
		h.Warnings = append(h.Warnings, fmt.Sprintf("the embedder does not answer (%s): semantic search answers 503 semantic_unavailable, "+
			"recall searches by words only, %d messages wait for vectors", st.EmbedderError, st.Unvectored))
	case storage.SemanticOff:
		h.Warnings = append(h.Warnings, "semantic search is off (no vectors for this embedder): lexical search only")
	}
	h.Store = s.gate.State()
	if h.Store != breaker.Closed {
		h.Warnings = append(h.Warnings, fmt.Sprintf("store circuit %s: store routes answer 503 store_unavailable", h.Store))
	}
	if h.Config.Error != "" {
		h.Warnings = append(h.Warnings, "config file not applied (the running config stays): "+h.Config.Error)
	}
	if len(h.Config.RestartRequired) > 0 {
		h.Warnings = append(h.Warnings, "config keys changed that take effect after a restart: "+strings.Join(h.Config.RestartRequired, ", "))
	}
	if len(h.Warnings) > 0 {
		h.Status = "degraded"
	} else {
		h.Warnings = []string{}
	}
	return c.JSON(http.StatusOK, h)
}

// storeStatus reads the store's status while the store's circuit is closed.
func (s *Server) storeStatus(ctx context.Context) (st storage.IndexStatus, err error) {
	err = s.gate.Check(func() (err error) {
		st, err = s.store.Status(ctx)
		return err
	})
	if errors.Is(err, breaker.ErrCircuit) {
		return st, fmt.Errorf("store circuit %s", s.gate.State())
	}
	return st, err
}

type ReadyResponse struct {
	Status string `json:"status"`
	// Store is the store circuit breaker's state after the check.
	Store string `json:"store"`
}

// readyz answers 200 when the store's circuit is closed and the database
// answers; 503 store_unavailable (with Retry-After) while the circuit is
// open or half-open, 503 unavailable when the ping fails (which counts
// towards opening the circuit; a successful ping is no probe).
func (s *Server) readyz(c echo.Context) error {
	err := s.gate.Check(func() error { return s.store.Ping(c.Request().Context()) })
	if errors.Is(err, breaker.ErrCircuit) {
		return s.refused(c)
	}
	if err != nil {
		s.log.Warn("not ready", "err", err)
		return &Error{http.StatusServiceUnavailable, CodeUnavailable, "database does not answer"}
	}
	return c.JSON(http.StatusOK, ReadyResponse{Status: "ready", Store: s.gate.State()})
}
