package httpapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/recalld/recalld/internal/httpapi"
)

// Contract returns a transport over rt that validates every response
// against openapi.yaml (at the module's root) and fails tb on a mismatch.
func Contract(tb testing.TB, rt http.RoundTripper) http.RoundTripper {
	return &contractTransport{tb: tb, rt: rt}
}

// contractTransport validates every response against openapi.yaml.
type contractTransport struct {
	tb testing.TB
	rt http.RoundTripper
}

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

// loadSpec loads openapi.yaml from the module's root, the first directory
// up from the test's that holds go.mod.
func loadSpec() (routers.Router, error) {
	specOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			specErr = err
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			up := filepath.Dir(dir)
			if up == dir {
				specErr = fmt.Errorf("no go.mod above the test's directory")
				return
			}
			dir = up
		}
		doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join(dir, "openapi.yaml"))
		if err != nil {
			specErr = err
			return
		}
		if specErr = doc.Validate(context.Background()); specErr != nil {
			return
		}
		// The console's page and files are text the contract checks as such.
		for _, ct := range []string{"text/html", "text/css", "text/javascript"} {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
		}
		// Servers are matched by host; accept any.
		doc.Servers = nil
		specRouter, specErr = legacy.NewRouter(doc)
	})
	return specRouter, specErr
}

func (ct *contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := ct.rt.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := ValidateResponse(req, resp.StatusCode, resp.Header, body); err != nil {
		short := string(body)
		if len(short) > 300 {
			short = short[:300] + "…"
		}
		ct.tb.Errorf("contract: %s %s → %d %s: %v", req.Method, req.URL.Path, resp.StatusCode, short, err)
	}
	return resp, nil
}

// ValidateResponse checks one response against the spec. A request to a
// route the spec does not have must be answered 404 or 405 with the error
// body.
func ValidateResponse(req *http.Request, status int, hdr http.Header, body []byte) error {
	router, err := loadSpec()
	if err != nil {
		return fmt.Errorf("load spec: %w", err)
	}
	u := *req.URL
	u.Host, u.Scheme = "", ""
	// Match on the escaped path, so that an id holding "/" stays one segment.
	u.Path, u.RawPath = u.EscapedPath(), ""
	r := req.Clone(context.Background())
	r.URL = &u
	route, params, err := router.FindRoute(r)
	if err != nil {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return fmt.Errorf("route not in spec but answered %d", status)
		}
		var e httpapi.ErrorBody
		if json.Unmarshal(body, &e) != nil || e.Error.Code == "" {
			return fmt.Errorf("404/405 without the error body")
		}
		return nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
		Status:                 status,
		Header:                 hdr,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(context.Background(), in)
}
