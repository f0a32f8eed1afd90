package storage

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sqlitevec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	"github.com/blevesearch/bleve/v2"

	emb "github.com/recalld/recalld/internal/embed"
)

// Errors callers branch on. ErrInvalid and ErrConflict (like ErrMemoryLimit)
// come as an *Error, whose Msg a client may see.
var (
	ErrNotFound         = errors.New("storage: not found")
	ErrConflict         = errors.New("storage: message id exists with different content")
	ErrEmbedderMismatch = errors.New("storage: vectors were made by another embedder; run `recalld reindex`")
	ErrInvalid          = errors.New("storage: invalid argument")
	// ErrClosed: the store was used after Close. It comes with ErrFault.
	ErrClosed = errors.New("storage: closed")
	// ErrSemanticUnavailable: semantic search cannot answer now (the
	// embedder fails or no vectors exist for it); lexical search still works.
	ErrSemanticUnavailable = errors.New("storage: semantic search unavailable")
	errIndexNotAvailable   = fmt.Errorf("%w: vector index not built for this embedder; run `recalld reindex`", ErrSemanticUnavailable)
	errLexicalOnly         = fmt.Errorf("%w: no embedder answered when the store opened (lexical-only until a restart reaches it)", ErrSemanticUnavailable)
)

//go:embed migrations/*.sql
var migrationFS embed.FS

var registerVec sync.Once

// Config configures Open.
type Config struct {
	// Dir holds recalld.db and the bleve/ index. It is created if missing.
	Dir string
	// Embedder makes the vectors; nil means the built-in hashing embedder.
	Embedder emb.Embedder
	// AllowEmbedderChange opens a store whose vectors came from another
	// embedder, so that Reindex can rebuild them. Semantic search fails until then.
	AllowEmbedderChange bool
	// IndexBatch is how many outbox entries the indexer takes at once (default 256).
	IndexBatch int
	// CoarseThreshold is the number of vectors of one user above which
	// semantic search first ranks binary codes, then rescores exactly (default 2000).
	CoarseThreshold int
	// NoIndexer leaves the outbox unprocessed until Drain is called; for tests and tools.
	NoIndexer bool
	// ProfileRevisionKeep is how many revisions of each profile are kept,
	// the newest (default 5).
	ProfileRevisionKeep int
	// LexicalOnly opens the store without an embedder, for when the
	// configured one cannot be reached and its dimension is unknown: lexical
	// search works, semantic search returns ErrSemanticUnavailable, and
	// messages wait without vectors until a start with a reachable embedder
	// (the vector catch-up then embeds them). Embedder is ignored.
	LexicalOnly bool
	// EmbedderRetry is how long the embedder's circuit stays open after it
	// failed before one call probes it again (default 30s). Meanwhile
	// indexing is lexical-only and semantic search fails fast.
	EmbedderRetry time.Duration
	// CacheBytes is the writer connection's SQLite page cache (default
	// 128 MiB); the 8 reader connections keep SQLite's default of 2 MB each.
	CacheBytes int64
	// MmapBytes is how much of recalld.db the writer connection maps
	// (default 256 MiB; negative: none). Mapped pages it touched count in
	// the process's RSS, so this and CacheBytes bound what SQLite adds to
	// it; the default was 1 GiB, which alone could fill an RSS budget of
	// 1 GiB once the database outgrew it.
	MmapBytes int64
	// Now is the clock of the job table; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Observer hears embedder calls and indexing progress, for metrics;
	// nil hears nothing.
	Observer Observer
}

