package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	emb "github.com/recalld/recalld/internal/embed"
	"golang.org/x/sync/errgroup"
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
//
// Quoted phrases are not left to Bleve's phrase matcher: for each partial
// match it scans all of a term's locations in the document, so its work
// grows with the square of how often a term repeats in one message (a
// 64 KB message of one repeated character and a two-character quote of it
// took 10 s, an eight-character one minutes, and the work ignores the
// request's deadline). Bleve finds the messages that hold every term of the
// phrase, ranked by BM25, and each candidate is then checked for the terms
// at consecutive positions (phraseAt), in time linear in the message,
// between which the deadline is checked. A page holds fewer hits than asked
// when maxPhraseCandidates candidates were checked first; its cursor goes
// on from there.
func (s *Store) LexicalSearch(ctx context.Context, user string, q LexicalQuery) (_ []Hit, _ string, err error) {
	defer s.fault(&err)
	if q.Size <= 0 {
		return nil, "", errorf(ErrInvalid, "page size must be positive")
	}
	words, phrases := splitQuery(q.Text)
	if strings.TrimSpace(words) == "" && len(phrases) == 0 {
		return nil, "", errorf(ErrInvalid, "empty query")
	}
	textFields := [][2]string{{fTextCJK, fTextEN}}
	if q.Contextual {
		textFields = append(textFields, [2]string{fCtxCJK, fCtxEN})
	}
	var must []query.Query
	var should []query.Query
	im := s.index.Mapping()
	var checks [][]phraseTerm // per phrase, the ways it may occur
	for i, p := range phrases {
		var alts []query.Query
		exact := i < maxPhrases && phrasePositions(im, p) <= maxPhrasePositions
		var ways []phraseTerm
		for _, fs := range textFields {
			for _, f := range fs {
				if !exact {
					// A phrase too long to check position by position is
					// searched as all of its words (LexicalNotes says so).
					mq := bleve.NewMatchQuery(p)
					mq.SetField(f)
					mq.Analyzer = fieldAnalyzer[f]
					mq.SetOperator(query.MatchQueryOperatorAnd)
					alts = append(alts, mq)
					continue
				}
				terms := phraseTerms(im, f, p)
				if q := allTermsQuery(f, terms); q != nil {
					alts = append(alts, q)
					ways = append(ways, phraseTerm{field: f, terms: terms})
				}
			}
		}
		if len(alts) == 0 {
			// Nothing in the phrase is a word (only punctuation): as
			// before, a required phrase that nothing matches.
			alts = append(alts, bleve.NewMatchNoneQuery())
		}
		if len(ways) > 0 {
			checks = append(checks, ways)
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
				text = firstTerms(im, f, text)
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
	want := q.Size + 1 // one hit more than the page tells whether another follows
	batch := want
	if len(checks) > 0 {
		batch = max(2*want, 32)
	}
	var hits []Hit
	next, checked, exhausted := offset, 0, false // next: rank of the first candidate not looked at
	analysed := 0                                // bytes of text checked for phrases
	for {
		n := batch
		if len(checks) > 0 {
			n = min(batch, maxPhraseCandidates-checked)
		}
		cands, err := s.lexicalPage(ctx, user, bq, next, n)
		if err != nil {
			return nil, "", err
		}
		exhausted = len(cands) < n
		for _, c := range cands {
			if len(hits) == want || analysed >= s.phraseBytesMax {
				exhausted = false // the rest of cands not looked at
				break
			}
			next++
			checked++
			if !c.ok {
				continue
			}
			if len(checks) > 0 {
				if err := ctx.Err(); err != nil {
					return nil, "", fmt.Errorf("storage: lexical search: %w", err)
				}
				ok, n, err := s.holdsPhrases(ctx, c.hit.Message, c.seq, checks)
				if err != nil {
					return nil, "", err
				}
				analysed += n
				if !ok {
					continue
				}
			}
			hits = append(hits, c.hit)
		}
		if len(hits) == want || exhausted || len(checks) == 0 || checked >= maxPhraseCandidates || analysed >= s.phraseBytesMax {
			break
		}
	}
	cursor := -1
	switch {
	case len(hits) == want:
		hits = hits[:q.Size]
		cursor = next - 1 // the extra hit's rank
	case !exhausted:
		cursor = next
	}
	if cursor < 0 || cursor > s.lexOffsetMax {
		return hits, "", nil
	}
	return hits, encodeLexCursor(cursor), nil
}

// lexCandidate is one document of a lexical ranking; ok is false when its
// message is gone (deleted, not yet out of the index).
type lexCandidate struct {
	hit Hit
	seq int64
	ok  bool
}

// lexicalPage returns up to size documents of bq from rank offset on,
// hydrated.
func (s *Store) lexicalPage(ctx context.Context, user string, bq query.Query, offset, size int) ([]lexCandidate, error) {
	req := bleve.NewSearchRequestOptions(bq, size, offset, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := s.index.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("storage: lexical search: %w", err)
	}
	seqs := make([]int64, 0, len(res.Hits))
	for _, h := range res.Hits {
		seq, err := strconv.ParseInt(h.ID, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("storage: lexical doc id %q: %w", h.ID, err)
		}
		seqs = append(seqs, seq)
	}
	msgs, err := s.hydrate(ctx, user, seqs)
	if err != nil {
		return nil, err
	}
	out := make([]lexCandidate, len(seqs))
	for i, seq := range seqs {
		m, ok := msgs[seq]
		out[i] = lexCandidate{hit: Hit{Message: m, Score: res.Hits[i].Score}, seq: seq, ok: ok}
	}
	return out, nil
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

// Phrase bounds. Checking a phrase costs its length times the candidate
// message's: phrases longer than maxPhrasePositions terms, and those after
// the first maxPhrases, are searched as all of their words instead, and one
// page checks at most maxPhraseCandidates candidates and maxPhraseBytes of
// their text (about 30 ms of analysis; at least 32 messages of the largest).
const (
	maxPhrasePositions  = 32
	maxPhrases          = 4
	maxPhraseCandidates = 512
	maxPhraseBytes      = 2 << 20
)

// phraseTerm is a phrase as one text field sees it: its terms position by
// position ("" where the analyzer left a gap).
type phraseTerm struct {
	field string
	terms []string
}

// allTermsQuery requires every term of a phrase in field: the candidates
// that phraseAt then checks for their order. It keeps one term a position,
// the shortest: the CJK analyzer puts each character's unigram at the
// position of the bigram it starts, and a document with a bigram at a
// position always holds the unigram there too, so the unigrams alone find
// the same documents (across punctuation a quote may leave out, where no
// bigram spans it) and check them in one pass.
func allTermsQuery(field string, terms []string) query.Query {
	var qs []query.Query
	seen := map[string]bool{}
	for _, t := range terms {
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		tq := bleve.NewTermQuery(t)
		tq.SetField(field)
		qs = append(qs, tq)
	}
	if len(qs) == 0 {
		return nil
	}
	return bleve.NewConjunctionQuery(qs...)
}

// holdsPhrases reports whether m holds each phrase in one of its ways: the
// text its field indexes analysed as the index did, the phrase's terms at
// consecutive positions.
func (s *Store) holdsPhrases(ctx context.Context, m Message, seq int64, checks [][]phraseTerm) (ok bool, analysed int, err error) {
	mp := s.index.Mapping()
	text := embedText(m.SenderName, m.Content)
	var ctxText *string // the contextual fields' text, read when first needed
	docs := map[string][]string{}
	for _, ways := range checks {
		found := false
		for _, w := range ways {
			doc, ok := docs[w.field]
			if !ok {
				src := text
				if w.field == fCtxCJK || w.field == fCtxEN {
					if ctxText == nil {
						prev, err := s.previousTurn(ctx, pendingDoc{seq: seq, user: m.UserID, conv: m.ConversationID, createdMS: m.CreatedAt.UnixMilli()})
						if err != nil {
							return false, analysed, err
						}
						t := text
						if prev != "" {
							t = prev + "\n" + text
						}
						ctxText = &t
					}
					src = *ctxText
				}
				doc = phraseTerms(mp, w.field, src)
				docs[w.field] = doc
				analysed += len(src)
			}
			if phraseAt(doc, w.terms) {
				found = true
				break
			}
		}
		if !found {
			return false, analysed, nil
		}
	}
	return true, analysed, nil
}

// phraseAt reports whether doc holds phrase at consecutive positions; a gap
// in the phrase matches any term, as in Bleve's phrase matcher. It takes at
// most len(doc)·len(phrase) steps.
func phraseAt(doc, phrase []string) bool {
	if len(phrase) == 0 || len(phrase) > len(doc) {
		return false
	}
	for i := 0; i+len(phrase) <= len(doc); i++ {
		ok := true
		for k, t := range phrase {
			if t != "" && doc[i+k] != t {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// maxQueryTerms bounds the words one search looks up in each field: a
// search reads every posting of each of its terms, and Bleve checks the
// deadline only between matches, so a query of 2,000 distinct characters
// kept a core for seconds past its deadline. 256 terms is about 128 Chinese
// characters or 200 English words, longer than any question; the rest of a
// longer text is left out (LexicalNotes says so).
const maxQueryTerms = 256

// firstTerms cuts text after the first maxQueryTerms terms that field's
// analyzer finds in it.
func firstTerms(m mapping.IndexMapping, field, text string) string {
	an := m.AnalyzerNamed(fieldAnalyzer[field])
	if an == nil {
		return text
	}
	tokens := an.Analyze([]byte(text))
	if len(tokens) <= maxQueryTerms {
		return text
	}
	return text[:tokens[maxQueryTerms].Start]
}

// LexicalNotes says how the store searches text where it does not search it
// as written: phrases too long (or too many) to check word by word are
// searched as all of their words.
func (s *Store) LexicalNotes(text string) []string {
	words, phrases := splitQuery(text)
	var notes []string
	if firstTerms(s.index.Mapping(), fTextCJK, words) != words {
		notes = append(notes, fmt.Sprintf("only the first %d search terms of a long query are looked up", maxQueryTerms))
	}
	for i, p := range phrases {
		switch {
		case i >= maxPhrases:
			notes = append(notes, fmt.Sprintf("only the first %d quoted phrases are matched as phrases; the others as all of their words", maxPhrases))
			return notes
		case phrasePositions(s.index.Mapping(), p) > maxPhrasePositions:
			notes = append(notes, fmt.Sprintf("a quoted phrase longer than %d words is matched as all of its words, in any order", maxPhrasePositions))
		}
	}
	return slices.Compact(notes)
}

// phraseTerms analyses p with field's analyzer and returns its shortest term
// at each position from the first to the last ("" where the analyzer left a
// gap, e.g. a stop word).
func phraseTerms(m mapping.IndexMapping, field, p string) []string {
	an := m.AnalyzerNamed(fieldAnalyzer[field])
	if an == nil {
		return nil
	}
	tokens := an.Analyze([]byte(p))
	if len(tokens) == 0 {
		return nil
	}
	first, last := tokens[0].Position, tokens[0].Position
	for _, t := range tokens {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	terms := make([]string, last-first+1)
	for _, t := range tokens {
		i := t.Position - first
		if terms[i] == "" || utf8.RuneCount(t.Term) < utf8.RuneCountInString(terms[i]) {
			terms[i] = string(t.Term)
		}
	}
	return terms
}

// phrasePositions is how many positions p spans in the CJK field, the field
// that cuts it finest.
func phrasePositions(m mapping.IndexMapping, p string) int {
	return len(phraseTerms(m, fTextCJK, p))
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
		return 0, errorf(ErrInvalid, "bad cursor")
	}
	n, err := strconv.Atoi(string(b[3:]))
	if err != nil || n < 0 || n > maxOffset {
		return 0, errorf(ErrInvalid, "bad cursor")
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
func (s *Store) SemanticSearch(ctx context.Context, user string, q SemanticQuery) (_ []Hit, err error) {
	defer s.fault(&err)
	switch {
	case s.emb == nil:
		return nil, errLexicalOnly
	case !s.vecOK:
		return nil, errIndexNotAvailable
	}
	if q.TopK <= 0 {
		return nil, errorf(ErrInvalid, "top_k must be positive")
	}
	vec, err := s.queryVector(ctx, messageCorpus, user, q)
	if err != nil {
		return nil, err
	}
	if !hasNorm(vec) {
		// A question without features (only symbols or stop words for the
		// hashing embedder) has no direction: nothing is near it.
		return nil, nil
	}
	var indexed int
	if err := s.r.QueryRowContext(ctx, `SELECT indexed FROM user_stats WHERE user_id = ?`, user).Scan(&indexed); err != nil {
		return nil, nil // no vectors for this user
	}
	mc, err := s.tierOf(ctx, messageCorpus, user, indexed)
	if err != nil {
		return nil, err
	}
	where := []string{"user_id = ?"}
	args := []any{user}
	coarse := indexed > s.cfg.CoarseThreshold
	if !coarse {
		where, args = filterSQL(q.Filter, where, args)
		scored, err := s.exactKNN(ctx, mc, vec, q.TopK, where, args)
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
		scored, err := s.coarseKNN(ctx, mc, vec, coarseCandidates(q.TopK), q.TopK, fw, fa)
		if err != nil {
			return nil, err
		}
		return s.semanticHits(ctx, user, q, scored, "")
	}
	cands := coarseCandidates(q.TopK) * 3 / 2
	scored, err := s.coarseKNN(ctx, mc, vec, cands, cands, fw, fa)
	if err != nil {
		return nil, err
	}
	hits, err := s.semanticHits(ctx, user, q, scored, role)
	if err != nil || len(hits) >= q.TopK || len(scored) < cands {
		return hits, err
	}
	where, args = filterSQL(q.Filter, where, args)
	if scored, err = s.coarseKNN(ctx, mc, vec, coarseCandidates(q.TopK), q.TopK, where, args); err != nil {
		return nil, err
	}
	return s.semanticHits(ctx, user, q, scored, "")
}

// semanticHits hydrates scored messages, best first, into at most q.TopK
// hits scoring at least q.MinScore, of the given role when role is set. It
// reads the messages a batch at a time, so a role-filtered search, which
// scores half again as many candidates as it needs, reads about as many
// messages as it returns.
func (s *Store) semanticHits(ctx context.Context, user string, q SemanticQuery, scored []scoredSeq, role string) ([]Hit, error) {
	hits := make([]Hit, 0, min(len(scored), q.TopK))
	batch := q.TopK
	if role != "" {
		batch *= 2
	}
	for lo := 0; lo < len(scored) && len(hits) < q.TopK; batch *= 2 {
		hi := min(len(scored), lo+batch)
		seqs := make([]int64, 0, hi-lo)
		for _, sc := range scored[lo:hi] {
			if sc.score >= q.MinScore {
				seqs = append(seqs, sc.seq)
			}
		}
		msgs, err := s.hydrate(ctx, user, seqs)
		if err != nil {
			return nil, err
		}
		for _, sc := range scored[lo:hi] {
			if m, ok := msgs[sc.seq]; ok && sc.score >= q.MinScore && (role == "" || m.Role == role) && len(hits) < q.TopK {
				hits = append(hits, Hit{Message: m, Score: sc.score})
			}
		}
		lo = hi
	}
	return hits, nil
}

type scoredSeq struct {
	seq   int64
	score float64
}

// corpus names the tables of one kind of document's vectors and statistics.
type corpus struct {
	rows string // the table of the texts, by seq, with user_id and indexed
	vec  string // vec0 table, partitioned by user_id
	// shards, set by tierOf for a user in the large-chunk twin, estimates
	// how many of the user's vectors each shard holds (vec_tiers.go).
	shards  []int
	meta    []string // vec0 metadata columns after user_id
	rescore string   // int8 vectors by seq
	stats   string   // per-user count of vectors, column indexed
	// addIndexed adds ?2 to the count of vectors of user ?1 in stats.
	addIndexed string
	df         string // per-user document frequencies of embedder features
	// textCols selects the sender and the content of a row of rows, for
	// embedText: what was embedded.
	textCols string
}

var (
	messageCorpus = corpus{rows: "messages", vec: "vec_messages", meta: []string{"role", "created_ms", "conversation_id", "group_id"},
		rescore: "vec_rescore", stats: "user_stats", df: "term_df", textCols: "sender_name, content",
		addIndexed: `UPDATE user_stats SET indexed = indexed + ?2 WHERE user_id = ?1`}
	eventCorpus = corpus{rows: "events", vec: "vec_events", meta: []string{"group_id", "sender_id", "ts"},
		rescore: "event_vec_rescore", stats: "event_stats", df: "event_term_df", textCols: "'', content",
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
		var d sql.NullFloat64
		if err := rows.Scan(&sc.seq, &d); err != nil {
			return nil, fmt.Errorf("storage: knn: %w", err)
		}
		// A stored vector without a norm has no cosine distance (NULL):
		// it is no neighbour, and no reason to fail the search.
		if !d.Valid || math.IsNaN(d.Float64) {
			continue
		}
		sc.score = 1 - d.Float64
		out = append(out, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: knn: %w", err)
	}
	return out, nil
}

// coarseCandidates is how many binary-code candidates are rescored for k
// hits: Hamming distance ranks well enough that three times k (at least 64)
// holds nearly all of the exact best k.
func coarseCandidates(k int) int { return max(3*k, 64) }

// exactKNN ranks every vector of the filtered partition by the cosine
// similarity of its int8 vector in vec0 with the int8-quantised query
// (cosine ignores the per-vector scale), then rescores the best
// coarseCandidates(k) with the float query, as coarseKNN does, and returns
// the best k. The stored vectors are int8 (vecMessagesDDL): quantising the
// query too moves a few scores by about 1e-3, which the rescoring takes
// back, so scores are the same function on both paths.
func (s *Store) exactKNN(ctx context.Context, c corpus, vec []float32, k int, where []string, args []any) ([]scoredSeq, error) {
	_, q := quantize(vec)
	cand, err := s.knn(ctx, c, `embedding MATCH vec_int8(?)`, q, coarseCandidates(k), where, args)
	if err != nil {
		return nil, err
	}
	return s.rerank(ctx, c, vec, cand, k)
}

// coarseKNN ranks cands candidates by the Hamming distance of binary codes,
// then rescores them by exact cosine similarity of the stored vectors and
// returns the best k.
func (s *Store) coarseKNN(ctx context.Context, c corpus, vec []float32, cands, k int, where []string, args []any) ([]scoredSeq, error) {
	cand, err := s.binaryCandidates(ctx, c, s.proj.code(vec), cands, where, args)
	if err != nil {
		return nil, err
	}
	return s.rerank(ctx, c, vec, cand, k)
}

// binaryCandidates returns the cands rows nearest to the binary code,
// nearest first. For a user in the sharded twin each shard gives twice its
// share (shardK), and the best cands of them all are kept. The shards are
// asked at once, on up to one reader connection per CPU: at 100k vectors
// on 2 cores this took semantic_search p95 from 6.3 to 3.2–4.7 ms
// (recalld bench, 600 queries). The shards' reads may see different
// snapshots; a candidate deleted in between has no rescore row and drops
// out in rerank.
func (s *Store) binaryCandidates(ctx context.Context, c corpus, code []byte, cands int, where []string, args []any) ([]scoredSeq, error) {
	if len(c.shards) == 0 {
		return s.knn(ctx, c, `coarse MATCH vec_bit(?)`, code, cands, where, args)
	}
	total := 0
	for _, n := range c.shards {
		total += n
	}
	got := make([][]scoredSeq, len(c.shards))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(min(runtime.GOMAXPROCS(0), vecShards))
	for shard, n := range c.shards {
		ks := shardK(cands, n, total)
		if ks == 0 {
			continue
		}
		g.Go(func() error {
			var err error
			got[shard], err = s.knn(gctx, c, `coarse MATCH vec_bit(?)`, code, ks, append(slices.Clone(where), "shard = ?"), append(slices.Clone(args), shard))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := slices.Concat(got...)
	slices.SortFunc(out, func(a, b scoredSeq) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return out[:min(len(out), cands)], nil
}

// rerank rescores the candidates cand with the float query vec and returns
// the best k, best first.
func (s *Store) rerank(ctx context.Context, c corpus, vec []float32, cand []scoredSeq, k int) ([]scoredSeq, error) {
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
			scale sql.NullFloat64
			b     []byte
		)
		if err := rows.Scan(&sc.seq, &scale, &b); err != nil {
			return nil, fmt.Errorf("storage: rescore: %w", err)
		}
		if !scale.Valid {
			continue
		}
		sc.score = float64(emb.Cosine(vec, dequantize(buf, scale.Float64, b)))
		if math.IsNaN(sc.score) || math.IsInf(sc.score, 0) {
			continue
		}
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
			return nil, errorf(ErrInvalid, "query_embedding has %d dimensions, the store uses %d", len(q.Vector), s.emb.Dim())
		}
		v := append([]float32(nil), q.Vector...)
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, errorf(ErrInvalid, "query_embedding holds a non-finite number")
			}
		}
		emb.Normalize(v)
		return v, nil
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, errorf(ErrInvalid, "empty query")
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

// hasNorm reports whether v has a finite, non-zero length, so that a cosine
// similarity with it exists. An embedder gives a vector without one to a
// text it finds no feature in (the hashing embedder: "ok", "!!!", "the" or
// a lone emoji), and a remote embedder may return non-finite numbers.
// sqlite-vec sums the squares in float32, so the sum must not underflow or
// overflow there either.
func hasNorm(v []float32) bool {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	s32 := float32(sum)
	return sum > 0 && !math.IsInf(sum, 0) && !math.IsNaN(sum) && s32 > 0 && !math.IsInf(float64(s32), 0)
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
