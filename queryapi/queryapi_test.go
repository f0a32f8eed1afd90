package queryapi_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// fixture returns a service over a real store holding two users with
// confusable messages, fully indexed.
func fixture(t *testing.T) *queryapi.Service {
	t.Helper()
	s := storagetest.Open(t, storage.Config{})
	m := func(id, role, conv, content string, minute int) storage.Message {
		return storage.Message{ID: id, Role: role, ConversationID: conv, SenderName: map[string]string{"user": "小王", "assistant": "Bot"}[role],
			Content: content, CreatedAt: t0.Add(time.Duration(minute) * time.Minute)}
	}
	for user, msgs := range map[string][]storage.Message{
		"qq:1": {
			m("a1", "user", "c1", "我不吃辣，一点都不行", 0),
			m("a2", "assistant", "c1", "好的，记住了：你不吃辣。", 1),
			m("a3", "user", "c1", "我最喜欢喝乌龙茶", 2),
			m("a4", "user", "c2", "We decided to ship project Atlas in March", 60),
			m("a5", "assistant", "c2", "Noted: Atlas ships in March.", 61),
			m("a6", "user", "c2", "I really love spicy noodles", 120),
		},
		"qq:2": {
			m("a1", "user", "c1", "我不吃辣 either, and project Atlas is mine", 0),
			m("b2", "user", "c1", "spicy noodles are the best", 1),
		},
	} {
		if _, err := s.Insert(t.Context(), user, msgs); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return queryapi.New(s)
}

func bind(t *testing.T, svc *queryapi.Service, user string) *queryapi.Tools {
	t.Helper()
	tools, err := svc.Bind(user)
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func pageIDs(p queryapi.Page) []string {
	out := make([]string, 0, len(p.Hits))
	for _, h := range p.Hits {
		out = append(out, h.MessageID)
	}
	return out
}

func TestBindRequiresUser(t *testing.T) {
	svc := fixture(t)
	if _, err := svc.Bind("  "); !errors.Is(err, queryapi.ErrInvalidQuery) {
		t.Fatalf("Bind(blank) err = %v", err)
	}
	if got := bind(t, svc, "qq:1").User(); got != "qq:1" {
		t.Fatalf("User() = %q", got)
	}
}

func TestMessagesList(t *testing.T) {
	tools := bind(t, fixture(t), "qq:1")
	tests := []struct {
		name       string
		p          queryapi.ListParams
		want       []string
		considered int
	}{
		{"all", queryapi.ListParams{}, []string{"a1", "a2", "a3", "a4", "a5", "a6"}, 6},
		{"role", queryapi.ListParams{Role: "assistant"}, []string{"a2", "a5"}, 2},
		{"window", queryapi.ListParams{Since: t0.Add(time.Hour).Format(time.RFC3339), Until: t0.Add(2 * time.Hour).Format(time.RFC3339)}, []string{"a4", "a5"}, 2},
		{"conversation", queryapi.ListParams{ConversationID: "c1"}, []string{"a1", "a2", "a3"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tools.MessagesList(t.Context(), tt.p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, pageIDs(p)); diff != "" || p.Considered != tt.considered {
				t.Fatalf("(-want +got):\n%s considered=%d", diff, p.Considered)
			}
		})
	}
}

func TestLexicalSearch(t *testing.T) {
	tools := bind(t, fixture(t), "qq:1")
	tests := []struct {
		name string
		p    queryapi.LexicalParams
		want []string // as a set
	}{
		{"zh phrase", queryapi.LexicalParams{QueryText: `"不吃辣"`}, []string{"a1", "a2"}},
		{"zh single char", queryapi.LexicalParams{QueryText: "辣"}, []string{"a1", "a2"}},
		{"zh role", queryapi.LexicalParams{QueryText: "辣", Filter: queryapi.Filter{Role: "user"}}, []string{"a1"}},
		{"en all words", queryapi.LexicalParams{QueryText: "Atlas March decided"}, []string{"a4"}},
		{"en any word", queryapi.LexicalParams{QueryText: "Atlas noodles", Match: "any"}, []string{"a4", "a5", "a6"}},
		{"contextual finds the reply", queryapi.LexicalParams{QueryText: "decided Noted", Contextual: true}, []string{"a5"}},
		{"syntax is text", queryapi.LexicalParams{QueryText: "+user_id:qq:2 -辣"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tools.LexicalSearch(t.Context(), tt.p)
			if err != nil {
				t.Fatal(err)
			}
			got := pageIDs(p)
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			for _, h := range p.Hits {
				if h.Content == "" || h.CreatedAt.IsZero() || h.Score <= 0 {
					t.Fatalf("evidence incomplete: %+v", h)
				}
			}
		})
	}
}

func TestSemanticSearch(t *testing.T) {
	tools := bind(t, fixture(t), "qq:1")
	p, err := tools.SemanticSearch(t.Context(), queryapi.SemanticParams{QueryText: "spices", TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hits) == 0 || p.Hits[0].MessageID != "a6" {
		t.Fatalf("paraphrase: %v", pageIDs(p))
	}
	// BM25 does not find it: the words differ.
	lp, err := tools.LexicalSearch(t.Context(), queryapi.LexicalParams{QueryText: "spices"})
	if err != nil {
		t.Fatal(err)
	}
	if len(lp.Hits) != 0 {
		t.Fatalf("lexical found %v for a paraphrase", pageIDs(lp))
	}
	p, err = tools.SemanticSearch(t.Context(), queryapi.SemanticParams{QueryText: "辣", Filter: queryapi.Filter{Role: "assistant"}, TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range p.Hits {
		if h.Role != "assistant" {
			t.Fatalf("role filter let %s through", h.MessageID)
		}
	}
}

func TestNeighbors(t *testing.T) {
	svc := fixture(t)
	res, err := bind(t, svc, "qq:1").Neighbors(t.Context(), queryapi.NeighborsParams{MessageID: "a2", Before: 1, After: 5})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{res.Anchor.MessageID}
	for _, e := range append(res.Before, res.After...) {
		got = append(got, e.MessageID)
	}
	if diff := cmp.Diff([]string{"a2", "a1", "a3"}, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	// The same id under another user is that user's own message.
	res, err = bind(t, svc, "qq:2").Neighbors(t.Context(), queryapi.NeighborsParams{MessageID: "a1"})
	if err != nil || res.Anchor.Content != "我不吃辣 either, and project Atlas is mine" {
		t.Fatalf("qq:2 a1 = %+v, %v", res.Anchor, err)
	}
	if _, err := bind(t, svc, "qq:1").Neighbors(t.Context(), queryapi.NeighborsParams{MessageID: "b2"}); !errors.Is(err, queryapi.ErrNotFound) {
		t.Fatalf("another user's message: err = %v", err)
	}
}

// TestIsolation runs every tool for qq:1 with queries that match qq:2's
// messages best and checks no byte of qq:2 comes back.
func TestIsolation(t *testing.T) {
	tools := bind(t, fixture(t), "qq:1")
	foreign := map[string]bool{"我不吃辣 either, and project Atlas is mine": true, "spicy noodles are the best": true}
	check := func(where string, hits []queryapi.Evidence) {
		t.Helper()
		for _, h := range hits {
			if foreign[h.Content] {
				t.Fatalf("%s returned qq:2's %q", where, h.Content)
			}
		}
	}
	for _, q := range []string{"我不吃辣 either", "project Atlas is mine", "spicy noodles are the best"} {
		lp, err := tools.LexicalSearch(t.Context(), queryapi.LexicalParams{QueryText: q, Match: "any", Contextual: true})
		if err != nil {
			t.Fatal(err)
		}
		check("lexical", lp.Hits)
		sp, err := tools.SemanticSearch(t.Context(), queryapi.SemanticParams{QueryText: q, TopK: 100})
		if err != nil {
			t.Fatal(err)
		}
		check("semantic", sp.Hits)
	}
	lp, err := tools.MessagesList(t.Context(), queryapi.ListParams{PageSize: 200})
	if err != nil {
		t.Fatal(err)
	}
	check("list", lp.Hits)
}

func TestInvalidParams(t *testing.T) {
	tools := bind(t, fixture(t), "qq:1")
	ctx := t.Context()
	long := string(make([]rune, queryapi.MaxQueryRunes+1))
	tests := []struct {
		name string
		call func() error
	}{
		{"list page size", func() error { _, err := tools.MessagesList(ctx, queryapi.ListParams{PageSize: 201}); return err }},
		{"list negative page size", func() error { _, err := tools.MessagesList(ctx, queryapi.ListParams{PageSize: -1}); return err }},
		{"list bad since", func() error { _, err := tools.MessagesList(ctx, queryapi.ListParams{Since: "yesterday"}); return err }},
		{"list role", func() error { _, err := tools.MessagesList(ctx, queryapi.ListParams{Role: "root"}); return err }},
		{"list cursor", func() error { _, err := tools.MessagesList(ctx, queryapi.ListParams{Cursor: "%%%"}); return err }},
		{"list inverted window", func() error {
			_, err := tools.MessagesList(ctx, queryapi.ListParams{Since: "2026-05-02T00:00:00Z", Until: "2026-05-01T00:00:00Z"})
			return err
		}},
		{"lexical empty", func() error { _, err := tools.LexicalSearch(ctx, queryapi.LexicalParams{}); return err }},
		{"lexical too long", func() error { _, err := tools.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: long}); return err }},
		{"lexical match", func() error {
			_, err := tools.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: "x", Match: "most"})
			return err
		}},
		{"lexical cursor", func() error {
			_, err := tools.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: "x", Cursor: "nope"})
			return err
		}},
		{"semantic neither", func() error { _, err := tools.SemanticSearch(ctx, queryapi.SemanticParams{}); return err }},
		{"semantic top_k", func() error {
			_, err := tools.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: "x", TopK: 101})
			return err
		}},
		{"semantic min_score", func() error {
			_, err := tools.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: "x", MinScore: 2})
			return err
		}},
		{"semantic dim", func() error {
			_, err := tools.SemanticSearch(ctx, queryapi.SemanticParams{QueryEmbedding: []float32{1, 2, 3}})
			return err
		}},
		{"neighbors id", func() error { _, err := tools.Neighbors(ctx, queryapi.NeighborsParams{}); return err }},
		{"neighbors cap", func() error {
			_, err := tools.Neighbors(ctx, queryapi.NeighborsParams{MessageID: "a1", After: 51})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); !errors.Is(err, queryapi.ErrInvalidQuery) {
				t.Fatalf("err = %v, want ErrInvalidQuery", err)
			}
		})
	}
}

