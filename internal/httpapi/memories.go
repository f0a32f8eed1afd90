package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/queryapi"
)

// registerMemories adds the routes of memos and pinned memories.
func (s *Server) registerMemories(e *echo.Echo, auth echo.MiddlewareFunc) {
	e.GET("/memos", s.listMemos, auth)
	e.POST("/memories", s.addMemory, auth)
	e.GET("/memories", toolRoute(s, memoryListParams, (*queryapi.Tools).MemoryList), auth)
	e.GET("/memories/:id", toolRoute(s, memoryRef, (*queryapi.Tools).MemoryGet), auth)
	e.PATCH("/memories/:id", toolRoute(s, memoryUpdate, (*queryapi.Tools).MemoryUpdate), auth)
	e.DELETE("/memories/:id", toolRoute(s, memoryRef, deleteMemory), auth)
}

// listMemos lists the caller's memos, the latest turn first.
func (s *Server) listMemos(c echo.Context) error {
	p, err := queryParams(c, "group_id", "sender_id", "request_type", "limit")
	if err != nil {
		return err
	}
	limit, err := intParam(p, "limit")
	if err != nil {
		return err
	}
	if _, ok := p["limit"]; ok && limit < 1 {
		return errInvalid(fmt.Sprintf("limit must be in 1..%d", queryapi.MaxMemoLimit))
	}
	t, err := s.bind(c)
	if err != nil {
		return err
	}
	l, err := t.Memos(c.Request().Context(), queryapi.MemosParams{
		GroupID: p["group_id"], SenderID: p["sender_id"], RequestType: p["request_type"], Limit: limit,
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, l)
}

// memoryRef reads a request naming a memory by its :id path parameter
// (unescaped; the tools check its form), without query parameters.
func memoryRef(c echo.Context) (queryapi.MemoryRef, error) {
	if _, err := queryParams(c); err != nil {
		return queryapi.MemoryRef{}, err
	}
	id, err := url.PathUnescape(c.Param("id"))
	if err != nil {
		return queryapi.MemoryRef{}, errBadRequest("malformed memory id in path")
	}
	return queryapi.MemoryRef{ID: id}, nil
}

// addMemory pins a memory: 201 when it is new, 200 when the request names
// an id that exists with the same content (a replay).
func (s *Server) addMemory(c echo.Context) error {
	p, err := jsonBody[queryapi.MemoryAddParams](c)
	if err != nil {
		return err
	}
	t, err := s.bind(c)
	if err != nil {
		return err
	}
	m, created, err := t.MemoryAdd(c.Request().Context(), p)
	if err != nil {
		return err
	}
	if created {
		return c.JSON(http.StatusCreated, m)
	}
	return c.JSON(http.StatusOK, m)
}

// memoryListParams reads GET /memories.
func memoryListParams(c echo.Context) (queryapi.MemoryListParams, error) {
	p, err := queryParams(c, "group_id", "exact")
	if err != nil {
		return queryapi.MemoryListParams{}, err
	}
	exact := false
	if v, ok := p["exact"]; ok {
		if exact, err = strconv.ParseBool(v); err != nil {
			return queryapi.MemoryListParams{}, errBadRequest(fmt.Sprintf("query parameter exact: %q is not true or false", v))
		}
	}
	return queryapi.MemoryListParams{GroupID: p["group_id"], Exact: exact}, nil
}

// memoryPatch is the body of PATCH /memories/{id}: fields left out stay.
type memoryPatch struct {
	Content *string   `json:"content"`
	GroupID *string   `json:"group_id"`
	Tags    *[]string `json:"tags"`
}

// memoryUpdate reads PATCH /memories/{id}.
func memoryUpdate(c echo.Context) (queryapi.MemoryUpdateParams, error) {
	ref, err := memoryRef(c)
	if err != nil {
		return queryapi.MemoryUpdateParams{}, err
	}
	var b memoryPatch
	if err := decodeJSON(c, &b); err != nil {
		return queryapi.MemoryUpdateParams{}, err
	}
	return queryapi.MemoryUpdateParams{ID: ref.ID, Content: b.Content, GroupID: b.GroupID, Tags: b.Tags}, nil
}

// deleteMemory unpins a memory.
func deleteMemory(t *queryapi.Tools, ctx context.Context, ref queryapi.MemoryRef) (DeleteResponse, error) {
	if err := t.MemoryDelete(ctx, ref); err != nil {
		return DeleteResponse{}, err
	}
	return DeleteResponse{Deleted: 1}, nil
}
