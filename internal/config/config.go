// Package config owns recalld's configuration: the Config type, loading it
// (flags over RECALLD_* environment variables over the TOML file over
// DefaultConfig), validation, redaction for the log, and the live reload of
// the reloadable keys (Live: api_keys and [cognitive.historian] /
// [cognitive.query] follow the file on change or SIGHUP). Only its loader
// reads flags and the environment it is given.
package config

import (
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/recalld/recalld/internal/embed"
)

// Config is the effective configuration of one recalld command. Values come
// from, in rising precedence: DefaultConfig, the TOML file (-config or
// RECALLD_CONFIG), RECALLD_* environment variables, command-line flags.
type Config struct {
	DataDir  string `toml:"data_dir"`
	Addr     string `toml:"addr"`
	LogLevel string `toml:"log_level"`
	LogJSON  bool   `toml:"log_json"`

	// BodyLimit is the largest request body accepted, in bytes.
	BodyLimit int64 `toml:"body_limit"`
	// SQLiteCacheMB and SQLiteMmapMB bound SQLite's share of the RSS: the
	// writer connection's page cache and its mmap of recalld.db (0: none).
	SQLiteCacheMB int64 `toml:"sqlite_cache_mb"`
	SQLiteMmapMB  int64 `toml:"sqlite_mmap_mb"`
	// MaxBatch is the most messages one POST /messages may carry.
	MaxBatch       int      `toml:"max_batch"`
	ReadTimeout    Duration `toml:"read_timeout"`
	WriteTimeout   Duration `toml:"write_timeout"`
	RequestTimeout Duration `toml:"request_timeout"`
	// ShutdownTimeout bounds the graceful shutdown, outbox drain included.
	ShutdownTimeout Duration `toml:"shutdown_timeout"`
	// PerUserInflight is how many of one user's requests run at once; the
	// others wait their turn within their deadline (fairness.go). 0: no bound.
	PerUserInflight int `toml:"per_user_inflight"`

	// APIKeys authenticate callers. With none, the server accepts any
	// X-Recall-User and only listens on loopback. They reload without a
	// restart: a removed key is refused from the reload on.
	APIKeys []APIKey `toml:"api_keys"`
	// MetricsKey, when set, is the bearer token GET /metrics needs; without
	// it /metrics is open like /healthz.
	MetricsKey string `toml:"metrics_key"`

	Embedder EmbedderConfig `toml:"embedder"`
	LLM      LLMConfig      `toml:"llm"`

	// DictionaryDir holds CC-CEDICT (scripts/fetch-cedict.sh), with which
	// recall matches a question's words with messages in the other
	// language (猫 ↔ cat). Without it words match in their own language.
	DictionaryDir string `toml:"dictionary_dir"`

	// WordNetDir holds the nouns of WordNet (scripts/fetch-wordnet.sh),
	// from which recall knows what a thing is a kind of (a harmonica is a
	// musical instrument). Without it only the skill's lexicons do.
	WordNetDir string `toml:"wordnet_dir"`

	// WordFreqDir holds how common words are in everyday Chinese and
	// English (scripts/fetch-wordfreq.sh), from which recall tells a word
	// that ties messages to one matter (装修) from one any message may
	// hold (开始). Without it the user's own messages tell.
	WordFreqDir string `toml:"wordfreq_dir"`

	// Cognitive configures the historian and its job queue (cognitive.go).
	Cognitive CognitiveConfig `toml:"cognitive"`

	// Breaker is the circuit breaker around the store (breaker.go).
	Breaker BreakerConfig `toml:"breaker"`

	// Models overrides [llm] for one task (cognitive.go).
	Models ModelsConfig `toml:"models"`
}

// BreakerConfig is [breaker]: after Failures store failures in a row the
// circuit opens and store routes answer 503 store_unavailable at once; after
// OpenTimeout up to HalfOpenRequests requests probe the store, and the
// circuit closes when they succeed.
type BreakerConfig struct {
	Failures         int      `toml:"failures"`
	OpenTimeout      Duration `toml:"open_timeout"`
	HalfOpenRequests int      `toml:"half_open_requests"`
}

// LLMConfig optionally lets a language model drive the recall agent: any
// OpenAI-compatible chat endpoint with tool calling (OpenAI, vLLM,
// llama-server --jinja, Ollama's /v1). Without a model the offline brain
// answers; with one, the offline brain is the fallback.
type LLMConfig struct {
	BaseURL string `toml:"base_url"`
	Model   string `toml:"model"`
	APIKey  string `toml:"api_key"`
}

