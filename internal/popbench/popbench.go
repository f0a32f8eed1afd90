// Package popbench measures recalld on a bot's population: many users, a
// few of them heavy and most with a few dozen messages or less (message
// counts drawn from a Zipf distribution). It builds the population in a
// store, reports the disk it takes per user, the ack and indexing rates,
// the process's resident memory and the p50/p95 latencies of /recall (the
// offline brain) and of each tool for heavy and light users, measured in
// the same run. `recalld bench` and `make bench` run it.
package popbench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/internal/embed"
	"github.com/recalld/recalld/internal/wordfreq"
	"github.com/recalld/recalld/internal/wordnet"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/skills"
	"github.com/recalld/recalld/storage"
)

// Population is who the benchmark's store holds.
type Population struct {
	Users         int    `json:"users"`          // all users, heavy ones included
	HeavyUsers    int    `json:"heavy_users"`    // users with HeavyMessages each
	HeavyMessages int    `json:"heavy_messages"` // messages of each heavy user
	LightMax      int    `json:"light_max"`      // most messages of a light user (Zipf over 1..LightMax)
	Seed          uint64 `json:"seed"`
}

// Default is the population: 10,000 users, three with 100k
// messages, the others with 1-49 (most with one or two).
var Default = Population{Users: 10_000, HeavyUsers: 3, HeavyMessages: 100_000, LightMax: 49, Seed: 1}

// Quick is a population that runs in a minute or two (CI, make bench):
// its heavy user is above the store's exact-search threshold (2,000), so
// the heavy path is the one a large user takes.
var Quick = Population{Users: 300, HeavyUsers: 1, HeavyMessages: 3_000, LightMax: 49, Seed: 1}

// Config is one run.
type Config struct {
	Population
	// Dir holds the store. When it holds one built for the same
	// Population (popbench.json), that store is reused and the ack and
	// indexing rates are those measured when it was built.
	Dir string
	// Queries is how many calls each operation gets for each class of user
	// (default 200).
	Queries int
	// CacheBytes and MmapBytes are the storage settings (sqlite_cache_mb,
	// sqlite_mmap_mb); zero: the store's defaults.
	CacheBytes, MmapBytes int64
	// CPUProfile, when set, is the file of a CPU profile of the measured
	// calls (the untimed warm-up calls and the build excluded).
	CPUProfile string
	// Embedder makes the vectors; nil: the hashing embedder (1024-d), whose
	// speed leaves the store's own costs in view.
	Embedder embed.Embedder
	// Dictionary lets /recall match Chinese and English words, as serve's
	// does (nil: words match in their own language only).
	Dictionary *bilingual.Dict
	// WordNet lets /recall know what a thing is a kind of, as serve's does
	// (nil: only the skill's lexicons know).
	WordNet *wordnet.WordNet
	// WordFreq lets /recall know how common a word is, as serve's does
	// (nil: the user's own messages tell).
	WordFreq *wordfreq.Freq
	Logger   *slog.Logger
}

// Latency is the latency of one operation for one class of user.
type Latency struct {
	Class string        `json:"class"` // heavy | light
	Op    string        `json:"op"`    // recall | messages_list | lexical_search | semantic_search | semantic_search_role | neighbors
	N     int           `json:"n"`
	P50   time.Duration `json:"p50_ns"`
	P95   time.Duration `json:"p95_ns"`
	Mean  time.Duration `json:"mean_ns"`
}

// Report is what a run measured.
type Report struct {
	Population    Population `json:"population"`
	Embedder      string     `json:"embedder"`   // name/dimension
	Dictionary    bool       `json:"dictionary"` // /recall matched Chinese and English words
	WordNet       bool       `json:"wordnet"`    // /recall knew kinds of things from WordNet
	WordFreq      bool       `json:"wordfreq"`   // /recall knew how common words are
	Messages      int        `json:"messages"`
	HeavyMessages int        `json:"heavy_messages_total"`
	LightMessages int        `json:"light_messages_total"`
	Reused        bool       `json:"reused"` // the store came from an earlier run
	// DiskBytes is the data directory's size after indexing, store closed.
	DiskBytes int64 `json:"disk_bytes"`
	// AckRate is messages stored per second of Insert calls (what a bot
	// waits for); IndexRate messages embedded and indexed per second.
	AckRate   float64 `json:"ack_msgs_per_s"`
	IndexRate float64 `json:"index_msgs_per_s"`
	// Memory of the process, from /proc/self/status (Linux; zero
	// elsewhere): the peak while building, the peak and the current RSS
	// while serving (the peak reset before serving), and the current
	// RSS's anonymous (Go heap, SQLite caches) and file-backed (mmapped
	// recalld.db and Bleve segments) parts. PSS counts a page mapped by
	// several connections once.
	BuildPeakRSS int64     `json:"build_peak_rss_bytes"`
	ServePeakRSS int64     `json:"serve_peak_rss_bytes"`
	ServeRSS     int64     `json:"serve_rss_bytes"`
	ServeAnon    int64     `json:"serve_rss_anon_bytes"`
	ServeFile    int64     `json:"serve_rss_file_bytes"`
	ServePSS     int64     `json:"serve_pss_bytes"`
	Latencies    []Latency `json:"latencies"`
}

