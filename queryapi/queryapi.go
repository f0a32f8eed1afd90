package queryapi

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/recalld/recalld/storage"
)

// Limits of the tools' parameters.
const (
	MaxPageSize     = 200
	DefaultPageSize = 20
	MaxTopK         = 100
	DefaultTopK     = 10
	MaxNeighbors    = 50
	DefaultNeighbor = 5
	MaxQueryRunes   = 2000
)

// Errors callers branch on. ErrInvalidQuery, like ErrOutOfScope and
// ErrNoProfile, comes as an *Error, whose Msg a client may see.
var (
	ErrInvalidQuery = errors.New("queryapi: invalid query")
	ErrNotFound     = storage.ErrNotFound
	// ErrSemanticUnavailable: semantic search cannot answer now (the
	// embedder is down or has no vectors); lexical search still works.
	ErrSemanticUnavailable = storage.ErrSemanticUnavailable
)

// Filter narrows a search to part of the user's messages. Times are RFC 3339;
// since is inclusive, until exclusive.
type Filter struct {
	Role           string `json:"role,omitempty" jsonschema:"enum=user,enum=assistant,enum=system,enum=tool,description=only messages of this role"`
	Since          string `json:"since,omitempty" jsonschema:"format=date-time,description=only messages at or after this time (RFC 3339)"`
	Until          string `json:"until,omitempty" jsonschema:"format=date-time,description=only messages before this time (RFC 3339)"`
	ConversationID string `json:"conversation_id,omitempty" jsonschema:"description=only messages of this conversation"`
	GroupID        string `json:"group_id,omitempty" jsonschema:"description=only messages of this group chat"`
}

// ListParams are the parameters of messages_list.
type ListParams struct {
	Since          string `json:"since,omitempty" jsonschema:"format=date-time,description=list messages at or after this time (RFC 3339)"`
	Until          string `json:"until,omitempty" jsonschema:"format=date-time,description=list messages before this time (RFC 3339)"`
	Role           string `json:"role,omitempty" jsonschema:"enum=user,enum=assistant,enum=system,enum=tool"`
	ConversationID string `json:"conversation_id,omitempty"`
	PageSize       int    `json:"page_size,omitempty" jsonschema:"minimum=1,maximum=200,description=messages per page (default 20)"`
	Cursor         string `json:"cursor,omitempty" jsonschema:"description=next_cursor of the previous page"`
}

// LexicalParams are the parameters of lexical_search.
type LexicalParams struct {
	QueryText string `json:"query_text" jsonschema:"required,description=words and \"quoted phrases\"; all words must occur unless match is any"`
	Match     string `json:"match,omitempty" jsonschema:"enum=all,enum=any,description=all (default): every word must occur; any: rank by any word"`
	// Contextual also matches each message together with the turn before
	// it, for answers that span a question and its reply.
	Contextual bool   `json:"contextual,omitempty" jsonschema:"description=also match each message together with the turn before it"`
	Filter     Filter `json:"filter,omitempty"`
	PageSize   int    `json:"page_size,omitempty" jsonschema:"minimum=1,maximum=200,description=hits per page (default 20)"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"description=next_cursor of the previous page"`
}

// SemanticParams are the parameters of semantic_search.
type SemanticParams struct {
	QueryText      string    `json:"query_text,omitempty" jsonschema:"description=text whose meaning to search for"`
	QueryEmbedding []float32 `json:"query_embedding,omitempty" jsonschema:"description=a ready vector of the store's dimension, instead of query_text"`
	Filter         Filter    `json:"filter,omitempty"`
	TopK           int       `json:"top_k,omitempty" jsonschema:"minimum=1,maximum=100,description=how many hits (default 10)"`
	MinScore       float64   `json:"min_score,omitempty" jsonschema:"minimum=-1,maximum=1,description=cosine similarity floor"`
}

// NeighborsParams are the parameters of neighbors.
type NeighborsParams struct {
	MessageID string `json:"message_id" jsonschema:"required,description=the message whose surroundings to fetch"`
	Before    int    `json:"before,omitempty" jsonschema:"minimum=0,maximum=50,description=messages before it (default 5)"`
	After     int    `json:"after,omitempty" jsonschema:"minimum=0,maximum=50,description=messages after it (default 5)"`
}

// Service makes user-bound Tools over a store.
type Service struct {
	store       *storage.Store
	now         func() time.Time
	profileTopK int
}

