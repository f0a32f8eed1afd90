package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi"
)

// registerEventRoutes adds the routes of the cognitive event tools.
func (s *Server) registerEventRoutes(e *echo.Echo, auth echo.MiddlewareFunc) {
	e.POST("/events/search", s.searchEvents, auth)
}

// searchEventsRequest is search_events plus the conversation the caller
// speaks in, which sets the scope: in a group, group_id is a hard filter of
// events and (with deep) messages; in a private chat the user is the scope.
type searchEventsRequest struct {
	Query         string `json:"query"`
	TargetUserID  string `json:"target_user_id"`
	TargetGroupID string `json:"target_group_id"`
	TopK          int    `json:"top_k" jsonschema:"minimum=1"` // decodeJSON refuses an explicit 0
	TimeFrom      string `json:"time_from"`
	TimeTo        string `json:"time_to"`
	Deep          bool   `json:"deep"`
	RequestType   string `json:"request_type"` // private | group; empty: group when group_id is set
	GroupID       string `json:"group_id"`
}

func (r searchEventsRequest) params() queryapi.SearchEventsParams {
	return queryapi.SearchEventsParams{Query: r.Query, TargetUserID: r.TargetUserID, TargetGroupID: r.TargetGroupID,
		TopK: r.TopK, TimeFrom: r.TimeFrom, TimeTo: r.TimeTo, Deep: r.Deep}
}

// SearchEventsResponse is the events with, when deep was asked, the recall
// agent's answer over the messages.
type SearchEventsResponse struct {
	queryapi.EventsResult
	Deep *agent.Response `json:"deep,omitempty"`
}

// eventSearchConfig is the [cognitive.query] knobs in force, read at call time.
func (s *Server) eventSearchConfig() queryapi.EventSearchConfig {
	return s.live.Load().Cognitive.Query.Events()
}

func (s *Server) searchEvents(c echo.Context) error {
	req, err := jsonBody[searchEventsRequest](c)
	if err != nil {
		return err
	}
	tools, err := s.bind(c)
	if err != nil {
		return err
	}
	switch req.RequestType {
	case "group":
		if req.GroupID == "" {
			return errInvalid("request_type group needs group_id")
		}
	case "private":
		if req.GroupID != "" {
			return errInvalid("request_type private takes no group_id")
		}
	case "":
	default:
		return errInvalid(fmt.Sprintf("request_type %q: want private or group", req.RequestType))
	}
	if req.GroupID != "" {
		if tools, err = tools.InGroup(req.GroupID); err != nil {
			return err
		}
	}
	out, err := SearchEvents(c.Request().Context(), s.agent, tools, req.params(), s.eventSearchConfig())
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// SearchEvents runs search_events with tools (bound to the user and, for a
// caller in a group, to that group) and, when p.Deep asks, the agent-backed
// backend: the recall agent over the messages in the same scope (a target
// group narrows it further) and window. POST /events/search and the MCP
// tool both call it.
func SearchEvents(ctx context.Context, ag *agent.Agent, tools *queryapi.Tools, p queryapi.SearchEventsParams, cfg queryapi.EventSearchConfig) (SearchEventsResponse, error) {
	res, err := tools.SearchEvents(ctx, p, queryapi.EventOptions{Mode: queryapi.ModeTool, Config: cfg})
	if err != nil {
		return SearchEventsResponse{}, err
	}
	out := SearchEventsResponse{EventsResult: res}
	if !p.Deep {
		return out, nil
	}
	if p.TargetGroupID != "" {
		if tools, err = tools.InGroup(p.TargetGroupID); err != nil {
			return SearchEventsResponse{}, err
		}
	}
	ar := agent.Request{Question: p.Query}
	if w := res.Window; w != nil {
		ar.Context.TimeRange = &agent.TimeRange{}
		if !w.From.IsZero() {
			ar.Context.TimeRange.Since = w.From.Truncate(time.Second).Format(time.RFC3339Nano)
		}
		if !w.To.IsZero() {
			// Events match to the second, both ends inclusive; the
			// agent's until is exclusive.
			ar.Context.TimeRange.Until = w.To.Truncate(time.Second).Add(time.Second).Format(time.RFC3339Nano)
		}
	}
	if out.Deep, err = ag.RecallBound(ctx, tools, ar); err != nil {
		return SearchEventsResponse{}, err
	}
	return out, nil
}
