// Package cmdconfig builds, from a config.Config, the long-lived parts that
// recalld's commands share: the embedder (USE-Lite falling back to hashing),
// the store (with serve's degraded start when a remote embedder does not
// answer), the query service, the recall agent and the historian (rebuilt
// when a reload changes its section). The commands in cmd/recalld only
// wire and run what it returns (after pkgsite's cmd/internal/cmdconfig).
package cmdconfig

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/recalld/recalld/agent"
	"github.com/recalld/recalld/internal/bilingual"
	"github.com/recalld/recalld/internal/config"
	"github.com/recalld/recalld/internal/embed"
	"github.com/recalld/recalld/internal/embed/bge"
	"github.com/recalld/recalld/internal/embed/uselite"
	"github.com/recalld/recalld/internal/wordfreq"
	"github.com/recalld/recalld/internal/wordnet"
	"github.com/recalld/recalld/queryapi"
	"github.com/recalld/recalld/skills"
	"github.com/recalld/recalld/storage"
)

// NewEmbedder builds the configured embedder. For kind "use" it loads the
// English sentence model (USE-Lite from cfg.ModelDir, or e5-small-v2 from
// cfg.E5ModelDir for the Latin texts when cfg.EnModel is "e5") and, with a
// positive cfg.ZhWeight, bge-small-zh from cfg.ZhModelDir into one
// composite; when files are missing or corrupt it logs why and does without
// that model (USE-Lite without e5; hashing alone without USE-Lite; the
// English model and hashing, the composite of earlier versions, without
// bge), with the reason as fallback (shown by /healthz). It never fails for
// that.
func NewEmbedder(ctx context.Context, cfg config.EmbedderConfig, log *slog.Logger) (emb embed.Embedder, fallback string, err error) {
	switch cfg.Kind {
	case "openai":
		emb, err = embed.NewOpenAI(ctx, embed.OpenAIConfig{
			BaseURL: cfg.BaseURL, Token: cfg.APIKey, Model: cfg.Model, Dim: cfg.Dim,
			BatchSize: cfg.BatchSize, Timeout: cfg.Timeout.Duration,
		})
		return emb, "", err
	case "use":
		start := time.Now()
		var en embed.SentenceEncoder
		if cfg.EnModel == "e5" {
			enc, err := bge.LoadEncoder(cfg.E5ModelDir, bge.EncoderOptions{})
			if err != nil {
				fallback = fmt.Sprintf("e5-small-v2 not loaded, USE-Lite instead: %v (run scripts/fetch-e5.sh)", err)
				log.Warn("embedder: e5-small-v2 not loaded; the composite uses USE-Lite for English",
					"model_dir", cfg.E5ModelDir, "err", err, "fix", "scripts/fetch-e5.sh (make setup), then recalld reindex")
			} else {
				en = embed.NewLatinOnly(enc)
			}
		}
		if en == nil {
			m, err := uselite.Load(cfg.ModelDir)
			if err != nil {
				fallback = fmt.Sprintf("USE-Lite not loaded, hashing only: %v (run scripts/fetch-models.sh)", err)
				log.Warn("embedder: USE-Lite model not loaded; semantic search uses the hashing embedder alone",
					"model_dir", cfg.ModelDir, "err", err, "fix", "scripts/fetch-models.sh (make setup), then recalld reindex")
				return embed.NewHashing(cfg.Dim), fallback, nil
			}
			en = embed.NewLatinQueries(uselite.NewEncoder(m, uselite.Options{}))
		}
		var zh, ml embed.SentenceEncoder
		if cfg.ZhWeight > 0 {
			zh = optionalPart(cfg.ZhModelDir, "bge-small-zh", "Chinese meaning from hashing only", "scripts/fetch-bge-zh.sh", log, &fallback)
		}
		if cfg.MultilingualWeight > 0 {
			ml = optionalPart(cfg.MultilingualModelDir, "multilingual-e5-small", "no one space for Chinese and English", "scripts/fetch-me5.sh", log, &fallback)
		}
		c, err := embed.NewMultilingualComposite(en, zh, ml, embed.NewHashing(cfg.Dim), cfg.UseWeight, cfg.ZhWeight, cfg.MultilingualWeight)
		if err != nil {
			return nil, "", err
		}
		log.Info("embedder: sentence models loaded", "model_dir", cfg.ModelDir, "name", c.Name(),
			"kernel", uselite.Kernel(), "load_ms", time.Since(start).Milliseconds())
		return c, fallback, nil
	default:
		return embed.NewHashing(cfg.Dim), "", nil
	}
}