// Store is the recalld database: messages in SQLite plus derived indexes.
type Store struct {
	cfg    Config
	log    *slog.Logger
	w      *sql.DB          // the single writer connection
	r      *sql.DB          // readers
	index  bleve.Index      // messages
	eindex bleve.Index      // events
	emb    emb.Embedder     // nil with LexicalOnly
	tw     emb.TermWeighter // nil when the embedder needs no corpus statistics
	proj   *projector
	vecOK  bool // the vector tables match the embedder
	// vecTable: vector tables exist (perhaps of another embedder), so
	// deletions must remove vectors from them.
	vecTable bool
	now      func() time.Time

	embGuard  embedGuard  // the embedder's circuit breaker and health
	vecBehind atomic.Bool // messages or events may wait for vectors (see catchUpVectors)
	closed    atomic.Bool // Close began: every error is a fault (fault)

	wake     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	idxMu    sync.Mutex // one indexing pass at a time
	closeMu  sync.Once
	closeErr error

	// profiles is the lexical index of profiles; profMu serialises bringing
	// it and the profile vectors up to date.
	profiles bleve.Index
	profMu   sync.Mutex

	// queueOnly: SQLite alone, for a Queue (no indexes, no indexer).
	queueOnly bool
	// owner is the identity this store claims jobs under (lease.go).
	owner *leaseOwner
	// lexOffsetMax is maxLexicalOffset (tests lower it).
	lexOffsetMax int
	// phraseBytesMax is maxPhraseBytes (tests lower it).
	phraseBytesMax int
}

// Open opens (creating if needed) the store in cfg.Dir, applies migrations,
// checks the embedder and starts the indexer.
func Open(ctx context.Context, cfg Config) (*Store, error) { return open(ctx, cfg, false) }

