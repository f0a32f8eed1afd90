package queryapi_test

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

// now is the fixed clock of the event tests.
var now = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

func daysAgo(d float64) time.Time { return now.Add(-time.Duration(d * 24 * float64(time.Hour))) }

// eventFixture returns a service with the fixed clock over a store holding
// zh and en events of two users in two groups and private chats.
func eventFixture(t *testing.T) (*queryapi.Service, *storage.Store) {
	t.Helper()
	s := storagetest.Open(t, storage.Config{})
	e := func(group, sender, content string, days float64) storage.Event {
		return storage.Event{GroupID: group, SenderID: sender, SenderName: "n" + sender, Content: content, IsAbsolute: true, Timestamp: daysAgo(days)}
	}
	queryapitest.StoreEvents(t, s, "qq:1",
		e("", "10001", "小王(10001)2026年6月20日要去杭州出差", 11),
		e("", "10001", "小王(10001)最喜欢喝乌龙茶", 30),
		e("g1", "10002", "Ann (10002) flew to Paris on 2026-06-01 for the design review", 30),
		e("g1", "10001", "小王(10001) said project Atlas ships in March 2027", 5),
		e("g2", "10003", "老李(10003)2026年5月1日在成都吃了火锅", 61),
		e("g2", "10003", "老李(10003) booked flights to Paris for the team offsite", 3),
	)
	queryapitest.StoreEvents(t, s, "qq:2",
		e("", "20001", "小张(20001)2026年6月21日要去杭州出差", 10),
		e("g1", "20002", "Bob (20002) flew to Paris for the design review", 2),
	)
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	return queryapi.New(s, queryapi.WithClock(func() time.Time { return now })), s
}

func toolOpts() queryapi.EventOptions {
	return queryapi.EventOptions{Mode: queryapi.ModeTool, Config: queryapi.DefaultEventSearchConfig()}
}

func contents(r queryapi.EventsResult) []string {
	out := make([]string, 0, len(r.Events))
	for _, e := range r.Events {
		out = append(out, e.Content)
	}
	return out
}

func TestSearchEventsFindsZhAndEn(t *testing.T) {
	svc, _ := eventFixture(t)
	tools := bind(t, svc, "qq:1")
	for _, tc := range []struct{ query, first string }{
		{"小王什么时候去杭州出差？", "小王(10001)2026年6月20日要去杭州出差"},
		{"乌龙茶", "小王(10001)最喜欢喝乌龙茶"},
		{"who went to Paris for the design review?", "Ann (10002) flew to Paris on 2026-06-01 for the design review"},
		{"when does project Atlas ship", "小王(10001) said project Atlas ships in March 2027"},
		{"成都 火锅", "老李(10003)2026年5月1日在成都吃了火锅"},
	} {
		res, err := tools.SearchEvents(t.Context(), queryapi.SearchEventsParams{Query: tc.query, TopK: 3}, toolOpts())
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) == 0 || res.Events[0].Content != tc.first {
			t.Errorf("%q: got %q, want %q first", tc.query, contents(res), tc.first)
		}
		if res.Considered != 6 || res.Mode != queryapi.ModeTool || res.HalfLifeDays != 60 || len(res.Warnings) != 0 {
			t.Errorf("%q: considered %d mode %s half-life %v warnings %v", tc.query, res.Considered, res.Mode, res.HalfLifeDays, res.Warnings)
		}
		for _, e := range res.Events {
			if e.Similarity < 0 || e.Similarity > 1 || e.Score < e.Similarity || e.EventID == "" || e.JobID == "" {
				t.Errorf("%q: bad evidence %+v", tc.query, e)
			}
		}
	}
}

