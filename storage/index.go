package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/cjk"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Bleve field names.
const (
	fUser    = "user_id"
	fRole    = "role"
	fConv    = "conversation_id"
	fGroup   = "group_id"
	fCreated = "created_ms"
	fTextCJK = "text_cjk" // CJK bigrams plus unigrams; Latin words unstemmed
	fTextEN  = "text_en"  // English, stemmed, stop words removed
	fCtxCJK  = "ctx_cjk"  // the message with the previous turn of its conversation
	fCtxEN   = "ctx_en"
)

const cjkAnalyzer = "cjk_uni"

// fieldAnalyzer names each text field's analyzer. Queries set it explicitly:
// Bleve resolves a query's analyzer by document path, and a field mapped
// under another path's name ("text" → "text_en") falls back to the default.
var fieldAnalyzer = map[string]string{
	fTextCJK: cjkAnalyzer, fTextEN: en.AnalyzerName,
	fCtxCJK: cjkAnalyzer, fCtxEN: en.AnalyzerName,
}

// newMapping returns an index mapping with BM25 scoring and the CJK analyzer
// registered; callers add their document mapping.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = bindex.BM25Scoring
	if err := im.AddCustomTokenFilter("cjk_bigram_uni", map[string]any{
		"type":           cjk.BigramName,
		"output_unigram": true,
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(cjkAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{cjk.WidthName, lowercase.Name, "cjk_bigram_uni"},
	}); err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = cjkAnalyzer
	return im, nil
}

// keywordField is an unstored, exact-match field for term filters.
func keywordField(name string) *mapping.FieldMapping {
	f := bleve.NewKeywordFieldMapping()
	f.Name = name
	f.Analyzer = keyword.Name
	f.Store = false
	f.IncludeInAll = false
	f.DocValues = false
	return f
}

// textField is an unstored analysed field with positions for phrases.
func textField(name, analyzer string) *mapping.FieldMapping {
	f := bleve.NewTextFieldMapping()
	f.Name = name
	f.Analyzer = analyzer
	f.Store = false
	f.IncludeInAll = false
	f.IncludeTermVectors = true // phrase queries need positions
	f.DocValues = false
	return f
}

// numericField is an unstored number for range filters.
func numericField() *mapping.FieldMapping {
	f := bleve.NewNumericFieldMapping()
	f.Store = false
	f.IncludeInAll = false
	return f
}

func indexMapping() (*mapping.IndexMappingImpl, error) {
	im, err := newMapping()
	if err != nil {
		return nil, err
	}
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fUser, keywordField(fUser))
	doc.AddFieldMappingsAt(fRole, keywordField(fRole))
	doc.AddFieldMappingsAt(fConv, keywordField(fConv))
	doc.AddFieldMappingsAt(fGroup, keywordField(fGroup))
	doc.AddFieldMappingsAt(fCreated, numericField())
	doc.AddFieldMappingsAt("text", textField(fTextCJK, cjkAnalyzer), textField(fTextEN, en.AnalyzerName))
	doc.AddFieldMappingsAt("ctx", textField(fCtxCJK, cjkAnalyzer), textField(fCtxEN, en.AnalyzerName))
	im.DefaultMapping = doc
	return im, nil
}

// ErrLocked is a data dir whose lexical index another process holds open.
var ErrLocked = errors.New("storage: data dir in use by another process")

// indexLockWait is how long Open waits for the lexical index's file lock,
// which another process holding the data dir keeps (a running `recalld serve`
// beside `recalld mcp` or `recall`): without a bound, Open would block forever.
const indexLockWait = 3 * time.Second

