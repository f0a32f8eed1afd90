package ingest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/recalld/recalld/ingest"
	"github.com/recalld/recalld/storage"
	"github.com/recalld/recalld/storage/storagetest"
)

func sourced(at time.Time, id string, f ingest.Fact) ingest.SourcedFact {
	return ingest.SourcedFact{Fact: f, EventID: id, At: at}
}

func TestMergeFacts(t *testing.T) {
	t1, t2, t3 := turnAt, turnAt.Add(time.Hour), turnAt.Add(2*time.Hour)
	loc := func(v string) ingest.Fact {
		return ingest.Fact{Category: "location", Slot: "location", Value: v, Lang: "zh"}
	}
	food := func(pol string) ingest.Fact {
		return ingest.Fact{Category: "food", Slot: "辣", Value: "辣", Polarity: pol, Lang: "zh"}
	}
	p := storage.Profile{EntityType: storage.EntityUser, EntityID: "qq:1"}
	p = ingest.MergeFacts(p, "张三", []ingest.SourcedFact{
		sourced(t2, "e2", loc("上海")), sourced(t1, "e1", loc("北京")), sourced(t1, "e1", food(storage.PolarityPositive)),
	})
	want := []storage.Trait{
		{Category: "location", Slot: "location", Value: "上海", Lang: "zh", FirstSeen: t2, LastSeen: t2, SourceEventID: "e2"},
		{Category: "food", Slot: "辣", Value: "辣", Polarity: "positive", Lang: "zh", FirstSeen: t1, LastSeen: t1, SourceEventID: "e1"},
	}
	if diff := cmp.Diff(want, p.Traits); diff != "" {
		t.Fatalf("newer location wins regardless of order (-want +got):\n%s", diff)
	}
	if p.Summary != "张三：住在上海；喜欢吃辣。" || !slices.Equal(p.Tags, []string{"上海"}) {
		t.Fatalf("summary %q tags %q", p.Summary, p.Tags)
	}
	// Merging the same facts again changes nothing.
	again := ingest.MergeFacts(p, "张三", []ingest.SourcedFact{sourced(t2, "e2", loc("上海")), sourced(t1, "e1", loc("北京"))})
	if diff := cmp.Diff(p, again); diff != "" {
		t.Fatalf("replay changed the profile (-want +got):\n%s", diff)
	}
	// A later dislike replaces the like; an older fact does not.
	p = ingest.MergeFacts(p, "", []ingest.SourcedFact{sourced(t3, "e3", food(storage.PolarityNegative)), sourced(t1, "e0", loc("广州"))})
	if p.Traits[1].Polarity != "negative" || p.Traits[1].SourceEventID != "e3" || p.Traits[0].Value != "上海" {
		t.Fatalf("traits %+v", p.Traits)
	}
	if p.Summary != "张三：住在上海；不吃辣。" || p.Name != "张三" {
		t.Fatalf("summary %q name %q", p.Summary, p.Name)
	}
}

