package httpapi

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/console"
	"github.com/recalld/recalld/internal/metrics"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// scopeKey is where keyScope leaves the user-id prefix a request may see.
const scopeKey = "recalld.scope"

// registerConsole adds the routes the console needs beyond the bot's
// (browsing lists, one user's summary, job retry and purge, the users a
// key may act for, recent conflicts), /metrics, and the console page.
func (s *Server) registerConsole(e *echo.Echo, auth echo.MiddlewareFunc) {
	scoped := func(next echo.HandlerFunc) echo.HandlerFunc { return s.keyScope(s.guard(next)) }
	e.GET("/users", s.listUsers, scoped)
	e.GET("/users/me", s.userSummary, auth)
	e.GET("/conflicts", s.listConflicts, s.keyScope)
	e.GET("/events", toolRoute(s, eventListParams, (*queryapi.Tools).EventsList), auth)
	e.GET("/profiles", toolRoute(s, profileListParams, (*queryapi.Tools).ProfilesList), auth)
	e.POST("/jobs/:id/retry", s.retryJob, auth)
	e.DELETE("/jobs", s.purgeJobs, auth)
	e.GET("/metrics", s.serveMetrics)
	page := echo.WrapHandler(console.Handler())
	e.GET(console.Prefix, page)
	e.GET(console.Prefix+"/assets/:file", page)
}

// keyScope authenticates a request that acts for no single user (it lists
// users): with API keys it needs one, and may see the users its prefix
// covers; without keys (loopback only) it sees every user.
func (s *Server) keyScope(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		cfg := s.live.Load()
		prefix := ""
		if len(cfg.APIKeys) > 0 {
			token, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
			if !ok || token == "" {
				return &Error{http.StatusUnauthorized, CodeUnauthorized, "missing bearer API key"}
			}
			key, found := cfg.FindKey(token)
			if !found {
				return &Error{http.StatusUnauthorized, CodeUnauthorized, "unknown API key"}
			}
			prefix = key.UserPrefix
		}
		c.Set(scopeKey, prefix)
		return next(c)
	}
}

// Page sizes of GET /users.
const defaultUserList = 50

type UsersResponse struct {
	Users []storage.UserSummary `json:"users"`
	// NextAfter continues the listing (the after parameter); empty on the last page.
	NextAfter string `json:"next_after,omitempty"`
	// Totals counts the records of every user in the scope.
	Totals storage.Totals `json:"totals"`
}

// listUsers lists the users the key may act for, in id order, with totals.
func (s *Server) listUsers(c echo.Context) error {
	p, err := queryParams(c, "prefix", "after", "limit")
	if err != nil {
		return err
	}
	limit, err := limitParam(p, defaultUserList, storage.MaxUserList)
	if err != nil {
		return err
	}
	scope := c.Get(scopeKey).(string)
	prefix := p["prefix"]
	switch {
	case strings.HasPrefix(prefix, scope):
		// Narrower than (or equal to) the key's scope.
	case strings.HasPrefix(scope, prefix):
		prefix = scope // wider: the key's scope bounds it
	default:
		// Disjoint from the key's scope: nothing it may see.
		return c.JSON(http.StatusOK, UsersResponse{Users: []storage.UserSummary{}, Totals: storage.Totals{Jobs: map[string]int{}}})
	}
	ctx := c.Request().Context()
	users, more, err := s.store.ListUsers(ctx, storage.UserList{Prefix: prefix, After: p["after"], Limit: limit})
	if err != nil {
		return err
	}
	totals, err := s.store.CountAll(ctx, prefix)
	if err != nil {
		return err
	}
	resp := UsersResponse{Users: users, Totals: totals}
	if more {
		resp.NextAfter = users[len(users)-1].UserID
	}
	return c.JSON(http.StatusOK, resp)
}