// New returns a Service over store.
func New(store *storage.Store, opts ...Option) *Service {
	s := &Service{store: store, now: time.Now, profileTopK: DefaultProfileTopK}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Bind returns the tools bound to user. The user comes from the trusted
// request context; it is never a tool parameter.
func (s *Service) Bind(user string) (*Tools, error) {
	if strings.TrimSpace(user) == "" {
		return nil, invalid("empty user")
	}
	return &Tools{store: s.store, user: user, now: s.now, profileTopK: s.profileTopK}, nil
}

// Tools are the query tools bound to one user (and, through InGroup, to
// the group chat the caller speaks in).
type Tools struct {
	store       *storage.Store
	user        string
	group       string // "" = the whole partition of the user
	now         func() time.Time
	profileTopK int         // search_profiles' default top_k
	counts      *countCache // nil: every call counts afresh
}

// countCache remembers how many messages match each filter, for the tools
// of one request.
type countCache struct {
	mu sync.Mutex
	n  map[storage.Filter]int
}

// ForOneRequest returns a copy of t that counts the messages under each
// filter once: a recall makes dozens of calls over the same few filters, and
// their Considered need not be recounted each time. Counts are not refreshed,
// so the copy is for one request, not for long-lived tools (an MCP session).
func (t *Tools) ForOneRequest() *Tools {
	c := *t
	c.counts = &countCache{n: make(map[storage.Filter]int)}
	return &c
}

// count returns how many of the user's messages match f: Considered.
func (t *Tools) count(ctx context.Context, f storage.Filter) (int, error) {
	if t.counts == nil {
		return t.store.Count(ctx, t.user, f)
	}
	t.counts.mu.Lock()
	n, ok := t.counts.n[f]
	t.counts.mu.Unlock()
	if ok {
		return n, nil
	}
	n, err := t.store.Count(ctx, t.user, f)
	if err != nil {
		return 0, err
	}
	t.counts.mu.Lock()
	t.counts.n[f] = n
	t.counts.mu.Unlock()
	return n, nil
}

// User returns the user the tools are bound to.
func (t *Tools) User() string { return t.user }

func parseTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, invalid("%s: %q is not an RFC 3339 time", name, v)
	}
	return t, nil
}

func (f Filter) storage() (storage.Filter, error) {
	var out storage.Filter
	if f.Role != "" && !storage.ValidRole(f.Role) {
		return out, invalid("filter.role: unknown role %q", f.Role)
	}
	since, err := parseTime("filter.since", f.Since)
	if err != nil {
		return out, err
	}
	until, err := parseTime("filter.until", f.Until)
	if err != nil {
		return out, err
	}
	if !since.IsZero() && !until.IsZero() && !since.Before(until) {
		return out, invalid("filter: since must be before until")
	}
	return storage.Filter{Role: f.Role, Since: since, Until: until, ConversationID: f.ConversationID, GroupID: f.GroupID}, nil
}

func pageSize(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultPageSize, nil
	case n < 0 || n > MaxPageSize:
		return 0, invalid("page_size must be between 1 and %d", MaxPageSize)
	}
	return n, nil
}

func checkText(name, s string) error {
	if !utf8.ValidString(s) {
		return invalid("%s is not valid UTF-8", name)
	}
	if utf8.RuneCountInString(s) > MaxQueryRunes {
		return invalid("%s is longer than %d characters", name, MaxQueryRunes)
	}
	return nil
}

// mapErr turns storage's argument errors into ErrInvalidQuery, with
// storage's message.
func mapErr(err error) error {
	var se *storage.Error
	if errors.As(err, &se) && errors.Is(se, storage.ErrInvalid) {
		return &Error{Kind: ErrInvalidQuery, Msg: se.Msg}
	}
	return err
}

// MessagesList lists the user's messages in time order.
func (t *Tools) MessagesList(ctx context.Context, p ListParams) (Page, error) {
	f, err := Filter{Role: p.Role, Since: p.Since, Until: p.Until, ConversationID: p.ConversationID}.storage()
	if err != nil {
		return Page{}, err
	}
	if f, err = t.scope(f); err != nil {
		return Page{}, err
	}
	size, err := pageSize(p.PageSize)
	if err != nil {
		return Page{}, err
	}
	msgs, next, err := t.store.List(ctx, t.user, f, size, p.Cursor)
	if err != nil {
		return Page{}, mapErr(err)
	}
	n, err := t.count(ctx, f)
	if err != nil {
		return Page{}, err
	}
	page := Page{Hits: make([]Evidence, 0, len(msgs)), NextCursor: next, Considered: n}
	for _, m := range msgs {
		page.Hits = append(page.Hits, evidenceOf(m, 0))
	}
	return page, nil
}