func openIndex(path string, mk func() (*mapping.IndexMappingImpl, error)) (bleve.Index, error) {
	idx, err := bleve.OpenUsing(path, map[string]any{"bolt_timeout": indexLockWait.String()})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s", ErrLocked, path)
	}
	if err == nil {
		return idx, nil
	}
	if !errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		return nil, fmt.Errorf("storage: open lexical index: %w", err)
	}
	im, err := mk()
	if err != nil {
		return nil, fmt.Errorf("storage: lexical mapping: %w", err)
	}
	// Create it beside and rename it into place, so that a crash while
	// creating leaves no half-written index that every later open refuses.
	tmp := path + ".new"
	if err := os.RemoveAll(tmp); err != nil {
		return nil, fmt.Errorf("storage: create lexical index: %w", err)
	}
	idx, err = bleve.New(tmp, im)
	if err != nil {
		return nil, fmt.Errorf("storage: create lexical index: %w", err)
	}
	if err := idx.Close(); err != nil {
		return nil, fmt.Errorf("storage: create lexical index: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("storage: create lexical index: %w", err)
	}
	if idx, err = bleve.Open(path); err != nil {
		return nil, fmt.Errorf("storage: open lexical index: %w", err)
	}
	return idx, nil
}

// embedText is what the embedder and the lexical index see of a message: the
// speaker's name belongs with the words, since questions name people.
func embedText(sender, content string) string {
	if sender == "" {
		return content
	}
	return sender + ": " + content
}

func (s *Store) kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Store) runIndexer() {
	defer close(s.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	backoff := time.Second
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		n, err := s.indexOnce(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			s.log.Error("index outbox", "err", err, "retry_in", backoff)
			select {
			case <-s.stop:
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, time.Minute)
			continue
		}
		if n == 0 {
			n, err = s.catchUpVectors(ctx)
			if err != nil && ctx.Err() == nil {
				s.log.Error("vector catch-up", "err", err, "retry_in", backoff)
				select {
				case <-s.stop:
					return
				case <-time.After(backoff):
				}
				backoff = min(backoff*2, time.Minute)
				continue
			}
		}
		backoff = time.Second
		if n > 0 {
			select {
			case <-s.stop:
				return
			default:
			}
			continue
		}
		select {
		case <-s.stop:
			return
		case <-s.wake:
		case <-tick.C:
		}
	}
}

