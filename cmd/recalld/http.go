package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/metrics"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// Headers of the trust model.
const (
	headerUser   = "X-Recall-User"
	maxUserIDLen = 256
	userKey      = "recalld.user"
)

// server holds what the HTTP handlers need. Handlers only decode, call and encode.
type server struct {
	// cfg is the configuration the server started with. Reloadable
	// sections ([cognitive.historian], ...) are read per call from live.
	cfg     Config
	live    *liveConfig
	breaker *storeBreaker // around every route that uses the store
	slots   *userSlots    // each user's running requests; nil: no bound
	// degraded lists what was found wrong at start (an unreachable
	// embedder, say); /healthz shows it.
	degraded []string
	log      *slog.Logger
	store    *storage.Store
	tools    *queryapi.Service
	agent    *agent.Agent
	queue    *ingest.Queue
	version  string
	mcp      *mcpTools
	e        *echo.Echo
	// embedderFallback is why the configured embedder could not be used
	// (the hashing embedder serves instead), or "".
	embedderFallback string
	metrics          *metrics.Metrics
	conflicts        *conflictLog // recent conflicts recalls settled
}

func newServer(cfg Config, log *slog.Logger, store *storage.Store, ag *agent.Agent, version string) *server {
	return newServerWith(cfg, log, store, ag, version, metrics.New())
}