// open opens the store; queueOnly opens SQLite alone, for a Queue.
func open(ctx context.Context, cfg Config, queueOnly bool) (*Store, error) {
	if cfg.Dir == "" {
		return nil, errorf(ErrInvalid, "empty data dir")
	}
	if cfg.LexicalOnly {
		cfg.Embedder = nil
	} else if cfg.Embedder == nil {
		cfg.Embedder = emb.NewHashing(0)
	}
	if cfg.IndexBatch <= 0 {
		cfg.IndexBatch = 256
	}
	if cfg.CoarseThreshold <= 0 {
		cfg.CoarseThreshold = 2000
	}
	if cfg.ProfileRevisionKeep <= 0 {
		cfg.ProfileRevisionKeep = 5
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 128 << 20
	}
	if cfg.MmapBytes == 0 {
		cfg.MmapBytes = 256 << 20
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: create dir: %w", err)
	}
	registerVec.Do(sqlitevec.Auto)

	path := filepath.Join(cfg.Dir, "recalld.db")
	dsn := "file:" + path + "?_journal_mode=WAL&_synchronous=FULL&_busy_timeout=10000&_foreign_keys=on&_txlock=immediate"
	// auto_vacuum takes effect on a new database (see vacuum.go).
	w, err := sql.Open("sqlite3", dsn+"&_auto_vacuum=incremental")
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	r := sql.OpenDB(readConnector(dsn+"&mode=ro&_query_only=true", cfg.MmapBytes))
	r.SetMaxOpenConns(8)
	s := &Store{
		cfg:  cfg,
		log:  log.With("component", "storage"),
		w:    w,
		r:    r,
		emb:  cfg.Embedder,
		now:  cfg.Now,
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
		done: make(chan struct{}),

		queueOnly:    queueOnly,
		lexOffsetMax: maxLexicalOffset, phraseBytesMax: maxPhraseBytes,
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.cfg.Observer == nil {
		s.cfg.Observer = nopObserver{}
	}
	if cfg.Embedder != nil {
		s.proj = newProjector(cfg.Embedder.Dim(), coarseBits)
		if tw, ok := cfg.Embedder.(emb.TermWeighter); ok {
			s.tw = tw
		}
	}
	s.embGuard.init(s)
	s.vecBehind.Store(true) // a previous run may have left messages without vectors
	if err := s.init(ctx); err != nil {
		s.owner.close()
		w.Close()
		r.Close()
		for _, idx := range []bleve.Index{s.index, s.eindex} {
			if idx != nil {
				idx.Close()
			}
		}
		if s.profiles != nil {
			s.profiles.Close()
		}
		return nil, err
	}
	if cfg.NoIndexer || queueOnly {
		close(s.done)
	} else {
		go s.runIndexer()
	}
	return s, nil
}

func (s *Store) init(ctx context.Context) error {
	for _, p := range []string{
		fmt.Sprintf("PRAGMA cache_size=%d", -max(s.cfg.CacheBytes>>10, 1)),
		fmt.Sprintf("PRAGMA mmap_size=%d", max(s.cfg.MmapBytes, 0)),
	} {
		if _, err := s.w.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("storage: %s: %w", p, err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		return err
	}
	// Every store, a Queue's too, may claim jobs: it gets its own lease
	// owner, and returns the jobs of owners that died to pending before
	// anything else runs.
	owner, err := newLeaseOwner(s.cfg.Dir, s.log)
	if err != nil {
		return err
	}
	s.owner = owner
	if _, err := s.ReclaimDeadLeases(ctx); err != nil {
		return err
	}
	if _, err := sweepLeases(s.cfg.Dir); err != nil {
		s.log.Warn("lease lock files not swept", "err", err)
	}
	if s.queueOnly {
		return nil
	}
	if s.cfg.LexicalOnly {
		recorded, err := s.metaGet(ctx, s.w, "embedder")
		if err != nil {
			return err
		}
		s.vecTable = recorded != ""
	} else if err := s.checkEmbedder(ctx); err != nil {
		return err
	}
	idx, err := openIndex(filepath.Join(s.cfg.Dir, "bleve"), indexMapping)
	if err != nil {
		return err
	}
	s.index = idx
	if s.eindex, err = openIndex(filepath.Join(s.cfg.Dir, eventIndexDir), eventIndexMapping); err != nil {
		return err
	}
	if err := s.openProfileIndex(ctx); err != nil {
		return err
	}
	if s.vecOK {
		return s.dropNormlessVectors(ctx)
	}
	return nil
}

// migrate applies the embedded migrations in order, one transaction each.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_ms INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("storage: migrations table: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		var n int
		if err := s.w.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(&n); err != nil {
			return fmt.Errorf("storage: migration %s: %w", name, err)
		}
		if n > 0 {
			continue
		}
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			return err
		}
		err = s.update(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_ms) VALUES (?, ?)`, name, time.Now().UnixMilli())
			return err
		})
		if err != nil {
			return fmt.Errorf("storage: migration %s: %w", name, err)
		}
	}
	return nil
}

// checkEmbedder compares the recorded embedder with the configured one and
// creates the vector table for a new store.
func (s *Store) checkEmbedder(ctx context.Context) error {
	name, dim := s.emb.Name(), s.emb.Dim()
	recorded, err := s.metaGet(ctx, s.w, "embedder")
	if err != nil {
		return err
	}
	switch {
	case recorded == "":
		if err := s.resetVectors(ctx); err != nil {
			return err
		}
		s.vecOK, s.vecTable = true, true
	case recorded == name+"/"+strconv.Itoa(dim):
		// Stores made before events had vectors get their table now.
		if _, err := s.w.ExecContext(ctx, s.vecEventsDDL("vec_events", true)); err != nil {
			return fmt.Errorf("storage: event vectors: %w", err)
		}
		if err := s.migrateVecLayout(ctx); err != nil {
			return err
		}
		if err := s.update(ctx, func(tx *sql.Tx) error { return s.ensureBigTables(ctx, tx) }); err != nil {
			return err
		}
		if err := s.migrateLegacyBig(ctx); err != nil {
			return err
		}
		if err := s.promoteHeavy(ctx); err != nil {
			return err
		}
		s.vecOK, s.vecTable = true, true
	case s.cfg.AllowEmbedderChange:
		s.vecTable = true
		s.log.Warn("embedder changed; semantic search is off until reindex", "recorded", recorded, "configured", name)
	default:
		return fmt.Errorf("%w (recorded %s, configured %s/%d)", ErrEmbedderMismatch, recorded, name, dim)
	}
	return nil
}

// resetVectors (re)creates the vector tables of messages and events for the
// configured embedder and forgets every vector and term statistic.
func (s *Store) resetVectors(ctx context.Context) error {
	return s.update(ctx, func(tx *sql.Tx) error {
		stmts := []string{
			`DROP TABLE IF EXISTS vec_messages`,
			s.vecMessagesDDL("vec_messages"),
			`DROP TABLE IF EXISTS vec_profiles`,
			s.vecProfilesDDL("vec_profiles"),
			`UPDATE profiles SET indexed_rev = 0`,
			`DELETE FROM term_df`,
			`DELETE FROM vec_rescore`,
			`UPDATE user_stats SET indexed = 0`,
			`UPDATE messages SET indexed = 0 WHERE indexed != 0`,
			`DROP TABLE IF EXISTS vec_events`,
			s.vecEventsDDL("vec_events", false),
			`DROP TABLE IF EXISTS vec_messages` + bigSuffix,
			`DROP TABLE IF EXISTS vec_events` + bigSuffix,
			`DROP TABLE IF EXISTS vec_messages` + legacyBigSuffix,
			`DROP TABLE IF EXISTS vec_events` + legacyBigSuffix,
			`DELETE FROM vec_big_users`,
			`DELETE FROM event_term_df`,
			`DELETE FROM event_vec_rescore`,
			`DELETE FROM event_stats`,
			`UPDATE events SET indexed = 0 WHERE indexed != 0`,
		}
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("storage: reset vectors: %w", err)
			}
		}
		if err := s.ensureBigTables(ctx, tx); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('embedder', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, s.emb.Name()+"/"+strconv.Itoa(s.emb.Dim())); err != nil {
			return err
		}
		return setNormlessDropped(ctx, tx) // new tables hold no vector without a norm
	})
}

// RecordedEmbedder returns the embedder the store's vectors were made with
// ("" and 0 for a store without vectors). A Queue has it too, so
// that a command can learn the dimension before it opens the store in full.
func (s *Store) RecordedEmbedder(ctx context.Context) (name string, dim int, err error) {
	defer s.fault(&err)
	v, err := s.metaGet(ctx, s.r, "embedder")
	if err != nil || v == "" {
		return "", 0, err
	}
	i := strings.LastIndexByte(v, '/')
	if i < 0 {
		return v, 0, nil
	}
	dim, _ = strconv.Atoi(v[i+1:])
	return v[:i], dim, nil
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) metaGet(ctx context.Context, q queryer, key string) (string, error) {
	var v string
	err := q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("storage: meta %s: %w", key, err)
	}
	return v, nil
}

// update runs fn in one write transaction: commit on nil, rollback otherwise.
func (s *Store) update(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// Embedder returns the embedder the store was opened with (nil with LexicalOnly).
func (s *Store) Embedder() emb.Embedder { return s.emb }

// EmbedderName is the embedder's name, "none" with LexicalOnly.
func (s *Store) EmbedderName() string {
	if s.emb == nil {
		return "none"
	}
	return s.emb.Name()
}

// Status reports the embedder, its health and the indexing backlogs.
func (s *Store) Status(ctx context.Context) (_ IndexStatus, err error) {
	defer s.fault(&err)
	st := IndexStatus{Embedder: s.EmbedderName(), Semantic: SemanticOK}
	if s.emb != nil {
		st.Dim = s.emb.Dim()
	}
	switch {
	case !s.vecOK:
		st.Semantic = SemanticOff
	case !s.embGuard.healthy():
		st.Semantic = SemanticUnavailable
	}
	st.EmbedderError = s.embGuard.lastError()
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM outbox`).Scan(&st.Pending); err != nil {
		return st, fmt.Errorf("storage: status: %w", err)
	}
	if s.vecOK {
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE indexed = 0`).Scan(&st.Unvectored); err != nil {
			return st, fmt.Errorf("storage: status: %w", err)
		}
	}
	return st, nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) (err error) {
	defer s.fault(&err)
	var one int
	if err := s.r.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("storage: ping: %w", err)
	}
	return nil
}

// Close stops the indexer (after the batch in hand) and closes the databases.
// Entries still in the outbox are indexed on the next Open.
func (s *Store) Close() error {
	s.closeMu.Do(func() {
		s.closed.Store(true)
		close(s.stop)
		<-s.done
		var errs []error
		for _, idx := range []bleve.Index{s.index, s.eindex} {
			if idx != nil {
				errs = append(errs, idx.Close())
			}
		}
		if s.profiles != nil {
			errs = append(errs, s.profiles.Close())
		}
		// The lease owner goes last: once its lock is released, other
		// stores may take back the jobs it still holds.
		errs = append(errs, s.r.Close(), s.w.Close(), s.owner.close())
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