// optionalPart loads the BERT model in dir (bge.LoadEncoder) for a part of
// the composite that can be left out, or logs why it could not and adds
// the reason (what goes without it, what fixes it) to *fallback.
func optionalPart(dir, name, without, fix string, log *slog.Logger, fallback *string) embed.SentenceEncoder {
	enc, err := bge.LoadEncoder(dir, bge.EncoderOptions{})
	if err != nil {
		*fallback = strings.TrimPrefix(*fallback+"; "+fmt.Sprintf("%s not loaded, %s: %v (run %s)", name, without, err, fix), "; ")
		log.Warn("embedder: "+name+" not loaded; the composite runs without it",
			"model_dir", dir, "err", err, "fix", fix+" (make setup), then recalld reindex")
		return nil
	}
	return enc
}

// NewQueryService is the user-bound query tools over store as cfg sets them
// up; serve and mcp share it.
func NewQueryService(store *storage.Store, cfg config.Config) *queryapi.Service {
	return queryapi.New(store).SetProfileTopK(cfg.Cognitive.Profile.ProfileTopK)
}

// NewAgent builds the recall agent over store with the embedded recall
// skill, driven by the configured language model if there is one.
func NewAgent(store *storage.Store, log *slog.Logger, cfg config.Config) (*agent.Agent, error) {
	llm := cfg.LLM
	var svc *queryapi.Service
	if store != nil {
		svc = queryapi.New(store)
	}
	skill, err := agent.LoadSkill(skills.FS, skills.Recall)
	if err != nil {
		return nil, err
	}
	opts := []agent.Option{agent.WithLogger(log)}
	if d := Dictionary(cfg.DictionaryDir, log); d != nil {
		opts = append(opts, agent.WithDictionary(d))
	}
	if w := WordNet(cfg.WordNetDir, log); w != nil {
		opts = append(opts, agent.WithWordNet(w))
	}
	if f := WordFreq(cfg.WordFreqDir, log); f != nil {
		opts = append(opts, agent.WithWordFreq(f))
	}
	if llm.Model != "" {
		m, err := agent.NewOpenAIModel(cmp.Or(llm.BaseURL, "https://api.openai.com/v1"), llm.APIKey, llm.Model, nil)
		if err != nil {
			return nil, err
		}
		opts = append(opts, agent.WithLLM(m, llm.Model))
	}
	return agent.New(svc, skill, opts...), nil
}

// dirCache holds what a folder of data gives (a dictionary, WordNet),
// read once per process and folder.
type dirCache[T any] struct {
	mu    sync.Mutex
	byDir map[string]*T
}

// get returns what dir gives, read by load on the first call for dir; a
// failed read (nil) is remembered too, so it is logged once.
func (c *dirCache[T]) get(dir string, load func(dir string) *T) *T {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.byDir[dir]; ok {
		return t
	}
	t := load(dir)
	if c.byDir == nil {
		c.byDir = make(map[string]*T)
	}
	c.byDir[dir] = t
	return t
}

// dirData is one folder of data recall reads (a dictionary, WordNet,
// word counts): how to read it, once per process and folder, and what to
// log.
type dirData[T any] struct {
	cache   dirCache[T]
	name    string // what the log calls it: "dictionary"
	without string // what recall does without it
	fix     string // the script that fetches it
	read    func(dir string) (*T, error)
	size    func(*T) (string, int) // what the log counts: "words", 120000
}

