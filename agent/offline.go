package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/internal/wordfreq"
	"github.com/recalld/recalld/internal/wordnet"
	"github.com/recalld/recalld/queryapi"
)

// offlineBrain runs the loop deterministically by the skill's rules.
type offlineBrain struct {
	skill  *Skill
	asking Lexicon // askingWords of the skill's params, built once
	// household are the words 我家 may own (ofHousehold), built once.
	household []string
	dict      *bilingual.Dict // nil: no matching across Chinese and English
	// wordnet knows what a thing is a kind of (WithWordNet); nil: only the
	// skill's kinds and topics do.
	wordnet *wordnet.WordNet
	// freq is how common words are in everyday language (WithWordFreq);
	// nil: no matter's course is followed (offlineRun.thread).
	freq *wordfreq.Freq
	// timeWords are the words of time signals and parts of the day (lower
	// case), which tie no two messages to one matter (今天, 下周); built once.
	timeWords map[string]bool
}

func (b *offlineBrain) name() string { return "offline" }

// action is one search round the offline brain may run: either run, or
// fetch, whose hits the round remembers (do). A fetch may start early (see
// prefetch); it searches in the window and role it is given, the run's
// as they are when it starts (run.window changes as rounds reflect, and a
// prefetch must not read it while they do).
type action struct {
	name  string
	run   func(ctx context.Context) error
	fetch func(ctx context.Context, f queryapi.Filter) ([]queryapi.Evidence, error)
	// after, when set, runs in the action's own round once its hits are
	// in: what a prefetched fetch found besides hits takes effect there,
	// not whenever the fetch happens to finish.
	after func()
}

