package httpapi_test

import (
	"testing"

	"github.com/recalld/recalld/internal/httpapi"
)

func TestTurnsEndBadInput(t *testing.T) {
	ts := newServer(t, nil)
	u := ts.As("qq:1")
	tests := []badRequest{
		{"malformed JSON", "POST", "/turns/end", `{"memo":`, nil, 400, httpapi.CodeBadRequest},
		{"user in the body", "POST", "/turns/end", map[string]any{"memo": "m", "user_id": "qq:2"}, nil, 400, httpapi.CodeBadRequest},
		{"observations not a list", "POST", "/turns/end", map[string]any{"observations": "x"}, nil, 400, httpapi.CodeBadRequest},
		{"timestamp not RFC 3339", "POST", "/turns/end", map[string]any{"memo": "m", "timestamp": "yesterday"}, nil, 400, httpapi.CodeBadRequest},
		{"unknown request type", "POST", "/turns/end", map[string]any{"memo": "m", "request_type": "channel"}, nil, 422, httpapi.CodeInvalid},
		{"group without group_id", "POST", "/turns/end", map[string]any{"memo": "m", "request_type": "group"}, nil, 422, httpapi.CodeInvalid},
		{"too many observations", "POST", "/turns/end", map[string]any{"observations": make([]string, 51)}, nil, 422, httpapi.CodeInvalid},
		{"no body", "POST", "/turns/end", nil, nil, 400, httpapi.CodeBadRequest},
		{"not JSON", "POST", "/turns/end", `memo`, []string{"Content-Type", "text/plain"}, 415, httpapi.CodeUnsupportedMedia},
		{"no user", "POST", "/turns/end", map[string]any{"memo": "m"}, []string{httpapi.HeaderUser, ""}, 400, httpapi.CodeBadRequest},
		{"query on end", "POST", "/turns/end?user=qq:2", map[string]any{"memo": "m"}, nil, 400, httpapi.CodeBadRequest},
		{"unknown state", "GET", "/jobs?state=lost", nil, nil, 422, httpapi.CodeInvalid},
		{"limit zero", "GET", "/jobs?limit=0", nil, nil, 422, httpapi.CodeInvalid},
		{"limit not a number", "GET", "/jobs?limit=ten", nil, nil, 400, httpapi.CodeBadRequest},
		{"unknown parameter", "GET", "/jobs?user=qq:2", nil, nil, 400, httpapi.CodeBadRequest},
		{"wrong method", "PUT", "/jobs", nil, nil, 405, httpapi.CodeMethodNotAllowed},
	}
	expectErrors(t, u, tests)
	var res httpapi.JobsResponse
	u.Do("GET", "/jobs", nil, 200, &res)
	if len(res.Jobs) != 0 {
		t.Fatalf("bad input queued %d jobs", len(res.Jobs))
	}
}