// APIKey is one bearer key. A key with a UserPrefix only acts for users whose
// id starts with it, so one bot cannot read another bot's users.
type APIKey struct {
	Name       string `toml:"name"`
	Key        string `toml:"key"`
	UserPrefix string `toml:"user_prefix"`
}

// EmbedderConfig chooses the embedder: "use" (the default: Universal
// Sentence Encoder Lite from ModelDir plus the hashing embedder, offline),
// "hash" (hashing alone, built in) or "openai" (any OpenAI-compatible
// endpoint: OpenAI, Ollama, vLLM, TEI). Without readable model files "use"
// falls back to "hash" and says so in the log and /healthz.
type EmbedderConfig struct {
	Kind string `toml:"kind"`
	// ModelDir holds the USE-Lite files (scripts/fetch-models.sh).
	ModelDir string `toml:"model_dir"`
	// ZhWeight is the share of the composite similarity given to
	// bge-small-zh-v1.5, the Chinese sentence model (0 ≤ w < 1; 0 leaves
	// it out). Without readable files in ZhModelDir the composite runs
	// without it and says so (/healthz embedder_fallback).
	ZhWeight   float64 `toml:"zh_weight"`
	ZhModelDir string  `toml:"zh_model_dir"`
	// MultilingualWeight is the share given to multilingual-e5-small
	// (Chinese and English in one space; 0 ≤ w < 1, 0 leaves it out),
	// whose part alone the agent's search in the other language reads.
	// Without readable files in MultilingualModelDir the composite runs
	// without it and says so.
	MultilingualWeight   float64 `toml:"multilingual_weight"`
	MultilingualModelDir string  `toml:"multilingual_model_dir"`
	// UseWeight splits the rest between the English sentence model (this
	// share of it, 0 < w < 1) and the hashing part: it gets
	// (1−ZhWeight)·UseWeight.
	UseWeight float64 `toml:"use_weight"`
	// EnModel is the English sentence model of kind "use": "use-lite"
	// (Universal Sentence Encoder Lite, from ModelDir) or "e5"
	// (e5-small-v2, from E5ModelDir, run on the texts mostly in Latin
	// letters only). Without readable e5 files it falls back to USE-Lite
	// and says so.
	EnModel    string   `toml:"en_model"`
	E5ModelDir string   `toml:"e5_model_dir"`
	Dim        int      `toml:"dim"`
	BaseURL    string   `toml:"base_url"`
	Model      string   `toml:"model"`
	APIKey     string   `toml:"api_key"`
	BatchSize  int      `toml:"batch_size"`
	Timeout    Duration `toml:"timeout"`
	// Retry is how long the embedder rests after it failed before one call
	// probes it again; meanwhile indexing is lexical-only and semantic
	// search answers 503 semantic_unavailable.
	Retry Duration `toml:"retry"`
}

// DefaultConfig is the embedded default: data under ./data, loopback only,
// the offline USE-Lite + hashing embedder.
func DefaultConfig() Config {
	return Config{
		DataDir:         "./data",
		Addr:            "127.0.0.1:8080",
		LogLevel:        "info",
		BodyLimit:       8 << 20,
		SQLiteCacheMB:   128,
		SQLiteMmapMB:    256,
		MaxBatch:        1000,
		ReadTimeout:     Duration{30 * time.Second},
		WriteTimeout:    Duration{60 * time.Second},
		RequestTimeout:  Duration{30 * time.Second},
		ShutdownTimeout: Duration{30 * time.Second},
		PerUserInflight: 4,
		Embedder: EmbedderConfig{Kind: "use", ModelDir: "models/use-lite", UseWeight: embed.DefaultMeaningWeight,
			ZhModelDir: "models/bge-small-zh", ZhWeight: embed.DefaultZhWeight,
			MultilingualModelDir: "models/multilingual-e5-small", MultilingualWeight: embed.DefaultMultilingualWeight, EnModel: "use-lite", E5ModelDir: "models/e5-small-v2",
			Retry: Duration{30 * time.Second}},
		DictionaryDir: "models/cc-cedict",
		WordNetDir:    "models/wordnet",
		WordFreqDir:   "models/wordfreq",
		Cognitive:     defaultCognitive(),
		Breaker:       BreakerConfig{Failures: 5, OpenTimeout: Duration{10 * time.Second}, HalfOpenRequests: 1},
	}
}