// prefetch starts a's fetch now, in parallel with the rounds before it, and
// returns a with a run that waits for the hits and remembers them. The
// fetch's tool calls are counted and traced when they run; pending tracks
// the fetch, so that the brain does not return while it still runs.
func (a action) prefetch(ctx context.Context, r *run, f queryapi.Filter, pending *sync.WaitGroup) action {
	type result struct {
		hits []queryapi.Evidence
		err  error
	}
	done := make(chan result, 1)
	fetch := a.fetch
	pending.Go(func() {
		hits, err := fetch(ctx, f)
		done <- result{hits, err}
	})
	a.fetch = nil
	a.run = func(ctx context.Context) error {
		select {
		case res := <-done:
			if res.err != nil {
				return res.err
			}
			r.remember(res.hits)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return a
}

// do runs the action's round: its run, or its fetch with the hits remembered.
func (a action) do(ctx context.Context, r *run) error {
	if a.run != nil {
		if err := a.run(ctx); err != nil {
			return err
		}
	} else {
		hits, err := a.fetch(ctx, r.window.filter(r.role))
		if err != nil {
			return err
		}
		r.remember(hits)
	}
	if a.after != nil {
		a.after()
	}
	return nil
}

// recall runs the loop the skill describes: observe the question, plan the
// searches, search round by round (each round decides what runs next and
// reflects on what it found), anchor the best hits in their context, and
// synthesize the draft.
func (b *offlineBrain) recall(ctx context.Context, r *run) (draft, error) {
	or := &offlineRun{offlineBrain: b, r: r}
	or.observe()
	or.planSearches()
	var pending sync.WaitGroup // prefetches still running
	defer pending.Wait()
	stop, err := or.search(ctx, &pending)
	if err != nil {
		return draft{}, err
	}
	if !or.repliesRead && ctx.Err() == nil {
		if err := or.replies(ctx); err != nil {
			return draft{}, err
		}
		if stop == StopNoEvidence && r.supported(or.rel, or.o) > 0 {
			stop = StopLowGain
		}
	}
	if ctx.Err() == nil {
		if err := or.bridge(ctx); err != nil {
			return draft{}, err
		}
	}
	if ctx.Err() == nil {
		if err := or.thread(ctx); err != nil {
			return draft{}, err
		}
	}
	if err := or.anchor(ctx, stop); err != nil {
		return draft{}, err
	}
	or.reasons()
	return or.synthesize(stop), nil
}

// offlineRun is the state of one recall driven by the offline brain: what
// it observed in the question and the searches it plans.
type offlineRun struct {
	*offlineBrain
	r           *run
	o           observation
	rel         relevance
	plan        []action
	widened     bool // the window was widened to all time
	repliesRead bool // the turns before the hits were read (replies)
	// contextual is the latest hybrid search's contextual BM25 ranking.
	contextual  []queryapi.Evidence
	droppedRole bool // the role filter was dropped
}

// observe reads the question: the intent, role, window, names, phrases and
// topics it asks about (traced as the observe step), and the relevance
// rules the search judges hits by.
func (or *offlineRun) observe() {
	r, p := or.r, or.skill.Params
	start := time.Now()
	// After a turn marker, the question is what follows it; that too may
	// end with a sentence giving its reason ("我想问问你 我媳妇儿过生日是几号
	// 明年可不能再在外头过了").
	q, marked := realQuestion(r.question, p.Markers["turn"])
	if marked {
		q = withoutReason(q)
	}
	q, _ = afterPreamble(q, p.Markers["filler"], p.Markers["reference"])
	if q != r.question {
		r.note("searched the question after the preamble: %q", truncate(q, 80))
		r.question = q
	}
	o := r.observe()
	r.timings.Observe = since(start)
	r.window = o.window
	r.role = o.role
	if r.role == "any" {
		r.role = ""
	}
	// The date a question names ("What dish did Nate make on 9 November,
	// 2022?") is its window, not its content: no message says "November"
	// or "2022" for the day it was sent, and as terms no message has they
	// would weigh most in support.
	content := r.question
	if o.signal == "date" {
		content = withoutDates(content)
	}
	content = possessive(content, p.Markers["possessive"], or.household)
	qterms := keyTerms(content, p.Markers["filler"])
	r.step("observe", "", map[string]any{
		"intent": o.intent, "role": cmpOr(o.role, "any"), "signal": o.signal, "phrases": o.phrases,
		"names": o.names, "topics": o.topics, "keywords": o.keywords,
	}, 0, fmt.Sprintf("intent %s; hypotheses: the user's own %s statements%s", o.intent, o.intent, windowText(o.window)))

	rel := relevance{terms: qterms, expansions: lowerAll(o.expansions), broad: lowerAll(o.broad), names: lowerAll(o.names), phrases: o.phrases,
		windowed: !o.window.since.IsZero() || !o.window.until.IsZero(), zh: o.zh, plans: o.intent == "schedule" && o.intentHits > 0}
	if o.thread && o.zh && or.freq != nil {
		rel.course = func(w string) bool { return or.freq.PerMillion(w) < threadCommon }
	}
	// Support weighs the question's content only: not the words that say
	// what kind of answer it wants or when (askingWords).
	rel.evidence = keyTerms(content, or.asking)
	for _, ch := range contentChars(content, or.asking) {
		if !slices.Contains(rel.evidence, ch) {
			rel.evidence = append(rel.evidence, ch)
		}
	}
	if cs := clauses(strings.ToLower(content)); o.zh && len(cs) > 1 {
		rel.scene = make(map[string]bool)
		for _, t := range rel.evidence {
			rel.scene[t] = !strings.Contains(cs[len(cs)-1], t)
		}
	}
	rel.alts = translations(or.dict, r.question, rel.evidence)
	// A question asks in a verb's base form what a message tells in its
	// past ("Where did I grow up?", "grew up in Ipoh"): a verb's irregular
	// forms count as the verb, as its suffixes do (termIn).
	if or.wordnet != nil {
		for _, t := range rel.evidence {
			if forms := or.wordnet.VerbForms(t); len(forms) > 0 {
				if rel.alts == nil {
					rel.alts = make(map[string][]string)
				}
				rel.alts[t] = append(rel.alts[t], forms...)
			}
		}
	}
	if or.dict != nil {
		rel.places = or.places()
	}
	rel.kindTerms = or.kindTerms(r.question, o, rel.evidence, rel.places)
	byTerm, broad := or.wordKinds(r.question, rel.evidence)
	rel.broadKinds = broad
	if o.people != "" && asksName.MatchString(strings.ToLower(r.question)) {
		rel.namesPeople = namesOneOf(p.Relations[o.people], or.dict)
	}
	if o.petName {
		pets := p.Topics["pet"].Words()
		rel.namesPet = func(content string) bool { return or.namesPet(content, pets) }
	}
	for _, terms := range []map[string]func(string) bool{partOfDayTerms(rel.evidence), dateTerms(r.question, rel.evidence), whenTerms(r.question, rel.evidence),
		nameTerms(rel.evidence, rel.namesPeople)} {
		for t, named := range terms {
			if byTerm == nil {
				byTerm = make(map[string]func(string) bool)
			}
			byTerm[t] = named
		}
	}
	for t, named := range byTerm {
		if rel.kindTerms == nil {
			rel.kindTerms = make(map[string]func(string) bool)
		}
		if rel.kindTerms[t] == nil {
			rel.kindTerms[t] = named
		}
	}
	if in, ok := p.Intents[o.intent]; ok && o.intentHits > 0 {
		rel.kind = lowerAll(in.Words())
	}
	for _, t := range o.topics {
		rel.kind = append(rel.kind, lowerAll(p.Topics[t].Words())...)
	}
	// A Chinese question whose last clause asks by its kind's words alone
	// ("快递单要填地址，我住在哪块来着？": 住) after clauses that only give
	// its reason is about what that clause asks: the reason's words are no
	// terms of it. (Not when the clause before has no kind word of its own
	// to ask by, "上次说的那家火锅店，叫啥来着", nor when the clauses before
	// ask, also by an alternative (我练车是周六还是周日), request or name a
	// matter: "帮我捋一下装修那摊事，现在到哪一步了".)
	if cs := clauses(strings.ToLower(content)); o.zh && len(cs) > 1 && len(rel.evidence) > 0 {
		last := cs[len(cs)-1]
		if !slices.ContainsFunc(rel.evidence, func(t string) bool { return strings.Contains(last, t) }) &&
			countHits(last, rel.kind) > 0 && !slices.ContainsFunc(cs[:len(cs)-1], asksOrNames) {
			rel.terms, rel.evidence, rel.scene = nil, nil, nil
		}
	}
	or.o, or.rel = o, rel
}

// asksOrNames reports whether a clause before a question's last asks
// (also by an alternative, 周六还是周日), requests or names a matter: part
// of the question, not its reason.
func asksOrNames(c string) bool {
	return asksSomething(c) || asksPlainly(c) || strings.Contains(c, "还是") || requests(c) || strings.Contains(c, "帮我") || namesMatter(c)
}

// possessive drops the 家 of "我家" where it says whose, not where: before
// one of the user's people or pets ("我家猫叫啥名字", "我家娃多大了"), the
// messages that answer say "黑猫" or "朵朵" and no home. "我家在哪" and
// "我家楼下" keep it.
func possessive(q string, marks Lexicon, members []string) string {
	for _, m := range marks.ZH {
		out, rest := "", q
		for {
			i := strings.Index(rest, m)
			if i < 0 {
				break
			}
			out += rest[:i+len(m)]
			rest = rest[i+len(m):]
			after := strings.TrimPrefix(rest, "的")
			if slices.ContainsFunc(members, func(w string) bool { return strings.HasPrefix(after, w) }) {
				out = strings.TrimSuffix(out, "家")
			}
		}
		q = out + rest
	}
	return q
}

// ofHousehold returns the Chinese words for the user's people (relations)
// and pets (the pet topic): what "我家" may own.
func ofHousehold(p Params) []string {
	var out []string
	for _, name := range sortedKeys(p.Relations) {
		out = append(out, p.Relations[name].ZH...)
	}
	return append(out, p.Topics["pet"].ZH...)
}

// kindTerms returns the evidence terms inside the words with which the
// question asks for a kind of thing (kinds: 颜色 of 什么颜色, 电影 of 哪几部
// 电影, city of which city), each with whether a message names one of its
// kind (namesKind); nil when it asks for none.
func (or *offlineRun) kindTerms(question string, o observation, evidence []string, places func(string) bool) map[string]func(string) bool {
	lower := strings.ToLower(question)
	var out map[string]func(string) bool
	for _, kind := range o.kinds {
		k := or.skill.Params.Kinds[kind]
		for _, w := range k.Ask.Words() {
			w = strings.ToLower(w)
			if !strings.Contains(lower, w) {
				continue
			}
			for _, t := range evidence {
				if isCJKString(t) && strings.Contains(w, t) || !isCJKString(t) && slices.ContainsFunc(strings.Fields(w), func(f string) bool { return strings.HasPrefix(f, t) }) {
					if out == nil {
						out = make(map[string]func(string) bool)
					}
					out[t] = func(content string) bool { return namesKind(k, content, places) }
				}
			}
		}
	}
	return out
}

// places reports whether a message names a place the dictionary knows
// (bilingual.Dict.Places), remembering each message's answer (memo).
func (or *offlineRun) places() func(content string) bool {
	return memo(func(content string) bool {
		if len(or.dict.Places(content)) > 0 {
			return true
		}
		// Chat writes names in lower case ("near lijiang not dali"): a word
		// that is the name of a place and no everyday English word (fewer
		// than placeCommon a million) names one too.
		if or.freq == nil {
			return false
		}
		for _, w := range latinWords(content) {
			if w == strings.ToLower(w) && or.dict.PlaceName(w) && or.freq.PerMillion(w) < placeCommon {
				return true
			}
		}
		return false
	})
}

// placeCommon is how common (a million English words) a word in lower
// case may be and still be read as a place's name: brisbane and kunming
// are rarer; nice, reading and bath are not.
const placeCommon = 2

// memo remembers what named says of each message: synthesis asks of every
// candidate, more than once.
func memo(named func(content string) bool) func(content string) bool {
	var mu sync.Mutex
	seen := make(map[string]bool)
	return func(content string) bool {
		mu.Lock()
		defer mu.Unlock()
		v, ok := seen[content]
		if !ok {
			v = named(content)
			seen[content] = v
		}
		return v
	}
}

// filter is the window and role the search is in now.
func (or *offlineRun) filter() queryapi.Filter { return or.r.window.filter(or.r.role) }

// hybrid fuses contextual BM25, plain BM25 and semantic similarity.
// hybrid is the fused ranking eval measures (queryapi.Hybrid), through
// the run's counted tools. Its neighbour look-ups fit the tool calls left
// (a search that runs out of them midway returns nothing): after its own
// searches and one more.
func (or *offlineRun) hybrid(ctx context.Context) error {
	r, p := or.r, or.skill.Params
	weights := p.Weights
	expand := min(queryapi.DefaultHybridExpand, r.callsLeft()-hybridSearches-1)
	if expand <= 0 {
		weights.Neighbor = 0
	}
	hits, err := queryapi.Hybrid(ctx, counted{r}, ParseQuestion(r.question, r.now), queryapi.HybridOptions{
		Limit: p.Limits.Candidates, Candidates: p.Limits.Candidates, Weights: weights, Filter: or.filter(), Expand: expand,
		Similarities: func(sims []queryapi.Evidence) { r.similar(sims) },
		Contextual:   func(hits, plain []queryapi.Evidence) { or.contextual = byContextGain(hits, plain) },
	})
	if err != nil {
		return err
	}
	r.remember(hits)
	return or.learnPeople(ctx)
}

// learnPeople reads, once, the user's messages from all time that mention
// the people of the relation the question asks about (run.people): a
// question inside a window ("上周六我带娃去哪儿了") may find its answer by
// the name ("带朵朵逛了拙政园") that a message outside it gave ("女儿朵朵四
// 岁"). One lexical search; a spent budget ends it quietly.
func (or *offlineRun) learnPeople(ctx context.Context) error {
	r, o := or.r, or.o
	if o.relation == "" || r.peopleRead {
		return nil
	}
	r.peopleRead = true
	page, err := r.lexical(ctx, queryapi.LexicalParams{QueryText: strings.Join(or.skill.Params.Relations[o.relation].Words(), " "),
		Match: "any", Filter: queryapi.Filter{Role: "user"}, PageSize: or.skill.Params.Limits.Candidates})
	if err != nil {
		if errors.Is(err, errToolBudget) || ctx.Err() != nil {
			return nil
		}
		return err
	}
	r.people = page.Hits
	return nil
}

// hybridSearches is how many searches queryapi.Hybrid runs at most
// before its neighbour look-ups (contextual and plain BM25, semantic, the
// named dates).
const hybridSearches = 4

// otherLanguage searches the question's words in the other language
// (relevance.alts), for what was said in it. For a Chinese question it
// also searches their meaning (the English senses as one query, which
// the English sentence model reads): what it finds ranks the English
// messages among the supported hits (run.gloss, stop.gloss_weight). The
// English question's Chinese words are not searched so: read from a
// Chinese-English dictionary backwards, they are too many and too loose
// a gloss ("kind" gives 惠, 淑 and 类).
func (or *offlineRun) otherLanguage(ctx context.Context, f queryapi.Filter) (hits, gloss []queryapi.Evidence, err error) {
	alt := or.rel.altQuery()
	page, err := or.r.lexical(ctx, queryapi.LexicalParams{QueryText: alt, Match: "any", Filter: f, PageSize: or.skill.Params.Limits.Candidates})
	if err != nil {
		return nil, nil, err
	}
	hits = queryapi.Fuse(queryapi.Weighted{Hits: page.Hits, Weight: 0.8})
	if !or.rel.zh || or.skill.Params.Stop.GlossWeight == 0 {
		return hits, nil, nil
	}
	sem, err := or.r.semantic(ctx, queryapi.SemanticParams{QueryText: alt, Filter: f, TopK: or.skill.Params.Limits.Candidates})
	switch {
	case errors.Is(err, errToolBudget) || errors.Is(err, queryapi.ErrSemanticUnavailable):
		return hits, nil, nil // the words' hits stand without it
	case err != nil:
		return nil, nil, err
	}
	return hits, sem.Hits, nil
}

// again runs the broad searches again when the window or the role
// changes: the hybrid search, and the search in the other language when
// the question has words there.
func (or *offlineRun) again(ctx context.Context) error {
	if err := or.hybrid(ctx); err != nil {
		return err
	}
	if or.rel.altQuery() == "" {
		return nil
	}
	hits, gloss, err := or.otherLanguage(ctx, or.filter())
	if err != nil {
		return err
	}
	or.r.remember(hits)
	or.r.glossed(gloss)
	return nil
}

// planSearches plans the rounds the observation calls for: a listing of a
// schedule's window, the hybrid search, exact anchors for phrases and
// names, and a rewrite with the topics' words.
func (or *offlineRun) planSearches() {
	r, o, p := or.r, or.o, or.skill.Params
	if o.intent == "schedule" && !r.window.since.IsZero() {
		or.plan = append(or.plan, action{name: "list the window", run: func(ctx context.Context) error {
			f := or.filter()
			page, err := r.list(ctx, queryapi.ListParams{Since: f.Since, Until: f.Until, Role: r.role, PageSize: 50})
			if err != nil {
				return err
			}
			for i := range page.Hits {
				page.Hits[i].Score = 0.5 // a listing is not a ranking
			}
			r.remember(page.Hits)
			return nil
		}})
	}
	or.plan = append(or.plan, action{name: "hybrid search", run: or.hybrid})
	// Searching the other language in the first round instead (a plan
	// that stops early leaves it out) cost the cross-lingual suite's tune
	// half a case: README, "Chinese and English in one memory".
	if or.rel.altQuery() != "" {
		var gloss []queryapi.Evidence // written by the fetch, read after it (prefetch's channel orders them)
		or.plan = append(or.plan, action{name: "search in the other language",
			fetch: func(ctx context.Context, f queryapi.Filter) ([]queryapi.Evidence, error) {
				hits, g, err := or.otherLanguage(ctx, f)
				gloss = g
				return hits, err
			},
			after: func() { or.r.glossed(gloss) },
		})
	}
	if len(o.phrases) > 0 || len(o.names) > 0 {
		or.plan = append(or.plan, action{name: "exact anchors", fetch: func(ctx context.Context, f queryapi.Filter) ([]queryapi.Evidence, error) {
			var rankings []queryapi.Weighted
			for _, ph := range o.phrases {
				page, err := r.lexical(ctx, queryapi.LexicalParams{QueryText: `"` + ph + `"`, Filter: f, PageSize: p.Limits.Candidates})
				if err != nil {
					return nil, err
				}
				rankings = append(rankings, queryapi.Weighted{Hits: page.Hits, Weight: 1})
			}
			if len(o.names) > 0 {
				page, err := r.lexical(ctx, queryapi.LexicalParams{QueryText: strings.Join(o.names, " ") + " " + o.keywords, Match: "any", Contextual: true, Filter: f, PageSize: p.Limits.Candidates})
				if err != nil {
					return nil, err
				}
				rankings = append(rankings, queryapi.Weighted{Hits: page.Hits, Weight: 0.8})
			}
			return queryapi.Fuse(rankings...), nil
		}})
	}
	if len(o.expansions) > 0 {
		or.plan = append(or.plan, action{name: "rewrite with topic words", fetch: func(ctx context.Context, f queryapi.Filter) ([]queryapi.Evidence, error) {
			query := strings.TrimSpace(o.keywords + " " + strings.Join(o.expansions, " "))
			page, err := r.lexical(ctx, queryapi.LexicalParams{QueryText: query, Match: "any", Filter: f, PageSize: p.Limits.Candidates})
			if err != nil {
				return nil, err
			}
			return queryapi.Fuse(queryapi.Weighted{Hits: page.Hits, Weight: 0.8}), nil
		}})
	}
}

// search runs the rounds until one of them gives a stop reason: each round
// decides whether and what runs, runs it and reflects on what it found.
// Prefetches it starts are tracked by pending.
func (or *offlineRun) search(ctx context.Context, pending *sync.WaitGroup) (stop string, err error) {
	for i := 0; ; i++ {
		if stop := or.decide(i); stop != "" {
			return stop, nil
		}
		// The second round always runs (the loop stops no earlier), so a
		// fetch planned for it starts with the first and uses the core
		// the first leaves idle.
		if i == 0 && len(or.plan) > 1 && or.plan[1].fetch != nil {
			or.plan[1] = or.plan[1].prefetch(ctx, or.r, or.filter(), pending)
		}
		if stop, err := or.round(ctx, i); stop != "" || err != nil {
			return stop, err
		}
	}
}

// decide decides whether round i runs: not past the round budget; past the
// plan, coverage widens the window, then drops the role filter, once each,
// and otherwise stops. It returns the stop reason, or "" when round i runs.
func (or *offlineRun) decide(i int) (stop string) {
	r, o, rel := or.r, or.o, or.rel
	if r.rounds >= r.maxRounds {
		return StopBudget
	}
	if i < len(or.plan) {
		return ""
	}
	switch {
	case r.supported(rel, o) == 0 && !or.widened && !r.window.explicit && !r.window.since.IsZero():
		or.widen(len(or.plan), "nothing in the %s window; searched all time")
	case r.supported(rel, o) == 0 && !or.droppedRole && r.role == "user" && r.rolePref != "user":
		or.droppedRole = true
		r.role = ""
		r.note("nothing in the user's own words; read all roles")
		or.plan = append(or.plan, action{name: "drop the role filter", run: or.again})
	case r.supported(rel, o) == 0 && !or.repliesRead && or.skill.Params.Limits.Replies > 0:
		or.plan = append(or.plan, action{name: "read the turns before the hits", run: or.replies})
	default:
		if r.supported(rel, o) == 0 {
			return StopNoEvidence
		}
		return StopLowGain
	}
	return ""
}

// widen drops the run's time window and plans a round that searches all
// time again at position at of the plan; note says why (%s: the signal).
func (or *offlineRun) widen(at int, note string) {
	r := or.r
	or.widened = true
	r.window = timeWindow{}
	// A score is a share of the best hit of its search: inside the window
	// a message of little weight may have scored near the top, and all
	// time is ranked again from nothing (what the wider searches do not
	// bring back keeps no score).
	for _, c := range r.seen {
		c.score = 0
	}
	r.note(note, cmpOr(or.o.signal, "asked"))
	or.plan = slices.Insert(or.plan, min(at, len(or.plan)), action{name: "widen the window", run: or.again})
}

// looseWindow reports whether the run searches inside a loose time
// signal's window (observation.loose: "What forum did Tim join
// recently?") that nothing bears the question out in yet: such a question
// presupposes its answer, which may be older than a week, so the window
// is widened (decide) rather than the run stopped.
func (or *offlineRun) looseWindow() bool {
	r := or.r
	if !or.o.loose || or.widened || r.window.explicit || r.window.since.IsZero() {
		return false
	}
	// What another speaker says of themself, or the named one only asks,
	// does not answer a question about a named one ("Why did Maria join a
	// nearby church recently?" and John's news of the week: synthesize
	// sets them aside); nor does the named one's message by carrying
	// their name ("What did John recently get promoted to?" and John's
	// food drive of the week: ownSupport).
	minimum := r.minSupport(or.rel)
	_, named := r.namedSpeakers(or.rel)
	for _, c := range r.best(or.rel, or.o, 1<<30) {
		support := c.support
		if len(named) > 0 {
			support = r.ownSupport(or.rel, c)
		}
		if (minimum == 0 || support >= minimum) && ofNamed(c, named) &&
			(!slices.Contains(named, strings.ToLower(c.ev.SenderName)) || r.ownStatement(or.rel, c)) {
			return false
		}
	}
	return true
}

// bridge follows the names the best hits give (我养了两只猫，一只叫团子，一
// 只叫年糕; my cat Mochi) to the messages that speak of them by name only
// ("团子三岁了，年糕才一岁"), for a question whose answer may lie there: one
// asking for several things, a number, an age or a kind. For one asking
// for several things it follows the places they name too. A message that
// names one of them bears the question out as the hit that named it did
// (candidate.via). One lexical search; a spent budget ends it quietly.
func (or *offlineRun) bridge(ctx context.Context) error {
	r, o, rel := or.r, or.o, or.rel
	if !o.aggregate && !o.number && !o.age && len(o.kinds) == 0 {
		return nil
	}
	minimum := r.minSupport(rel)
	if minimum == 0 || len(rel.evidence) == 0 {
		return nil
	}
	idf := r.questionIDF(rel)
	lowerQ := strings.ToLower(r.question)
	from := map[string]*candidate{}
	var given []string
	for _, c := range r.best(rel, o, 3) {
		if !r.ownWords(rel, idf, c) {
			continue
		}
		for _, n := range givenNames(c.ev.Content) {
			if l := strings.ToLower(n); !strings.Contains(lowerQ, l) && from[l] == nil {
				from[l] = c
				given = append(given, n)
			}
		}
		// A quantity measured in a unit (68 公斤, 5 km) is a series: the
		// other messages that measure in that unit continue it ("现在 62 公
		// 斤了").
		for _, u := range measuredUnits(c.ev.Content) {
			if from[u] == nil {
				from[u] = c
				given = append(given, u)
			}
		}
		// A question that asks for several things is answered again where
		// a place a best hit names comes up again ("又去杭州了，这次待一周"
		// after "今天去杭州出差", for "我今年出差去过哪些城市？").
		if o.aggregate {
			for _, pl := range or.dict.Places(c.ev.Content) {
				if l := strings.ToLower(pl); !strings.Contains(lowerQ, l) && from[l] == nil {
					from[l] = c
					given = append(given, pl)
				}
			}
		}
	}
	if len(given) == 0 {
		return nil
	}
	page, err := r.lexical(ctx, queryapi.LexicalParams{QueryText: strings.Join(given, " "), Match: "any", Filter: or.filter(), PageSize: or.skill.Params.Limits.Candidates})
	if err != nil {
		if errors.Is(err, errToolBudget) || ctx.Err() != nil {
			return nil
		}
		return err
	}
	found := 0
	for _, h := range page.Hits {
		lower := strings.ToLower(h.Content)
		// In the order the hits gave them (a map's order would pick a
		// different naming hit from run to run).
		for _, n := range given {
			l := strings.ToLower(n)
			c := from[l]
			if h.MessageID == c.ev.MessageID || !containsWord(lower, l) || isUnit(l) && !slices.Contains(measuredUnits(h.Content), l) {
				continue
			}
			if _, ok := r.seen[h.MessageID]; !ok {
				h.Score = c.score
				r.remember([]queryapi.Evidence{h})
			}
			if n := r.seen[h.MessageID]; n.via == nil {
				n.via = c
				found++
			}
			break
		}
	}
	r.step("reflect", "", nil, found, fmt.Sprintf("follow the names the best hits give (%s): %d messages speak of them", strings.Join(given, ", "), found))
	return nil
}

// threadHops is how many times thread follows the messages it found.
const threadHops = 2

// threadMaxDF is how many of the messages seen a word may be in and still
// tie two messages to one matter (装修 of a shop's fit-out; not 今天).
const threadMaxDF = 3

// thread follows a matter's course for a question asking for it
// (observation.thread: "光谷开分店那事 一路下来搞得么样了"). Each message
// of the speaker's own that shares a rare word (rare in everyday language,
// threadCommon, and in threadMaxDF of the user's messages seen or fewer)
// with one of the best hits bearing the question out continues the thread ("光谷铺面签了…下周开始装修", then "装修拖了 开业
// 推到五月中", then "光谷店今天试营业"), and bears the question out as that
// hit does (candidate.via); what it finds is followed again, threadHops
// times. One lexical search a hop; a spent budget ends it quietly. It
// needs the word frequencies (WithWordFreq): a user's few dozen messages
// do not tell 推迟 or 时间 from 装修.
func (or *offlineRun) thread(ctx context.Context) error {
	r, o, rel := or.r, or.o, or.rel
	if !o.thread || or.freq == nil || r.minSupport(rel) == 0 || len(rel.evidence) == 0 {
		return nil
	}
	idf := r.questionIDF(rel)
	var front []*candidate
	for _, c := range r.best(rel, o, 3) {
		if c.ev.Role == "user" && r.ownWords(rel, idf, c) {
			front = append(front, c)
		}
	}
	p := or.skill.Params
	// A message's words that may tie it to another. Those of a hit
	// followed from (from) must also be rare in everyday language, unless
	// they are of a name the hit writes with capitals (Paper Crane).
	type key struct {
		content string
		from    bool
	}
	terms := map[key][]string{}
	nameOnly := map[string]bool{} // words of names that are common words (paper)
	termsOf := func(content string, from bool) []string {
		if ts, ok := terms[key{content, from}]; ok {
			return ts
		}
		var names []string
		if from {
			names = capitalised(content)
		}
		var out []string
		for _, t := range or.threadTerms(content) {
			if !threadWord(t) || or.timeWords[t] || slices.Contains(out, t) {
				continue
			}
			switch {
			case !from || or.perMillion(t) < threadCommon:
				out = append(out, t)
			case slices.Contains(names, t):
				out = append(out, t)
				nameOnly[t] = true
			}
		}
		terms[key{content, from}] = out
		return out
	}
	var links []string
	linked := map[string]bool{}
	for _, c := range front {
		linked[c.ev.MessageID] = true
	}
	for hop := 0; hop < threadHops && len(front) > 0; hop++ {
		from := map[string]*candidate{}
		var words []string
		for _, c := range front {
			for _, t := range termsOf(c.ev.Content, true) {
				if from[t] == nil {
					from[t] = c
					words = append(words, t)
				}
			}
		}
		page, err := r.lexical(ctx, queryapi.LexicalParams{QueryText: strings.Join(words, " "), Match: "any", Filter: queryapi.Filter{Role: "user"}, PageSize: p.Limits.Candidates})
		if err != nil {
			if errors.Is(err, errToolBudget) || ctx.Err() != nil {
				return nil
			}
			return err
		}
		// How many of the user's messages each word is in, of those seen
		// and those found (the assistant's restatements aside).
		df := map[string]int{}
		counted := map[string]bool{}
		count := func(e queryapi.Evidence) {
			if counted[e.MessageID] || e.Role != "user" {
				return
			}
			counted[e.MessageID] = true
			for _, t := range termsOf(e.Content, false) {
				if from[t] != nil {
					df[t]++
				}
			}
		}
		for _, c := range r.seen {
			count(c.ev)
		}
		for _, h := range page.Hits {
			count(h)
		}
		var next []*candidate
		for _, h := range page.Hits {
			if linked[h.MessageID] {
				continue
			}
			// A rare word ties it to the hit that has it; so do two words
			// of the hit's names that are common words by themselves (Paper
			// Crane, not food alone for the Food Awards).
			var by *candidate
			var word string
			names := map[*candidate][]string{}
			for _, t := range termsOf(h.Content, false) {
				c := from[t]
				if c == nil || df[t] > threadMaxDF || c.ev.SenderID != h.SenderID ||
					absDuration(h.CreatedAt.Sub(c.ev.CreatedAt)) > threadGap {
					continue
				}
				if nameOnly[t] {
					if names[c] = append(names[c], t); len(names[c]) < 2 {
						continue
					}
					t = strings.Join(names[c], " ")
				}
				by, word = c, t
				break
			}
			if by == nil {
				continue
			}
			if _, ok := r.seen[h.MessageID]; !ok {
				h.Score = by.score
				r.remember([]queryapi.Evidence{h})
			}
			n := r.seen[h.MessageID]
			linked[h.MessageID] = true
			// It ranks as the hit it continues, though it shares little with
			// the question, and bears the question out as the hit it was
			// found from does, unless it does so by its own words.
			n.score = max(n.score, by.score)
			if by.via != nil {
				by = by.via
			}
			if !r.ownWords(rel, idf, n) {
				n.via = by
			}
			next = append(next, n)
			links = append(links, fmt.Sprintf("%s←%s (%s)", h.MessageID, by.ev.MessageID, word))
		}
		front = next
	}
	r.step("reflect", "", nil, len(links), fmt.Sprintf("follow the matter's course: %d messages continue the best hits %s", len(links), strings.Join(links, ", ")))
	return nil
}

// threadTerms are the words of a message thread matches: its key terms
// (Chinese taken two characters by two between stop characters), without
// the pairs that straddle two words of the dictionary (学生多 gives 学生,
// not 生多).
func (or *offlineRun) threadTerms(content string) []string {
	filler := or.skill.Params.Markers["filler"]
	if or.dict == nil {
		return keyTerms(content, filler)
	}
	var out []string
	for _, t := range keyTerms(content, filler) {
		if !isCJKString(t) {
			out = append(out, t)
		}
	}
	lower := strings.ToLower(content)
	for _, f := range filler.ZH {
		lower = strings.ReplaceAll(lower, f, " ")
	}
	for _, run := range strings.FieldsFunc(lower, func(r rune) bool { return !isCJK(r) || strings.ContainsRune(stopChars, r) }) {
		var single []rune
		pairs := func(rs []rune) {
			for i := 0; i+1 < len(rs); i++ {
				out = append(out, string(rs[i:i+2]))
			}
		}
		for _, w := range or.dict.Segment(run) {
			if rs := []rune(w); len(rs) == 1 {
				single = append(single, rs[0])
				continue
			}
			pairs(single)
			single = single[:0]
			pairs([]rune(w))
		}
		pairs(single)
	}
	return out
}

// perMillion is how common a thread term is in everyday language. An
// English term is stemmed (minut, nurs, decid) and the word lists know
// the words it was cut from: the commonest of those counts, or "did 45
// minutes of bouldering" would tie to "finished in 6 minutes" by a word
// read as rare because no list holds its stem.
func (or *offlineRun) perMillion(t string) float64 {
	n := or.freq.PerMillion(t)
	if isCJKString(t) {
		return n
	}
	// stem's suffixes, and the e that minut, nurs and decid lost with theirs.
	for _, suf := range append([]string{"e"}, stemSuffixes...) {
		n = max(n, or.freq.PerMillion(t+suf))
	}
	return n
}

// capitalised returns the names a text writes with a capital (names),
// lower case and stemmed as key terms are ("pitched Lantern Hollow to
// Paper Crane Publishing" → lantern, hollow, paper, crane, publish).
func capitalised(text string) []string {
	var out []string
	for _, n := range names(text) {
		for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return r == '-' }) {
			out = append(out, stem(w))
		}
	}
	return out
}