func TestSearchEventsTimeWindow(t *testing.T) {
	svc, _ := eventFixture(t)
	tools := bind(t, svc, "qq:1")
	q := "Paris 杭州 火锅 Atlas 乌龙茶"
	from, to := daysAgo(12).Format(time.RFC3339), daysAgo(4).Format(time.RFC3339)
	inside, err := tools.SearchEvents(t.Context(), queryapi.SearchEventsParams{Query: q, TimeFrom: from, TimeTo: to}, toolOpts())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"小王(10001) said project Atlas ships in March 2027", "小王(10001)2026年6月20日要去杭州出差"}
	got := contents(inside)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" || inside.Considered != 2 || len(inside.Warnings) != 0 {
		t.Fatalf("window (-want +got):\n%s considered %d warnings %v", diff, inside.Considered, inside.Warnings)
	}
	swapped, err := tools.SearchEvents(t.Context(), queryapi.SearchEventsParams{Query: q, TimeFrom: to, TimeTo: from}, toolOpts())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(contents(inside), contents(swapped)); diff != "" {
		t.Fatalf("swapped window differs (-ordered +swapped):\n%s", diff)
	}
	if len(swapped.Warnings) != 1 || swapped.Warnings[0] != "time_from was after time_to; the two were swapped" {
		t.Fatalf("warnings = %q", swapped.Warnings)
	}
	// Inclusive bounds: an event exactly at time_to is in.
	at := daysAgo(5).Format(time.RFC3339Nano)
	edge, err := tools.SearchEvents(t.Context(), queryapi.SearchEventsParams{Query: "Atlas", TimeFrom: at, TimeTo: at}, toolOpts())
	if err != nil || len(edge.Events) != 1 {
		t.Fatalf("event at both bounds: %q %v", contents(edge), err)
	}
	before, err := tools.SearchEvents(t.Context(), queryapi.SearchEventsParams{Query: q, TimeTo: daysAgo(60).Format(time.RFC3339)}, toolOpts())
	if err != nil || len(before.Events) != 1 || before.Events[0].Content != "老李(10003)2026年5月1日在成都吃了火锅" {
		t.Fatalf("open start: %q %v", contents(before), err)
	}
}