// DiskPerUser is the data directory's bytes per user.
func (r Report) DiskPerUser() float64 {
	return float64(r.DiskBytes) / float64(max(r.Population.Users, 1))
}

// Latency returns the latency of op for class, and whether it was measured.
func (r Report) Latency(class, op string) (Latency, bool) {
	for _, l := range r.Latencies {
		if l.Class == class && l.Op == op {
			return l, true
		}
	}
	return Latency{}, false
}

// Ops are the measured operations, in report order.
var Ops = []string{"recall", "messages_list", "lexical_search", "semantic_search", "semantic_search_role", "neighbors"}

// built is what popbench.json keeps of a build.
type built struct {
	Population Population `json:"population"`
	Embedder   string     `json:"embedder"`
	Messages   int        `json:"messages"`
	AckRate    float64    `json:"ack_msgs_per_s"`
	IndexRate  float64    `json:"index_msgs_per_s"`
	BuildPeak  int64      `json:"build_peak_rss_bytes"`
}

const builtFile = "popbench.json"

// Run builds the population in cfg.Dir (or reuses it) and measures it.
func Run(ctx context.Context, cfg Config) (Report, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "bench")
	p := cfg.Population
	if p.Users < 1 || p.HeavyUsers < 0 || p.HeavyUsers > p.Users || p.HeavyMessages < 1 || p.LightMax < 1 {
		return Report{}, fmt.Errorf("popbench: bad population %+v", p)
	}
	if cfg.Queries <= 0 {
		cfg.Queries = 200
	}
	counts := userCounts(p)
	rep := Report{Population: p}
	for i, n := range counts {
		rep.Messages += n
		if i < p.HeavyUsers {
			rep.HeavyMessages += n
		} else {
			rep.LightMessages += n
		}
	}
	sc := storage.Config{Dir: cfg.Dir, NoIndexer: true, IndexBatch: 1000, CacheBytes: cfg.CacheBytes, MmapBytes: cfg.MmapBytes, Embedder: cfg.Embedder, Logger: log}
	emb := cfg.Embedder
	if emb == nil {
		emb = embed.NewHashing(0)
	}
	rep.Embedder = fmt.Sprintf("%s/%d", emb.Name(), emb.Dim())
	var b built
	if raw, err := os.ReadFile(filepath.Join(cfg.Dir, builtFile)); err == nil && json.Unmarshal(raw, &b) == nil && b.Population == p &&
		(b.Embedder == rep.Embedder || b.Embedder == "" && cfg.Embedder == nil) {
		rep.Reused = true
		log.Info("reusing the store", "dir", cfg.Dir, "messages", b.Messages)
	} else {
		if b, err = build(ctx, sc, p, rep.Embedder, counts, log); err != nil {
			return Report{}, err
		}
	}
	rep.AckRate, rep.IndexRate, rep.BuildPeakRSS = b.AckRate, b.IndexRate, b.BuildPeak
	var err error
	if rep.DiskBytes, err = dirSize(cfg.Dir); err != nil {
		return Report{}, err
	}
	log.Info("disk", "bytes", rep.DiskBytes, "per_user", int64(rep.DiskPerUser()))

	store, err := storage.Open(ctx, sc)
	if err != nil {
		return Report{}, err
	}
	defer store.Close()
	svc := queryapi.New(store)
	skill, err := agent.LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		return Report{}, err
	}
	ag := agent.New(svc, skill, agent.WithDictionary(cfg.Dictionary), agent.WithWordNet(cfg.WordNet), agent.WithWordFreq(cfg.WordFreq))
	rep.Dictionary = cfg.Dictionary != nil
	rep.WordNet = cfg.WordNet != nil
	rep.WordFreq = cfg.WordFreq != nil
	debug.FreeOSMemory()
	resetPeakRSS()
	r := rand.New(rand.NewPCG(p.Seed, 7))
	for _, class := range []string{"heavy", "light"} {
		var users []int
		switch {
		case class == "heavy" && p.HeavyUsers > 0:
			users = []int{0}
			for u := 1; u < p.HeavyUsers; u++ {
				users = append(users, u)
			}
		case class == "light" && p.Users > p.HeavyUsers:
			for range cfg.Queries {
				users = append(users, p.HeavyUsers+r.IntN(p.Users-p.HeavyUsers))
			}
		}
		if len(users) == 0 {
			continue
		}
		// A few calls of each operation first, untimed: the first calls
		// after opening read the pages from disk and fill the caches.
		for _, op := range Ops {
			if _, err := measure(ctx, svc, ag, op, class, users, counts, max(cfg.Queries/10, 1)); err != nil {
				return Report{}, fmt.Errorf("popbench: %s %s: %w", class, op, err)
			}
		}
		stop := func() error { return nil }
		if cfg.CPUProfile != "" {
			if stop, err = startProfile(profilePath(cfg.CPUProfile, class)); err != nil {
				return Report{}, err
			}
		}
		for _, op := range Ops {
			l, err := measure(ctx, svc, ag, op, class, users, counts, cfg.Queries)
			if err != nil {
				stop()
				return Report{}, fmt.Errorf("popbench: %s %s: %w", class, op, err)
			}
			log.Info("measured", "class", class, "op", op, "p50", l.P50, "p95", l.P95)
			rep.Latencies = append(rep.Latencies, l)
		}
		if err := stop(); err != nil {
			return Report{}, err
		}
	}
	st := procStatus()
	rep.ServePeakRSS, rep.ServeRSS, rep.ServeAnon, rep.ServeFile = st["VmHWM"], st["VmRSS"], st["RssAnon"], st["RssFile"]
	rep.ServePSS = pss()
	return rep, nil
}