func TestSummarizeLanguages(t *testing.T) {
	tr := func(cat, v, pol, lang string) storage.Trait {
		return storage.Trait{Category: cat, Slot: v, Value: v, Polarity: pol, Lang: lang}
	}
	tests := []struct {
		name   string
		traits []storage.Trait
		want   string
	}{
		{"en joins values", []storage.Trait{tr("hobby", "hiking", "positive", "en"), tr("hobby", "chess", "positive", "en"),
			tr("hobby", "golf", "negative", "en"), tr("pet", "cat", "", "en")},
			"Ann: likes hiking and chess; doesn't like golf; has a pet cat."},
		{"zh joins values", []storage.Trait{tr("food", "火锅", "positive", "zh"), tr("food", "辣", "positive", "zh")}, "Ann：喜欢吃火锅、辣。"},
		{"majority first", []storage.Trait{tr("pet", "cat", "", "en"), tr("food", "辣", "positive", "zh"), tr("food", "火锅", "positive", "zh")},
			"Ann：喜欢吃辣、火锅。 Ann: has a pet cat."},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ingest.Summarize("Ann", tt.traits); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGroupTopics(t *testing.T) {
	got := ingest.GroupTopics("张三(qq:1)2026年3月5日去杭州旅行，顺便吃火锅")
	var keys []string
	for _, f := range got {
		keys = append(keys, f.Slot+"="+f.Value)
	}
	if diff := cmp.Diff([]string{"travel=旅行", "food=美食"}, keys); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if got := ingest.GroupTopics("We planned a hiking trip"); len(got) != 2 || got[0].Value != "travel" || got[1].Value != "sports" {
		t.Fatalf("en topics %+v", got)
	}
}

// endTurn enqueues a turn and runs the worker over it.
func endTurn(tb testing.TB, s *storage.Store, w *ingest.Worker, user string, turn ingest.TurnEnd) ingest.Receipt {
	tb.Helper()
	r, err := ingest.NewQueue(s).Enqueue(tb.Context(), user, turn)
	if err != nil {
		tb.Fatal(err)
	}
	if !r.Duplicate {
		step(tb, w, true)
	}
	return r
}

func mustProfile(tb testing.TB, s *storage.Store, user, typ, id string) storage.Profile {
	tb.Helper()
	p, err := s.GetProfile(tb.Context(), user, typ, id)
	if err != nil {
		tb.Fatalf("profile %s %s/%s: %v", user, typ, id, err)
	}
	return p
}

func traitValues(p storage.Profile) []string {
	var out []string
	for _, t := range p.Traits {
		v := t.Category + "=" + t.Value
		if t.Polarity == storage.PolarityNegative {
			v = t.Category + "!=" + t.Value
		}
		out = append(out, v)
	}
	return out
}

// TestProfilePipeline runs ended turns through the queue, the offline
// historian and real storage, in zh and en: facts land in the sender's
// profile, newer facts override older ones, moods and jokes change nothing,
// a replayed request changes nothing, groups get their own profile, and
// another user of the store sees none of it.
func TestProfilePipeline(t *testing.T) {
	c := storagetest.NewClock(turnAt)
	s := openStore(t, "", c)
	w := ingest.NewWorker(s, ingest.NewHistorian(ingest.HistorianConfig{}), ingest.DefaultWorkerConfig())
	zh := func(id string, at time.Time, obs ...string) ingest.TurnEnd {
		return ingest.TurnEnd{RequestID: id, Observations: obs, SenderID: "qq:1", SenderName: "张三", Timestamp: at}
	}
	en := func(id string, at time.Time, obs ...string) ingest.TurnEnd {
		return ingest.TurnEnd{RequestID: id, Observations: obs, SenderID: "tg:7", SenderName: "Alice", Timestamp: at}
	}
	day := 24 * time.Hour
	endTurn(t, s, w, "bot:u1", zh("z1", turnAt, "我住在北京，是一名程序员", "我喜欢吃辣", "我今天很开心"))
	endTurn(t, s, w, "bot:u1", en("e1", turnAt, "I live in London", "I love spicy food and I enjoy hiking"))

	p := mustProfile(t, s, "bot:u1", storage.EntityUser, "qq:1")
	if diff := cmp.Diff([]string{"location=北京", "occupation=程序员", "food=辣"}, traitValues(p)); diff != "" {
		t.Fatalf("zh traits (-want +got):\n%s", diff)
	}
	if p.Name != "张三" || p.Revision != 1 || p.Summary != "张三：住在北京；是程序员；喜欢吃辣。" {
		t.Fatalf("zh profile %+v", p)
	}
	if src := p.Traits[0].SourceEventID; !strings.HasSuffix(src, ":0:sender") {
		t.Fatalf("source event %q", src)
	}
	a := mustProfile(t, s, "bot:u1", storage.EntityUser, "tg:7")
	if diff := cmp.Diff([]string{"location=London", "food=spicy food", "hobby=hiking"}, traitValues(a)); diff != "" {
		t.Fatalf("en traits (-want +got):\n%s", diff)
	}
	if a.Summary != "Alice: lives in London; likes spicy food; likes hiking." {
		t.Fatalf("en summary %q", a.Summary)
	}

	// Later turns: a move and a changed taste override; a mood, a joke and a
	// hypothetical do not.
	endTurn(t, s, w, "bot:u1", zh("z2", turnAt.Add(day), "我上个月搬到了上海", "我不吃辣了", "我住在月球哈哈", "如果我住在广州就好了"))
	endTurn(t, s, w, "bot:u1", en("e2", turnAt.Add(day), "I moved to Berlin last month", "I stopped eating spicy food", "I feel tired today"))
	p = mustProfile(t, s, "bot:u1", storage.EntityUser, "qq:1")
	if diff := cmp.Diff([]string{"location=上海", "occupation=程序员", "food!=辣"}, traitValues(p)); diff != "" {
		t.Fatalf("zh override (-want +got):\n%s", diff)
	}
	if p.Revision != 2 || p.Summary != "张三：住在上海；是程序员；不吃辣。" {
		t.Fatalf("zh profile %+v", p)
	}
	a = mustProfile(t, s, "bot:u1", storage.EntityUser, "tg:7")
	if diff := cmp.Diff([]string{"location=Berlin", "food!=spicy food", "hobby=hiking"}, traitValues(a)); diff != "" {
		t.Fatalf("en override (-want +got):\n%s", diff)
	}

	// Only moods: no new revision.
	endTurn(t, s, w, "bot:u1", zh("z3", turnAt.Add(2*day), "我今天好累", "我刚才吃了火锅"))
	if got := mustProfile(t, s, "bot:u1", storage.EntityUser, "qq:1"); got.Revision != 2 {
		t.Fatalf("a mood made revision %d", got.Revision)
	}

	// A replayed request id is the same job: nothing changes.
	before := mustProfile(t, s, "bot:u1", storage.EntityUser, "qq:1")
	if r := endTurn(t, s, w, "bot:u1", zh("z2", turnAt.Add(3*day), "我搬到了深圳")); !r.Duplicate {
		t.Fatal("replay was not a duplicate")
	}
	step(t, w, false)
	if diff := cmp.Diff(before, mustProfile(t, s, "bot:u1", storage.EntityUser, "qq:1")); diff != "" {
		t.Fatalf("replay changed the profile (-want +got):\n%s", diff)
	}

	// A group turn: the sender's facts go to the sender, the group gets its
	// name, topics and members; another group is separate.
	endTurn(t, s, w, "bot:u1", ingest.TurnEnd{RequestID: "g1", GroupID: "g-travel", GroupName: "旅行群", SenderID: "qq:1",
		SenderName: "张三", Timestamp: turnAt.Add(4 * day), Observations: []string{"我下周去杭州旅行", "我养了一只猫"}})
	endTurn(t, s, w, "bot:u1", ingest.TurnEnd{RequestID: "g2", GroupID: "g-code", GroupName: "Gophers", SenderID: "tg:7",
		SenderName: "Alice", Timestamp: turnAt.Add(4 * day), Observations: []string{"I deployed the server to production"}})
	g := mustProfile(t, s, "bot:u1", storage.EntityGroup, "g-travel")
	if diff := cmp.Diff([]string{"topic=宠物", "topic=旅行", "member=张三"}, traitValues(g)); diff != "" {
		t.Fatalf("group traits (-want +got):\n%s", diff)
	}
	if g.Name != "旅行群" || g.Summary != "旅行群：常聊宠物、旅行；成员有张三。" || !slices.Equal(g.Tags, []string{"宠物", "旅行"}) {
		t.Fatalf("group %+v", g)
	}
	if gc := mustProfile(t, s, "bot:u1", storage.EntityGroup, "g-code"); !slices.Equal(traitValues(gc), []string{"topic=tech", "member=Alice"}) {
		t.Fatalf("other group %+v", gc)
	}
	if p := mustProfile(t, s, "bot:u1", storage.EntityUser, "qq:1"); !slices.Contains(traitValues(p), "pet=猫") {
		t.Fatalf("group turn fact missing from the sender: %v", traitValues(p))
	}

	// Another user of the store sees none of it.
	for _, k := range [][2]string{{storage.EntityUser, "qq:1"}, {storage.EntityUser, "tg:7"}, {storage.EntityGroup, "g-travel"}} {
		if _, err := s.GetProfile(t.Context(), "bot:u2", k[0], k[1]); err != storage.ErrNotFound {
			t.Fatalf("bot:u2 gets %s/%s: %v", k[0], k[1], err)
		}
	}
	if ps, _ := s.ListProfiles(t.Context(), "bot:u2", "", 10); len(ps) != 0 {
		t.Fatalf("bot:u2 lists %d profiles", len(ps))
	}
}

// TestProfileCrashRetry: a job whose worker died after processing is rerun
// at the next start and applies its profile change once.
func TestProfileCrashRetry(t *testing.T) {
	dir := t.TempDir()
	c := storagetest.NewClock(turnAt)
	s := openStore(t, dir, c)
	h := ingest.NewHistorian(ingest.HistorianConfig{})
	if _, err := ingest.NewQueue(s).Enqueue(t.Context(), "u1", ingest.TurnEnd{RequestID: "r", SenderID: "qq:1",
		SenderName: "Ann", Observations: []string{"I live in Paris"}, Timestamp: turnAt}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.ClaimJob(t.Context(), ingest.KindTurnEnd, 300*time.Second); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openStore(t, dir, c)
	step(t, ingest.NewWorker(s, h, ingest.DefaultWorkerConfig()), true)
	p := mustProfile(t, s, "u1", storage.EntityUser, "qq:1")
	revs, err := s.ProfileRevisions(t.Context(), "u1", storage.EntityUser, "qq:1")
	if err != nil || p.Revision != 1 || len(revs) != 1 {
		t.Fatalf("profile %+v revisions %d %v", p, len(revs), err)
	}
}

// conflictProcessor returns a merge storage refuses, after good events.
type conflictProcessor struct{ h *ingest.Historian }

func (c conflictProcessor) Process(ctx context.Context, job ingest.Job) (ingest.Result, error) {
	res, _ := c.h.Process(ctx, job)
	res.Profiles = append(res.Profiles, storage.ProfileMerge{EntityType: "robot", EntityID: "x",
		Apply: func(p storage.Profile) storage.Profile { return p }})
	return res, nil
}

// TestProfileMergeRefused: a result with a bad profile merge stores nothing,
// events included, and fails the job.
func TestProfileMergeRefused(t *testing.T) {
	s := openStore(t, "", nil)
	id := enqueue(t, ingest.NewQueue(s), "u1", "r", "I live in Paris")
	step(t, ingest.NewWorker(s, conflictProcessor{ingest.NewHistorian(ingest.HistorianConfig{})}, ingest.DefaultWorkerConfig()), true)
	if j := mustJob(t, s, id); j.State != storage.JobFailed || !strings.Contains(j.Error, "entity_type") {
		t.Fatalf("%+v", j)
	}
	if evs := eventIDs(t, s, "u1"); len(evs) != 0 {
		t.Fatalf("events stored: %v", evs)
	}
	if _, err := s.GetProfile(t.Context(), "u1", storage.EntityUser, "qq:1"); err != storage.ErrNotFound {
		t.Fatal(err)
	}
}

// TestProfileRevisions keeps the five newest revisions and restores one as
// a new revision.
func TestProfileRevisions(t *testing.T) {
	s := openStore(t, "", nil)
	w := ingest.NewWorker(s, ingest.NewHistorian(ingest.HistorianConfig{}), ingest.DefaultWorkerConfig())
	cities := []string{"Paris", "Rome", "Oslo", "Lima", "Cairo", "Quito", "Dakar"}
	for i, city := range cities {
		endTurn(t, s, w, "u1", ingest.TurnEnd{RequestID: fmt.Sprint(i), SenderID: "qq:1", SenderName: "Ann",
			Observations: []string{"I live in " + city}, Timestamp: turnAt.Add(time.Duration(i) * time.Hour)})
	}
	revs, err := s.ProfileRevisions(t.Context(), "u1", storage.EntityUser, "qq:1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range revs {
		got = append(got, fmt.Sprintf("%d %s", r.Revision, r.Profile.Traits[0].Value))
		if !strings.HasPrefix(r.Source, "job:") {
			t.Fatalf("source %q", r.Source)
		}
	}
	if diff := cmp.Diff([]string{"7 Dakar", "6 Quito", "5 Cairo", "4 Lima", "3 Oslo"}, got); diff != "" {
		t.Fatalf("kept revisions (-want +got):\n%s", diff)
	}
	if _, err := s.RestoreProfile(t.Context(), "u1", storage.EntityUser, "qq:1", 2); err == nil {
		t.Fatal("restored a dropped revision")
	}
	p, err := s.RestoreProfile(t.Context(), "u1", storage.EntityUser, "qq:1", 4)
	if err != nil {
		t.Fatal(err)
	}
	if p.Revision != 8 || p.Traits[0].Value != "Lima" || p.Summary != "Ann: lives in Lima." {
		t.Fatalf("restored %+v", p)
	}
	revs, _ = s.ProfileRevisions(t.Context(), "u1", storage.EntityUser, "qq:1")
	if len(revs) != 5 || revs[0].Source != "restore:4" || revs[4].Revision != 4 {
		t.Fatalf("after restore %+v", revs)
	}
	// Restoring the current state is no change.
	if p, err := s.RestoreProfile(t.Context(), "u1", storage.EntityUser, "qq:1", 8); err != nil || p.Revision != 8 {
		t.Fatalf("restore current: %+v %v", p, err)
	}
	// Another user cannot restore it.
	if _, err := s.RestoreProfile(t.Context(), "u2", storage.EntityUser, "qq:1", 7); err == nil {
		t.Fatal("u2 restored u1's profile")
	}
	// A newer fact still merges over the restored state.
	endTurn(t, s, w, "u1", ingest.TurnEnd{RequestID: "late", SenderID: "qq:1", Observations: []string{"I moved to Bern"},
		Timestamp: turnAt.Add(10 * time.Hour)})
	if p := mustProfile(t, s, "u1", storage.EntityUser, "qq:1"); p.Revision != 9 || p.Traits[0].Value != "Bern" {
		t.Fatalf("after restore and merge %+v", p)
	}
}

// TestProfileLearnsWhatWasSaid: the observation that used to leave only
// the habit in the profile now also teaches it that the user started
// learning guitar, through the queue, the offline historian and storage.
func TestProfileLearnsWhatWasSaid(t *testing.T) {
	s := openStore(t, "", storagetest.NewClock(turnAt))
	w := ingest.NewWorker(s, ingest.NewHistorian(ingest.HistorianConfig{}), ingest.DefaultWorkerConfig())
	tests := []struct {
		name, sender, senderName, obs string
		want                          []string
		summary                       string
	}{
		{"zh", "qq:1", "小王", "我今天开始学吉他了，每周三晚上上课",
			[]string{"learning=吉他", "habit=每周三晚上上课"}, "小王：在学吉他；每周三晚上上课。"},
		{"en", "tg:7", "Alice", "I just started learning guitar, lessons every Wednesday evening",
			[]string{"learning=guitar", "habit=lessons every Wednesday evening"}, "Alice: is learning guitar; lessons every Wednesday evening."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			endTurn(t, s, w, "bot:u1", ingest.TurnEnd{RequestID: "guitar-" + tt.name, Observations: []string{tt.obs},
				SenderID: tt.sender, SenderName: tt.senderName, Timestamp: turnAt})
			p := mustProfile(t, s, "bot:u1", storage.EntityUser, tt.sender)
			if diff := cmp.Diff(tt.want, traitValues(p)); diff != "" {
				t.Fatalf("traits (-want +got):\n%s", diff)
			}
			if p.Summary != tt.summary {
				t.Fatalf("summary %q, want %q", p.Summary, tt.summary)
			}
		})
	}
}
