package httpapi

import (
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
