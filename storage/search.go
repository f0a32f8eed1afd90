package storage

import (
	"context"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	sqlitevec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	emb "github.com/recalld/recalld/storage/embed"
)

// LexicalQuery is a BM25 search over one user's messages.
type LexicalQuery struct {
	// Text is searched as words and "quoted phrases"; it is never parsed as
	// query syntax, so field names, wildcards and operators are plain text.
	Text string
	// Any matches messages with any of the words; by default all words must
	// occur (phrases are always required).
	Any bool
	// Contextual also matches words of the turn before each message, which
	// finds answers whose question holds the words.
	Contextual bool
	Filter     Filter
	Size       int
	Cursor     string
}

// LexicalSearch ranks user's messages for q by BM25, best first, and returns
// the cursor of the next page: "" at the end of the ranking, and at the
// paging bound (the first 10,000 hits and the page that starts there),
// since a cursor past it would be refused.
func (s *Store) LexicalSearch(ctx context.Context, user string, q LexicalQuery) ([]Hit, string, error) {
	if s.cfg.QueueOnly {
		return nil, "", errQueueOnly
	}
	if q.Size <= 0 {
		return nil, "", fmt.Errorf("%w: page size must be positive", ErrInvalid)
	}
	words, phrases := splitQuery(q.Text)
	if strings.TrimSpace(words) == "" && len(phrases) == 0 {
		return nil, "", fmt.Errorf("%w: empty query", ErrInvalid)
	}
	textFields := [][2]string{{fTextCJK, fTextEN}}
	if q.Contextual {
		textFields = append(textFields, [2]string{fCtxCJK, fCtxEN})
	}
	var must []query.Query
	var should []query.Query
	for _, p := range phrases {
		var alts []query.Query
		for _, fs := range textFields {
			for _, f := range fs {
				mp := bleve.NewMatchPhraseQuery(p)
				mp.SetField(f)
				mp.Analyzer = fieldAnalyzer[f]
				alts = append(alts, mp)
			}
		}
		must = append(must, bleve.NewDisjunctionQuery(alts...))
	}
	if strings.TrimSpace(words) != "" {
		var alts []query.Query
		for _, fs := range textFields {
			for _, f := range fs {
				text := words
				if q.Any && (f == fTextEN || f == fCtxEN) {
					// The English analyzer cuts CJK text into single
					// characters, which the CJK field already matches (with
					// its bigrams); asking both for any of them doubles
					// the commonest postings a mixed query reads.
					if text = withoutCJK(words); strings.TrimSpace(text) == "" {
						continue
					}
				}
				m := bleve.NewMatchQuery(text)
				m.SetField(f)
				m.Analyzer = fieldAnalyzer[f]
				if !q.Any {
					m.SetOperator(query.MatchQueryOperatorAnd)
				}
				alts = append(alts, m)
			}
		}
		if q.Any && len(phrases) > 0 {
			should = append(should, alts...)
		} else {
			must = append(must, bleve.NewDisjunctionQuery(alts...))
		}
	}
	userQ := bleve.NewTermQuery(user)
	userQ.SetField(fUser)
	filters := []query.Query{userQ}
	filters = append(filters, lexicalFilters(q.Filter)...)
	bq := bleve.NewBooleanQuery()
	bq.AddMust(append(filters, must...)...)
	if len(should) > 0 {
		bq.AddShould(should...)
	}
	// Bleve cannot search_after a _score sort (its sort key is the literal
	// "_score"), so the cursor carries an offset into the ranking, which is
	// total and deterministic: score first, then the document id.
	offset := 0
	if q.Cursor != "" {
		var err error
		if offset, err = decodeLexCursor(q.Cursor, s.lexOffsetMax); err != nil {
			return nil, "", err
		}
	}
	req := bleve.NewSearchRequestOptions(bq, q.Size+1, offset, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := s.index.SearchInContext(ctx, req)
	if err != nil {
		return nil, "", fmt.Errorf("storage: lexical search: %w", err)
	}
	more := len(res.Hits) > q.Size
	if more {
		res.Hits = res.Hits[:q.Size]
	}
	seqs := make([]int64, 0, len(res.Hits))
	for _, h := range res.Hits {
		seq, err := strconv.ParseInt(h.ID, 10, 64)
		if err != nil {
			return nil, "", fmt.Errorf("storage: lexical doc id %q: %w", h.ID, err)
		}
		seqs = append(seqs, seq)
	}
	msgs, err := s.hydrate(ctx, user, seqs)
	if err != nil {
		return nil, "", err
	}
	hits := make([]Hit, 0, len(seqs))
	for i, seq := range seqs {
		if m, ok := msgs[seq]; ok {
			hits = append(hits, Hit{Message: m, Score: res.Hits[i].Score})
		}
	}
	next := ""
	if more && len(res.Hits) > 0 && offset+q.Size <= s.lexOffsetMax {
		next = encodeLexCursor(offset + q.Size)
	}
	return hits, next, nil
}

func lexicalFilters(f Filter) []query.Query {
	var out []query.Query
	term := func(field, v string) {
		t := bleve.NewTermQuery(v)
		t.SetField(field)
		out = append(out, t)
	}
	if f.Role != "" {
		term(fRole, f.Role)
	}
	if f.ConversationID != "" {
		term(fConv, f.ConversationID)
	}
	if f.GroupID != "" {
		term(fGroup, f.GroupID)
	}
	if !f.Since.IsZero() || !f.Until.IsZero() {
		var lo, hi *float64
		if !f.Since.IsZero() {
			v := float64(f.Since.UnixMilli())
			lo = &v
		}
		if !f.Until.IsZero() {
			v := float64(f.Until.UnixMilli())
			hi = &v
		}
		incl, excl := true, false
		r := bleve.NewNumericRangeInclusiveQuery(lo, hi, &incl, &excl)
		r.SetField(fCreated)
		out = append(out, r)
	}
	return out
}

// splitQuery separates "quoted phrases" (ASCII or CJK quotes, balanced) from
// the other words. An unbalanced quote is treated as a space.
func splitQuery(text string) (words string, phrases []string) {
	var w strings.Builder
	rs := []rune(text)
	closing := map[rune]rune{'"': '"', '“': '”', '「': '」', '『': '』'}
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		end, ok := closing[c]
		if !ok {
			w.WriteRune(c)
			continue
		}
		j := i + 1
		for j < len(rs) && rs[j] != end {
			j++
		}
		if j >= len(rs) {
			w.WriteRune(' ')
			continue
		}
		if p := strings.TrimSpace(string(rs[i+1 : j])); p != "" {
			phrases = append(phrases, p)
		}
		w.WriteRune(' ')
		i = j
	}
	return w.String(), phrases
}

