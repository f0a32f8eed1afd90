package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/internal/httpapi"
	"github.com/recalld/recalld/internal/httpapi/httpapitest"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
)

func memoContents(l queryapi.MemoList) []string {
	out := []string{}
	for _, m := range l.Memos {
		out = append(out, m.Content)
	}
	return out
}

// TestMemosVisibleAfterTurnsEnd: the memo is listed as soon as /turns/end
// has answered (the worker never ran), a replay stores it once, and the
// filters and the user boundary hold.
func TestMemosVisibleAfterTurnsEnd(t *testing.T) {
	ts := newServer(t, nil)
	u := ts.As("qq:1")
	group := turn("g-1")
	group["group_id"], group["group_name"], group["request_type"] = "g1", "旅行群", "group"
	group["timestamp"] = "2026-03-04T07:00:00Z"
	var r ingest.Receipt
	u.Do("POST", "/turns/end", turn("p-1", "我昨天去了北京"), http.StatusAccepted, &r)
	var l queryapi.MemoList
	u.Do("GET", "/memos", nil, 200, &l)
	if len(l.Memos) != 1 {
		t.Fatalf("memos right after /turns/end: %+v", l)
	}
	m := l.Memos[0]
	if m.Content != "memo of p-1" || m.JobID != r.JobID || m.RequestID != "p-1" || m.RequestType != "private" ||
		m.SenderID != "qq:1" || m.SenderName != "张三" || m.Timestamp.Format("2006-01-02T15:04:05Z07:00") != httpapitest.TurnAt || m.Epoch != m.Timestamp.Unix() {
		t.Fatalf("memo %+v", m)
	}
	u.Do("POST", "/turns/end", group, http.StatusAccepted, nil)
	u.Do("POST", "/turns/end", turn("p-1", "我昨天去了北京"), http.StatusAccepted, nil) // replay
	u.Do("POST", "/turns/end", map[string]any{"observations": []string{"I like tea"}, "sender_id": "qq:1"}, http.StatusAccepted, nil)

	tests := []struct {
		name  string
		query string
		want  []string
	}{
		{"all, latest turn first", "", []string{"memo of g-1", "memo of p-1"}},
		{"group", q("group_id", "g1"), []string{"memo of g-1"}},
		{"private", q("request_type", "private"), []string{"memo of p-1"}},
		{"sender", q("sender_id", "qq:1", "limit", "1"), []string{"memo of g-1"}},
		{"other group", q("group_id", "g2"), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l queryapi.MemoList
			u.Do("GET", "/memos"+tt.query, nil, 200, &l)
			if diff := cmp.Diff(tt.want, memoContents(l)); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
	// Another user sees none of them, whatever the filter.
	for _, query := range []string{"", q("group_id", "g1"), q("sender_id", "qq:1")} {
		var l queryapi.MemoList
		ts.As("qq:2").Do("GET", "/memos"+query, nil, 200, &l)
		if len(l.Memos) != 0 {
			t.Fatalf("qq:2 sees %+v", l)
		}
	}
}

func TestMemosBadInput(t *testing.T) {
	ts := newServer(t, nil)
	u := ts.As("qq:1")
	tests := []struct {
		name   string
		method string
		path   string
		status int
		code   string
	}{
		{"limit zero", "GET", "/memos" + q("limit", "0"), 422, httpapi.CodeInvalid},
		{"limit over cap", "GET", "/memos" + q("limit", "201"), 422, httpapi.CodeInvalid},
		{"limit not a number", "GET", "/memos" + q("limit", "ten"), 400, httpapi.CodeBadRequest},
		{"unknown request type", "GET", "/memos" + q("request_type", "dm"), 422, httpapi.CodeInvalid},
		{"unknown parameter", "GET", "/memos" + q("user", "qq:2"), 400, httpapi.CodeBadRequest},
		{"wrong method", "POST", "/memos", 405, httpapi.CodeMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := u.Raw(tt.method, tt.path, nil)
			var e httpapi.ErrorBody
			if err := json.Unmarshal(body, &e); err != nil || status != tt.status || e.Error.Code != tt.code {
				t.Fatalf("%d %s, want %d %s", status, body, tt.status, tt.code)
			}
		})
	}
}

func TestMemoriesCRUD(t *testing.T) {
	ts := newServer(t, nil)
	u := ts.As("qq:1")
	var m storage.Memory
	u.Do("POST", "/memories", map[string]any{"content": " 用户要求以后用英文回复 ", "tags": []string{"style"}}, http.StatusCreated, &m)
	if m.ID == "" || m.Content != "用户要求以后用英文回复" || m.UserID != "qq:1" || m.GroupID != "" || !cmp.Equal(m.Tags, []string{"style"}) {
		t.Fatalf("created %+v", m)
	}
	var got storage.Memory
	u.Do("GET", "/memories/"+m.ID, nil, 200, &got)
	if !cmp.Equal(got, m) {
		t.Fatalf("get %+v, want %+v", got, m)
	}

	// A client-chosen id makes the create idempotent.
	body := map[string]any{"id": "todo:call-mom", "content": "Remind 张三 to call his mother on Sunday", "group_id": "g1"}
	var pinned, again storage.Memory
	u.Do("POST", "/memories", body, http.StatusCreated, &pinned)
	u.Do("POST", "/memories", body, http.StatusOK, &again)
	if !cmp.Equal(pinned, again) || pinned.ID != "todo:call-mom" || !cmp.Equal(pinned.Tags, []string{}) {
		t.Fatalf("replayed create %+v vs %+v", again, pinned)
	}
	u.Do("POST", "/memories", map[string]any{"id": "todo:call-mom", "content": "something else"}, http.StatusConflict, nil)

	var l queryapi.MemoryList
	u.Do("GET", "/memories", nil, 200, &l)
	if len(l.Memories) != 2 || l.Max != storage.MaxMemories {
		t.Fatalf("list %+v", l)
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{q("group_id", "g1"), []string{m.ID, "todo:call-mom"}},
		{q("group_id", "g2"), []string{m.ID}},
		{q("group_id", "g1", "exact", "true"), []string{"todo:call-mom"}},
		{q("exact", "true"), []string{m.ID}},
	} {
		u.Do("GET", "/memories"+c.query, nil, 200, &l)
		var ids []string
		for _, x := range l.Memories {
			ids = append(ids, x.ID)
		}
		if !cmp.Equal(ids, c.want) {
			t.Errorf("%s: %v, want %v", c.query, ids, c.want)
		}
	}

	var up storage.Memory
	u.Do("PATCH", "/memories/todo:call-mom", map[string]any{"content": "Remind 张三 to call his mother on Saturday", "group_id": "", "tags": []string{"todo"}}, 200, &up)
	if up.Content != "Remind 张三 to call his mother on Saturday" || up.GroupID != "" || !cmp.Equal(up.Tags, []string{"todo"}) || up.CreatedAt != pinned.CreatedAt {
		t.Fatalf("patched %+v", up)
	}
	u.Do("PATCH", "/memories/todo:call-mom", map[string]any{"tags": []string{}}, 200, &up)
	if len(up.Tags) != 0 || up.Content != "Remind 张三 to call his mother on Saturday" {
		t.Fatalf("patched tags %+v", up)
	}

	var del httpapi.DeleteResponse
	u.Do("DELETE", "/memories/todo:call-mom", nil, 200, &del)
	if del.Deleted != 1 {
		t.Fatalf("deleted %+v", del)
	}
	u.Do("GET", "/memories/todo:call-mom", nil, 404, nil)
	u.Do("PATCH", "/memories/todo:call-mom", map[string]any{"content": "x"}, 404, nil)
	u.Do("DELETE", "/memories/todo:call-mom", nil, 404, nil)
}

func TestMemoriesLimit(t *testing.T) {
	ts := newServer(t, nil)
	u := ts.As("qq:1")
	for i := range storage.MaxMemories {
		u.Do("POST", "/memories", map[string]any{"id": fmt.Sprint("m", i), "content": fmt.Sprint("fact ", i)}, http.StatusCreated, nil)
	}
	status, body := u.Raw("POST", "/memories", map[string]any{"content": "one too many"})
	var e httpapi.ErrorBody
	if err := json.Unmarshal(body, &e); err != nil || status != http.StatusConflict || e.Error.Code != httpapi.CodeConflict ||
		!strings.Contains(e.Error.Message, fmt.Sprint(storage.MaxMemories)) {
		t.Fatalf("over the limit: %d %s", status, body)
	}
	// A replay at the limit is still fine; another user has its own budget.
	u.Do("POST", "/memories", map[string]any{"id": "m0", "content": "fact 0"}, http.StatusOK, nil)
	ts.As("qq:2").Do("POST", "/memories", map[string]any{"content": "mine"}, http.StatusCreated, nil)
	u.Do("DELETE", "/memories/m7", nil, 200, nil)
	u.Do("POST", "/memories", map[string]any{"content": "fits again"}, http.StatusCreated, nil)
}

// TestMemoriesIsolation: with API keys, no route lets a user read or change
// another user's pinned memories, even knowing their ids.
func TestMemoriesIsolation(t *testing.T) {
	ts := newServer(t, map[string]string{"RECALLD_API_KEYS": "key-for-bot-a-000000=botA:,key-for-bot-b-000000=botB:"})
	a := ts.As("botA:1").WithKey("key-for-bot-a-000000")
	b := ts.As("botB:1").WithKey("key-for-bot-b-000000")
	var ma storage.Memory
	a.Do("POST", "/memories", map[string]any{"id": "same", "content": "A's secret"}, http.StatusCreated, &ma)
	var mb storage.Memory
	b.Do("POST", "/memories", map[string]any{"id": "same", "content": "B's own"}, http.StatusCreated, &mb) // ids are per user
	var other storage.Memory
	a.Do("POST", "/memories", map[string]any{"content": "A's second"}, http.StatusCreated, &other)

	b.Do("GET", "/memories/"+other.ID, nil, 404, nil)
	b.Do("PATCH", "/memories/"+other.ID, map[string]any{"content": "taken over"}, 404, nil)
	b.Do("DELETE", "/memories/"+other.ID, nil, 404, nil)
	var got storage.Memory
	b.Do("GET", "/memories/same", nil, 200, &got)
	if got.Content != "B's own" {
		t.Fatalf("B reads %+v", got)
	}
	var l queryapi.MemoryList
	b.Do("GET", "/memories", nil, 200, &l)
	if len(l.Memories) != 1 || l.Memories[0].Content != "B's own" {
		t.Fatalf("B lists %+v", l)
	}
	a.Do("GET", "/memories", nil, 200, &l)
	if len(l.Memories) != 2 || l.Memories[0].Content != "A's secret" {
		t.Fatalf("A lists %+v", l)
	}
	// A's key cannot act for B's users.
	if status, _ := ts.As("botB:1").WithKey("key-for-bot-a-000000").Raw("GET", "/memories", nil); status != http.StatusForbidden {
		t.Fatalf("A's key for a B user: %d", status)
	}
	// Forgetting B leaves A alone.
	b.Do("DELETE", "/users/me", nil, 200, nil)
	b.Do("GET", "/memories", nil, 200, &l)
	if len(l.Memories) != 0 {
		t.Fatalf("B after forget: %+v", l)
	}
	a.Do("GET", "/memories/same", nil, 200, &got)
}

func TestMemoriesBadInput(t *testing.T) {
	ts := newServer(t, nil)
	u := ts.As("qq:1")
	u.Do("POST", "/memories", map[string]any{"id": "keep", "content": "kept"}, http.StatusCreated, nil)
	tests := []badRequest{
		{"malformed JSON", "POST", "/memories", `{"content":`, nil, 400, httpapi.CodeBadRequest},
		{"user in the body", "POST", "/memories", map[string]any{"content": "x", "user_id": "qq:2"}, nil, 400, httpapi.CodeBadRequest},
		{"tags not a list", "POST", "/memories", map[string]any{"content": "x", "tags": "a"}, nil, 400, httpapi.CodeBadRequest},
		{"no content", "POST", "/memories", map[string]any{"tags": []string{"a"}}, nil, 422, httpapi.CodeInvalid},
		{"blank content", "POST", "/memories", map[string]any{"content": "  "}, nil, 422, httpapi.CodeInvalid},
		{"content too long", "POST", "/memories", map[string]any{"content": strings.Repeat("字", storage.MaxMemoryRunes+1)}, nil, 422, httpapi.CodeInvalid},
		{"bad id", "POST", "/memories", map[string]any{"id": "a b", "content": "x"}, nil, 422, httpapi.CodeInvalid},
		{"repeated tag", "POST", "/memories", map[string]any{"content": "x", "tags": []string{"a", "a"}}, nil, 422, httpapi.CodeInvalid},
		{"too many tags", "POST", "/memories", map[string]any{"content": "x", "tags": strings.Split("a b c d e f g h i j k l m n o p q", " ")}, nil, 422, httpapi.CodeInvalid},
		{"not JSON", "POST", "/memories", `content`, []string{"Content-Type", "text/plain"}, 415, httpapi.CodeUnsupportedMedia},
		{"no user", "POST", "/memories", map[string]any{"content": "x"}, []string{httpapi.HeaderUser, ""}, 400, httpapi.CodeBadRequest},
		{"query on add", "POST", "/memories?user=qq:2", map[string]any{"content": "x"}, nil, 400, httpapi.CodeBadRequest},
		{"exact not a bool", "GET", "/memories?exact=yes-please", nil, nil, 400, httpapi.CodeBadRequest},
		{"unknown list parameter", "GET", "/memories?limit=5", nil, nil, 400, httpapi.CodeBadRequest},
		{"empty patch", "PATCH", "/memories/keep", map[string]any{}, nil, 422, httpapi.CodeInvalid},
		{"blank patch", "PATCH", "/memories/keep", map[string]any{"content": " "}, nil, 422, httpapi.CodeInvalid},
		{"unknown patch field", "PATCH", "/memories/keep", map[string]any{"id": "other"}, nil, 400, httpapi.CodeBadRequest},
		{"no patch body", "PATCH", "/memories/keep", nil, nil, 400, httpapi.CodeBadRequest},
		{"escaped slash id", "GET", "/memories/" + url.PathEscape("a/b"), nil, nil, 422, httpapi.CodeInvalid},
		{"missing", "GET", "/memories/nope", nil, nil, 404, httpapi.CodeNotFound},
		{"wrong method", "PUT", "/memories/keep", map[string]any{"content": "x"}, nil, 405, httpapi.CodeMethodNotAllowed},
	}
	expectErrors(t, u, tests)
	var l queryapi.MemoryList
	u.Do("GET", "/memories", nil, 200, &l)
	if len(l.Memories) != 1 || l.Memories[0].Content != "kept" {
		t.Fatalf("bad input changed the memories: %+v", l)
	}
}
