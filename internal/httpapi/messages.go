package httpapi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// MessageIn is a message as POST /messages and `recalld import` accept it.
type MessageIn struct {
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
func (m MessageIn) Message(i int) (storage.Message, error) {
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
	Messages []MessageIn `json:"messages"`
}

type PostMessagesResponse struct {
	Inserted   int      `json:"inserted"`
	Duplicates int      `json:"duplicates"`
	IDs        []string `json:"ids"`
}

func (s *Server) postMessages(c echo.Context) error {
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
		m, err := in.Message(i)
		if err != nil {
			return err
		}
		msgs[i] = m
	}
	res, err := s.store.Insert(c.Request().Context(), user, msgs)
	if err != nil {
		return err
	}
	out := PostMessagesResponse{Inserted: res.Inserted, Duplicates: res.Duplicate, IDs: make([]string, len(msgs))}
	for i, m := range msgs {
		out.IDs[i] = m.ID
	}
	return c.JSON(http.StatusOK, out)
}

// toolRoute answers a route with one call of a tool bound to the caller:
// read turns the request into the call's parameters (query, path and body,
// each checked before the store is touched), and the result is the 200 body.
func toolRoute[P, R any](s *Server, read func(echo.Context) (P, error), call func(*queryapi.Tools, context.Context, P) (R, error)) echo.HandlerFunc {
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

func (s *Server) neighbors(c echo.Context) error {
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

type DeleteResponse struct {
	Deleted int `json:"deleted"`
}

func (s *Server) deleteMessage(c echo.Context) error {
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
	return c.JSON(http.StatusOK, DeleteResponse{Deleted: 1})
}

func (s *Server) forgetUser(c echo.Context) error {
	if _, err := queryParams(c); err != nil {
		return err
	}
	n, err := s.store.DeleteUser(c.Request().Context(), userOf(c))
	if err != nil {
		return err
	}
	s.log.Info("user forgotten", "messages", n)
	return c.JSON(http.StatusOK, DeleteResponse{Deleted: n})
}

func (s *Server) recall(c echo.Context) error {
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

// DecodeMessageLine reads one message of a JSON Lines import (`recalld
// import`) with the checks POST /messages applies to each message: no
// unknown fields, valid Unicode, a well-formed user id, content and
// created_at. The user is the line's user_id, else defaultUser.
func DecodeMessageLine(b []byte, defaultUser string) (storage.Message, string, error) {
	msg := func(err error) string { return err.(*Error).Message } // the checks below return *Error
	var in MessageIn
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return storage.Message{}, "", fmt.Errorf("malformed JSON: %s", JSONErrorText(err))
	}
	if err := CheckUnicode(b); err != nil {
		return storage.Message{}, "", errors.New(msg(err))
	}
	u := cmp.Or(in.UserID, defaultUser)
	if u == "" {
		return storage.Message{}, "", errors.New("user_id is missing and no -user was given")
	}
	if err := CheckUserID(u); err != nil {
		return storage.Message{}, "", fmt.Errorf("user_id: %s", msg(err))
	}
	m, err := in.Message(0)
	if err != nil {
		return storage.Message{}, "", errors.New(msg(err))
	}
	return m, u, nil
}