// newServerWith is newServer recording into m, which serve also gives the
// store and the worker.
func newServerWith(cfg Config, log *slog.Logger, store *storage.Store, ag *agent.Agent, version string, m *metrics.Metrics) *server {
	s := &server{cfg: cfg, log: log.With("component", "http"), store: store,
		tools: newQueryService(store, cfg), agent: ag,
		queue: ingest.NewQueue(store), version: version,
		live: newLiveConfig(cfg, log), breaker: newStoreBreaker(cfg.Breaker, log),
		metrics: m, conflicts: newConflictLog(conflictKeep)}
	m.WatchState(s.metricsState)
	if cfg.PerUserInflight > 0 {
		s.slots = newUserSlots(cfg.PerUserInflight)
	}
	s.mcp = newMCPTools(mcpConfig{Tools: s.tools, Agent: ag, Events: s.eventSearchConfig, Gate: s.breaker, Log: log,
		Timeout: cfg.RequestTimeout.Duration, Version: version})
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = errorHandler(s.log)
	e.Use(m.Middleware())
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
		return s.authenticate(s.fairShare(s.breaker.guard(next)))
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

// newQueryService is the user-bound query tools over store as cfg sets them
// up; serve and mcp share it.
func newQueryService(store *storage.Store, cfg Config) *queryapi.Service {
	return queryapi.New(store).SetProfileTopK(cfg.Cognitive.Profile.ProfileTopK)
}

// timeout bounds every request's context by RequestTimeout.
func (s *server) timeout(next echo.HandlerFunc) echo.HandlerFunc {
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

// authenticate establishes the user the request acts for: the X-Recall-User
// header, accepted only with an API key of the live config (keys reload
// without a restart) whose prefix (if any) the user id matches. With no keys
// configured (loopback only) the header alone is trusted.
func (s *server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		cfg := s.live.Load()
		req := c.Request()
		token, hasToken := strings.CutPrefix(req.Header.Get(echo.HeaderAuthorization), "Bearer ")
		if len(cfg.APIKeys) > 0 && (!hasToken || token == "") {
			return &apiError{http.StatusUnauthorized, codeUnauthorized, "missing bearer API key"}
		}
		user := req.Header.Get(headerUser)
		if err := cfg.authorize(token, user); err != nil {
			return err
		}
		c.Set(userKey, user)
		return next(c)
	}
}

// authorize checks that a caller presenting token may act for user: user
// must be a well-formed id and, when API keys are configured, token one of
// them whose user prefix user starts with. With no keys (loopback only) the
// user alone is trusted. `serve` checks every request with it and `mcp`
// (stdio) its -user and -key once at start.
func (c Config) authorize(token, user string) error {
	if len(c.APIKeys) == 0 {
		return checkUserID(user)
	}
	key, ok := c.findKey(token)
	if !ok {
		return &apiError{http.StatusUnauthorized, codeUnauthorized, "unknown API key"}
	}
	if err := checkUserID(user); err != nil {
		return err
	}
	if !strings.HasPrefix(user, key.UserPrefix) {
		return errForbidden("this API key may not act for this user")
	}
	return nil
}

// findKey compares token with every key in constant time.
func (c Config) findKey(token string) (APIKey, bool) {
	var found APIKey
	ok := false
	for _, k := range c.APIKeys {
		if subtle.ConstantTimeCompare([]byte(token), []byte(k.Key)) == 1 {
			found, ok = k, true
		}
	}
	return found, ok
}

func checkUserID(user string) error {
	switch {
	case user == "":
		return errBadRequest("missing " + headerUser + " header")
	case len(user) > maxUserIDLen:
		return errBadRequest(fmt.Sprintf("%s is longer than %d bytes", headerUser, maxUserIDLen))
	case !utf8.ValidString(user) || strings.IndexFunc(user, unicode.IsControl) >= 0 || strings.TrimSpace(user) != user:
		return errBadRequest(headerUser + " must be printable UTF-8 without surrounding spaces")
	}
	return nil
}

func userOf(c echo.Context) string { return c.Get(userKey).(string) }

func (s *server) bind(c echo.Context) (*queryapi.Tools, error) {
	return s.tools.Bind(userOf(c))
}

// decodeJSON reads the request body as JSON into dst: one object (not
// null), no unknown fields, nothing after it, valid Unicode throughout, with
// the required fields present and no number below its minimum (see
// checkPresence). Every route with a JSON body reads it here.
func decodeJSON(c echo.Context, dst any) error {
	req := c.Request()
	if ct := req.Header.Get(echo.HeaderContentType); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != echo.MIMEApplicationJSON {
			return &apiError{http.StatusUnsupportedMediaType, codeUnsupportedMedia, "send the body as application/json"}
		}
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		var he *echo.HTTPError
		var mbe *http.MaxBytesError
		if errors.As(err, &he) || errors.As(err, &mbe) {
			return &apiError{http.StatusRequestEntityTooLarge, codeTooLarge, "request body is too large"}
		}
		return errBadRequest("read body: " + err.Error())
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return errBadRequest("empty body: send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return errBadRequest("malformed JSON: " + jsonErrorText(err))
	}
	if dec.More() {
		return errBadRequest("malformed JSON: data after the object")
	}
	if trimmed[0] != '{' {
		// null decodes into a struct as nothing at all.
		return errBadRequest("the body must be a JSON object")
	}
	if err := checkUnicode(body); err != nil {
		return err
	}
	return checkPresence(body, reflect.ValueOf(dst), "")
}

func jsonErrorText(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("field %s: want %s, got %s", te.Field, te.Type, te.Value)
		}
		return fmt.Sprintf("want %s, got %s", te.Type, te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of input"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// messageIn is a message as POST /messages and `recalld import` accept it.
type messageIn struct {
	ID             string          `json:"id"`
	UserID         string          `json:"user_id"`
	ConversationID string          `json:"conversation_id"`
	GroupID        string          `json:"group_id"`
	Role           string          `json:"role"`
	SenderID       string          `json:"sender_id"`
	SenderName     string          `json:"sender_name"`
	Content        string          `json:"content"`
	CreatedAt      string          `json:"created_at"`
	Meta           json.RawMessage `json:"meta"`
}

// message checks m and returns it as a storage.Message; i numbers it in errors.
func (m messageIn) message(i int) (storage.Message, error) {
	if strings.TrimSpace(m.Content) == "" {
		return storage.Message{}, errInvalid(fmt.Sprintf("messages[%d]: content is empty", i))
	}
	if m.CreatedAt == "" {
		return storage.Message{}, errInvalid(fmt.Sprintf("messages[%d]: created_at is required (RFC 3339)", i))
	}
	t, err := time.Parse(time.RFC3339Nano, m.CreatedAt)
	if err != nil {
		return storage.Message{}, errInvalid(fmt.Sprintf("messages[%d]: created_at %q is not an RFC 3339 time", i, m.CreatedAt))
	}
	meta := m.Meta
	if s := bytes.TrimSpace(meta); len(s) == 0 || bytes.Equal(s, []byte("null")) {
		meta = nil
	}
	return storage.Message{
		ID: m.ID, UserID: m.UserID, ConversationID: m.ConversationID, GroupID: m.GroupID,
		Role: m.Role, SenderID: m.SenderID, SenderName: m.SenderName, Content: m.Content,
		CreatedAt: t, Meta: meta,
	}, nil
}

type postMessagesRequest struct {
	Messages []messageIn `json:"messages"`
}

type postMessagesResponse struct {
	Inserted   int      `json:"inserted"`
	Duplicates int      `json:"duplicates"`
	IDs        []string `json:"ids"`
}

func (s *server) postMessages(c echo.Context) error {
	var req postMessagesRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	switch {
	case req.Messages == nil:
		return errInvalid("messages is required")
	case len(req.Messages) == 0:
		return errInvalid("messages is empty")
	case len(req.Messages) > s.cfg.MaxBatch:
		return errInvalid(fmt.Sprintf("a batch holds at most %d messages, got %d", s.cfg.MaxBatch, len(req.Messages)))
	}
	user := userOf(c)
	msgs := make([]storage.Message, len(req.Messages))
	for i, in := range req.Messages {
		if in.UserID != "" && in.UserID != user {
			return errForbidden(fmt.Sprintf("messages[%d]: user_id differs from the request's user", i))
		}
		m, err := in.message(i)
		if err != nil {
			return err
		}
		msgs[i] = m
	}
	res, err := s.store.Insert(c.Request().Context(), user, msgs)
	if err != nil {
		return err
	}
	out := postMessagesResponse{Inserted: res.Inserted, Duplicates: res.Duplicate, IDs: make([]string, len(msgs))}
	for i, m := range msgs {
		out.IDs[i] = m.ID
	}
	return c.JSON(http.StatusOK, out)
}

// queryParams reads the URL query, refusing names outside allowed and
// repeated names, so a typo is an error rather than a silent no-op.
func queryParams(c echo.Context, allowed ...string) (map[string]string, error) {
	out := map[string]string{}
	for name, vs := range c.QueryParams() {
		ok := false
		for _, a := range allowed {
			ok = ok || a == name
		}
		if !ok {
			return nil, errBadRequest(fmt.Sprintf("unknown query parameter %q (allowed: %s)", name, strings.Join(allowed, ", ")))
		}
		if len(vs) != 1 {
			return nil, errBadRequest(fmt.Sprintf("query parameter %q given %d times", name, len(vs)))
		}
		out[name] = vs[0]
	}
	return out, nil
}

func intParam(p map[string]string, name string) (int, error) {
	v, ok := p[name]
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, errBadRequest(fmt.Sprintf("query parameter %s: %q is not an integer", name, v))
	}
	return n, nil
}

// toolRoute answers a route with one call of a tool bound to the caller:
// read turns the request into the call's parameters (query, path and body,
// each checked before the store is touched), and the result is the 200 body.
func toolRoute[P, R any](s *server, read func(echo.Context) (P, error), call func(*queryapi.Tools, context.Context, P) (R, error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, err := read(c)
		if err != nil {
			return err
		}
		t, err := s.bind(c)
		if err != nil {
			return err
		}
		res, err := call(t, c.Request().Context(), p)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, res)
	}
}