// questions and queries are what the users ask: the questions of
// BenchmarkRecall and the tools' queries, in words the messages use.
var (
	questions = []string{
		"你记得我周末喜欢做什么吗？", "What did we decide about project atlas?", "我不吃辣吗", "Do I like coffee?",
		"最近有什么会议安排？", "what did my sister say about paris", "这周的预算设计评审怎么样了",
	}
	queries = []string{"spicy noodles", "project atlas", "火锅 辣", "meeting friday", "周末 电影", "doctor", "咖啡"}
)

// measure calls op n times, for users in turn, and returns its latency.
func measure(ctx context.Context, svc *queryapi.Service, ag *agent.Agent, op, class string, users, counts []int, n int) (Latency, error) {
	d := make([]time.Duration, 0, n)
	for i := range n {
		u := users[i%len(users)]
		msgs := counts[u]
		user := userName(u)
		t, err := svc.Bind(user)
		if err != nil {
			return Latency{}, err
		}
		k := (i * 7919) % msgs
		since := t0.Add(time.Duration(k) * time.Minute).Format(time.RFC3339)
		q := queries[i%len(queries)]
		start := time.Now()
		switch op {
		case "recall":
			_, err = ag.Recall(ctx, user, agent.Request{Question: questions[i%len(questions)],
				Context: agent.RequestContext{Now: t0.Add(time.Duration(msgs) * time.Minute).Format(time.RFC3339)}})
		case "messages_list":
			_, err = t.MessagesList(ctx, queryapi.ListParams{Since: since, PageSize: 50})
		case "lexical_search":
			_, err = t.LexicalSearch(ctx, queryapi.LexicalParams{QueryText: q, PageSize: 20})
		case "semantic_search":
			_, err = t.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: q, TopK: 10})
		case "semantic_search_role":
			_, err = t.SemanticSearch(ctx, queryapi.SemanticParams{QueryText: q, TopK: 10, Filter: queryapi.Filter{Role: "user"}})
		case "neighbors":
			_, err = t.Neighbors(ctx, queryapi.NeighborsParams{MessageID: "m" + strconv.Itoa(k), Before: 5, After: 5})
		default:
			return Latency{}, fmt.Errorf("unknown op %q", op)
		}
		el := time.Since(start)
		if err != nil {
			return Latency{}, err
		}
		d = append(d, el)
	}
	slices.Sort(d)
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return Latency{Class: class, Op: op, N: len(d), P50: d[len(d)/2], P95: d[len(d)*95/100], Mean: sum / time.Duration(len(d))}, nil
}