// maxLexicalOffset bounds how deep a caller can page into one ranking
// (Bleve collects offset+size hits for every page). No cursor past it is
// handed out.
const maxLexicalOffset = 10000

func encodeLexCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("x2:" + strconv.Itoa(offset)))
}

func decodeLexCursor(c string, maxOffset int) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), "x2:") {
		return 0, fmt.Errorf("%w: bad cursor", ErrInvalid)
	}
	n, err := strconv.Atoi(string(b[3:]))
	if err != nil || n < 0 || n > maxOffset {
		return 0, fmt.Errorf("%w: bad cursor", ErrInvalid)
	}
	return n, nil
}

// SemanticQuery is a nearest-neighbour search over one user's vectors.
type SemanticQuery struct {
	Text     string    // embedded with the store's embedder, unless Vector is set
	Vector   []float32 // a ready query vector of the embedder's dimension
	Filter   Filter
	TopK     int
	MinScore float64 // cosine similarity floor
}

// SemanticSearch returns up to q.TopK of user's messages closest to the query
// by cosine similarity (the score), best first.
func (s *Store) SemanticSearch(ctx context.Context, user string, q SemanticQuery) ([]Hit, error) {
	switch {
	case s.emb == nil:
		return nil, errLexicalOnly
	case !s.vecOK:
		return nil, errIndexNotAvailable
	}
	if q.TopK <= 0 {
		return nil, fmt.Errorf("%w: top_k must be positive", ErrInvalid)
	}
	vec, err := s.queryVector(ctx, messageCorpus, user, q)
	if err != nil {
		return nil, err
	}
	if isZero(vec) {
		return nil, nil
	}
	var indexed int
	if err := s.r.QueryRowContext(ctx, `SELECT indexed FROM user_stats WHERE user_id = ?`, user).Scan(&indexed); err != nil {
		return nil, nil // no vectors for this user
	}
	blob, err := sqlitevec.SerializeFloat32(vec)
	if err != nil {
		return nil, err
	}
	where := []string{"user_id = ?"}
	args := []any{user}
	coarse := indexed > s.cfg.CoarseThreshold
	if !coarse {
		where, args = filterSQL(q.Filter, where, args)
		scored, err := s.knn(ctx, messageCorpus, `embedding MATCH ?`, blob, q.TopK, where, args)
		if err != nil {
			return nil, err
		}
		return s.semanticHits(ctx, user, q, scored, "")
	}
	// On the binary-code path a role filter costs more inside vec0 (a
	// metadata check per row, and vec0's KNN cost grows with k: it selects
	// each chunk's best k by repeated scans) than more candidates filtered
	// here. So a role-filtered search rescores half again as many candidates
	// without the role and picks the role among all of them: in chat with a
	// bot about half the messages are the user's, and at 100k messages this
	// takes ~17 ms against ~35 ms for twice the candidates and ~25 ms with
	// the role inside vec0. When the role is too rare among them to fill
	// TopK, the search runs again with the filter inside vec0, so a rare
	// role still gets all its hits.
	f := q.Filter
	role := f.Role
	f.Role = ""
	fw, fa := filterSQL(f, slices.Clone(where), slices.Clone(args))
	if role == "" {
		scored, err := s.coarseKNN(ctx, messageCorpus, vec, coarseCandidates(q.TopK), q.TopK, fw, fa)
		if err != nil {
			return nil, err
		}
		return s.semanticHits(ctx, user, q, scored, "")
	}
	cands := coarseCandidates(q.TopK) * 3 / 2
	scored, err := s.coarseKNN(ctx, messageCorpus, vec, cands, cands, fw, fa)
	if err != nil {
		return nil, err
	}
	hits, err := s.semanticHits(ctx, user, q, scored, role)
	if err != nil || len(hits) >= q.TopK || len(scored) < cands {
		return hits, err
	}
	where, args = filterSQL(q.Filter, where, args)
	if scored, err = s.coarseKNN(ctx, messageCorpus, vec, coarseCandidates(q.TopK), q.TopK, where, args); err != nil {
		return nil, err
	}
	return s.semanticHits(ctx, user, q, scored, "")
}