// Duration is a time.Duration written as "30s" in TOML.
type Duration struct{ time.Duration }

func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// Set lets a flag.FlagSet set a Duration field (flag.Value).
func (d *Duration) Set(s string) error { return d.UnmarshalText([]byte(s)) }

// Load builds the Config of command name from args and the environment.
// It returns the remaining positional arguments.
// extra, if given, adds the command's own flags.
func Load(name string, args []string, getenv func(string) string, stderr io.Writer, extra ...func(*flag.FlagSet)) (Config, []string, error) {
	cfg := DefaultConfig()
	// The file comes first so that env and flags override it.
	path := Path(args, getenv)
	if path != "" {
		md, err := toml.DecodeFile(path, &cfg)
		if err != nil {
			return cfg, nil, fmt.Errorf("config %s: %w", path, err)
		}
		if un := md.Undecoded(); len(un) > 0 {
			return cfg, nil, fmt.Errorf("config %s: unknown key %q", path, un[0].String())
		}
	}
	if err := applyEnv(&cfg, getenv); err != nil {
		return cfg, nil, err
	}

	fs := flag.NewFlagSet("recalld "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.String("config", path, "TOML config file (env RECALLD_CONFIG)")
	fs.StringVar(&cfg.DataDir, "data", cfg.DataDir, "data directory (env RECALLD_DATA_DIR)")
	fs.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error (env RECALLD_LOG_LEVEL)")
	fs.BoolVar(&cfg.LogJSON, "log-json", cfg.LogJSON, "log JSON lines instead of text (env RECALLD_LOG_JSON)")
	fs.StringVar(&cfg.Embedder.Kind, "embedder", cfg.Embedder.Kind, "use, hash or openai (env RECALLD_EMBEDDER)")
	fs.StringVar(&cfg.Embedder.ModelDir, "embedder-model-dir", cfg.Embedder.ModelDir, "USE-Lite model files for embedder use (env RECALLD_EMBEDDER_MODEL_DIR)")
	fs.StringVar(&cfg.Embedder.ZhModelDir, "embedder-zh-model-dir", cfg.Embedder.ZhModelDir, "bge-small-zh model files for embedder use (env RECALLD_EMBEDDER_ZH_MODEL_DIR)")
	fs.Float64Var(&cfg.Embedder.UseWeight, "embedder-use-weight", cfg.Embedder.UseWeight, "USE-Lite's share of the similarity bge-small-zh leaves (the rest: hashing) (env RECALLD_EMBEDDER_USE_WEIGHT)")
	fs.StringVar(&cfg.Embedder.EnModel, "embedder-en-model", cfg.Embedder.EnModel, "English sentence model for embedder use: use-lite or e5 (env RECALLD_EMBEDDER_EN_MODEL)")
	fs.StringVar(&cfg.Embedder.E5ModelDir, "embedder-e5-model-dir", cfg.Embedder.E5ModelDir, "e5-small-v2 model files for -embedder-en-model e5 (env RECALLD_EMBEDDER_E5_MODEL_DIR)")
	fs.Float64Var(&cfg.Embedder.ZhWeight, "embedder-zh-weight", cfg.Embedder.ZhWeight, "share of the similarity from bge-small-zh, 0 = off (env RECALLD_EMBEDDER_ZH_WEIGHT)")
	fs.StringVar(&cfg.Embedder.MultilingualModelDir, "embedder-multilingual-model-dir", cfg.Embedder.MultilingualModelDir, "multilingual-e5-small model file for embedder use (env RECALLD_EMBEDDER_MULTILINGUAL_MODEL_DIR)")
	fs.Float64Var(&cfg.Embedder.MultilingualWeight, "embedder-multilingual-weight", cfg.Embedder.MultilingualWeight, "share of the similarity from multilingual-e5-small, 0 = off (env RECALLD_EMBEDDER_MULTILINGUAL_WEIGHT)")
	fs.StringVar(&cfg.DictionaryDir, "dictionary-dir", cfg.DictionaryDir, "CC-CEDICT files, for matching Chinese and English words (env RECALLD_DICTIONARY_DIR)")
	fs.StringVar(&cfg.WordNetDir, "wordnet-dir", cfg.WordNetDir, "WordNet noun files, for knowing what a thing is a kind of (env RECALLD_WORDNET_DIR)")
	fs.StringVar(&cfg.WordFreqDir, "wordfreq-dir", cfg.WordFreqDir, "word frequency lists, for knowing how common a word is (env RECALLD_WORDFREQ_DIR)")
	fs.StringVar(&cfg.Embedder.BaseURL, "embedder-url", cfg.Embedder.BaseURL, "OpenAI-compatible API root (env RECALLD_EMBEDDER_URL)")
	fs.StringVar(&cfg.Embedder.Model, "embedder-model", cfg.Embedder.Model, "embedding model (env RECALLD_EMBEDDER_MODEL)")
	fs.IntVar(&cfg.Embedder.Dim, "embedder-dim", cfg.Embedder.Dim, "vector dimension; 0 = default or probe (env RECALLD_EMBEDDER_DIM)")
	fs.StringVar(&cfg.LLM.BaseURL, "llm-url", cfg.LLM.BaseURL, "OpenAI-compatible chat API root for the recall agent (env RECALLD_LLM_URL)")
	fs.StringVar(&cfg.LLM.Model, "llm-model", cfg.LLM.Model, "chat model; empty = offline brain only (env RECALLD_LLM_MODEL)")
	if name == "serve" {
		fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address (env RECALLD_ADDR)")
		fs.Int64Var(&cfg.BodyLimit, "body-limit", cfg.BodyLimit, "largest request body in bytes (env RECALLD_BODY_LIMIT)")
		fs.Var(&cfg.ShutdownTimeout, "shutdown-timeout", "graceful shutdown bound (env RECALLD_SHUTDOWN_TIMEOUT)")
	}
	for _, f := range extra {
		f(fs)
	}
	if err := fs.Parse(args); err != nil {
		return cfg, nil, err
	}
	return cfg, fs.Args(), cfg.Validate()
}

// Path is the TOML file of args (-config) or RECALLD_CONFIG, "" for none.
// It is found before the flags are parsed, since they override the file.
func Path(args []string, getenv func(string) string) string {
	path := getenv("RECALLD_CONFIG")
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "config="); ok && strings.HasPrefix(a, "-") {
			path = v
		} else if (a == "-config" || a == "--config") && i+1 < len(args) {
			path = args[i+1]
		}
	}
	return path
}