// userName is user i's id: heavy users first.
func userName(i int) string { return fmt.Sprintf("u%06d", i) }

// userCounts draws each user's message count: HeavyMessages for the
// heavy users, then Zipf over 1..LightMax.
func userCounts(p Population) []int {
	r := rand.New(rand.NewPCG(p.Seed, 1))
	counts := make([]int, p.Users)
	var z *rand.Zipf
	if p.LightMax > 1 {
		z = rand.NewZipf(r, 1.3, 1, uint64(p.LightMax-1))
	}
	for i := range counts {
		switch {
		case i < p.HeavyUsers:
			counts[i] = p.HeavyMessages
		case z == nil:
			counts[i] = 1
		default:
			counts[i] = 1 + int(z.Uint64())
		}
	}
	return counts
}

// build stores and indexes the population in sc.Dir, which it empties
// first, and records it in popbench.json.
func build(ctx context.Context, sc storage.Config, p Population, embedder string, counts []int, log *slog.Logger) (built, error) {
	if err := os.RemoveAll(sc.Dir); err != nil {
		return built{}, err
	}
	store, err := storage.Open(ctx, sc)
	if err != nil {
		return built{}, err
	}
	defer func() {
		if store != nil {
			store.Close()
		}
	}()
	b := built{Population: p, Embedder: embedder}
	r := rand.New(rand.NewPCG(p.Seed, 2))
	gen := newGenerator(r)
	// Users send in turns, a batch of up to 50 messages each (a bot that
	// forwards what it saw since its last call), so that heavy and light
	// users' writes interleave as they would.
	const batch = 50
	sent := make([]int, len(counts))
	var ackTime time.Duration
	lastLog := time.Now()
	for left := true; left; {
		left = false
		for u, n := range counts {
			if sent[u] == n {
				continue
			}
			k := min(batch, n-sent[u])
			msgs := gen.messages(sent[u], k)
			start := time.Now()
			if _, err := store.Insert(ctx, userName(u), msgs); err != nil {
				return built{}, fmt.Errorf("popbench: insert: %w", err)
			}
			ackTime += time.Since(start)
			sent[u] += k
			b.Messages += k
			left = left || sent[u] < n
			if time.Since(lastLog) > 5*time.Second {
				log.Info("storing", "messages", b.Messages, "ack_msgs_per_s", int(float64(b.Messages)/ackTime.Seconds()))
				lastLog = time.Now()
			}
		}
	}
	b.AckRate = float64(b.Messages) / ackTime.Seconds()
	log.Info("stored", "messages", b.Messages, "users", len(counts), "ack_msgs_per_s", int(b.AckRate))
	start := time.Now()
	lastLog = time.Now()
	err = store.Drain(ctx, func(done, left int) {
		if time.Since(lastLog) > 5*time.Second {
			log.Info("indexing", "done", done, "left", left, "msgs_per_s", int(float64(done)/time.Since(start).Seconds()))
			lastLog = time.Now()
		}
	})
	if err != nil {
		return built{}, fmt.Errorf("popbench: index: %w", err)
	}
	b.IndexRate = float64(b.Messages) / time.Since(start).Seconds()
	log.Info("indexed", "messages", b.Messages, "msgs_per_s", int(b.IndexRate))
	err = store.Close()
	store = nil
	if err != nil {
		return built{}, err
	}
	b.BuildPeak = procStatus()["VmHWM"]
	raw, err := json.Marshal(b)
	if err != nil {
		return built{}, err
	}
	return b, os.WriteFile(filepath.Join(sc.Dir, builtFile), raw, 0o644)
}

// dirSize is the bytes of the files under dir, but popbench.json.
func dirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() == builtFile {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		n += info.Size()
		return nil
	})
	return n, err
}

// procStatus returns the memory lines of /proc/self/status, in bytes.
func procStatus() map[string]int64 {
	out := map[string]int64{}
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(raw), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[2] == "kB" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				out[strings.TrimSuffix(f[0], ":")] = kb << 10
			}
		}
	}
	return out
}

// pss is the process's proportional set size (Linux), in bytes.
func pss() int64 {
	raw, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "Pss:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// profilePath is the CPU profile file of a class of users: path with the
// class before its extension (cpu.prof → cpu.heavy.prof).
func profilePath(path, class string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "." + class + ext
}

// startProfile starts a CPU profile into path; stop ends it and closes
// the file.
func startProfile(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// resetPeakRSS resets VmHWM to the current RSS (Linux: clear_refs 5).
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