// threadCommon is how many times in a million words of everyday language
// a word may occur and still tie two messages to one matter (装修 7, 光谷
// 9; not 开始 635, thing 1,117).
const threadCommon = 20

// threadGap is how far apart in time two messages of one matter's course
// may be.
const threadGap = 90 * 24 * time.Hour

// threadWord reports whether a key term may tie two messages to one
// matter: two Chinese characters or more, none of them a numeral (一九七
// 三年 and 写成一本 share 九七 and 成一 with no matter), or an English word of
// four letters or more that is no stop word.
func threadWord(t string) bool {
	if isCJKString(t) {
		return utf8.RuneCountInString(t) >= 2 && !strings.ContainsAny(t, zhNumerals)
	}
	return len(t) >= 4 && !isStopWord(t)
}

// zhNumerals are the characters Chinese writes numbers with.
const zhNumerals = "〇零一二两三四五六七八九十百千万亿兩萬億"

func absDuration(d time.Duration) time.Duration { return max(d, -d) }

// timeWords are the words of the skill's time signals and parts of the
// day, lower case.
func timeWords(p Params) map[string]bool {
	out := map[string]bool{}
	for _, ts := range p.TimeSignals {
		for _, w := range ts.Words() {
			out[strings.ToLower(w)] = true
		}
	}
	for _, w := range p.Markers["daypart"].Words() {
		out[strings.ToLower(w)] = true
	}
	return out
}