// applyEnv overrides cfg with the RECALLD_* variables that are set.
func applyEnv(cfg *Config, getenv func(string) string) error {
	str := func(key string, dst *string) {
		if v := getenv(key); v != "" {
			*dst = v
		}
	}
	var errs []error
	num := func(key string, set func(int64)) {
		if v := getenv(key); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %q is not a number", key, v))
				return
			}
			set(n)
		}
	}
	flt := func(key string, dst *float64) {
		if v := getenv(key); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %q is not a number", key, v))
				return
			}
			*dst = f
		}
	}
	dur := func(key string, dst *Duration) {
		if v := getenv(key); v != "" {
			if err := dst.UnmarshalText([]byte(v)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
		}
	}
	str("RECALLD_DATA_DIR", &cfg.DataDir)
	str("RECALLD_ADDR", &cfg.Addr)
	str("RECALLD_LOG_LEVEL", &cfg.LogLevel)
	if v := getenv("RECALLD_LOG_JSON"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("RECALLD_LOG_JSON: %q is not a boolean", v))
		}
		cfg.LogJSON = b
	}
	num("RECALLD_BODY_LIMIT", func(n int64) { cfg.BodyLimit = n })
	num("RECALLD_SQLITE_CACHE_MB", func(n int64) { cfg.SQLiteCacheMB = n })
	num("RECALLD_SQLITE_MMAP_MB", func(n int64) { cfg.SQLiteMmapMB = n })
	num("RECALLD_MAX_BATCH", func(n int64) { cfg.MaxBatch = int(n) })
	num("RECALLD_PER_USER_INFLIGHT", func(n int64) { cfg.PerUserInflight = int(n) })
	dur("RECALLD_SHUTDOWN_TIMEOUT", &cfg.ShutdownTimeout)
	dur("RECALLD_REQUEST_TIMEOUT", &cfg.RequestTimeout)
	// RECALLD_API_KEYS is a comma-separated list of key or key=user_prefix.
	if v := getenv("RECALLD_METRICS_KEY"); v != "" {
		cfg.MetricsKey = v
	}
	if v := getenv("RECALLD_API_KEYS"); v != "" {
		cfg.APIKeys = nil
		for i, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			key, prefix, _ := strings.Cut(item, "=")
			cfg.APIKeys = append(cfg.APIKeys, APIKey{Name: fmt.Sprintf("env-%d", i+1), Key: key, UserPrefix: prefix})
		}
	}
	str("RECALLD_EMBEDDER", &cfg.Embedder.Kind)
	str("RECALLD_EMBEDDER_MODEL_DIR", &cfg.Embedder.ModelDir)
	str("RECALLD_EMBEDDER_ZH_MODEL_DIR", &cfg.Embedder.ZhModelDir)
	flt("RECALLD_EMBEDDER_USE_WEIGHT", &cfg.Embedder.UseWeight)
	flt("RECALLD_EMBEDDER_ZH_WEIGHT", &cfg.Embedder.ZhWeight)
	str("RECALLD_EMBEDDER_MULTILINGUAL_MODEL_DIR", &cfg.Embedder.MultilingualModelDir)
	flt("RECALLD_EMBEDDER_MULTILINGUAL_WEIGHT", &cfg.Embedder.MultilingualWeight)
	str("RECALLD_EMBEDDER_EN_MODEL", &cfg.Embedder.EnModel)
	str("RECALLD_EMBEDDER_E5_MODEL_DIR", &cfg.Embedder.E5ModelDir)
	str("RECALLD_DICTIONARY_DIR", &cfg.DictionaryDir)
	str("RECALLD_WORDNET_DIR", &cfg.WordNetDir)
	str("RECALLD_WORDFREQ_DIR", &cfg.WordFreqDir)
	str("RECALLD_EMBEDDER_URL", &cfg.Embedder.BaseURL)
	str("RECALLD_EMBEDDER_MODEL", &cfg.Embedder.Model)
	str("RECALLD_EMBEDDER_API_KEY", &cfg.Embedder.APIKey)
	num("RECALLD_EMBEDDER_DIM", func(n int64) { cfg.Embedder.Dim = int(n) })
	dur("RECALLD_EMBEDDER_RETRY", &cfg.Embedder.Retry)
	num("RECALLD_BREAKER_FAILURES", func(n int64) { cfg.Breaker.Failures = int(n) })
	dur("RECALLD_BREAKER_OPEN_TIMEOUT", &cfg.Breaker.OpenTimeout)
	str("RECALLD_LLM_URL", &cfg.LLM.BaseURL)
	str("RECALLD_LLM_MODEL", &cfg.LLM.Model)
	str("RECALLD_LLM_API_KEY", &cfg.LLM.APIKey)
	errs = append(errs, cfg.Cognitive.applyEnv(getenv), cfg.Models.applyEnv(getenv))
	return errors.Join(errs...)
}