// LexicalSearch ranks the user's messages by BM25 for the query's words and phrases.
func (t *Tools) LexicalSearch(ctx context.Context, p LexicalParams) (Page, error) {
	if strings.TrimSpace(p.QueryText) == "" {
		return Page{}, invalid("query_text is required")
	}
	if err := checkText("query_text", p.QueryText); err != nil {
		return Page{}, err
	}
	if p.Match != "" && p.Match != "all" && p.Match != "any" {
		return Page{}, invalid("match must be all or any")
	}
	f, err := p.Filter.storage()
	if err != nil {
		return Page{}, err
	}
	if f, err = t.scope(f); err != nil {
		return Page{}, err
	}
	size, err := pageSize(p.PageSize)
	if err != nil {
		return Page{}, err
	}
	hits, next, err := t.store.LexicalSearch(ctx, t.user, storage.LexicalQuery{
		Text: p.QueryText, Any: p.Match == "any", Contextual: p.Contextual, Filter: f, Size: size, Cursor: p.Cursor,
	})
	if err != nil {
		return Page{}, mapErr(err)
	}
	n, err := t.count(ctx, f)
	if err != nil {
		return Page{}, err
	}
	page := Page{Hits: make([]Evidence, 0, len(hits)), NextCursor: next, Considered: n, Notes: t.store.LexicalNotes(p.QueryText)}
	for _, h := range hits {
		page.Hits = append(page.Hits, evidenceOf(h.Message, h.Score))
	}
	return page, nil
}

// SemanticSearch finds the user's messages closest in meaning to the query.
func (t *Tools) SemanticSearch(ctx context.Context, p SemanticParams) (Page, error) {
	hasText := strings.TrimSpace(p.QueryText) != ""
	if hasText == (len(p.QueryEmbedding) > 0) {
		return Page{}, invalid("give exactly one of query_text and query_embedding")
	}
	if err := checkText("query_text", p.QueryText); err != nil {
		return Page{}, err
	}
	f, err := p.Filter.storage()
	if err != nil {
		return Page{}, err
	}
	if f, err = t.scope(f); err != nil {
		return Page{}, err
	}
	k := p.TopK
	switch {
	case k == 0:
		k = DefaultTopK
	case k < 0 || k > MaxTopK:
		return Page{}, invalid("top_k must be between 1 and %d", MaxTopK)
	}
	if p.MinScore < -1 || p.MinScore > 1 {
		return Page{}, invalid("min_score must be between -1 and 1")
	}
	hits, err := t.store.SemanticSearch(ctx, t.user, storage.SemanticQuery{
		Text: p.QueryText, Vector: p.QueryEmbedding, Filter: f, TopK: k, MinScore: p.MinScore,
	})
	if err != nil {
		return Page{}, mapErr(err)
	}
	n, err := t.count(ctx, f)
	if err != nil {
		return Page{}, err
	}
	page := Page{Hits: make([]Evidence, 0, len(hits)), Considered: n}
	for _, h := range hits {
		page.Hits = append(page.Hits, evidenceOf(h.Message, h.Score))
	}
	return page, nil
}

// Neighbors returns a message of the user with the messages around it. A
// message of another user is ErrNotFound, exactly like a missing one.
func (t *Tools) Neighbors(ctx context.Context, p NeighborsParams) (NeighborsResult, error) {
	if strings.TrimSpace(p.MessageID) == "" {
		return NeighborsResult{}, invalid("message_id is required")
	}
	if p.Before < 0 || p.Before > MaxNeighbors || p.After < 0 || p.After > MaxNeighbors {
		return NeighborsResult{}, invalid("before and after must be between 0 and %d", MaxNeighbors)
	}
	anchor, prev, next, err := t.store.Neighbors(ctx, t.user, p.MessageID, p.Before, p.After)
	if err != nil {
		return NeighborsResult{}, mapErr(err)
	}
	if t.group != "" {
		// Another group's message reads exactly like a missing one.
		if anchor.GroupID != t.group {
			return NeighborsResult{}, ErrNotFound
		}
		outside := func(m storage.Message) bool { return m.GroupID != t.group }
		prev, next = slices.DeleteFunc(prev, outside), slices.DeleteFunc(next, outside)
	}
	out := NeighborsResult{
		Anchor:     evidenceOf(anchor, 0),
		Before:     make([]Evidence, 0, len(prev)),
		After:      make([]Evidence, 0, len(next)),
		Considered: 1 + len(prev) + len(next),
	}
	for _, m := range prev {
		out.Before = append(out.Before, evidenceOf(m, 0))
	}
	for _, m := range next {
		out.After = append(out.After, evidenceOf(m, 0))
	}
	return out, nil
}