// semanticHits hydrates scored messages into at most q.TopK hits scoring at
// least q.MinScore, of the given role when role is set.
func (s *Store) semanticHits(ctx context.Context, user string, q SemanticQuery, scored []scoredSeq, role string) ([]Hit, error) {
	seqs := make([]int64, 0, len(scored))
	for _, sc := range scored {
		if sc.score >= q.MinScore {
			seqs = append(seqs, sc.seq)
		}
	}
	msgs, err := s.hydrate(ctx, user, seqs)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, min(len(seqs), q.TopK))
	for _, sc := range scored {
		if m, ok := msgs[sc.seq]; ok && sc.score >= q.MinScore && (role == "" || m.Role == role) && len(hits) < q.TopK {
			hits = append(hits, Hit{Message: m, Score: sc.score})
		}
	}
	return hits, nil
}

type scoredSeq struct {
	seq   int64
	score float64
}

// corpus names the tables of one kind of document's vectors and statistics.
type corpus struct {
	rows    string   // the table of the texts, by seq, with user_id and indexed
	vec     string   // vec0 table, partitioned by user_id
	meta    []string // vec0 metadata columns after user_id
	rescore string   // int8 vectors by seq
	stats   string   // per-user count of vectors, column indexed
	// addIndexed adds ?2 to the count of vectors of user ?1 in stats.
	addIndexed string
	df         string // per-user document frequencies of embedder features
}

var (
	messageCorpus = corpus{rows: "messages", vec: "vec_messages", meta: []string{"role", "created_ms", "conversation_id", "group_id"},
		rescore: "vec_rescore", stats: "user_stats", df: "term_df",
		addIndexed: `UPDATE user_stats SET indexed = indexed + ?2 WHERE user_id = ?1`}
	eventCorpus = corpus{rows: "events", vec: "vec_events", meta: []string{"group_id", "sender_id", "ts"},
		rescore: "event_vec_rescore", stats: "event_stats", df: "event_term_df",
		addIndexed: `INSERT INTO event_stats (user_id, indexed) VALUES (?1, ?2)
			ON CONFLICT (user_id) DO UPDATE SET indexed = indexed + excluded.indexed`}
)

func (s *Store) knn(ctx context.Context, c corpus, match string, arg any, k int, where []string, args []any) ([]scoredSeq, error) {
	all := append([]any{arg, k}, args...)
	rows, err := s.r.QueryContext(ctx, `SELECT rowid, distance FROM `+c.vec+` WHERE `+match+` AND k = ? AND `+
		strings.Join(where, " AND ")+` ORDER BY distance`, all...)
	if err != nil {
		return nil, fmt.Errorf("storage: knn: %w", err)
	}
	defer rows.Close()
	var out []scoredSeq
	for rows.Next() {
		var sc scoredSeq
		var d float64
		if err := rows.Scan(&sc.seq, &d); err != nil {
			return nil, fmt.Errorf("storage: knn: %w", err)
		}
		sc.score = 1 - d
		out = append(out, sc)
	}
	return out, rows.Err()
}