// userSummary answers what the store holds for the caller.
func (s *Server) userSummary(c echo.Context) error {
	if _, err := queryParams(c); err != nil {
		return err
	}
	u, err := s.store.SummarizeUser(c.Request().Context(), userOf(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, u)
}

func eventListParams(c echo.Context) (queryapi.EventListParams, error) {
	p, err := queryParams(c, "group_id", "before", "limit")
	if err != nil {
		return queryapi.EventListParams{}, err
	}
	limit, err := intParam(p, "limit")
	if err != nil {
		return queryapi.EventListParams{}, err
	}
	if p["limit"] != "" && limit < 1 {
		return queryapi.EventListParams{}, errInvalid(fmt.Sprintf("limit must be in 1..%d", queryapi.MaxBrowseLimit))
	}
	out := queryapi.EventListParams{GroupID: p["group_id"], Limit: limit}
	if b := p["before"]; b != "" {
		if out.Before, err = time.Parse(time.RFC3339, b); err != nil {
			return out, errInvalid("before must be an RFC 3339 time")
		}
	}
	return out, nil
}

func profileListParams(c echo.Context) (queryapi.ProfileListParams, error) {
	p, err := queryParams(c, "entity_type", "limit")
	if err != nil {
		return queryapi.ProfileListParams{}, err
	}
	limit, err := intParam(p, "limit")
	if err != nil {
		return queryapi.ProfileListParams{}, err
	}
	if p["limit"] != "" && limit < 1 {
		return queryapi.ProfileListParams{}, errInvalid(fmt.Sprintf("limit must be in 1..%d", queryapi.MaxBrowseLimit))
	}
	return queryapi.ProfileListParams{EntityType: p["entity_type"], Limit: limit}, nil
}

// retryJob puts one of the caller's failed jobs back in the queue.
func (s *Server) retryJob(c echo.Context) error {
	if _, err := queryParams(c); err != nil {
		return err
	}
	id := c.Param("id")
	if id == "" || len(id) > storage.MaxJobKeyLen {
		return errBadRequest("malformed job id in path")
	}
	j, err := s.store.RetryJob(c.Request().Context(), userOf(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, j)
}

// purgeJobs deletes the caller's jobs of a final state (failed or done).
func (s *Server) purgeJobs(c echo.Context) error {
	p, err := queryParams(c, "state")
	if err != nil {
		return err
	}
	state := p["state"]
	if state != storage.JobFailed && state != storage.JobDone {
		return errInvalid("state must be failed or done")
	}
	n, err := s.store.PurgeJobs(c.Request().Context(), storage.JobPurge{State: state, UserID: userOf(c), All: true})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, DeleteResponse{Deleted: n})
}

// serveMetrics answers /metrics: open like /healthz, or only to the
// metrics_key when one is set.
func (s *Server) serveMetrics(c echo.Context) error {
	if want := s.cfg.MetricsKey; want != "" {
		token, _ := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
		if subtle.ConstantTimeCompare([]byte(token), []byte(want)) != 1 {
			return &Error{http.StatusUnauthorized, CodeUnauthorized, "/metrics needs the metrics_key as bearer token"}
		}
	}
	s.metrics.Handler().ServeHTTP(c.Response(), c.Request())
	return nil
}

// metricsState is what the gauges of /metrics read at a scrape.
func (s *Server) metricsState(ctx context.Context) (metrics.State, error) {
	st := metrics.State{StoreBreaker: s.gate.State(), Embedder: storage.SemanticOff}
	live := s.live.Status()
	st.ConfigReloads, st.ConfigError = live.Reloads, live.Error != ""
	is, err := s.storeStatus(ctx)
	if err != nil {
		return st, err
	}
	st.Pending, st.Unvectored, st.Embedder = is.Pending, is.Unvectored, is.Semantic
	tot, err := s.store.CountAll(ctx, "")
	if err != nil {
		return st, err
	}
	st.Indexed, st.Jobs = tot.Indexed, tot.Jobs
	return st, nil
}

// recordRecall feeds a recall's outcome to the metrics and, when it
// settled conflicts, to the recent-conflicts log.
func (s *Server) recordRecall(user string, req agent.Request, resp *agent.Response) {
	tm := resp.Timings
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	stages := map[string]time.Duration{"observe": ms(tm.Observe), "search": ms(tm.Search), "tools": ms(tm.Tools),
		"synthesize": ms(tm.Synthesize), "verify": ms(tm.Verify), "total": ms(tm.Total)}
	var tools []string
	for _, st := range resp.Trace {
		if st.Tool != "" {
			tools = append(tools, st.Tool)
		}
	}
	s.metrics.Recall(stages, resp.Limits.StopReason, resp.Limits.Brain, len(resp.Conflicts), tools)
	s.conflicts.add(user, req.Question, resp.Conflicts)
}

// conflictLog keeps the latest conflicts recalls settled, for the
// console's health panel: in memory, so it starts empty with the process.
type conflictLog struct {
	mu    sync.Mutex
	total int
	ring  []conflictEntry // newest last, at most max
	max   int
}

type conflictEntry struct {
	At         time.Time `json:"at"`
	UserID     string    `json:"user_id"`
	Question   string    `json:"question"`
	Topic      string    `json:"topic"`
	Kept       []string  `json:"kept"`
	Superseded []string  `json:"superseded"`
	Reason     string    `json:"reason"`
}

func newConflictLog(max int) *conflictLog { return &conflictLog{max: max} }

func (l *conflictLog) add(user, question string, cs []agent.Conflict) {
	if len(cs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now().UTC()
	for _, c := range cs {
		l.total++
		l.ring = append(l.ring, conflictEntry{At: now, UserID: user, Question: question, Topic: c.Topic,
			Kept: c.Kept, Superseded: c.Superseded, Reason: c.Reason})
	}
	if over := len(l.ring) - l.max; over > 0 {
		l.ring = append(l.ring[:0:0], l.ring[over:]...)
	}
}

// list returns the newest conflicts of users whose id starts with prefix,
// newest first, and how many conflicts of those users were found since
// the start (of the ones still kept when the prefix is not empty).
func (l *conflictLog) list(prefix string, limit int) ([]conflictEntry, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []conflictEntry{}
	n := 0
	for i := len(l.ring) - 1; i >= 0; i-- {
		if !strings.HasPrefix(l.ring[i].UserID, prefix) {
			continue
		}
		n++
		if len(out) < limit {
			out = append(out, l.ring[i])
		}
	}
	if prefix == "" {
		n = l.total
	}
	return out, n
}

type conflictsResponse struct {
	Conflicts []conflictEntry `json:"conflicts"`
	Total     int             `json:"total"`
}

func (s *Server) listConflicts(c echo.Context) error {
	p, err := queryParams(c, "limit")
	if err != nil {
		return err
	}
	limit, err := limitParam(p, defaultUserList, conflictKeep)
	if err != nil {
		return err
	}
	list, total := s.conflicts.list(c.Get(scopeKey).(string), limit)
	return c.JSON(http.StatusOK, conflictsResponse{Conflicts: list, Total: total})
}

// conflictKeep is how many recent conflicts the server keeps.
const conflictKeep = 200
