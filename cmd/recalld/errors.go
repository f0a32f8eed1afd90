package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

// Error codes of the JSON error body {"error":{"code","message"}}. openapi.yaml
// lists the same set.
const (
	codeBadRequest       = "bad_request"
	codeUnauthorized     = "unauthorized"
	codeForbidden        = "forbidden"
	codeNotFound         = "not_found"
	codeMethodNotAllowed = "method_not_allowed"
	codeConflict         = "conflict"
	codeTooLarge         = "payload_too_large"
	codeUnsupportedMedia = "unsupported_media_type"
	codeInvalid          = "invalid_argument"
	codeUnavailable      = "unavailable"
	// codeSemanticUnavailable: the embedder does not answer (or has no
	// vectors); lexical search still works.
	codeSemanticUnavailable = "semantic_unavailable"
	// codeStoreUnavailable: the store's circuit breaker is open; retry
	// after the Retry-After header's seconds.
	codeStoreUnavailable = "store_unavailable"
	codeTimeout          = "timeout"
	codeInternal         = "internal"
)

// apiError is an error with the status and code a client sees.
type apiError struct {
	Status  int
	Code    string
	Message string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func errBadRequest(msg string) *apiError {
	return &apiError{http.StatusBadRequest, codeBadRequest, msg}
}
func errInvalid(msg string) *apiError {
	return &apiError{http.StatusUnprocessableEntity, codeInvalid, msg}
}
func errForbidden(msg string) *apiError { return &apiError{http.StatusForbidden, codeForbidden, msg} }

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// toAPIError maps any error a handler returns to what the client sees. It is
// the one place that turns errors into statuses; internal errors are logged
// and never shown.
func toAPIError(err error) (ae *apiError, internal bool) {
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
			return &apiError{he.Code, codeNotFound, "no such route"}, false
		case http.StatusMethodNotAllowed:
			return &apiError{he.Code, codeMethodNotAllowed, "method not allowed on this route"}, false
		case http.StatusRequestEntityTooLarge:
			return &apiError{he.Code, codeTooLarge, "request body is too large"}, false
		case http.StatusUnauthorized:
			return &apiError{he.Code, codeUnauthorized, msg}, false
		case http.StatusServiceUnavailable:
			return &apiError{he.Code, codeUnavailable, msg}, false
		}
		if he.Code >= 400 && he.Code < 500 {
			return &apiError{he.Code, codeBadRequest, msg}, false
		}
	}
	switch {
	case errors.Is(err, agent.ErrInvalidRequest):
		return errInvalid(clientMessage(err, agent.ErrInvalidRequest)), false
	case errors.Is(err, queryapi.ErrOutOfScope):
		return errForbidden(clientMessage(err, queryapi.ErrInvalidQuery)), false
	case errors.Is(err, ingest.ErrInvalidTurn):
		return errInvalid(clientMessage(err, ingest.ErrInvalidTurn)), false
	case errors.Is(err, queryapi.ErrInvalidQuery):
		return errInvalid(clientMessage(err, queryapi.ErrInvalidQuery)), false
	case errors.Is(err, storage.ErrInvalid):
		return errInvalid(clientMessage(err, storage.ErrInvalid)), false
	case errors.Is(err, queryapi.ErrNoProfile):
		return &apiError{http.StatusNotFound, codeNotFound, clientMessage(err, queryapi.ErrNoProfile) + " for this user"}, false
	case errors.Is(err, storage.ErrMemoryNotFound):
		return &apiError{http.StatusNotFound, codeNotFound, "no such pinned memory for this user"}, false
	case errors.Is(err, storage.ErrMemoryExists):
		return &apiError{http.StatusConflict, codeConflict, "a pinned memory with this id exists with different content"}, false
	case errors.Is(err, storage.ErrMemoryLimit):
		return &apiError{http.StatusConflict, codeConflict, "pinned memory limit reached: " + clientMessage(err, storage.ErrMemoryLimit)}, false
	case errors.Is(err, storage.ErrNotFound):
		return &apiError{http.StatusNotFound, codeNotFound, "no such message for this user"}, false
	case errors.Is(err, storage.ErrConflict):
		return &apiError{http.StatusConflict, codeConflict, clientMessage(err, storage.ErrConflict) +
			": a message with this id exists with different content"}, false
	case errors.Is(err, storage.ErrSemanticUnavailable):
		// The embedder's own error may name internal hosts: /healthz has it.
		return &apiError{http.StatusServiceUnavailable, codeSemanticUnavailable,
			"semantic search is unavailable now (the embedder does not answer, or has no vectors yet; see /healthz); lexical search still works"}, false
	case errors.Is(err, storage.ErrEmbedderMismatch):
		return &apiError{http.StatusServiceUnavailable, codeUnavailable, "vector index belongs to another embedder; run `recalld reindex`"}, false
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{http.StatusServiceUnavailable, codeTimeout, "the request took longer than its time limit"}, true
	}
	return &apiError{http.StatusInternalServerError, codeInternal, "internal error"}, true
}

// clientMessage is err's text after the sentinel's own words.
func clientMessage(err, sentinel error) string {
	msg := err.Error()
	if i := strings.Index(msg, sentinel.Error()); i >= 0 {
		msg = msg[i+len(sentinel.Error()):]
	}
	msg = strings.TrimLeft(msg, ": ")
	if msg == "" {
		return sentinel.Error()
	}
	return msg
}

// errorHandler is echo's HTTPErrorHandler: every error becomes the JSON body.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		ae, internal := toAPIError(err)
		if internal {
			log.Error("request failed", "method", c.Request().Method, "path", c.Path(), "err", err)
		}
		if c.Request().Method == http.MethodHead {
			err = c.NoContent(ae.Status)
		} else {
			err = c.JSON(ae.Status, errorBody{errorDetail{ae.Code, ae.Message}})
		}
		if err != nil {
			log.Warn("write error response", "err", err)
		}
	}
}