// load is what dir gives (nil, with a warning, when it cannot be read).
func (d *dirData[T]) load(dir string, log *slog.Logger) *T {
	if dir == "" {
		return nil
	}
	return d.cache.get(dir, func(dir string) *T {
		start := time.Now()
		t, err := d.read(dir)
		if err != nil {
			log.Warn(d.name+" not loaded; "+d.without, "dir", dir, "err", err, "fix", d.fix+" (make setup)")
			return nil
		}
		key, n := d.size(t)
		log.Info(d.name+" loaded", "dir", dir, key, n, "load_ms", time.Since(start).Milliseconds())
		// Reading the files leaves several times what is kept behind as
		// garbage (the dictionary 50 MB for 22, WordNet 130 for 5, the
		// word counts 70 for 5): give it back now rather than when the
		// scavenger gets to it.
		debug.FreeOSMemory()
		return t
	})
}

var (
	dictionaries = dirData[bilingual.Dict]{name: "dictionary", without: "recall matches words in their own language only",
		fix: "scripts/fetch-cedict.sh", read: bilingual.Load, size: func(d *bilingual.Dict) (string, int) { return "words", d.Len() }}
	wordnets = dirData[wordnet.WordNet]{name: "wordnet", without: "recall knows kinds of things from its lexicons only",
		fix: "scripts/fetch-wordnet.sh", read: wordnet.Load, size: func(w *wordnet.WordNet) (string, int) { return "synsets", w.Len() }}
	wordfreqs = dirData[wordfreq.Freq]{name: "word frequencies", without: "recall follows no matter's course",
		fix: "scripts/fetch-wordfreq.sh", read: wordfreq.Load, size: func(f *wordfreq.Freq) (string, int) { return "words", f.Len() }}
)

// Dictionary is CC-CEDICT read from dir, once per process (nil, with a
// warning, when it cannot be read: recall then matches words in their own
// language only).
func Dictionary(dir string, log *slog.Logger) *bilingual.Dict { return dictionaries.load(dir, log) }

// WordNet is the nouns of WordNet read from dir, once per process (nil,
// with a warning, when they cannot be read: recall then knows kinds of
// things from the skill's lexicons only).
func WordNet(dir string, log *slog.Logger) *wordnet.WordNet { return wordnets.load(dir, log) }

// WordFreq is how common words are in everyday Chinese and English, read
// from dir once per process (nil, with a warning, when it cannot be read:
// recall then follows no matter's course).
func WordFreq(dir string, log *slog.Logger) *wordfreq.Freq { return wordfreqs.load(dir, log) }

// OpenStore opens the store of cfg with its embedder.
// fallback is why the configured embedder was replaced by hashing, or "".
func OpenStore(ctx context.Context, cfg config.Config, log *slog.Logger, allowChange bool) (store *storage.Store, fallback string, err error) {
	emb, fallback, err := NewEmbedder(ctx, cfg.Embedder, log)
	if err != nil {
		return nil, "", err
	}
	store, err = openStoreWith(ctx, cfg, log, storage.Config{Embedder: emb, AllowEmbedderChange: allowChange})
	return store, fallback, err
}

func openStoreWith(ctx context.Context, cfg config.Config, log *slog.Logger, sc storage.Config) (*storage.Store, error) {
	sc.Dir, sc.Logger, sc.EmbedderRetry = cfg.DataDir, log, cfg.Embedder.Retry.Duration
	sc.ProfileRevisionKeep = cfg.Cognitive.Profile.RevisionKeep
	sc.CacheBytes, sc.MmapBytes = storageMemory(cfg)
	store, err := storage.Open(ctx, sc)
	if errors.Is(err, storage.ErrEmbedderMismatch) {
		return nil, fmt.Errorf("%w (data dir %s, embedder %s)", err, cfg.DataDir, sc.Embedder.Name())
	}
	return store, err
}