// jsonBody reads the parameters of a request that has no query parameters
// and a JSON body.
func jsonBody[P any](c echo.Context) (P, error) {
	var p P
	if _, err := queryParams(c); err != nil {
		return p, err
	}
	return p, decodeJSON(c, &p)
}

// listParams reads GET /messages.
func listParams(c echo.Context) (queryapi.ListParams, error) {
	p, err := queryParams(c, "since", "until", "role", "conversation_id", "page_size", "cursor")
	if err != nil {
		return queryapi.ListParams{}, err
	}
	size, err := intParam(p, "page_size")
	if err != nil {
		return queryapi.ListParams{}, err
	}
	if p["page_size"] != "" && size < 1 {
		// 0 would read as the default.
		return queryapi.ListParams{}, errInvalid(fmt.Sprintf("page_size must be in 1..%d", queryapi.MaxPageSize))
	}
	return queryapi.ListParams{
		Since: p["since"], Until: p["until"], Role: p["role"], ConversationID: p["conversation_id"],
		PageSize: size, Cursor: p["cursor"],
	}, nil
}

// pathID is the :id path parameter, unescaped (ids may contain "/").
func pathID(c echo.Context) (string, error) {
	id, err := url.PathUnescape(c.Param("id"))
	if err != nil || id == "" {
		return "", errBadRequest("malformed message id in path")
	}
	if len(id) > storage.MaxIDLen {
		return "", errInvalid(fmt.Sprintf("message id is longer than %d bytes", storage.MaxIDLen))
	}
	return id, nil
}

func (s *server) neighbors(c echo.Context) error {
	p, err := queryParams(c, "before", "after")
	if err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	before, err := intParam(p, "before")
	if err != nil {
		return err
	}
	after, err := intParam(p, "after")
	if err != nil {
		return err
	}
	if _, ok := p["before"]; !ok {
		before = queryapi.DefaultNeighbor
	}
	if _, ok := p["after"]; !ok {
		after = queryapi.DefaultNeighbor
	}
	t, err := s.bind(c)
	if err != nil {
		return err
	}
	res, err := t.Neighbors(c.Request().Context(), queryapi.NeighborsParams{MessageID: id, Before: before, After: after})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, res)
}