// TestForOneRequestCounts checks that the tools of one request count each
// filter once (a later message does not change their Considered), count
// another filter afresh, and that plain tools always count afresh.
func TestForOneRequestCounts(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	insert := func(id, role string) {
		t.Helper()
		if _, err := s.Insert(t.Context(), "u", []storage.Message{{ID: id, Role: role, Content: "tea " + id, CreatedAt: t0}}); err != nil {
			t.Fatal(err)
		}
	}
	insert("m1", "user")
	insert("m2", "assistant")
	plain := bind(t, queryapi.New(s), "u")
	once := plain.ForOneRequest()
	considered := func(tools *queryapi.Tools, role string) int {
		t.Helper()
		p, err := tools.MessagesList(t.Context(), queryapi.ListParams{Role: role})
		if err != nil {
			t.Fatal(err)
		}
		return p.Considered
	}
	if got := considered(once, ""); got != 2 {
		t.Fatalf("first count = %d, want 2", got)
	}
	insert("m3", "user")
	for _, tc := range []struct {
		name  string
		tools *queryapi.Tools
		role  string
		want  int
	}{
		{"one request, same filter", once, "", 2},
		{"one request, new filter", once, "user", 2},
		{"plain tools", plain, "", 3},
	} {
		if got := considered(tc.tools, tc.role); got != tc.want {
			t.Errorf("%s: considered %d, want %d", tc.name, got, tc.want)
		}
	}
}
