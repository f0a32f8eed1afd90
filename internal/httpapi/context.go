package httpapi

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/queryapi"
)

// registerContextRoutes adds POST /context, what a bot injects every turn.
func (s *Server) registerContextRoutes(e *echo.Echo, auth echo.MiddlewareFunc) {
	e.POST("/context", s.turnContext, auth)
}

// contextConfig is the live [cognitive.query] and [cognitive.historian]
// knobs of context injection, read per request so that a reload applies to
// the next one.
func (s *Server) contextConfig() queryapi.ContextConfig {
	cfg := s.live.Load().Cognitive
	loc, err := time.LoadLocation(cfg.Historian.TimeZone)
	if err != nil {
		loc = time.UTC // validated at load; a zone database that vanished since is not worth a 500
	}
	return queryapi.ContextConfig{Events: cfg.Query.Events(), Memos: cfg.Query.RecentMemosInjectK,
		LineMax: cfg.Query.ContextLineMax, Location: loc}
}

func (s *Server) turnContext(c echo.Context) error {
	req, err := jsonBody[queryapi.ContextParams](c)
	if err != nil {
		return err
	}
	tools, err := s.bind(c)
	if err != nil {
		return err
	}
	res, err := tools.Context(c.Request().Context(), req, s.contextConfig())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}
