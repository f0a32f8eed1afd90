package httpapi

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// MCP serves the MCP streamable HTTP transport for one authenticated user:
// the handler it returns answers with a server whose tools act for user
// only. bodyLimit bounds a request's body; with checkHost the transport
// refuses requests for other host names. *mcpapi.Tools implements it.
type MCP interface {
	HTTPHandler(user string, bodyLimit int64, checkHost bool) (http.Handler, error)
}

// serveMCP serves POST /mcp, the streamable HTTP transport, statelessly: each
// request passes the same authentication as every route and is answered by
// a server bound to its user, so no MCP session outlives, or changes, the
// credentials of the request that carries it. Responses are JSON, not SSE.
func (s *Server) serveMCP(c echo.Context) error {
	// Without keys the server is on loopback and trusts X-Recall-User,
	// so a request for another host name (DNS rebinding from a browser)
	// is refused; with keys every request is authenticated, and a
	// reverse proxy on the same host may pass its own host name.
	h, err := s.mcp.HTTPHandler(userOf(c), s.cfg.BodyLimit, len(s.live.Load().APIKeys) == 0)
	if err != nil {
		return err
	}
	w := &mcpErrorWriter{ResponseWriter: c.Response()}
	h.ServeHTTP(w, c.Request())
	if w.status == 0 {
		return nil
	}
	// The transport refused the request with a plain-text error; answer
	// with the JSON error body like every other route.
	w.Header().Del(echo.HeaderContentType)
	w.Header().Del("X-Content-Type-Options")
	return &Error{w.status, codeForStatus(w.status), strings.TrimSpace(w.msg.String())}
}

// mcpErrorWriter holds back the MCP transport's plain-text HTTP errors (bad
// Accept or Content-Type, malformed JSON-RPC, body too large) so that the
// handler can answer them with the JSON error body instead.
type mcpErrorWriter struct {
	http.ResponseWriter
	status int // the held-back error status; 0: passing through
	msg    bytes.Buffer
}

func (w *mcpErrorWriter) WriteHeader(code int) {
	if code >= 400 && strings.HasPrefix(w.Header().Get(echo.HeaderContentType), "text/plain") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *mcpErrorWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		return w.msg.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *mcpErrorWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok && w.status == 0 {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the echo writer.
func (w *mcpErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// codeForStatus is the error code of a transport-level HTTP error.
func codeForStatus(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return CodeUnauthorized
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return CodeTooLarge
	case http.StatusUnsupportedMediaType:
		return CodeUnsupportedMedia
	}
	if status >= 500 {
		return CodeInternal
	}
	return CodeBadRequest
}