func (c Config) Validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("data_dir is empty"))
	}
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("addr %q: %w", c.Addr, err))
	}
	if c.BodyLimit < 1024 {
		errs = append(errs, fmt.Errorf("body_limit %d is below 1024 bytes", c.BodyLimit))
	}
	if c.SQLiteCacheMB < 1 || c.SQLiteCacheMB > 1<<16 {
		errs = append(errs, fmt.Errorf("sqlite_cache_mb %d must be in 1..65536", c.SQLiteCacheMB))
	}
	if c.SQLiteMmapMB < 0 || c.SQLiteMmapMB > 1<<16 {
		errs = append(errs, fmt.Errorf("sqlite_mmap_mb %d must be in 0..65536", c.SQLiteMmapMB))
	}
	if c.MaxBatch < 1 {
		errs = append(errs, fmt.Errorf("max_batch %d must be positive", c.MaxBatch))
	}
	if c.PerUserInflight < 0 {
		errs = append(errs, fmt.Errorf("per_user_inflight %d must not be negative (0: no bound)", c.PerUserInflight))
	}
	if _, err := parseLevel(c.LogLevel); err != nil {
		errs = append(errs, err)
	}
	seen := map[string]bool{}
	for i, k := range c.APIKeys {
		if len(k.Key) < 16 {
			errs = append(errs, fmt.Errorf("api_keys[%d] (%s): key must be at least 16 characters", i, k.Name))
		}
		if seen[k.Key] {
			errs = append(errs, fmt.Errorf("api_keys[%d] (%s): duplicate key", i, k.Name))
		}
		seen[k.Key] = true
	}
	errs = append(errs, c.Cognitive.validate(), c.validateHistorian())
	if c.Breaker.Failures < 1 || c.Breaker.HalfOpenRequests < 1 || c.Breaker.OpenTimeout.Duration <= 0 {
		errs = append(errs, errors.New("breaker: failures and half_open_requests must be at least 1, open_timeout positive"))
	}
	if c.Embedder.Retry.Duration <= 0 {
		errs = append(errs, fmt.Errorf("embedder.retry %s must be positive", c.Embedder.Retry))
	}
	switch c.Embedder.Kind {
	case "use", "hash":
		if c.Embedder.Kind == "use" && !(c.Embedder.UseWeight > 0 && c.Embedder.UseWeight < 1) {
			errs = append(errs, fmt.Errorf("embedder.use_weight %v: want a value between 0 and 1", c.Embedder.UseWeight))
		}
		if c.Embedder.Kind == "use" && c.Embedder.EnModel != "use-lite" && c.Embedder.EnModel != "e5" {
			errs = append(errs, fmt.Errorf("embedder.en_model %q: want use-lite or e5", c.Embedder.EnModel))
		}
		if c.Embedder.Kind == "use" && !(c.Embedder.ZhWeight >= 0 && c.Embedder.ZhWeight < 1) {
			errs = append(errs, fmt.Errorf("embedder.zh_weight %v: want 0 (off) or a value below 1", c.Embedder.ZhWeight))
		}
		if c.Embedder.Kind == "use" && !(c.Embedder.MultilingualWeight >= 0 && c.Embedder.ZhWeight+c.Embedder.MultilingualWeight < 1) {
			errs = append(errs, fmt.Errorf("embedder.multilingual_weight %v: want 0 (off) or a value that leaves zh_weight and it below 1", c.Embedder.MultilingualWeight))
		}
		if c.Embedder.Dim != 0 && (c.Embedder.Dim < 64 || c.Embedder.Dim > 8192) {
			errs = append(errs, fmt.Errorf("embedder.dim %d: the hashing embedder takes 64..8192", c.Embedder.Dim))
		}
	case "openai":
		if c.Embedder.Model == "" {
			errs = append(errs, errors.New("embedder.model is required for kind openai"))
		}
	default:
		errs = append(errs, fmt.Errorf("embedder.kind %q: want use, hash or openai", c.Embedder.Kind))
	}
	return errors.Join(errs...)
}

