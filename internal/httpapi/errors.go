package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// Error codes of the JSON error body {"error":{"code","message"}}. openapi.yaml
// lists the same set.
const (
	CodeBadRequest       = "bad_request"
	CodeUnauthorized     = "unauthorized"
	CodeForbidden        = "forbidden"
	CodeNotFound         = "not_found"
	CodeMethodNotAllowed = "method_not_allowed"
	CodeConflict         = "conflict"
	CodeTooLarge         = "payload_too_large"
	CodeUnsupportedMedia = "unsupported_media_type"
	CodeInvalid          = "invalid_argument"
	CodeUnavailable      = "unavailable"
	// CodeSemanticUnavailable: the embedder does not answer (or has no
	// vectors); lexical search still works.
	CodeSemanticUnavailable = "semantic_unavailable"
	// CodeStoreUnavailable: the store's circuit breaker is open; retry
	// after the Retry-After header's seconds.
	CodeStoreUnavailable = "store_unavailable"
	CodeTimeout          = "timeout"
	CodeInternal         = "internal"
)

// Error is an error with the status and code a client sees.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func errBadRequest(msg string) *Error {
	return &Error{http.StatusBadRequest, CodeBadRequest, msg}
}
func errInvalid(msg string) *Error {
	return &Error{http.StatusUnprocessableEntity, CodeInvalid, msg}
}
func errForbidden(msg string) *Error { return &Error{http.StatusForbidden, CodeForbidden, msg} }

type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ToError maps any error a handler returns to what the client sees. It is
// the one place that turns errors into statuses; internal errors are logged
// and never shown.
func ToError(err error) (ae *Error, internal bool) {
	if errors.As(err, &ae) {
		return ae, false
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := http.StatusText(he.Code)
		if s, ok := he.Message.(string); ok && s != "" {
			msg = s
		}
		switch he.Code {
		case http.StatusNotFound:
			return &Error{he.Code, CodeNotFound, "no such route"}, false
		case http.StatusMethodNotAllowed:
			return &Error{he.Code, CodeMethodNotAllowed, "method not allowed on this route"}, false
		case http.StatusRequestEntityTooLarge:
			return &Error{he.Code, CodeTooLarge, "request body is too large"}, false
		case http.StatusUnauthorized:
			return &Error{he.Code, CodeUnauthorized, msg}, false
		case http.StatusServiceUnavailable:
			return &Error{he.Code, CodeUnavailable, msg}, false
		}
		if he.Code >= 400 && he.Code < 500 {
			return &Error{he.Code, CodeBadRequest, msg}, false
		}
	}
	// The typed errors of agent, ingest, queryapi and storage carry the
	// words a client may read; errors.As finds them however deep they are
	// wrapped.
	var (
		reqErr   *agent.InvalidRequestError
		turnErr  *ingest.InvalidTurnError
		queryErr *queryapi.Error
		storeErr *storage.Error
	)
	switch {
	case errors.As(err, &reqErr):
		return errInvalid(reqErr.Msg), false
	case errors.As(err, &queryErr) && errors.Is(queryErr, queryapi.ErrOutOfScope):
		return errForbidden("outside the caller's scope: " + queryErr.Msg), false
	case errors.As(err, &turnErr):
		return errInvalid(turnErr.Msg), false
	case errors.As(err, &queryErr) && errors.Is(queryErr, queryapi.ErrInvalidQuery):
		return errInvalid(queryErr.Msg), false
	case errors.As(err, &storeErr) && errors.Is(storeErr, storage.ErrInvalid):
		return errInvalid(storeErr.Msg), false
	case errors.As(err, &queryErr) && errors.Is(queryErr, queryapi.ErrNoProfile):
		return &Error{http.StatusNotFound, CodeNotFound, queryErr.Msg + " for this user"}, false
	case errors.Is(err, storage.ErrMemoryNotFound):
		return &Error{http.StatusNotFound, CodeNotFound, "no such pinned memory for this user"}, false
	case errors.Is(err, storage.ErrMemoryExists):
		return &Error{http.StatusConflict, CodeConflict, "a pinned memory with this id exists with different content"}, false
	case errors.As(err, &storeErr) && errors.Is(storeErr, storage.ErrMemoryLimit):
		return &Error{http.StatusConflict, CodeConflict, "pinned memory limit reached: " + storeErr.Msg}, false
	case errors.Is(err, storage.ErrNotFound):
		return &Error{http.StatusNotFound, CodeNotFound, "no such message for this user"}, false
	case errors.As(err, &storeErr) && errors.Is(storeErr, storage.ErrConflict):
		return &Error{http.StatusConflict, CodeConflict, storeErr.Msg + ": a message with this id exists with different content"}, false
	case errors.Is(err, storage.ErrSemanticUnavailable):
		// The embedder's own error may name internal hosts: /healthz has it.
		return &Error{http.StatusServiceUnavailable, CodeSemanticUnavailable,
			"semantic search is unavailable now (the embedder does not answer, or has no vectors yet; see /healthz); lexical search still works"}, false
	case errors.Is(err, storage.ErrEmbedderMismatch):
		return &Error{http.StatusServiceUnavailable, CodeUnavailable, "vector index belongs to another embedder; run `recalld reindex`"}, false
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{http.StatusServiceUnavailable, CodeTimeout, "the request took longer than its time limit"}, true
	}
	return &Error{http.StatusInternalServerError, CodeInternal, "internal error"}, true
}

// errorHandler is echo's HTTPErrorHandler: every error becomes the JSON body.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		ae, internal := ToError(err)
		if internal {
			log.Error("request failed", "method", c.Request().Method, "path", c.Path(), "err", err)
		}
		if c.Request().Method == http.MethodHead {
			err = c.NoContent(ae.Status)
		} else {
			err = c.JSON(ae.Status, ErrorBody{ErrorDetail{ae.Code, ae.Message}})
		}
		if err != nil {
			log.Warn("write error response", "err", err)
		}
	}
}