// namesPet reports whether a message gives a name as a pet's is given:
// after 叫 behind an animal or a pause (橘猫，叫馒头; 猫儿叫汤圆), after
// named/called, behind a pet word (namesAfter), or as a capitalized word
// English seldom uses (Mochi, Biscuit), not one it often does (Back) nor
// a word of chat no word list counts (Btw, Lol: markers.chat).
func (or *offlineRun) namesPet(content string, pets []string) bool {
	if len(givenNames(content)) > 0 || len(namesAfter(content, pets, or.dict)) > 0 || petCalled.MatchString(content) {
		return true
	}
	chat := or.skill.Params.Markers["chat"].EN
	for _, loc := range latinWord.FindAllStringIndex(content, -1) {
		w := content[loc[0]:loc[1]]
		if len(w) < 3 || !unicode.IsUpper(rune(w[0])) || w == strings.ToUpper(w) || slices.Contains(chat, strings.ToLower(w)) {
			continue
		}
		// Mid-sentence, a capitalized word is a name ("say goodbye to
		// Max"); opening one, only a word English seldom uses is (Mochi,
		// not Back or Btw).
		before := strings.TrimRightFunc(content[:loc[0]], unicode.IsSpace)
		last, _ := utf8.DecodeLastRuneInString(before)
		midSentence := strings.ContainsFunc(before, unicode.IsLetter) && !strings.ContainsRune(".!?。！？…", last) && !isCJK(last)
		if midSentence || or.freq != nil && or.freq.PerMillion(strings.ToLower(w)) < petNameCommon {
			return true
		}
	}
	return false
}