// coarseCandidates is how many binary-code candidates are rescored for k
// hits: Hamming distance ranks well enough that three times k (at least 64)
// holds nearly all of the exact best k.
func coarseCandidates(k int) int { return max(3*k, 64) }

// coarseKNN ranks cands candidates by the Hamming distance of binary codes,
// then rescores them by exact cosine similarity of the stored vectors and
// returns the best k.
func (s *Store) coarseKNN(ctx context.Context, c corpus, vec []float32, cands, k int, where []string, args []any) ([]scoredSeq, error) {
	cand, err := s.knn(ctx, c, `coarse MATCH vec_bit(?)`, s.proj.code(vec), cands, where, args)
	if err != nil {
		return nil, err
	}
	if len(cand) == 0 {
		return nil, nil
	}
	// Rescore from vec_rescore by primary key: a point lookup in vec0 reads
	// a whole chunk of vectors.
	seqs := make([]int64, 0, len(cand))
	for _, c := range cand {
		seqs = append(seqs, c.seq)
	}
	out, err := s.rescore(ctx, c, vec, seqs)
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].seq < out[j].seq
	})
	if len(out) > k {
		out = out[:k]
	}
	return out, nil
}

// rescore returns the cosine similarity of vec with the stored int8 vector
// of each of seqs that has one.
func (s *Store) rescore(ctx context.Context, c corpus, vec []float32, seqs []int64) ([]scoredSeq, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(seqs))
	for _, q := range seqs {
		args = append(args, q)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT seq, scale, v FROM `+c.rescore+` WHERE seq IN (`+placeholders(len(seqs))+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: rescore: %w", err)
	}
	defer rows.Close()
	out := make([]scoredSeq, 0, len(seqs))
	buf := make([]float32, len(vec))
	for rows.Next() {
		var (
			sc    scoredSeq
			scale float64
			b     []byte
		)
		if err := rows.Scan(&sc.seq, &scale, &b); err != nil {
			return nil, fmt.Errorf("storage: rescore: %w", err)
		}
		sc.score = float64(emb.Cosine(vec, dequantize(buf, scale, b)))
		out = append(out, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: rescore: %w", err)
	}
	return out, nil
}

func (s *Store) queryVector(ctx context.Context, c corpus, user string, q SemanticQuery) ([]float32, error) {
	if q.Vector != nil {
		if len(q.Vector) != s.emb.Dim() {
			return nil, fmt.Errorf("%w: query_embedding has %d dimensions, the store uses %d", ErrInvalid, len(q.Vector), s.emb.Dim())
		}
		v := append([]float32(nil), q.Vector...)
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("%w: query_embedding holds a non-finite number", ErrInvalid)
			}
		}
		emb.Normalize(v)
		return v, nil
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, fmt.Errorf("%w: empty query", ErrInvalid)
	}
	if s.tw == nil {
		vs, err := s.embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("storage: embed query: %w", err)
		}
		return vs[0], nil
	}
	terms := s.tw.Terms(q.Text)
	df := make(map[uint64]int, len(terms))
	var docs int
	if err := s.r.QueryRowContext(ctx, `SELECT indexed FROM `+c.stats+` WHERE user_id = ?`, user).Scan(&docs); err == nil && len(terms) > 0 {
		args := []any{user}
		for _, t := range terms {
			args = append(args, int64(t))
		}
		rows, err := s.r.QueryContext(ctx, `SELECT term, df FROM `+c.df+` WHERE user_id = ? AND term IN (`+placeholders(len(terms))+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("storage: term statistics: %w", err)
		}
		for rows.Next() {
			var t int64
			var n int
			if err := rows.Scan(&t, &n); err != nil {
				rows.Close()
				return nil, fmt.Errorf("storage: term statistics: %w", err)
			}
			df[uint64(t)] = n
		}
		rows.Close()
	}
	return s.tw.EmbedQuery(q.Text, func(t uint64) int { return df[t] }, docs), nil
}

// quantize maps a vector to int8 with one scale: v[i] ≈ q[i] * scale.
func quantize(v []float32) (float64, []byte) {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	q := make([]byte, len(v))
	if m == 0 {
		return 0, q
	}
	scale := m / 127
	for i, x := range v {
		q[i] = byte(int8(math.Round(float64(x) / scale)))
	}
	return scale, q
}

// dequantize fills dst from an int8 vector made by quantize.
func dequantize(dst []float32, scale float64, q []byte) []float32 {
	dst = dst[:min(len(dst), len(q))]
	for i := range dst {
		dst[i] = float32(float64(int8(q[i])) * scale)
	}
	return dst
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// withoutCJK returns s with its CJK characters replaced by spaces.
func withoutCJK(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return ' '
		}
		return r
	}, s)
}
