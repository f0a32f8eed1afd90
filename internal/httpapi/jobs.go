package httpapi

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
)

// endTurn queues the ended turn for the historian: 202 once the job is
// durable, 200 when the turn had nothing to queue.
func (s *Server) endTurn(c echo.Context) error {
	t, err := jsonBody[ingest.TurnEnd](c)
	if err != nil {
		return err
	}
	r, err := s.queue.Enqueue(c.Request().Context(), userOf(c), t)
	if err != nil {
		return err
	}
	if !r.Queued {
		return c.JSON(http.StatusOK, r)
	}
	return c.JSON(http.StatusAccepted, r)
}

// Page sizes of GET /jobs.
const (
	defaultJobList = 50
	maxJobList     = 500
)

type JobsResponse struct {
	Jobs []storage.Job `json:"jobs"`
}

// listJobs lists the caller's jobs, newest first.
func (s *Server) listJobs(c echo.Context) error {
	p, err := queryParams(c, "state", "limit")
	if err != nil {
		return err
	}
	limit, err := limitParam(p, defaultJobList, maxJobList)
	if err != nil {
		return err
	}
	state := p["state"]
	if state != "" && !storage.ValidJobState(state) {
		return errInvalid(fmt.Sprintf("state %q: want pending, processing, done or failed", state))
	}
	jobs, err := s.store.ListJobs(c.Request().Context(), storage.JobFilter{UserID: userOf(c), State: state, Limit: limit})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, JobsResponse{Jobs: jobs})
}