// petNameCommon (per million words) is how often English may use a
// capitalized word that is taken for a name.
const petNameCommon = 1.0

var (
	petCalled = regexp.MustCompile(zhForms(`(?:[只条猫狗儿它名，,\s])叫[\p{Han}]{2,3}|\b(?:named|called|name is|name's|name was)\s+[A-Z]`))
	latinWord = regexp.MustCompile(`[A-Za-z]+`)
)

// givenNames returns the names a message gives to someone or something:
// after 叫 or 名字是 behind a measure word or a noun of people or animals
// (一只叫团子, 女儿叫乐乐), or after named/called ("a dog named Max") or
// a person or pet of the speaker's ("my cat Mochi", "our son Leo").
func givenNames(text string) []string {
	var out []string
	for _, m := range givenZH.FindAllStringSubmatch(text, -1) {
		n := strings.TrimRight(m[1], "的了呢吧啊呀")
		if utf8.RuneCountInString(n) >= 2 && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, m := range givenEN.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// measuredUnits returns the units a message measures a number in (68 公
// 斤, 5km, 3.5 小时), lower-cased.
func measuredUnits(text string) []string {
	var out []string
	for _, m := range measureExpr.FindAllStringSubmatch(strings.ToLower(text), -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// isUnit reports whether s is one of the units measureExpr knows.
func isUnit(s string) bool { return slices.Contains(units, s) }

var (
	units       = []string{"公斤", "千克", "斤", "kg", "kgs", "lbs", "lb", "公里", "千米", "km", "miles", "mi", "小时", "hours", "元", "块钱", "美元", "dollars"}
	measureExpr = regexp.MustCompile(`\d+(?:\.\d+)?\s*(` + strings.Join(units, "|") + `)`)
	givenZH     = regexp.MustCompile(zhForms(`(?:只|条|个|匹|头|位|猫|狗|它|他|她|孩子|儿子|女儿|老大|老二|宝宝|闺女)(?:叫|名字叫|名字是|取名)([\p{Han}]{1,3})`))
	givenEN     = regexp.MustCompile(`\b(?:named|called|(?i:my|our)\s+(?:\w+\s+)?(?i:cat|dog|puppy|kitten|pet|son|daughter|kid|baby|brother|sister|partner|husband|wife|boyfriend|girlfriend))\s+([A-Z][a-z]+)`)
)

// round runs the planned action of round i and reflects on it. It returns
// a stop reason when the budget ran out or the round found enough.
func (or *offlineRun) round(ctx context.Context, i int) (stop string, err error) {
	r := or.r
	act := or.plan[i]
	before := r.supported(or.rel, or.o)
	r.mu.Lock() // a prefetch's tool calls read rounds for the trace
	r.rounds++
	r.mu.Unlock()
	if err := act.do(ctx, r); err != nil {
		if errors.Is(err, errToolBudget) || ctx.Err() != nil {
			r.note("search stopped early: %s", budgetText(err, ctx))
			return StopBudget, nil
		}
		return "", err
	}
	return or.reflect(act, i, before), nil
}

// reflect traces what round i's action found (supported hits, and how many
// of them are new) and returns a stop reason when that is enough or the
// plan is spent with little gain.
func (or *offlineRun) reflect(act action, i, before int) (stop string) {
	r, p := or.r, or.skill.Params
	after := r.supported(or.rel, or.o)
	r.step("reflect", "", nil, after, fmt.Sprintf("%s: %d supported hits (+%d)", act.name, after, after-before))
	switch {
	case or.looseWindow():
		// Widen next, before the tool budget goes to other rounds.
		or.widen(i+1, "nothing in the %s window bears the question out; searched all time")
		return ""
	case after >= or.enough() && i >= 1:
		return StopEnough
	case i >= 1 && after > 0 && after-before < p.Stop.MinNew && i+1 >= len(or.plan):
		return StopLowGain
	}
	return ""
}

// enough is the supported hits after which the run stops searching
// (stop.enough): for a question that asks for several things
// (markers.aggregate: "What movies have I seen?") as many as it may cite
// (stop.aggregate_cite_max), since each may be in a message of its own
// and a hit the synthesis sets aside (one that names no title) would
// otherwise end the search before the topic's words are tried.
func (or *offlineRun) enough() int {
	p := or.skill.Params.Stop
	if or.o.aggregate {
		return max(p.Enough, p.AggregateCiteMax)
	}
	return p.Enough
}

// replies reads the turn before the hits that do not bear out the
// question by their own words (sharing only its topic does not count): an
// answer names little of what it answers ("The Minnesota Wolves!", "去江边
// 骑车", "不是啦，前端"), the question before it does. The hybrid's
// contextual BM25 hits come first, in order of how much the turn before
// them added (byContextGain), then the best-scored rest; up to
// limits.replies are read, from the neighbours the run fetched or with one
// neighbors call each. A hit after another speaker's question is judged on
// both turns' words (best). It runs once: after the search, or as a round
// before giving up when nothing was supported.
func (or *offlineRun) replies(ctx context.Context) error {
	r, p := or.r, or.skill.Params
	or.repliesRead = true
	// Without tool calls left, the turns the run's neighbours showed are
	// still read.
	spent := func(err error) bool { return errors.Is(err, errToolBudget) || ctx.Err() != nil }
	// The contextual ranking's hits score as it ranks them, and join the
	// run only as answers: on their own words they were no hit.
	var order []string
	unseen := map[string]*candidate{}
	ctxScore := map[string]float64{}
	if len(or.contextual) > 0 {
		// The ranking's own scores, normalised as fusion does; its order
		// (byContextGain) decides which are read.
		for _, h := range queryapi.Fuse(queryapi.Weighted{Hits: or.contextual, Weight: p.Weights.Contextual}) {
			ctxScore[h.MessageID] = h.Score
		}
		for _, h := range or.contextual[:min(len(or.contextual), p.Limits.Replies)] {
			order = append(order, h.MessageID)
			if _, ok := r.seen[h.MessageID]; !ok {
				h.Score = ctxScore[h.MessageID]
				unseen[h.MessageID] = &candidate{ev: h, score: h.Score, round: r.rounds}
			}
		}
	}
	var rest []*candidate
	for _, c := range r.seen {
		rest = append(rest, c)
	}
	slices.SortFunc(rest, func(a, b *candidate) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return strings.Compare(a.ev.MessageID, b.ev.MessageID)
	})
	for _, c := range rest {
		order = append(order, c.ev.MessageID)
	}
	// A hit that bears out the question by its own words (not by sharing
	// its topic) needs no reading.
	idf := r.questionIDF(or.rel)
	read, found := 0, 0
	done := map[string]bool{}
	for _, id := range order {
		if read >= p.Limits.Replies {
			break
		}
		c := r.seen[id]
		if c == nil {
			c = unseen[id]
		}
		rebuts := c != nil && r.rebuts(c.ev)
		if c == nil || done[id] || c.asked != nil || r.ownWords(or.rel, idf, c) || !r.inScope(c) || isQuestionText(c.ev.Content) && !rebuts {
			continue
		}
		done[id] = true
		read++
		prev, ok := r.turnBefore(id)
		if !ok {
			res, err := r.neighbors(ctx, queryapi.NeighborsParams{MessageID: id, Before: 1})
			if err != nil && !spent(err) {
				return err
			}
			if len(res.Before) == 0 {
				continue
			}
			prev = res.Before[len(res.Before)-1]
		}
		// An answer to another speaker's question, or the user's
		// correction of what the assistant just said (opening with a
		// denial, or denying a value it gave: "14th mate, not 4th").
		if prev.ConversationID == c.ev.ConversationID && (isQuestionText(prev.Content) || (rebuts || r.denies(c.ev, prev.Content)) && prev.Role == "assistant") &&
			(prev.Role != c.ev.Role || prev.SenderID != c.ev.SenderID || prev.SenderName != c.ev.SenderName) {
			c.asked = &prev
			c.score = max(c.score, ctxScore[id])
			found++
			if unseen[id] == c {
				r.seen[id] = c
			}
		}
	}
	r.step("reflect", "", nil, found, fmt.Sprintf("read the turn before %d hits: %d answer another speaker's question", read, found))
	// A user's turn that the assistant took down in the next turn ("记下
	// 了：你对海鲜过敏", "抱歉，已更正：5月20日截止") is judged with that
	// turn too, in whose words a later question asks: every such hit whose
	// next turn the run's neighbours showed, at no tool call.
	noted := 0
	for _, c := range r.seen {
		if c.ev.Role != "user" || c.noted != nil || !r.inScope(c) || r.ownWords(or.rel, idf, c) {
			continue
		}
		next, ok := r.turnAfter(c.ev.MessageID)
		if ok && next.Role == "assistant" && next.ConversationID == c.ev.ConversationID && r.acknowledges(next) {
			c.noted = &next
			noted++
		}
	}
	if noted > 0 {
		r.step("reflect", "", nil, noted, fmt.Sprintf("%d hits taken down by the assistant in the next turn: judged with its words", noted))
	}
	// The turns the hits are now judged with hold terms too (relevance.idf).
	r.idf = nil
	return nil
}

// acknowledges reports whether an assistant's turn opens by taking down
// or setting right what was said to it (markers.acknowledgement: "记下
// 了：…", "Noted —", "抱歉，已更正"), after a short word of its own at
// most ("恭喜！记下了：…", "理解～已记下：…", "Wow! Noted: …").
func (r *run) acknowledges(e queryapi.Evidence) bool {
	if e.Role != "assistant" {
		return false
	}
	words := r.skill.Params.Markers["acknowledgement"].Words()
	return opensWith(e.Content, words) || opensWith(afterLead(e.Content), words)
}

// leadRunes is the longest opening word afterLead passes over. (Twice as
// many for a Latin script, "Congrats!", cost two English answers their
// precision: chats18 gs-c07, gs-c10.)
const leadRunes = 6

// afterLead returns content after its opening word when that is short
// (leadRunes at most) and ends in a stop, a comma, a colon or a tilde
// ("恭喜勇哥！", "哈哈，", "Wow!"); else "".
func afterLead(content string) string {
	s := strings.TrimLeftFunc(content, unicode.IsSpace)
	for i, r := range s {
		if utf8.RuneCountInString(s[:i]) > leadRunes {
			return ""
		}
		if strings.ContainsRune("，,。.！!～~：:、；;", r) {
			if i == 0 {
				return ""
			}
			return s[i+utf8.RuneLen(r):]
		}
	}
	return ""
}

// rebuts reports whether a user's turn opens by denying what was said
// to it (markers.rebuttal: "不是插画！", "not vegan!", "No, I …").
func (r *run) rebuts(e queryapi.Evidence) bool {
	return e.Role == "user" && opensWith(e.Content, r.skill.Params.Markers["rebuttal"].Words())
}

// opensWith reports whether content, after spaces and punctuation, opens
// with one of words as a word of its own.
func opensWith(content string, words []string) bool {
	lower := strings.ToLower(strings.TrimLeftFunc(content, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }))
	for _, w := range words {
		w = strings.ToLower(w)
		if strings.HasPrefix(lower, w) && boundary(lower, len(w), false, w) {
			return true
		}
	}
	return false
}

// denies reports whether the user's turn e denies a value the turn
// before it (said) gave, anywhere in it: "是 10月3号 lol not 13" after
// "10月13号的婚礼准备得怎么样了", "周五，不是周四" after "周四见". The
// denied value is the word or number right after a rebuttal word (not,
// 不是, which 并不是 and 才不是 hold), and said must hold it.
func (r *run) denies(e queryapi.Evidence, said string) bool {
	if e.Role != "user" {
		return false
	}
	lower, saidLower := strings.ToLower(e.Content), strings.ToLower(said)
	for _, w := range []string{"not", "不是"} {
		for _, at := range mentions(lower, w) {
			v := deniedValue.FindString(lower[at[1]:])
			if v = strings.TrimSpace(v); v != "" && strings.Contains(saidLower, v) {
				return true
			}
		}
	}
	return false
}

// deniedValue is the value after a rebuttal word: a number, a word, or up
// to four Chinese characters.
var deniedValue = regexp.MustCompile(`^\s*(?:\d+|[a-z][a-z'-]{2,}|\p{Han}{2,4})`)

// isQuestionText reports whether a turn asks something: a question mark
// anywhere ("Wow! Which team? So happy for you"), or a Chinese question
// particle at its end. It is wider than contextFlags.question, which
// ranks a message lower only when the message as a whole is a question.
func isQuestionText(s string) bool {
	if strings.ContainsAny(s, "?？") {
		return true
	}
	t := strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '~' || r == '.' || r == '。' })
	return strings.HasSuffix(t, "吗") || strings.HasSuffix(t, "呢") && (whWord.MatchString(t) || !statesNe.MatchString(t))
}

