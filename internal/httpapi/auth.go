package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/queryapi"
)

// authenticate establishes the user the request acts for: the X-Recall-User
// header, accepted only with an API key of the live config (keys reload
// without a restart) whose prefix (if any) the user id matches. With no keys
// configured (loopback only) the header alone is trusted.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		cfg := s.live.Load()
		req := c.Request()
		token, hasToken := strings.CutPrefix(req.Header.Get(echo.HeaderAuthorization), "Bearer ")
		if len(cfg.APIKeys) > 0 && (!hasToken || token == "") {
			return &Error{http.StatusUnauthorized, CodeUnauthorized, "missing bearer API key"}
		}
		user := req.Header.Get(HeaderUser)
		if err := Authorize(*cfg, token, user); err != nil {
			return err
		}
		c.Set(userKey, user)
		return next(c)
	}
}

// Authorize checks that a caller presenting token may act for user: user
// must be a well-formed id and, when API keys are configured, token one of
// them whose user prefix user starts with. With no keys (loopback only) the
// user alone is trusted. `serve` checks every request with it and `mcp`
// (stdio) its -user and -key once at start. Its errors are *Error.
func Authorize(c config.Config, token, user string) error {
	if len(c.APIKeys) == 0 {
		return CheckUserID(user)
	}
	key, ok := c.FindKey(token)
	if !ok {
		return &Error{http.StatusUnauthorized, CodeUnauthorized, "unknown API key"}
	}
	if err := CheckUserID(user); err != nil {
		return err
	}
	if !strings.HasPrefix(user, key.UserPrefix) {
		return errForbidden("this API key may not act for this user")
	}
	return nil
}

func CheckUserID(user string) error {
	switch {
	case user == "":
		return errBadRequest("missing " + HeaderUser + " header")
	case len(user) > maxUserIDLen:
		return errBadRequest(fmt.Sprintf("%s is longer than %d bytes", HeaderUser, maxUserIDLen))
	case !utf8.ValidString(user) || strings.IndexFunc(user, unicode.IsControl) >= 0 || strings.TrimSpace(user) != user:
		return errBadRequest(HeaderUser + " must be printable UTF-8 without surrounding spaces")
	}
	return nil
}

func userOf(c echo.Context) string { return c.Get(userKey).(string) }

func (s *Server) bind(c echo.Context) (*queryapi.Tools, error) {
	return s.tools.Bind(userOf(c))
}