type deleteResponse struct {
	Deleted int `json:"deleted"`
}

func (s *server) deleteMessage(c echo.Context) error {
	if _, err := queryParams(c); err != nil {
		return err
	}
	id, err := pathID(c)
	if err != nil {
		return err
	}
	if err := s.store.Delete(c.Request().Context(), userOf(c), id); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, deleteResponse{Deleted: 1})
}

func (s *server) forgetUser(c echo.Context) error {
	if _, err := queryParams(c); err != nil {
		return err
	}
	n, err := s.store.DeleteUser(c.Request().Context(), userOf(c))
	if err != nil {
		return err
	}
	s.log.Info("user forgotten", "messages", n)
	return c.JSON(http.StatusOK, deleteResponse{Deleted: n})
}

func (s *server) recall(c echo.Context) error {
	var req agent.Request
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	// The metrics count the tools each recall called, which its trace
	// lists: ask for it, and answer it only to a caller who did.
	asked := req.Options.Trace
	req.Options.Trace = true
	resp, err := s.agent.Recall(c.Request().Context(), userOf(c), req)
	if err != nil {
		return err
	}
	s.recordRecall(userOf(c), req, resp)
	if !asked {
		resp.Trace = nil
	}
	return c.JSON(http.StatusOK, resp)
}

// endTurn queues the ended turn for the historian: 202 once the job is
// durable, 200 when the turn had nothing to queue.
func (s *server) endTurn(c echo.Context) error {
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

type jobsResponse struct {
	Jobs []storage.Job `json:"jobs"`
}

// listJobs lists the caller's jobs, newest first.
func (s *server) listJobs(c echo.Context) error {
	p, err := queryParams(c, "state", "limit")
	if err != nil {
		return err
	}
	limit, err := intParam(p, "limit")
	if err != nil {
		return err
	}
	if _, ok := p["limit"]; !ok {
		limit = defaultJobList
	}
	if limit < 1 || limit > maxJobList {
		return errInvalid(fmt.Sprintf("limit must be in 1..%d", maxJobList))
	}
	state := p["state"]
	if state != "" && !storage.ValidJobState(state) {
		return errInvalid(fmt.Sprintf("state %q: want pending, processing, done or failed", state))
	}
	jobs, err := s.store.ListJobs(c.Request().Context(), storage.JobFilter{UserID: userOf(c), State: state, Limit: limit})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, jobsResponse{Jobs: jobs})
}

type healthResponse struct {
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
	Store    string       `json:"store"`
	Config   reloadStatus `json:"config"`
	Warnings []string     `json:"warnings"`
}

// healthz reports liveness and every degradation. It answers 200 while the
// process runs, also when the store or the embedder fails.
func (s *server) healthz(c echo.Context) error {
	h := healthResponse{
		Status: "ok", Version: s.version, Embedder: s.store.EmbedderName(), EmbedderFallback: s.embedderFallback, Pending: -1,
		Auth: len(s.live.Load().APIKeys) > 0, Brain: s.agent.Brain(), Semantic: storage.SemanticOK,
		Config: s.live.status(), Warnings: slices.Clone(s.degraded),
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
	h.Store = s.breaker.State()
	if h.Store != breakerClosed {
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
func (s *server) storeStatus(ctx context.Context) (st storage.IndexStatus, err error) {
	err = s.breaker.check(func() (err error) {
		st, err = s.store.Status(ctx)
		return err
	})
	if errors.Is(err, errCircuit) {
		return st, fmt.Errorf("store circuit %s", s.breaker.State())
	}
	return st, err
}

type readyResponse struct {
	Status string `json:"status"`
	// Store is the store circuit breaker's state after the check.
	Store string `json:"store"`
}

// readyz answers 200 when the store's circuit is closed and the database
// answers; 503 store_unavailable (with Retry-After) while the circuit is
// open or half-open, 503 unavailable when the ping fails (which counts
// towards opening the circuit; a successful ping is no probe).
func (s *server) readyz(c echo.Context) error {
	err := s.breaker.check(func() error { return s.store.Ping(c.Request().Context()) })
	if errors.Is(err, errCircuit) {
		return s.breaker.refused(c)
	}
	if err != nil {
		s.log.Warn("not ready", "err", err)
		return &apiError{http.StatusServiceUnavailable, codeUnavailable, "database does not answer"}
	}
	return c.JSON(http.StatusOK, readyResponse{Status: "ready", Store: s.breaker.State()})
}
