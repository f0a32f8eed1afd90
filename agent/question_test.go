package agent

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/queryapi/queryapitest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

func TestKeywordQuery(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"question words go", "When did Caroline go to the LGBTQ support group?", "Caroline go LGBTQ support group"},
		{"possessive", "What is Melanie's favourite book?", "Melanie favourite book"},
		{"curly apostrophe and contraction", "Why didn’t Jon’s shop open?", "Jon shop open"},
		{"quotes are dropped", `Who wrote "Charlotte's Web"?`, "wrote Charlotte Web"},
		{"digits kept", "What happened in 2022 at 5pm?", "happened 2022 5pm"},
		{"cjk kept whole", "我上次说喜欢什么茶？", "我上次说喜欢什么茶"},
		{"mixed scripts split", "Atlas项目什么时候上线", "Atlas 项目什么时候上线"},
		{"only stop words", "What did you do?", ""},
		{"empty", "  ", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := KeywordQuery(tc.in); got != tc.want {
				t.Errorf("KeywordQuery(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// hybridOpts are the options of hybrid: queryapi's and the clock
// ParseQuestion reads dates with.
type hybridOpts struct {
	Limit   int
	Weights queryapi.Weights
	Filter  queryapi.Filter
	Now     time.Time
}

// hybrid runs queryapi.Hybrid over q as ParseQuestion reads it, as the
// offline brain and eval's hybrid runner do.
func hybrid(ctx context.Context, tools queryapi.Searcher, q string, o hybridOpts) ([]queryapi.Evidence, error) {
	return queryapi.Hybrid(ctx, tools, ParseQuestion(q, o.Now),
		queryapi.HybridOptions{Limit: o.Limit, Weights: o.Weights, Filter: o.Filter})
}

var t0 = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// mustTools stores msgs for user "u1" (and one decoy message for "u2") in a
// real store and returns u1's tools.
func mustTools(t *testing.T, msgs []storage.Message) *queryapi.Tools {
	t.Helper()
	s := storagetest.Open(t, storage.Config{NoIndexer: true})
	if _, err := s.Insert(t.Context(), "u1", msgs); err != nil {
		t.Fatal(err)
	}
	decoy := []storage.Message{{ID: "x1", Role: "user", ConversationID: "c1", SenderName: "Ann",
		Content: "Ann: the dentist appointment moved to Friday", CreatedAt: t0}}
	if _, err := s.Insert(t.Context(), "u2", decoy); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	tools, err := queryapi.New(s).Bind("u1")
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

func chat(conv string, start int, turns ...[2]string) []storage.Message {
	var out []storage.Message
	for i, tr := range turns {
		out = append(out, storage.Message{
			ID: conv + "-" + string(rune('a'+i)), Role: "user", ConversationID: conv, SenderName: tr[0],
			Content: tr[1], CreatedAt: t0.Add(time.Duration(start+i) * time.Minute),
		})
	}
	return out
}

func TestHybrid(t *testing.T) {
	msgs := append(chat("c1", 0,
		[2]string{"Ann", "How was the weekend?"},
		[2]string{"Bob", "Where did you end up moving the dentist appointment?"},
		[2]string{"Ann", "Friday at nine, right after the school run."},
		[2]string{"Bob", "Great, I will drive."},
		[2]string{"Ann", "Thanks!"},
	), chat("c2", 100,
		[2]string{"Ann", "I started pottery classes on Tuesdays."},
		[2]string{"Bob", "The weather is awful today."},
	)...)
	tools := mustTools(t, msgs)
	ctx := t.Context()

	got, err := hybrid(ctx, tools, "When is the dentist appointment?", hybridOpts{})
	if err != nil {
		t.Fatal(err)
	}
	top := queryapitest.IDs(got)
	if len(top) < 2 {
		t.Fatalf("got %v, want at least two hits", top)
	}
	// The question turn matches the words; the answer turn after it is
	// found by contextual indexing and neighbour shares, so both lead.
	if diff := cmp.Diff([]string{"c1-b", "c1-c"}, slices.Sorted(slices.Values(top[:2]))); diff != "" {
		t.Errorf("top two (-want +got):\n%s\nall: %v", diff, top)
	}
	for _, e := range got {
		if e.MessageID == "x1" {
			t.Errorf("another user's message leaked: %v", top)
		}
	}

	again, err := hybrid(ctx, tools, "When is the dentist appointment?", hybridOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("not deterministic (-first +second):\n%s", diff)
	}

	// Without neighbours, the turns two away from a hit are not pulled in.
	plain, err := hybrid(ctx, tools, "dentist appointment", hybridOpts{Weights: queryapi.Weights{Contextual: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range plain {
		if e.MessageID == "c1-e" || e.MessageID == "c1-a" {
			t.Errorf("without neighbours got %v", queryapitest.IDs(plain))
		}
	}
	withNb, err := hybrid(ctx, tools, "dentist appointment", hybridOpts{Weights: queryapi.Weights{Contextual: 1, Neighbor: 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(queryapitest.IDs(withNb), "c1-e") || !slices.Contains(queryapitest.IDs(withNb), "c1-a") {
		t.Errorf("with neighbours got %v, want c1-a and c1-e pulled in", queryapitest.IDs(withNb))
	}

	// Limit and filter.
	lim, err := hybrid(ctx, tools, "dentist appointment", hybridOpts{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(lim) != 1 {
		t.Errorf("limit 1 gave %d hits", len(lim))
	}
	conv, err := hybrid(ctx, tools, "pottery classes dentist", hybridOpts{Filter: queryapi.Filter{ConversationID: "c2"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range conv {
		if e.ConversationID != "c2" {
			t.Errorf("filter c2 let %s (%s) through", e.MessageID, e.ConversationID)
		}
	}
	if len(conv) == 0 || conv[0].MessageID != "c2-a" {
		t.Errorf("filter c2 gave %v, want c2-a first", queryapitest.IDs(conv))
	}

	// Only stop words: no lexical query, semantic alone still answers.
	if _, err := hybrid(ctx, tools, "what did you do?", hybridOpts{}); err != nil {
		t.Errorf("stop-word question: %v", err)
	}
	if _, err := hybrid(ctx, tools, "  ", hybridOpts{}); !errors.Is(err, queryapi.ErrInvalidQuery) {
		t.Errorf("empty question: err = %v, want ErrInvalidQuery", err)
	}
	if _, err := hybrid(ctx, tools, "dentist", hybridOpts{Filter: queryapi.Filter{Since: "yesterday"}}); !errors.Is(err, queryapi.ErrInvalidQuery) {
		t.Errorf("bad filter: err = %v, want ErrInvalidQuery", err)
	}
}

func TestNamedSenders(t *testing.T) {
	hits := []queryapi.Evidence{
		{MessageID: "1", SenderName: "Caroline"}, {MessageID: "2", SenderName: "Melanie Ross"},
		{MessageID: "3", SenderName: "小王"}, {MessageID: "4", SenderName: "A"}, {MessageID: "5"},
	}
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"What did Caroline research?", []string{"Caroline"}},
		{"What is caroline's favourite book?", []string{"Caroline"}},
		{"How do Caroline and Melanie relax?", []string{"Caroline", "Melanie Ross"}},
		{"Did melanie ross move?", []string{"Melanie Ross"}},
		{"小王喜欢吃什么？", []string{"小王"}},
		{"What did Carolines do?", nil}, // a word, not the name
		{"Is a cat a good pet?", nil},   // one-letter names never match
		{"What did the user say?", nil}, // no name at all
		{"王喜欢吃什么？", nil},                // a CJK name matches whole
	} {
		names := ParseQuestion(tc.q, t0).Names
		var got []string
		for _, h := range hits {
			if h.SenderName != "" && names(h.SenderName) {
				got = append(got, h.SenderName)
			}
		}
		slices.Sort(got)
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.q, diff)
		}
	}
}

func TestHybridSpeakerAndDate(t *testing.T) {
	day := func(d, minute int) time.Time { return time.Date(2026, 3, d, 10, minute, 0, 0, time.UTC) }
	msgs := []storage.Message{
		{ID: "m1", Role: "user", ConversationID: "s1", SenderName: "Nate", CreatedAt: day(2, 0),
			Content: "Joanna makes the best coconut ice cream"},
		{ID: "m2", Role: "user", ConversationID: "s1", SenderName: "Joanna", CreatedAt: day(2, 1),
			Content: "My coconut ice cream recipe is easy"},
		{ID: "m3", Role: "user", ConversationID: "s2", SenderName: "Joanna", CreatedAt: day(9, 0),
			Content: "Tried a new ice cream flavour today"},
		{ID: "m4", Role: "user", ConversationID: "s2", SenderName: "Nate", CreatedAt: day(9, 1),
			Content: "Sounds tasty"},
	}
	tools := mustTools(t, msgs)
	ctx := t.Context()
	base := queryapi.Weights{Contextual: 1}

	// The speaker prior lifts the named person's own turn above a turn
	// that mentions the name.
	q := "What does Joanna say about coconut ice cream?"
	plain, err := hybrid(ctx, tools, q, hybridOpts{Weights: base})
	if err != nil {
		t.Fatal(err)
	}
	spk := base
	spk.Speaker = 1
	named, err := hybrid(ctx, tools, q, hybridOpts{Weights: spk})
	if err != nil {
		t.Fatal(err)
	}
	if got := queryapitest.IDs(named); len(got) == 0 || got[0] != "m2" {
		t.Errorf("with the speaker prior got %v (without: %v), want m2 first", got, queryapitest.IDs(plain))
	}
	for _, e := range named {
		if e.SenderName != "Joanna" {
			continue
		}
		for _, p := range plain {
			if p.MessageID == e.MessageID && e.Score != 2*p.Score {
				t.Errorf("%s: score %v, want twice %v", e.MessageID, e.Score, p.Score)
			}
		}
	}

	// A named date brings that day's turns forward; a time filter turns
	// the date ranking off (the filter already holds the window).
	q = "What ice cream did Joanna make on 9 March, 2026?"
	dated := base
	dated.Date = 1
	got, err := hybrid(ctx, tools, q, hybridOpts{Weights: dated, Now: day(20, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if top := queryapitest.IDs(got); len(top) == 0 || top[0] != "m3" {
		t.Errorf("with a named date got %v, want m3 first", top)
	}
	undated, err := hybrid(ctx, tools, q, hybridOpts{Weights: base, Now: day(20, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if top := queryapitest.IDs(undated); len(top) > 0 && top[0] == "m3" {
		t.Errorf("without the date ranking m3 leads already (%v): the test proves nothing", top)
	}
	filtered, err := hybrid(ctx, tools, q, hybridOpts{Weights: dated, Now: day(20, 0),
		Filter: queryapi.Filter{Since: day(1, 0).Format(time.RFC3339)}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(queryapitest.Scores(undated), queryapitest.Scores(filtered), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("with a time filter the date ranking still ran (-without +with):\n%s", diff)
	}
}

func TestExplicitDates(t *testing.T) {
	now := time.Date(2026, 5, 20, 12, 0, 0, 0, time.UTC)
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		q            string
		since, until time.Time // zero: no window
	}{
		{"What did Nate make on 9 November, 2022?", d(2022, 11, 9).Add(-12 * time.Hour), d(2022, 11, 10).Add(12 * time.Hour)},
		{"what happened on the 3rd of March?", d(2026, 3, 3).Add(-12 * time.Hour), d(2026, 3, 4).Add(12 * time.Hour)},
		{"Where did Joanna travel in July 2022?", d(2022, 7, 1).Add(-12 * time.Hour), d(2022, 8, 1).Add(12 * time.Hour)},
		{"What about March 3, 2025?", d(2025, 3, 3).Add(-12 * time.Hour), d(2025, 3, 4).Add(12 * time.Hour)},
		{"我3月5日说了什么", d(2026, 3, 5).Add(-12 * time.Hour), d(2026, 3, 6).Add(12 * time.Hour)},
		{"in December", d(2025, 12, 1).Add(-12 * time.Hour), d(2026, 1, 1).Add(12 * time.Hour)},
		{"上周六我带娃去哪儿了", d(2026, 5, 16).Add(-12 * time.Hour), d(2026, 5, 17).Add(12 * time.Hour)},
		{"上个星期一开会说了啥", d(2026, 5, 11).Add(-12 * time.Hour), d(2026, 5, 12).Add(12 * time.Hour)},
		{"上周日吃了什么", d(2026, 5, 17).Add(-12 * time.Hour), d(2026, 5, 18).Add(12 * time.Hour)},
		{"我上周末干嘛了", d(2026, 5, 16).Add(-12 * time.Hour), d(2026, 5, 18).Add(12 * time.Hour)},
		{"Did I beat anyone at badminton last weekend?", d(2026, 5, 16).Add(-12 * time.Hour), d(2026, 5, 18).Add(12 * time.Hour)},
		{"What did I cook last Saturday?", d(2026, 5, 16).Add(-12 * time.Hour), d(2026, 5, 17).Add(12 * time.Hour)},
		{"What did I do last Wednesday?", d(2026, 5, 13).Add(-12 * time.Hour), d(2026, 5, 14).Add(12 * time.Hour)},
		{"What did Joanna finish last Friday on 23 January, 2022?", d(2022, 1, 23).Add(-12 * time.Hour), d(2022, 1, 24).Add(12 * time.Hour)}, // the date wins
		{"我今年看过哪几部电影？", d(2026, 1, 1).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"Which field sites have I been to so far this year?", d(2026, 1, 1).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		// Last week: from the Monday before this week's to today.
		{"上周模考我考了多少", d(2026, 5, 11).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"上个礼拜我进了多少货", d(2026, 5, 11).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"What did I photograph last week?", d(2026, 5, 11).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"上週六去了哪", d(2026, 5, 16).Add(-12 * time.Hour), d(2026, 5, 17).Add(12 * time.Hour)},
		{"上個週末幹嘛了", d(2026, 5, 16).Add(-12 * time.Hour), d(2026, 5, 18).Add(12 * time.Hour)},
		{"Which gig did I go to last month?", d(2026, 4, 1).Add(-12 * time.Hour), d(2026, 5, 1).Add(12 * time.Hour)},
		{"上个月我去了几次健身房", d(2026, 4, 1).Add(-12 * time.Hour), d(2026, 5, 1).Add(12 * time.Hour)},
		// The last so many days, weeks or months: from as far back to today.
		{"which sunrise spot did I rave about in the last two weeks?", d(2026, 5, 6).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"What have I eaten over the past 10 days?", d(2026, 5, 10).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"过去三个月我去了几次医院", d(2026, 2, 20).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"最近两周我都在忙啥", d(2026, 5, 6).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"近幾天我有冇講過要去邊度", d(2026, 5, 17).Add(-12 * time.Hour), d(2026, 5, 21).Add(12 * time.Hour)},
		{"May I ask what I like?", time.Time{}, time.Time{}},
		{"我跟 Jun Hao 买组屋那件事，到现在进展到哪一步了？", time.Time{}, time.Time{}}, // a name, not June
		{"Did Jan call me back?", time.Time{}, time.Time{}},
		{"What did I do in Jun?", d(2025, 6, 1).Add(-12 * time.Hour), d(2025, 7, 1).Add(12 * time.Hour)},
		{"Where did Jun Hao and I go in June?", d(2025, 6, 1).Add(-12 * time.Hour), d(2025, 7, 1).Add(12 * time.Hour)},
		{"I have 3 cats", time.Time{}, time.Time{}},
	} {
		w, ok := explicitDates(tc.q, now)
		if ok != !tc.since.IsZero() || !w.since.Equal(tc.since) || !w.until.Equal(tc.until) {
			t.Errorf("%q: got %v..%v (%t), want %v..%v", tc.q, w.since, w.until, ok, tc.since, tc.until)
		}
	}
}

// TestWithoutDates: the dates explicitDates reads are blanked, so they
// are no content terms; "may" alone is left.
func TestWithoutDates(t *testing.T) {
	for q, want := range map[string][]string{
		"What dish did Nate make on 9 November, 2022?":      {"dish", "nate", "make"},
		"What did Nate do for Joanna on 25 May, 2022?":      {"nate", "joanna"},
		"What is John doing as a volunteer in August 2023?": {"john", "volunteer"},
		"Where did Jun Hao and I go in June?":               {"jun", "hao"},
		"我2026年3月5日去了哪里？":                                   {"去"},
		"May I ask what Tim bought?":                        {"tim", "bought"},
		"今年我都去哪儿短途旅行过？":                                     {"旅行"},
		"上周末我都干了些啥":                                         nil,
		"上周六我在哪吃的饭":                                         {"吃"},
		"What did I cook last Friday?":                      {"cook"},
		"上个礼拜我进了多少牛油":                                       {"牛油"},
		"What did I photograph last week?":                  {"photograph"},
		"Where did I hike in the past two weeks?":           {"hike"},
		"过去三个月我去了几次医院":                                      {"医院"},
	} {
		got := keyTerms(withoutDates(q), Lexicon{})
		for _, w := range want {
			if !slices.Contains(got, stem(w)) {
				t.Errorf("keyTerms(withoutDates(%q)) = %q, want %q among them", q, got, stem(w))
			}
		}
		for _, w := range got {
			if strings.ContainsAny(w, "0123456789") || w == "november" || w == "august" || w == "friday" || w == "week" || strings.ContainsAny(w, "今年周末六礼拜月") {
				t.Errorf("keyTerms(withoutDates(%q)) = %q: the date is left (%q)", q, got, w)
			}
		}
	}
}

func TestAnswerKind(t *testing.T) {
	for _, tc := range []struct {
		question string
		gives    []string // contents that give the kind asked for
		not      []string // contents that do not
	}{
		{"When did Joanna make a chocolate tart?",
			[]string{"Yesterday I tried my newest recipe", "We met back in 2013", "last Friday was great", "on March 3", "two weeks ago"},
			[]string{"My favorite treat is a chocolate tart", "It may rain", "I made it with almond flour"}},
		{"点餐小程序什么时候上线？",
			[]string{"上线时间改到 6 月 6 号", "下周三上线", "三天后上线", "上个月就上线了"},
			[]string{"点餐小程序做好了", "老板同意了"}},
		{"How long has Nate had his turtles?",
			[]string{"I've had them for 3 years now", "since I was a boy", "for a while now"},
			[]string{"I love my turtles", "They are small"}},
		{"我学吉他多久了？",
			[]string{"学了两年了", "从去年开始学的", "从小就弹"},
			[]string{"我在学吉他", "每周三上课"}},
		{"How long ago did I move?", []string{"moved here last spring... last year"}, []string{"moved for a long time"}},
		{"What inspired John to join the marching event?",
			[]string{"I joined 'cause I respect the military", "I wanted to show my support", "Growing up, I saw how it hurt us"},
			[]string{"I joined a marching event last week", "It was awesome!"}},
		{"我为什么换工作来着？",
			[]string{"因为通勤太远了", "为了多陪陪孩子", "原因很简单：钱少"},
			[]string{"我换工作了", "新公司在南山"}},
	} {
		gives := answerKind(tc.question)
		if gives == nil {
			t.Errorf("answerKind(%q) = nil, want a kind", tc.question)
			continue
		}
		checkGives(t, tc.question, gives, tc.gives, tc.not)
	}
	for _, q := range []string{"What does Joanna cook?", "我的猫叫什么？", "Where does Tim live?", "我住哪？"} {
		if answerKind(q) != nil {
			t.Errorf("answerKind(%q) asks for a kind, want nil", q)
		}
	}
}

// TestHybridAnswerKind: a turn that names a time rises for a question
// asking when, and only by Weights.Answer.
func TestHybridAnswerKind(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 10, 0, 0, 0, time.UTC) }
	msgs := []storage.Message{
		{ID: "m1", Role: "user", ConversationID: "s1", CreatedAt: day(2), Content: "my favourite dessert is a chocolate tart with raspberries"},
		{ID: "m2", Role: "user", ConversationID: "s2", CreatedAt: day(9), Content: "yesterday I baked a new chocolate dessert"},
		{ID: "m3", Role: "user", ConversationID: "s3", CreatedAt: day(16), Content: "the shop sells chocolate, cookies, tea, coffee and many other things"},
	}
	tools := mustTools(t, msgs)
	base := queryapi.Weights{Lexical: 1}
	q := "When did I bake the chocolate tart?"
	plain, err := hybrid(t.Context(), tools, q, hybridOpts{Weights: base})
	if err != nil {
		t.Fatal(err)
	}
	if got := queryapitest.IDs(plain); len(got) == 0 || got[0] != "m1" {
		t.Fatalf("without the answer weight got %v, want m1 first: the test proves nothing", got)
	}
	typed := base
	typed.Answer = 1
	got, err := hybrid(t.Context(), tools, q, hybridOpts{Weights: typed})
	if err != nil {
		t.Fatal(err)
	}
	if ids := queryapitest.IDs(got); len(ids) == 0 || ids[0] != "m2" {
		t.Errorf("with the answer weight got %v, want m2 first", ids)
	}
	for _, e := range got {
		for _, p := range plain {
			if p.MessageID != e.MessageID {
				continue
			}
			want := p.Score
			if e.MessageID == "m2" {
				want *= 2
			}
			if math.Abs(e.Score-want) > 1e-9 {
				t.Errorf("%s: score %v, want %v", e.MessageID, e.Score, want)
			}
		}
	}
}

// TestPartOfDayTerms: a question's term for a part of the day is borne out
// by a message that names it, a meal of it or a clock time in it.
func TestPartOfDayTerms(t *testing.T) {
	for _, tc := range []struct {
		term      string
		gives, no []string
	}{
		{stem("mornings"), []string{"I've been doing 6am gym sessions", "breakfast at the diner", "每天早上跑步"}, []string{"gym at 7pm", "晚上跑步"}},
		{"晚上", []string{"晚上九点去夜跑", "after work I go climbing", "dinner with Sam"}, []string{"早上跑步", "6am gym"}},
		{"下午", []string{"下午去图书馆", "a 3pm coffee"}, []string{"6am gym"}},
	} {
		gives := partOfDayTerms([]string{tc.term})[tc.term]
		if gives == nil {
			t.Errorf("%q names no part of the day, want one", tc.term)
			continue
		}
		checkGives(t, tc.term, gives, tc.gives, tc.no)
	}
	if got := partOfDayTerms([]string{"gym", "猫"}); got != nil {
		t.Errorf("partOfDayTerms(gym, 猫) = %d terms, want none", len(got))
	}
}

// TestDateTerms: in a question whether a date or time changed, the word
// for it is borne out by a message naming one; elsewhere (业余时间, "what
// time do I wake up") it is an ordinary term.
func TestDateTerms(t *testing.T) {
	for _, tc := range []struct {
		question, term string
		gives, no      []string
	}{
		{"Kite 上线时间后来改了吗？", "时间", []string{"Kite 上线推迟到 4 月 1 号了", "launch moved to next Friday"}, []string{"Kite 上线了", "审核没过"}},
		{"Did the launch date move?", "date", []string{"launch pushed to June 1"}, []string{"launch went fine"}},
	} {
		gives := dateTerms(tc.question, []string{tc.term, "kite"})[tc.term]
		if gives == nil {
			t.Errorf("%q: %q is no date term, want one", tc.question, tc.term)
			continue
		}
		checkGives(t, tc.term, gives, tc.gives, tc.no)
	}
	for q, terms := range map[string][]string{
		"我业余时间在写什么项目？":            {"业余", "时间"},
		"What time do I wake up?": {"time", "wake"},
	} {
		if got := dateTerms(q, terms); got != nil {
			t.Errorf("dateTerms(%q) = %d terms, want none: it asks of no change", q, len(got))
		}
	}
}

// checkGives holds gives, what bears out the question or term asked, to
// the contents that do (yes) and do not (no).
func checkGives(t *testing.T, asked string, gives func(string) bool, yes, no []string) {
	t.Helper()
	for _, c := range yes {
		if !gives(c) {
			t.Errorf("%q: %q does not bear it out, want it to", asked, c)
		}
	}
	for _, c := range no {
		if gives(c) {
			t.Errorf("%q: %q bears it out, want not", asked, c)
		}
	}
}