// storageMemory is the storage.Config CacheBytes and MmapBytes of cfg.
func storageMemory(cfg config.Config) (cache, mmap int64) {
	mmap = cfg.SQLiteMmapMB << 20
	if mmap == 0 {
		mmap = -1 // storage: none
	}
	return cfg.SQLiteCacheMB << 20, mmap
}

// OpenServeStore is OpenStore for serve, which starts without its embedder
// rather than not at all: when the remote embedder does not answer the
// dimension probe, the dimension the store recorded for the same model is
// used (semantic search resumes once the embedder answers), and without one
// the store opens lexical-only. degraded says what happened, "" when nothing
// did; for a USE-Lite model that did not load it is the fallback to hashing.
// obs hears the store's embedder calls and indexing (the metrics).
func OpenServeStore(ctx context.Context, cfg config.Config, log *slog.Logger, obs storage.Observer) (store *storage.Store, degraded string, err error) {
	emb, fallback, err := NewEmbedder(ctx, cfg.Embedder, log)
	if err == nil || cfg.Embedder.Kind != "openai" || ctx.Err() != nil {
		if err != nil {
			return nil, "", err
		}
		store, err := openStoreWith(ctx, cfg, log, storage.Config{Embedder: emb, Observer: obs})
		return store, fallback, err
	}
	probeErr := err
	q, err := storage.OpenQueue(ctx, storage.QueueConfig{Dir: cfg.DataDir, Logger: log})
	if err != nil {
		return nil, "", err
	}
	name, dim, err := q.RecordedEmbedder(ctx)
	if err := errors.Join(err, q.Close()); err != nil {
		return nil, "", err
	}
	want := "openai:" + cfg.Embedder.Model + ":"
	switch {
	case name != "" && (!strings.HasPrefix(name, want) || dim <= 0):
		return nil, "", fmt.Errorf("%w (data dir %s holds vectors of %s; embedder openai:%s does not answer: %v)",
			storage.ErrEmbedderMismatch, cfg.DataDir, name, cfg.Embedder.Model, probeErr)
	case name != "":
		ec := cfg.Embedder
		ec.Dim = dim
		if emb, _, err = NewEmbedder(ctx, ec, log); err != nil {
			return nil, "", err
		}
		store, err := openStoreWith(ctx, cfg, log, storage.Config{Embedder: emb, Observer: obs})
		degraded = fmt.Sprintf("the embedder did not answer at start (%v); semantic search resumes once it does", probeErr)
		log.Warn("embedder unreachable at start: using the dimension the store recorded; lexical-only until it answers",
			"embedder", name, "err", probeErr)
		return store, degraded, err
	}
	store, err = openStoreWith(ctx, cfg, log, storage.Config{LexicalOnly: true, Observer: obs})
	degraded = fmt.Sprintf("the embedder openai:%s did not answer at start (%v) and its dimension is unknown: lexical-only until a restart reaches it "+
		"(set embedder.dim to let it recover without a restart)", cfg.Embedder.Model, probeErr)
	log.Warn("embedder unreachable at start and no dimension known: serving lexical-only", "model", cfg.Embedder.Model, "err", probeErr)
	return store, degraded, err
}

// OpenQueue opens the job table of cfg's data dir, which must exist.
func OpenQueue(ctx context.Context, cfg config.Config, log *slog.Logger) (*storage.Queue, error) {
	if _, err := os.Stat(filepath.Join(cfg.DataDir, "recalld.db")); err != nil {
		return nil, fmt.Errorf("no recalld database in %s: %w", cfg.DataDir, err)
	}
	return storage.OpenQueue(ctx, storage.QueueConfig{Dir: cfg.DataDir,
		ProfileRevisionKeep: cfg.Cognitive.Profile.RevisionKeep, Logger: log})
}
