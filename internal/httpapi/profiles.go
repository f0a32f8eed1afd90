package httpapi

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/queryapi"
)

// profileRoutes registers the profile routes: get_profile, search_profiles,
// and a profile's revisions and restore.
func (s *Server) profileRoutes(e *echo.Echo, auth echo.MiddlewareFunc) {
	e.GET("/profiles/:entity_type/:entity_id", toolRoute(s, profilePath, (*queryapi.Tools).GetProfile), auth)
	e.GET("/profiles/:entity_type/:entity_id/revisions", toolRoute(s, profilePath, (*queryapi.Tools).ProfileRevisions), auth)
	e.POST("/profiles/:entity_type/:entity_id/restore", s.restoreProfile, auth)
	e.POST("/profiles/search", toolRoute(s, jsonBody[queryapi.ProfileSearchParams], (*queryapi.Tools).SearchProfiles), auth)
}

// profilePath reads the profile named by the path (the id unescaped: ids
// may contain "/"); the tools check it. The request takes no query parameters.
func profilePath(c echo.Context) (queryapi.ProfileParams, error) {
	if _, err := queryParams(c); err != nil {
		return queryapi.ProfileParams{}, err
	}
	id, err := url.PathUnescape(c.Param("entity_id"))
	if err != nil {
		return queryapi.ProfileParams{}, errBadRequest("malformed entity id in path")
	}
	return queryapi.ProfileParams{EntityType: c.Param("entity_type"), EntityID: id}, nil
}

type restoreRequest struct {
	Revision int `json:"revision"`
}

func (s *Server) restoreProfile(c echo.Context) error {
	p, err := profilePath(c)
	if err != nil {
		return err
	}
	var req restoreRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	t, err := s.bind(c)
	if err != nil {
		return err
	}
	pr, err := t.RestoreProfile(c.Request().Context(), queryapi.RestoreParams{ProfileParams: p, Revision: req.Revision})
	if err != nil {
		return err
	}
	s.log.Info("profile restored", "entity_type", p.EntityType, "revision", req.Revision, "now", pr.Revision)
	return c.JSON(http.StatusOK, pr)
}