// TestSearchEventsDecay checks the rerank with a fixed clock: equal
// similarity, the newer event ranks first by exactly the formula's boost;
// below the minimum similarity no boost applies.
func TestSearchEventsDecay(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	same := "Ann (1) adopted a grey cat named Pixel"
	stored := queryapitest.StoreEvents(t, s, "u",
		storage.Event{SenderID: "1", Content: same, Timestamp: daysAgo(120)},
		storage.Event{SenderID: "1", Content: same, Timestamp: daysAgo(14)},
		storage.Event{SenderID: "1", Content: "Ann (1) moved to Lisbon for a new job", Timestamp: daysAgo(1)},
	)
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	older, newer := stored[0].ID, stored[1].ID
	tools := bind(t, queryapi.New(s, queryapi.WithClock(func() time.Time { return now })), "u")
	cfg := queryapi.DefaultEventSearchConfig()
	search := func(mode string, cfg queryapi.EventSearchConfig) queryapi.EventsResult {
		t.Helper()
		res, err := tools.SearchEvents(t.Context(), queryapi.SearchEventsParams{Query: "Ann adopted a grey cat named Pixel", TopK: 2},
			queryapi.EventOptions{Mode: mode, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) != 2 {
			t.Fatalf("%d events", len(res.Events))
		}
		return res
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	for _, tc := range []struct {
		mode     string
		halfLife float64
	}{{queryapi.ModeTool, 60}, {queryapi.ModeAuto, 14}} {
		res := search(tc.mode, cfg)
		n, o := res.Events[0], res.Events[1]
		if n.EventID != newer || o.EventID != older {
			t.Fatalf("%s: order %s, %s; want the newer first", tc.mode, n.EventID, o.EventID)
		}
		if !near(n.Similarity, o.Similarity) || n.Similarity < cfg.MinSimilarity {
			t.Fatalf("%s: similarities %v %v, want equal and above %v", tc.mode, n.Similarity, o.Similarity, cfg.MinSimilarity)
		}
		for _, e := range []struct {
			ev   queryapi.EventEvidence
			days float64
		}{{n, 14}, {o, 120}} {
			decay := math.Pow(0.5, e.days/tc.halfLife)
			if !near(e.ev.Decay, decay) || !near(e.ev.Score, e.ev.Similarity*(1+cfg.Boost*decay)) || !e.ev.Boosted {
				t.Errorf("%s: %+v; want decay %v and score sim×(1+%v×decay)", tc.mode, e.ev, decay, cfg.Boost)
			}
		}
		if res.HalfLifeDays != tc.halfLife {
			t.Errorf("%s: half-life %v", tc.mode, res.HalfLifeDays)
		}
	}
	// Below the minimum similarity the score is the similarity alone.
	high := cfg
	high.MinSimilarity = 1
	for _, e := range search(queryapi.ModeTool, high).Events {
		if e.Boosted || !near(e.Score, e.Similarity) {
			t.Errorf("below the minimum: %+v", e)
		}
	}
	// Without boost the decay changes nothing.
	flat := cfg
	flat.Boost = 0
	for _, e := range search(queryapi.ModeTool, flat).Events {
		if !near(e.Score, e.Similarity) {
			t.Errorf("boost 0: %+v", e)
		}
	}
}

func TestSearchEventsScope(t *testing.T) {
	svc, _ := eventFixture(t)
	q := queryapi.SearchEventsParams{Query: "Paris design review 杭州出差 火锅 Atlas 乌龙茶", TopK: 20}
	u1 := bind(t, svc, "qq:1")
	g1, err := u1.InGroup("g1")
	if err != nil {
		t.Fatal(err)
	}
	groupsOf := func(r queryapi.EventsResult) []string {
		var out []string
		for _, e := range r.Events {
			if !slices.Contains(out, e.GroupID) {
				out = append(out, e.GroupID)
			}
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name    string
		tools   *queryapi.Tools
		p       queryapi.SearchEventsParams
		groups  []string
		n       int
		senders []string
	}{
		{name: "partition", tools: u1, p: q, groups: []string{"", "g1", "g2"}, n: 6},
		{name: "group scope", tools: g1, p: q, groups: []string{"g1"}, n: 2},
		{name: "group scope, same target", tools: g1, p: with(q, func(p *queryapi.SearchEventsParams) { p.TargetGroupID = "g1" }), groups: []string{"g1"}, n: 2},
		{name: "target group narrows the partition", tools: u1, p: with(q, func(p *queryapi.SearchEventsParams) { p.TargetGroupID = "g2" }), groups: []string{"g2"}, n: 2},
		{name: "target user in group", tools: g1, p: with(q, func(p *queryapi.SearchEventsParams) { p.TargetUserID = "10001" }), groups: []string{"g1"}, n: 1, senders: []string{"10001"}},
		{name: "target user in partition", tools: u1, p: with(q, func(p *queryapi.SearchEventsParams) { p.TargetUserID = "10001" }), groups: []string{"", "g1"}, n: 3, senders: []string{"10001"}},
		{name: "other user", tools: bind(t, svc, "qq:2"), p: q, groups: []string{"", "g1"}, n: 2, senders: []string{"20001", "20002"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.tools.SearchEvents(t.Context(), tc.p, toolOpts())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.groups, groupsOf(res)); diff != "" || res.Considered != tc.n {
				t.Errorf("groups (-want +got):\n%s considered %d, want %d", diff, res.Considered, tc.n)
			}
			for _, e := range res.Events {
				if tc.senders != nil && !slices.Contains(tc.senders, e.SenderID) {
					t.Errorf("event of sender %s", e.SenderID)
				}
			}
		})
	}
	if _, err := g1.SearchEvents(t.Context(), with(q, func(p *queryapi.SearchEventsParams) { p.TargetGroupID = "g2" }), toolOpts()); !errors.Is(err, queryapi.ErrOutOfScope) {
		t.Fatalf("target group outside the scope: %v", err)
	}
	if _, err := g1.InGroup("g2"); !errors.Is(err, queryapi.ErrOutOfScope) {
		t.Fatalf("rescoping to another group: %v", err)
	}
}

func with(p queryapi.SearchEventsParams, f func(*queryapi.SearchEventsParams)) queryapi.SearchEventsParams {
	f(&p)
	return p
}

func TestSearchEventsRejects(t *testing.T) {
	svc, _ := eventFixture(t)
	tools := bind(t, svc, "qq:1")
	bad := queryapi.DefaultEventSearchConfig()
	bad.CandidateMultiplier = 0
	for name, tc := range map[string]struct {
		p queryapi.SearchEventsParams
		o queryapi.EventOptions
	}{
		"empty query":    {queryapi.SearchEventsParams{Query: "  "}, toolOpts()},
		"top_k too big":  {queryapi.SearchEventsParams{Query: "x", TopK: queryapi.MaxTopK + 1}, toolOpts()},
		"top_k negative": {queryapi.SearchEventsParams{Query: "x", TopK: -1}, toolOpts()},
		"bad time":       {queryapi.SearchEventsParams{Query: "x", TimeFrom: "yesterday"}, toolOpts()},
		"padded target":  {queryapi.SearchEventsParams{Query: "x", TargetUserID: " 1"}, toolOpts()},
		"bad mode":       {queryapi.SearchEventsParams{Query: "x"}, queryapi.EventOptions{Mode: "later", Config: queryapi.DefaultEventSearchConfig()}},
	} {
		if _, err := tools.SearchEvents(t.Context(), tc.p, tc.o); !errors.Is(err, queryapi.ErrInvalidQuery) {
			t.Errorf("%s: err = %v, want ErrInvalidQuery", name, err)
		}
	}
	if _, err := tools.SearchEvents(t.Context(), queryapi.SearchEventsParams{Query: "x"}, queryapi.EventOptions{Config: bad}); err == nil || errors.Is(err, queryapi.ErrInvalidQuery) {
		t.Errorf("bad config: err = %v, want a configuration error", err)
	}
	// Defaults: the mode's top_k.
	res, err := tools.SearchEvents(t.Context(), queryapi.SearchEventsParams{Query: "Paris 杭州 火锅 Atlas 乌龙茶 offsite"}, queryapi.EventOptions{Mode: queryapi.ModeAuto, Config: queryapi.DefaultEventSearchConfig()})
	if err != nil || len(res.Events) != 3 || res.Mode != queryapi.ModeAuto {
		t.Fatalf("auto mode: %d events, %v", len(res.Events), err)
	}
}

// TestInGroupScopesMessageTools checks that tools narrowed to a group never
// return another group's messages.
func TestInGroupScopesMessageTools(t *testing.T) {
	s := storagetest.Open(t, storage.Config{})
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	if _, err := s.Insert(t.Context(), "u", []storage.Message{
		{ID: "a1", Role: "user", ConversationID: "ca", GroupID: "ga", Content: "the launch code is alpha", CreatedAt: at},
		{ID: "a2", Role: "user", ConversationID: "ca", GroupID: "ga", Content: "launch party on friday", CreatedAt: at.Add(time.Minute)},
		{ID: "b1", Role: "user", ConversationID: "cb", GroupID: "gb", Content: "the launch code is bravo", CreatedAt: at},
		{ID: "p1", Role: "user", ConversationID: "cp", Content: "my launch code is private", CreatedAt: at},
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	ga, err := bind(t, queryapi.New(s), "u").InGroup("ga")
	if err != nil {
		t.Fatal(err)
	}
	lex, err := ga.LexicalSearch(t.Context(), queryapi.LexicalParams{QueryText: "launch code", Match: "any"})
	if err != nil {
		t.Fatal(err)
	}
	sem, err := ga.SemanticSearch(t.Context(), queryapi.SemanticParams{QueryText: "launch code", TopK: 10})
	if err != nil {
		t.Fatal(err)
	}
	list, err := ga.MessagesList(t.Context(), queryapi.ListParams{})
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]queryapi.Page{"lexical": lex, "semantic": sem, "list": list} {
		ids := pageIDs(p)
		slices.Sort(ids)
		if diff := cmp.Diff([]string{"a1", "a2"}, ids); diff != "" || p.Considered != 2 {
			t.Errorf("%s (-want +got):\n%s considered %d", name, diff, p.Considered)
		}
	}
	if _, err := ga.LexicalSearch(t.Context(), queryapi.LexicalParams{QueryText: "launch", Filter: queryapi.Filter{GroupID: "gb"}}); !errors.Is(err, queryapi.ErrOutOfScope) {
		t.Errorf("filter naming another group: %v", err)
	}
	if _, err := ga.Neighbors(t.Context(), queryapi.NeighborsParams{MessageID: "b1"}); !errors.Is(err, queryapi.ErrNotFound) {
		t.Errorf("neighbors of another group's message: %v", err)
	}
	if nb, err := ga.Neighbors(t.Context(), queryapi.NeighborsParams{MessageID: "a1", After: 3}); err != nil || len(nb.After) != 1 {
		t.Errorf("neighbors in the group: %+v %v", nb, err)
	}
}
