package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/storage"
)

// decodeJSON reads the request body as JSON into dst: one object (not
// null), no unknown fields, nothing after it, valid Unicode throughout, with
// the required fields present and no number below its minimum (see
// CheckPresence). Every route with a JSON body reads it here.
func decodeJSON(c echo.Context, dst any) error {
	req := c.Request()
	if ct := req.Header.Get(echo.HeaderContentType); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != echo.MIMEApplicationJSON {
			return &Error{http.StatusUnsupportedMediaType, CodeUnsupportedMedia, "send the body as application/json"}
		}
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		var he *echo.HTTPError
		var mbe *http.MaxBytesError
		if errors.As(err, &he) || errors.As(err, &mbe) {
			return &Error{http.StatusRequestEntityTooLarge, CodeTooLarge, "request body is too large"}
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
		return errBadRequest("malformed JSON: " + JSONErrorText(err))
	}
	if dec.More() {
		return errBadRequest("malformed JSON: data after the object")
	}
	if trimmed[0] != '{' {
		// null decodes into a struct as nothing at all.
		return errBadRequest("the body must be a JSON object")
	}
	if err := CheckUnicode(body); err != nil {
		return err
	}
	return CheckPresence(body, reflect.ValueOf(dst), "")
}

func JSONErrorText(err error) string {
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

// jsonBody reads the parameters of a request that has no query parameters
// and a JSON body.
func jsonBody[P any](c echo.Context) (P, error) {
	var p P
	if _, err := queryParams(c); err != nil {
		return p, err
	}
	return p, decodeJSON(c, &p)
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

// limitParam is the limit query parameter of p: def when it is absent, else
// a number in 1..max.
func limitParam(p map[string]string, def, max int) (int, error) {
	limit, err := intParam(p, "limit")
	if err != nil {
		return 0, err
	}
	if _, ok := p["limit"]; !ok {
		return def, nil
	}
	if limit < 1 || limit > max {
		return 0, errInvalid(fmt.Sprintf("limit must be in 1..%d", max))
	}
	return limit, nil
}