// statesNe is a sentence whose 呢 tells what is going on, not asks: someone
// asking, pressing or waiting for the user ("朵朵问我呢", "老板催着呢"),
// the reason given after a question.
var statesNe = regexp.MustCompile(zhForms(`(?:问|催|等|找|喊|叫|盼)(?:我|着|我们)呢$|着呢$`))

// anchor fetches the neighbours of the best supported hits before
// trusting them; a reply like "开玩笑的" changes what a message means.
// A spent budget ends it early without an error.
func (or *offlineRun) anchor(ctx context.Context, stop string) error {
	if stop == StopNoEvidence {
		return nil
	}
	r, p := or.r, or.skill.Params
	for _, c := range r.best(or.rel, or.o, p.Limits.MaxAnchors) {
		if ctx.Err() != nil {
			r.note("neighbours not fetched: the time budget ran out")
			return nil
		}
		if _, err := r.neighbors(ctx, queryapi.NeighborsParams{MessageID: c.ev.MessageID, Before: p.Limits.Neighbors, After: p.Limits.Neighbors}); err != nil {
			if errors.Is(err, errToolBudget) || ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
	return nil
}

// reasons follows, for a question asking why ("What inspired John to join
// the marching event?"), each anchored hit that tells of the thing by its
// own words to the reason its speaker gives next when the other speaker
// asks for one right after it ("What inspired you to join it?"): that
// answer ("I've always had a great respect for our military") bears the
// question out as the hit does (candidate.via).
func (or *offlineRun) reasons() {
	r, rel := or.r, or.rel
	if !asksReason.MatchString(r.question) || r.minSupport(rel) == 0 || len(rel.evidence) == 0 {
		return
	}
	idf := r.questionIDF(rel)
	found := 0
	for _, c := range r.best(rel, or.o, or.skill.Params.Limits.MaxAnchors) {
		if !r.ownWords(rel, idf, c) {
			continue
		}
		var after []queryapi.Evidence
		for _, n := range c.context {
			if n.ConversationID == c.ev.ConversationID && n.CreatedAt.After(c.ev.CreatedAt) {
				after = append(after, n)
			}
		}
		slices.SortFunc(after, func(a, b queryapi.Evidence) int { return a.CreatedAt.Compare(b.CreatedAt) })
		if len(after) < 2 || after[0].SenderName == c.ev.SenderName && after[0].Role == c.ev.Role ||
			!asksReason.MatchString(after[0].Content) || after[1].SenderName != c.ev.SenderName || after[1].Role != c.ev.Role {
			continue
		}
		n := after[1]
		if _, ok := r.seen[n.MessageID]; !ok {
			n.Score = c.score
			r.remember([]queryapi.Evidence{n})
		}
		if m := r.seen[n.MessageID]; m.via == nil {
			m.via = c
			m.score = max(m.score, c.score)
			found++
		}
	}
	if found > 0 {
		r.step("reflect", "", nil, found, fmt.Sprintf("follow the best hits to the reasons asked of their speakers next: %d", found))
	}
}

// synthesize turns the supported candidates into the draft (run.synthesize).
func (or *offlineRun) synthesize(stop string) draft {
	start := time.Now()
	d := or.r.synthesize(or.rel, or.o, stop)
	or.r.timings.Synthesize = since(start)
	return d
}

func budgetText(err error, ctx context.Context) string {
	if errors.Is(err, errToolBudget) {
		return "tool call budget spent"
	}
	return "time budget spent"
}

func windowText(w timeWindow) string {
	if w.since.IsZero() && w.until.IsZero() {
		return ""
	}
	return fmt.Sprintf(" between %s and %s", fmtDay(w.since), fmtDay(w.until))
}

func fmtDay(t time.Time) string {
	if t.IsZero() {
		return "…"
	}
	return t.Format("2006-01-02")
}

// counted adapts a run to queryapi.Searcher: every call is counted, budgeted and traced.
type counted struct{ r *run }

func (c counted) User() string { return c.r.tools.User() }

func (c counted) LexicalSearch(ctx context.Context, p queryapi.LexicalParams) (queryapi.Page, error) {
	return c.r.lexical(ctx, p)
}

func (c counted) SemanticSearch(ctx context.Context, p queryapi.SemanticParams) (queryapi.Page, error) {
	return c.r.semantic(ctx, p)
}

func (c counted) Neighbors(ctx context.Context, p queryapi.NeighborsParams) (queryapi.NeighborsResult, error) {
	return c.r.neighbors(ctx, p)
}

// similar records the raw similarity of semantic hits on their candidates
// (remembered by the same round).
func (r *run) similar(hits []queryapi.Evidence) { r.keepBest(&r.sims, hits) }

// glossed keeps the raw similarity of each hit of the search by the
// question's meaning in the other language (offlineRun.otherLanguage),
// and which message is the best so far (the smallest id of equals).
func (r *run) glossed(hits []queryapi.Evidence) {
	r.keepBest(&r.gloss, hits)
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, v := range r.gloss {
		if v > r.glossTop || v == r.glossTop && id < r.glossTopID {
			r.glossTop, r.glossTopID = v, id
		}
	}
}

// keepBest records each hit's score in *m, the best one per message.
func (r *run) keepBest(m *map[string]float64, hits []queryapi.Evidence) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if *m == nil {
		*m = make(map[string]float64)
	}
	for _, h := range hits {
		(*m)[h.MessageID] = max((*m)[h.MessageID], h.Score)
	}
}

// support is how well a candidate bears out the question in absolute
// terms (relevance.support), raised to stop.min_support when its raw
// similarity reaches stop.min_similarity (stop.min_similarity_zh for a
// Chinese question): not "near the best hit", since
// the best hit of a question about something never said is no evidence.
func (r *run) support(rel relevance, idf map[string]float64, c *candidate) float64 {
	st := r.skill.Params.Stop
	minimum := r.minSupport(rel)
	s := rel.support(c.ev, idf, minimum)
	sim := st.MinSimilarity
	if rel.zh && st.MinSimilarityZH > 0 {
		sim = st.MinSimilarityZH
	}
	if sim > 0 && r.sims[c.ev.MessageID] >= sim {
		s = max(s, minimum)
	}
	// A message written without Chinese that is the nearest to a Chinese
	// question's meaning read in English (offlineRun.otherLanguage), by a
	// cosine of stop.gloss_similarity at least, bears it out: the words of
	// the two languages rarely meet ("我现在在玩哪种团体运动？" against
	// "joined a sunday five-a-side league").
	if g := st.GlossSimilarity; g > 0 && c.ev.Role == "user" && !hasHan(c.ev.Content) && r.glossBest(c.ev.MessageID, g) {
		s = max(s, minimum)
	}
	return s
}

// glossPopulation is the fewest messages the search by meaning in the
// other language must have read for its best hit to count (glossBest).
const glossPopulation = 10

// glossBest reports whether id is the best hit of the search by the
// question's meaning in the other language, at a similarity of floor or
// more, among glossPopulation messages at least: the nearest of a handful
// (a week's few messages) is no evidence.
func (r *run) glossBest(id string, floor float64) bool {
	return id == r.glossTopID && r.glossTop >= floor && len(r.gloss) >= glossPopulation
}

// minSupport is the support the run's question needs (stop.min_support,
// or stop.min_support_zh for a Chinese question).
func (r *run) minSupport(rel relevance) float64 {
	if st := r.skill.Params.Stop; rel.zh && st.MinSupportZH > 0 {
		return st.MinSupportZH
	}
	return r.skill.Params.Stop.MinSupport
}

// supported counts the candidates the relevance rules accept.
func (r *run) supported(rel relevance, o observation) int {
	return len(r.best(rel, o, 1<<30))
}

// best returns up to n supported candidates, best first.
func (r *run) best(rel relevance, o observation, n int) []*candidate {
	top := 0.0
	for _, c := range r.seen {
		top = max(top, c.score)
	}
	st := r.skill.Params.Stop
	idf := r.questionIDF(rel)
	pet, asked := r.relationNames(o)
	var out []*candidate
	for _, c := range r.seen {
		if !r.inScope(c) || c.score < st.Relevance*top {
			continue
		}
		// A candidate shares enough of the question's key terms, or bears
		// it out in absolute terms (content characters count there).
		ov := rel.overlap(c.ev)
		// A question for its window's plans that names none ("这几天我约
		// 了什么事？") is answered by the window's messages that name a day
		// or time.
		if rel.plans && rel.windowed && len(rel.evidence) == 0 && r.namesWhen(c.ev.Content) {
			ov = max(ov, st.MinOverlap)
		}
		c.support = r.support(rel, idf, c)
		// A message that names one of the people the question asks about
		// by relation ("我闺女对什么过敏？") by their name ("朵朵查出来对花生
		// 过敏") bears out the relation's word as well.
		if asked != "" && countHits(strings.ToLower(c.ev.Content), pet) > 0 {
			ev := c.ev
			ev.Content += " " + asked
			c.support = max(c.support, rel.support(ev, idf, r.minSupport(rel)))
			ov = max(ov, rel.overlap(ev))
		}
		// A message about a name a bearing hit gave (bridge) bears the
		// question out as that hit does.
		if c.via != nil && r.ownWords(rel, idf, c.via) {
			c.support = max(c.support, r.minSupport(rel))
			ov = max(ov, st.MinOverlap, rel.overlap(c.via.ev))
		}
		// An answer is judged with the question it answers (replies),
		// unless that question tells of its asker's own doings and the
		// question asked here of the user's: "可以，回来补请假条" grants the
		// leave of a student who goes to Chongqing ("老师我下周要去重庆…请三
		// 天假可以吗？"); it does not say that the user goes.
		judgeWith := func(content string) {
			both := c.ev
			both.Content = content
			ov = max(ov, rel.overlap(both))
			c.support = max(c.support, rel.support(both, idf, r.minSupport(rel)))
		}
		if c.asked != nil && !r.ownWords(rel, idf, c) && !(firstPerson(r.question) && tellsOfOwn(*c.asked)) {
			judgeWith(c.asked.Content + "\n" + c.ev.Content)
		}
		// A user's turn the assistant took down next is judged with the
		// assistant's restatement (replies).
		if c.noted != nil && !r.ownWords(rel, idf, c) {
			judgeWith(c.ev.Content + "\n" + c.noted.Content)
		}
		// (Without content terms support says only "of the asked kind",
		// which admits nothing by itself.)
		if ov < st.MinOverlap && (r.minSupport(rel) == 0 || c.support < r.minSupport(rel) || len(rel.evidence) == 0) {
			continue
		}
		if ov < st.MinOverlap {
			ov = c.support // admitted by its support alone
		}
		// Rank by fused score and term overlap together: a direct match of
		// the question's words outranks a hit that only scored on one ranking.
		c.rank = c.score/max(top, 1e-9) + ov
		// A message in the other language (no Chinese in it) ranks by how
		// near it came to the question's meaning read in that language: the
		// fused score sees it through one part of the embedder only.
		if len(r.gloss) > 0 && !hasHan(c.ev.Content) {
			c.rank += st.GlossWeight * r.gloss[c.ev.MessageID] / max(r.glossTop, 1e-9)
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *candidate) int {
		if c := cmp.Compare(b.rank, a.rank); c != 0 {
			return c
		}
		return strings.Compare(a.ev.MessageID, b.ev.MessageID)
	})
	return out[:min(n, len(out))]
}

// questionIDF is relevance.idf over the messages seen, computed again only
// when more were seen (seen only grows).
func (r *run) questionIDF(rel relevance) map[string]float64 {
	if r.idf == nil || r.idfSeen != len(r.seen) {
		r.idf, r.idfSeen = rel.idf(r.seen), len(r.seen)
	}
	return r.idf
}

// ownWords reports whether a candidate bears out the question by its own
// words: their support, without the credit of sharing the question's
// topic, reaches the question's minimum.
func (r *run) ownWords(rel relevance, idf map[string]float64, c *candidate) bool {
	return rel.support(c.ev, idf, 0) >= r.minSupport(rel)
}

// ownSupport is how much of the question a candidate's own words bear
// out, the speakers' names aside (relevance.support without the credit
// of the question's topic or the turn it answers): a named speaker's
// reply does not bear out a question by carrying their name.
func (r *run) ownSupport(rel relevance, c *candidate) float64 {
	idf := r.questionIDF(rel)
	if len(rel.names) == 0 {
		return rel.support(c.ev, idf, 0)
	}
	bare := rel
	bare.evidence = slices.DeleteFunc(slices.Clone(rel.evidence), func(t string) bool {
		return slices.ContainsFunc(rel.names, func(n string) bool { return t == n || t == stem(n) })
	})
	if len(bare.evidence) == 0 {
		return 0
	}
	e := c.ev
	e.SenderName = ""
	return bare.support(e, idf, 0)
}

// namesWhen reports whether a message names a day or time: a word of
// markers.when, a clock time or a date (9am, 3 点, 6 月 6 号, 4/1).
func (r *run) namesWhen(text string) bool {
	lower := strings.ToLower(text)
	return countHits(lower, r.skill.Params.Markers["when"].Words()) > 0 || whenExpr.MatchString(lower)
}

var whenExpr = regexp.MustCompile(zhForms(`\d{1,2}\s*(点|号|日|:\d{2}|am\b|pm\b)|[一二三四五六七八九十两]+\s*[点号]|\d{1,2}/\d{1,2}\b`))

// inScope reports whether a candidate lies inside the run's current window
// and role (hits of earlier, wider rounds stay remembered but out of scope).
func (r *run) inScope(c *candidate) bool {
	e := c.ev
	if r.role != "" && e.Role != r.role {
		return false
	}
	if !r.window.since.IsZero() && e.CreatedAt.Before(r.window.since) {
		return false
	}
	if !r.window.until.IsZero() && !e.CreatedAt.Before(r.window.until) {
		return false
	}
	if !r.window.told.IsZero() && !e.CreatedAt.Before(r.window.told) && tellsOfItsDay(e.Content) {
		return false
	}
	return true
}

// byContextGain orders the contextual BM25 ranking's hits by how much more
// they score with the turn before them than alone (each ranking's scores
// divided by its best): first the turns that the turn before made a hit.
func byContextGain(contextual, plain []queryapi.Evidence) []queryapi.Evidence {
	norm := func(hits []queryapi.Evidence) map[string]float64 {
		out := make(map[string]float64, len(hits))
		top := 0.0
		for _, h := range hits {
			top = max(top, h.Score)
		}
		for _, h := range hits {
			if top > 0 {
				out[h.MessageID] = h.Score / top
			}
		}
		return out
	}
	c, p := norm(contextual), norm(plain)
	out := slices.Clone(contextual)
	slices.SortStableFunc(out, func(a, b queryapi.Evidence) int {
		return cmp.Compare(c[b.MessageID]-p[b.MessageID], c[a.MessageID]-p[a.MessageID])
	})
	return out
}

// hasHan reports whether s has a Chinese character.
func hasHan(s string) bool { return strings.IndexFunc(s, isCJK) >= 0 }