// Drain indexes until the outbox is empty or ctx ends, then gives vectors
// to the messages that wait for them. progress, if not nil, is called with
// the number of entries indexed so far and the number left. When the
// embedder is unavailable the lexical index is still complete, and the error
// wraps ErrSemanticUnavailable with the number of messages left without a vector.
func (s *Store) Drain(ctx context.Context, progress func(done, left int)) (err error) {
	defer s.fault(&err)
	done := 0
	for {
		n, err := s.indexOnce(ctx)
		if err != nil {
			return err
		}
		done += n
		if progress != nil {
			var left int
			if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM outbox`).Scan(&left); err != nil {
				return fmt.Errorf("storage: drain: %w", err)
			}
			progress(done, left)
		}
		if n == 0 {
			break
		}
	}
	for {
		n, err := s.catchUpVectors(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
	}
	if !s.vecOK || !s.vecBehind.Load() {
		return nil
	}
	var left int
	if err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM messages WHERE indexed = 0) + (SELECT count(*) FROM events WHERE indexed = 0)`).Scan(&left); err != nil {
		return fmt.Errorf("storage: drain: %w", err)
	}
	if left == 0 {
		return nil
	}
	return fmt.Errorf("%w: %d messages and events wait for vectors (embedder %s: %s)", ErrSemanticUnavailable, left, s.EmbedderName(), s.embGuard.lastError())
}

type outboxEntry struct {
	seq    int64
	op     string
	user   string
	msgSeq int64
}

type pendingDoc struct {
	seq         int64
	user        string
	role        string
	conv, group string
	createdMS   int64
	text        string
	vec         []float32
	terms       []uint64
}

// indexOnce takes one batch from the outbox, writes it to Bleve (which
// persists before Batch returns) and then, in one SQLite transaction, writes
// the vectors and statistics and removes the entries. A crash in between
// repeats the batch; every step is idempotent.
func (s *Store) indexOnce(ctx context.Context) (int, error) {
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	entries, err := s.readOutbox(ctx)
	if err != nil || len(entries) == 0 {
		return 0, err
	}
	docs, err := s.loadDocs(ctx, entries)
	if err != nil {
		return 0, err
	}
	evs, err := s.loadEvents(ctx, entries)
	if err != nil {
		return 0, err
	}
	if s.vecOK && len(docs)+len(evs) > 0 {
		// Messages and events share one embedder call. An embedder that
		// fails must not hold back the lexical index: they are indexed
		// without vectors (indexed stays 0) and the catch-up embeds them
		// once the embedder answers again.
		if err := s.embedPending(ctx, docs, evs); err != nil {
			if !errors.Is(err, ErrSemanticUnavailable) {
				return 0, fmt.Errorf("storage: embed batch: %w", err)
			}
			s.vecBehind.Store(true)
		}
	}
	if err := s.writeLexical(ctx, entries, docs, evs); err != nil {
		return 0, err
	}
	err = s.update(ctx, func(tx *sql.Tx) error {
		if !s.vecOK {
			docs, evs = nil, nil // no vector table for this embedder (or none at all)
		}
		if err := s.indexVectors(ctx, tx, docs); err != nil {
			return err
		}
		if err := s.indexEventVectors(ctx, tx, evs); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM outbox WHERE seq <= ?`, entries[len(entries)-1].seq)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("storage: index batch: %w", err)
	}
	s.cfg.Observer.Indexed(len(entries))
	return len(entries), nil
}

func (s *Store) readOutbox(ctx context.Context) ([]outboxEntry, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT seq, op, user_id, msg_seq FROM outbox ORDER BY seq LIMIT ?`, s.cfg.IndexBatch)
	if err != nil {
		return nil, fmt.Errorf("storage: read outbox: %w", err)
	}
	defer rows.Close()
	var out []outboxEntry
	for rows.Next() {
		var e outboxEntry
		if err := rows.Scan(&e.seq, &e.op, &e.user, &e.msgSeq); err != nil {
			return nil, fmt.Errorf("storage: read outbox: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// loadDocs reads the messages the index entries point at, with the previous
// turn of each conversation for the contextual fields. Deleted ones are skipped.
func (s *Store) loadDocs(ctx context.Context, entries []outboxEntry) ([]pendingDoc, error) {
	var docs []pendingDoc
	for _, e := range entries {
		if e.op != "index" {
			continue
		}
		var (
			d               pendingDoc
			sender, content string
		)
		err := s.r.QueryRowContext(ctx, `SELECT seq, user_id, role, conversation_id, group_id, created_ms, sender_name, content
			FROM messages WHERE seq = ? AND user_id = ?`, e.msgSeq, e.user).
			Scan(&d.seq, &d.user, &d.role, &d.conv, &d.group, &d.createdMS, &sender, &content)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("storage: load message %d: %w", e.msgSeq, err)
		}
		d.text = embedText(sender, content)
		docs = append(docs, d)
	}
	return docs, nil
}

func (s *Store) previousTurn(ctx context.Context, d pendingDoc) (string, error) {
	var sender, content string
	err := s.r.QueryRowContext(ctx, `SELECT sender_name, content FROM messages
		WHERE user_id = ? AND conversation_id = ? AND (created_ms, seq) < (?, ?)
		ORDER BY created_ms DESC, seq DESC LIMIT 1`, d.user, d.conv, d.createdMS, d.seq).Scan(&sender, &content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("storage: previous turn of %d: %w", d.seq, err)
	}
	return embedText(sender, content), nil
}

// writeLexical applies the entries to the two lexical indexes in outbox
// order: message documents to bleve/, event documents to bleve_events/.
func (s *Store) writeLexical(ctx context.Context, entries []outboxEntry, docs []pendingDoc, evs []pendingEvent) error {
	b := s.index.NewBatch()
	eb := s.eindex.NewBatch()
	byseq := make(map[int64]*pendingDoc, len(docs))
	for i := range docs {
		byseq[docs[i].seq] = &docs[i]
	}
	evseq := make(map[int64]*pendingEvent, len(evs))
	for i := range evs {
		evseq[evs[i].seq] = &evs[i]
	}
	for _, e := range entries {
		switch e.op {
		case opEventIndex:
			if d, ok := evseq[e.msgSeq]; ok {
				if err := indexEvent(eb, d); err != nil {
					return err
				}
			}
		case "index":
			d, ok := byseq[e.msgSeq]
			if !ok {
				continue
			}
			prev, err := s.previousTurn(ctx, *d)
			if err != nil {
				return err
			}
			ctxText := d.text
			if prev != "" {
				ctxText = prev + "\n" + d.text
			}
			if err := b.Index(strconv.FormatInt(d.seq, 10), map[string]any{
				fUser: d.user, fRole: d.role, fConv: d.conv, fGroup: d.group,
				fCreated: float64(d.createdMS), "text": d.text, "ctx": ctxText,
			}); err != nil {
				return fmt.Errorf("storage: lexical doc %d: %w", d.seq, err)
			}
		case "delete":
			b.Delete(strconv.FormatInt(e.msgSeq, 10))
		case "delete_user":
			// Apply what is batched so far, then remove the user's documents page by page.
			for _, x := range []struct {
				idx bleve.Index
				b   *bleve.Batch
			}{{s.index, b}, {s.eindex, eb}} {
				if err := x.idx.Batch(x.b); err != nil {
					return fmt.Errorf("storage: lexical batch: %w", err)
				}
				x.b.Reset()
				if err := deleteLexicalUser(ctx, x.idx, e.user); err != nil {
					return err
				}
			}
		default:
			s.log.Warn("unknown outbox op", "op", e.op, "seq", e.seq)
		}
	}
	if b.Size() > 0 {
		if err := s.index.Batch(b); err != nil {
			return fmt.Errorf("storage: lexical batch: %w", err)
		}
	}
	if eb.Size() > 0 {
		if err := s.eindex.Batch(eb); err != nil {
			return fmt.Errorf("storage: lexical event batch: %w", err)
		}
	}
	return nil
}

func deleteLexicalUser(ctx context.Context, index bleve.Index, user string) error {
	for {
		q := bleve.NewTermQuery(user)
		q.SetField(fUser)
		req := bleve.NewSearchRequestOptions(q, 1000, 0, false)
		res, err := index.SearchInContext(ctx, req)
		if err != nil {
			return fmt.Errorf("storage: lexical delete user: %w", err)
		}
		if len(res.Hits) == 0 {
			return nil
		}
		b := index.NewBatch()
		for _, h := range res.Hits {
			b.Delete(h.ID)
		}
		if err := index.Batch(b); err != nil {
			return fmt.Errorf("storage: lexical delete user: %w", err)
		}
	}
}

// indexVectors stores the docs' vectors and term statistics (writeVectors).
func (s *Store) indexVectors(ctx context.Context, tx *sql.Tx, docs []pendingDoc) error {
	rows := make([]vectorRow, 0, len(docs))
	for _, d := range docs {
		rows = append(rows, vectorRow{seq: d.seq, user: d.user, meta: []any{d.role, d.createdMS, d.conv, d.group}, vec: d.vec, terms: d.terms})
	}
	return s.writeVectors(ctx, tx, messageCorpus, rows)
}

// vectorRow is the vector of one message or event, to store in its corpus.
type vectorRow struct {
	seq   int64
	user  string
	meta  []any // values of the corpus's metadata columns
	vec   []float32
	terms []uint64
}

// Values of the indexed column of messages and events.
const (
	// vecPending: no vector yet. The vector catch-up embeds the row once
	// the embedder answers (storage/migrations/0008_unvectored.sql).
	vecPending = 0
	// vecStored: the vector is in the corpus's vec0 and rescore tables and
	// counted in its stats.
	vecStored = 1
	// vecNone: the embedder gave the text a vector without a norm (hasNorm),
	// which no cosine similarity can rank: the row is kept without a vector
	// and never embedded again, until a reindex resets it to vecPending.
	vecNone = 2
)

// writeVectors stores the rows' vectors and term statistics in c, skipping
// rows deleted meanwhile or already indexed; a row whose vector has no norm
// is marked vecNone instead. It runs inside the writer's tx with each
// statement prepared once, and adds the document frequencies of the whole
// batch per distinct term.
func (s *Store) writeVectors(ctx context.Context, tx *sql.Tx, c corpus, rows []vectorRow) error {
	if len(rows) == 0 {
		return nil
	}
	cols := append(append([]string{"rowid", "user_id"}, c.meta...), "embedding", "coarse")
	queries := []string{
		`SELECT indexed FROM ` + c.rows + ` WHERE seq = ? AND user_id = ?`,
		`INSERT INTO ` + c.vec + ` (` + strings.Join(cols, ", ") + `) VALUES (` + placeholders(len(cols)-2) + `, vec_int8(?), vec_bit(?))`,
		`INSERT OR REPLACE INTO ` + c.rescore + ` (seq, scale, v) VALUES (?, ?, ?)`,
		`UPDATE ` + c.rows + ` SET indexed = ? WHERE seq = ?`,
		`INSERT INTO ` + c.vec + bigSuffix + ` (shard, ` + strings.Join(cols, ", ") + `) VALUES (` + placeholders(len(cols)-1) + `, vec_int8(?), vec_bit(?))`,
		`SELECT indexed FROM ` + c.stats + ` WHERE user_id = ?`,
	}
	stmts := make([]*sql.Stmt, 0, len(queries))
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	for _, q := range queries {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
		stmts = append(stmts, st)
	}
	check, small, rescore, mark, bigVec, count := stmts[0], stmts[1], stmts[2], stmts[3], stmts[4], stmts[5]
	big := map[string]bool{}   // user → vectors in c's large-chunk twin (vec_tiers.go)
	stored := map[string]int{} // a user in the twin → vectors stored before this batch
	type userTerm struct {
		user string
		term uint64
	}
	df := map[userTerm]int{}
	perUser := map[string]int{}
	for _, d := range rows {
		var indexed int
		err := check.QueryRowContext(ctx, d.seq, d.user).Scan(&indexed)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && indexed != vecPending) || d.vec == nil {
			continue
		}
		if err != nil {
			return err
		}
		if !hasNorm(d.vec) {
			if _, err := mark.ExecContext(ctx, vecNone, d.seq); err != nil {
				return err
			}
			continue
		}
		isbig, ok := big[d.user]
		if !ok {
			if isbig, err = isBig(ctx, tx, c, d.user); err != nil {
				return err
			}
			big[d.user] = isbig
			if isbig {
				var n int
				if err := count.QueryRowContext(ctx, d.user).Scan(&n); err != nil {
					return fmt.Errorf("%s vector count: %w", c.rows, err)
				}
				stored[d.user] = n
			}
		}
		scale, q := quantize(d.vec)
		vec := small
		args := append(append([]any{d.seq, d.user}, d.meta...), q, s.proj.code(d.vec))
		if isbig {
			vec = bigVec
			args = append([]any{shardOf(stored[d.user] + perUser[d.user])}, args...)
		}
		if _, err := vec.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("%s vector %d: %w", c.rows, d.seq, err)
		}
		if _, err := rescore.ExecContext(ctx, d.seq, scale, q); err != nil {
			return fmt.Errorf("%s vector %d: %w", c.rows, d.seq, err)
		}
		if _, err := mark.ExecContext(ctx, vecStored, d.seq); err != nil {
			return err
		}
		for _, t := range d.terms {
			df[userTerm{d.user, t}]++
		}
		perUser[d.user]++
	}
	if len(df) > 0 {
		up, err := tx.PrepareContext(ctx, `INSERT INTO `+c.df+` (user_id, term, df) VALUES (?, ?, ?)
			ON CONFLICT (user_id, term) DO UPDATE SET df = df + excluded.df`)
		if err != nil {
			return err
		}
		defer up.Close()
		for k, n := range df {
			if _, err := up.ExecContext(ctx, k.user, int64(k.term), n); err != nil {
				return err
			}
		}
	}
	for user, n := range perUser {
		if _, err := tx.ExecContext(ctx, c.addIndexed, user, n); err != nil {
			return err
		}
		if !big[user] {
			if err := s.promote(ctx, tx, c, user); err != nil {
				return err
			}
		}
	}
	return nil
}

// unindexVector removes the vector of row seq of corpus c and its share of
// the statistics; text is what was embedded.
func (s *Store) unindexVector(ctx context.Context, tx *sql.Tx, c corpus, user string, seq int64, text string) error {
	if !s.vecTable {
		return nil
	}
	for _, t := range []string{c.vec, c.vec + bigSuffix} {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE rowid = ?`, seq); err != nil {
			return fmt.Errorf("vector %d: %w", seq, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+c.rescore+` WHERE seq = ?`, seq); err != nil {
		return fmt.Errorf("vector %d: %w", seq, err)
	}
	if s.tw != nil {
		for _, t := range s.tw.Terms(text) {
			if _, err := tx.ExecContext(ctx, `UPDATE `+c.df+` SET df = df - 1 WHERE user_id = ? AND term = ?`, user, int64(t)); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+c.df+` WHERE user_id = ? AND df <= 0`, user); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE `+c.stats+` SET indexed = indexed - 1 WHERE user_id = ?`, user)
	return err
}

// Reindex rebuilds the vector tables and the lexical indexes from the
// messages and events with the configured embedder. progress, if not nil,
// sees (done, left).
func (s *Store) Reindex(ctx context.Context, progress func(done, left int)) (err error) {
	defer s.fault(&err)
	if s.emb == nil {
		return errLexicalOnly
	}
	s.idxMu.Lock()
	if err := s.resetVectors(ctx); err != nil {
		s.idxMu.Unlock()
		return err
	}
	s.vecOK, s.vecTable = true, true
	// Rebuild the lexical indexes from scratch.
	if s.index, err = recreateIndex(s.index, indexMapping); err != nil {
		s.idxMu.Unlock()
		return err
	}
	if s.eindex, err = recreateIndex(s.eindex, eventIndexMapping); err != nil {
		s.idxMu.Unlock()
		return err
	}
	err = s.update(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM outbox`); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO outbox (op, user_id, msg_seq) SELECT 'index', user_id, seq FROM messages ORDER BY seq`); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO outbox (op, user_id, msg_seq) SELECT ?, user_id, seq FROM events ORDER BY seq`, opEventIndex)
		return err
	})
	s.idxMu.Unlock()
	if err != nil {
		return fmt.Errorf("storage: reindex: %w", err)
	}
	return s.Drain(ctx, progress)
}

// recreateIndex closes idx, removes its files and creates it empty.
func recreateIndex(idx bleve.Index, mk func() (*mapping.IndexMappingImpl, error)) (bleve.Index, error) {
	path := idx.Name()
	if err := idx.Close(); err != nil {
		return nil, fmt.Errorf("storage: close lexical index: %w", err)
	}
	if err := os.RemoveAll(path); err != nil {
		return nil, fmt.Errorf("storage: remove lexical index: %w", err)
	}
	return openIndex(path, mk)
}
