package httpapi

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"github.com/recalld/recalld/internal/config"
)

// TestRoutesMatchSpec checks that echo's routes and openapi.yaml's paths are
// the same set, both ways.
func TestRoutesMatchSpec(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join("..", "..", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var spec []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			spec = append(spec, method+" "+path)
		}
	}
	srv := New(Config{Config: config.DefaultConfig(), Log: slog.New(slog.DiscardHandler)})
	var routes []string
	for _, r := range srv.Routes() {
		if strings.HasPrefix(r.Name, "github.com/labstack/echo") || r.Method == echo.RouteNotFound {
			continue
		}
		path := r.Path
		for _, seg := range strings.Split(path, "/") {
			if p, ok := strings.CutPrefix(seg, ":"); ok {
				path = strings.Replace(path, seg, "{"+p+"}", 1)
			}
		}
		routes = append(routes, r.Method+" "+path)
	}
	if diff := cmp.Diff(slices.Sorted(slices.Values(spec)), slices.Sorted(slices.Values(routes))); diff != "" {
		t.Fatalf("openapi.yaml (-) vs echo routes (+):\n%s", diff)
	}
}

func TestDecodeMessageLine(t *testing.T) {
	for _, tt := range []struct {
		name, line, user string
		wantUser, want   string // want: the error, "" for none
	}{
		{"own user", `{"id":"m1","user_id":"qq:1","role":"user","content":"hi","created_at":"2026-03-01T21:00:00+08:00"}`, "qq:9", "qq:1", ""},
		{"default user", `{"id":"m1","role":"user","content":"hi","created_at":"2026-03-01T21:00:00+08:00"}`, "qq:9", "qq:9", ""},
		{"no user", `{"id":"m1","role":"user","content":"hi","created_at":"2026-03-01T21:00:00+08:00"}`, "", "", "user_id is missing and no -user was given"},
		{"unknown field", `{"id":"m1","text":"hi"}`, "qq:1", "", `malformed JSON: unknown field "text"`},
		{"bad user", `{"user_id":" qq:1","content":"hi","created_at":"2026-03-01T21:00:00+08:00"}`, "", "", "user_id: X-Recall-User must be printable UTF-8 without surrounding spaces"},
		{"no content", `{"user_id":"qq:1","content":" ","created_at":"2026-03-01T21:00:00+08:00"}`, "", "", "messages[0]: content is empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, user, err := DecodeMessageLine([]byte(tt.line), tt.user)
			if got := fmt.Sprint(err); (err != nil || tt.want != "") && got != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if err == nil && (user != tt.wantUser || m.Content != "hi" || m.CreatedAt.IsZero()) {
				t.Fatalf("got %+v for %q", m, user)
			}
		})
	}
}