// CheckListenAuth refuses to serve addr without keys unless addr is
// loopback, at start and on a reload that removes the last key.
func CheckListenAuth(keys []APIKey, addr string) error {
	if len(keys) == 0 && !loopbackOnly(addr) {
		return fmt.Errorf("refusing to listen on %s without api_keys: configure keys or bind to loopback", addr)
	}
	return nil
}

// loopbackOnly reports whether addr binds to loopback only.
func loopbackOnly(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func parseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return l, fmt.Errorf("log_level %q: want debug, info, warn or error", s)
	}
	return l, nil
}

func NewLogger(cfg Config, w io.Writer) *slog.Logger {
	level, _ := parseLevel(cfg.LogLevel)
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogJSON {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// redacted returns the config as it may be logged: no secrets.
func (c Config) Redacted() Config {
	out := c
	out.APIKeys = make([]APIKey, len(c.APIKeys))
	for i, k := range c.APIKeys {
		out.APIKeys[i] = APIKey{Name: k.Name, Key: "***", UserPrefix: k.UserPrefix}
	}
	if out.Embedder.APIKey != "" {
		out.Embedder.APIKey = "***"
	}
	if out.MetricsKey != "" {
		out.MetricsKey = "***"
	}
	if out.LLM.APIKey != "" {
		out.LLM.APIKey = "***"
	}
	if out.Models.Historian.APIKey != "" {
		out.Models.Historian.APIKey = "***"
	}
	return out
}

// FindKey compares token with every key in constant time.
func (c Config) FindKey(token string) (APIKey, bool) {
	var found APIKey
	ok := false
	for _, k := range c.APIKeys {
		if subtle.ConstantTimeCompare([]byte(token), []byte(k.Key)) == 1 {
			found, ok = k, true
		}
	}
	return found, ok
}
