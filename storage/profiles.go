package storage

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	sqlitevec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Limits of a profile.
const (
	MaxProfileTraits  = 500
	MaxProfileTags    = 64
	MaxProfileSummary = 16 << 10 // bytes
	MaxProfileValue   = 1 << 10  // bytes of a trait value, slot, category or tag
	MaxProfileList    = 10000
	MaxProfileTopK    = 100
)

// minProfileSimilarity is the cosine similarity below which a profile is
// not a semantic match of a query.
const minProfileSimilarity = 0.1

const fEntityType = "entity_type"

// vecProfilesDDL is the DDL of the profiles' vector table for the
// embedder, named name.
func (s *Store) vecProfilesDDL(name string) string {
	return fmt.Sprintf(`CREATE VIRTUAL TABLE IF NOT EXISTS %s USING vec0(
	user_id text partition key,
	entity_type text,
	embedding float[%d] distance_metric=cosine,
	chunk_size=%d
)`, name, s.emb.Dim(), vecChunkSize)
}

const profileCols = `seq, user_id, entity_type, entity_id, name, tags, traits, summary, revision, updated_ms`

// openProfileIndex opens the profiles' lexical index and makes sure the
// profile vector table exists for the embedder.
func (s *Store) openProfileIndex(ctx context.Context) error {
	if s.vecOK {
		if _, err := s.w.ExecContext(ctx, s.vecProfilesDDL("vec_profiles")); err != nil {
			return fmt.Errorf("storage: profile vectors: %w", err)
		}
	}
	path := filepath.Join(s.cfg.Dir, "profiles.bleve")
	idx, err := bleve.Open(path)
	if err == nil {
		s.profiles = idx
		return nil
	}
	if !errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		// The index is derived from the rows: one that does not open (a
		// crash while it was created) is made again.
		s.log.Warn("profile index does not open; rebuilding it from the profiles", "err", err)
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("storage: remove profile index: %w", err)
		}
	}
	im, err := indexMapping()
	if err != nil {
		return fmt.Errorf("storage: profile mapping: %w", err)
	}
	et := bleve.NewKeywordFieldMapping()
	et.Analyzer = keyword.Name
	et.Store, et.IncludeInAll, et.DocValues = false, false, false
	im.DefaultMapping.AddFieldMappingsAt(fEntityType, et)
	if s.profiles, err = bleve.New(path, im); err != nil {
		return fmt.Errorf("storage: create profile index: %w", err)
	}
	// The rows may be ahead of a new index (it was removed): index them again.
	if _, err := s.w.ExecContext(ctx, `UPDATE profiles SET indexed_rev = 0`); err != nil {
		return fmt.Errorf("storage: profile index: %w", err)
	}
	return nil
}

func checkProfileKey(entityType, entityID string) error {
	if !ValidEntityType(entityType) {
		return errorf(ErrInvalid, "entity_type %q: want user or group", entityType)
	}
	if entityID == "" || !printable(entityID, MaxIDLen) {
		return errorf(ErrInvalid, "entity_id must be printable UTF-8 of 1..%d bytes", MaxIDLen)
	}
	return nil
}

func checkMerges(ms []ProfileMerge) error {
	for i, m := range ms {
		if err := checkProfileKey(m.EntityType, m.EntityID); err != nil {
			return fmt.Errorf("profile merge %d: %w", i, err)
		}
		if m.Apply == nil {
			return errorf(ErrInvalid, "profile merge %d has no Apply", i)
		}
	}
	return nil
}

// normalize makes c comparable and storable: empty lists rather than nil,
// times in UTC.
func (c ProfileContent) normalize() ProfileContent {
	c.Tags = slices.Clone(c.Tags)
	if c.Tags == nil {
		c.Tags = []string{}
	}
	c.Traits = slices.Clone(c.Traits)
	if c.Traits == nil {
		c.Traits = []Trait{}
	}
	for i := range c.Traits {
		c.Traits[i].FirstSeen = c.Traits[i].FirstSeen.UTC()
		c.Traits[i].LastSeen = c.Traits[i].LastSeen.UTC()
	}
	return c
}

func (c ProfileContent) check() error {
	text := func(what, v string) error {
		if len(v) > MaxProfileValue || !utf8.ValidString(v) {
			return errorf(ErrInvalid, "profile %s must be UTF-8 of at most %d bytes", what, MaxProfileValue)
		}
		return nil
	}
	switch {
	case len(c.Traits) > MaxProfileTraits:
		return errorf(ErrInvalid, "a profile holds at most %d traits", MaxProfileTraits)
	case len(c.Tags) > MaxProfileTags:
		return errorf(ErrInvalid, "a profile holds at most %d tags", MaxProfileTags)
	case len(c.Summary) > MaxProfileSummary || !utf8.ValidString(c.Summary):
		return errorf(ErrInvalid, "profile summary must be UTF-8 of at most %d bytes", MaxProfileSummary)
	}
	if err := text("name", c.Name); err != nil {
		return err
	}
	for _, t := range c.Tags {
		if err := text("tag", t); err != nil {
			return err
		}
	}
	for _, t := range c.Traits {
		for _, f := range []struct{ what, v string }{{"trait category", t.Category}, {"trait slot", t.Slot}, {"trait value", t.Value}} {
			if err := text(f.what, f.v); err != nil {
				return err
			}
		}
		if t.Category == "" || t.Value == "" {
			return errorf(ErrInvalid, "a trait needs a category and a value")
		}
	}
	return nil
}

func scanProfile(sc interface{ Scan(...any) error }) (Profile, int64, error) {
	var (
		p            Profile
		seq, updated int64
		tags, traits string
	)
	if err := sc.Scan(&seq, &p.UserID, &p.EntityType, &p.EntityID, &p.Name, &tags, &traits, &p.Summary,
		&p.Revision, &updated); err != nil {
		return p, 0, err
	}
	if err := json.Unmarshal([]byte(tags), &p.Tags); err != nil {
		return p, 0, fmt.Errorf("profile %d tags: %w", seq, err)
	}
	if err := json.Unmarshal([]byte(traits), &p.Traits); err != nil {
		return p, 0, fmt.Errorf("profile %d traits: %w", seq, err)
	}
	p.ProfileContent = p.ProfileContent.normalize()
	p.UpdatedAt = time.UnixMilli(updated).UTC()
	return p, seq, nil
}

func getProfile(ctx context.Context, q queryer, user, entityType, entityID string) (Profile, int64, error) {
	p, seq, err := scanProfile(q.QueryRowContext(ctx, `SELECT `+profileCols+` FROM profiles
		WHERE user_id = ? AND entity_type = ? AND entity_id = ?`, user, entityType, entityID))
	if errors.Is(err, sql.ErrNoRows) {
		return Profile{}, 0, ErrNotFound
	}
	return p, seq, err
}

// GetProfile returns user's profile of the entity, ErrNotFound when there is none.
func (s *Store) GetProfile(ctx context.Context, user, entityType, entityID string) (_ Profile, err error) {
	defer s.fault(&err)
	if err := checkProfileKey(entityType, entityID); err != nil {
		return Profile{}, err
	}
	p, _, err := getProfile(ctx, s.r, user, entityType, entityID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Profile{}, fmt.Errorf("storage: get profile %s/%s: %w", entityType, entityID, err)
	}
	return p, err
}

// ListProfiles returns user's profiles (of entityType, or all when it is
// empty), ordered by entity type and id.
func (s *Store) ListProfiles(ctx context.Context, user, entityType string, limit int) (_ []Profile, err error) {
	defer s.fault(&err)
	if limit <= 0 || limit > MaxProfileList {
		return nil, errorf(ErrInvalid, "limit must be in 1..%d", MaxProfileList)
	}
	if entityType != "" && !ValidEntityType(entityType) {
		return nil, errorf(ErrInvalid, "entity_type %q: want user or group", entityType)
	}
	q, args := `SELECT `+profileCols+` FROM profiles WHERE user_id = ?`, []any{user}
	if entityType != "" {
		q, args = q+` AND entity_type = ?`, append(args, entityType)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY entity_type, entity_id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("storage: list profiles: %w", err)
	}
	defer rows.Close()
	out := []Profile{}
	for rows.Next() {
		p, _, err := scanProfile(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: list profiles: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: list profiles: %w", err)
	}
	return out, nil
}

// ProfileRevisions returns the kept revisions of user's profile of the
// entity, newest first; ErrNotFound when there is no such profile.
func (s *Store) ProfileRevisions(ctx context.Context, user, entityType, entityID string) (_ []ProfileRevision, err error) {
	defer s.fault(&err)
	if _, err := s.GetProfile(ctx, user, entityType, entityID); err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT revision, source, created_ms, snapshot FROM profile_revisions
		WHERE user_id = ? AND entity_type = ? AND entity_id = ? ORDER BY revision DESC`, user, entityType, entityID)
	if err != nil {
		return nil, fmt.Errorf("storage: profile revisions: %w", err)
	}
	defer rows.Close()
	out := []ProfileRevision{}
	for rows.Next() {
		var (
			r        ProfileRevision
			created  int64
			snapshot string
		)
		if err := rows.Scan(&r.Revision, &r.Source, &created, &snapshot); err != nil {
			return nil, fmt.Errorf("storage: profile revisions: %w", err)
		}
		if err := json.Unmarshal([]byte(snapshot), &r.Profile); err != nil {
			return nil, fmt.Errorf("storage: profile revision %d: %w", r.Revision, err)
		}
		r.Profile = r.Profile.normalize()
		r.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: profile revisions: %w", err)
	}
	return out, nil
}

// RestoreProfile makes a kept revision of user's profile of the entity the
// current state again, as a new revision (restoring the current state
// changes nothing). A revision that is not kept is ErrNotFound.
func (s *Store) RestoreProfile(ctx context.Context, user, entityType, entityID string, revision int) (_ Profile, err error) {
	defer s.fault(&err)
	if err := checkProfileKey(entityType, entityID); err != nil {
		return Profile{}, err
	}
	if revision < 1 {
		return Profile{}, errorf(ErrInvalid, "revision must be positive")
	}
	now := s.now()
	var out Profile
	err = s.update(ctx, func(tx *sql.Tx) error {
		var snapshot string
		err := tx.QueryRowContext(ctx, `SELECT snapshot FROM profile_revisions
			WHERE user_id = ? AND entity_type = ? AND entity_id = ? AND revision = ?`,
			user, entityType, entityID, revision).Scan(&snapshot)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		var c ProfileContent
		if err := json.Unmarshal([]byte(snapshot), &c); err != nil {
			return fmt.Errorf("revision %d: %w", revision, err)
		}
		m := ProfileMerge{EntityType: entityType, EntityID: entityID, Apply: func(p Profile) Profile {
			p.ProfileContent = c
			return p
		}}
		if _, err := s.mergeProfile(ctx, tx, user, m, "restore:"+strconv.Itoa(revision), now); err != nil {
			return err
		}
		out, _, err = getProfile(ctx, tx, user, entityType, entityID)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return Profile{}, errorf(ErrNotFound, "no revision %d of profile %s/%s", revision, entityType, entityID)
	}
	if err != nil {
		return Profile{}, fmt.Errorf("storage: restore profile %s/%s: %w", entityType, entityID, err)
	}
	return out, nil
}

// mergeProfile applies m to user's profile in tx. When the content changes
// it stores it as the next revision, snapshots it and drops the revisions
// beyond the newest ProfileRevisionKeep; it reports whether it changed.
func (s *Store) mergeProfile(ctx context.Context, tx *sql.Tx, user string, m ProfileMerge, source string, now time.Time) (bool, error) {
	cur, _, err := getProfile(ctx, tx, user, m.EntityType, m.EntityID)
	if errors.Is(err, ErrNotFound) {
		cur, err = Profile{UserID: user, EntityType: m.EntityType, EntityID: m.EntityID}, nil
		cur.ProfileContent = cur.ProfileContent.normalize()
	}
	if err != nil {
		return false, err
	}
	next := m.Apply(cur).ProfileContent.normalize()
	if err := next.check(); err != nil {
		return false, fmt.Errorf("profile %s/%s: %w", m.EntityType, m.EntityID, err)
	}
	before, err := json.Marshal(cur.ProfileContent)
	if err != nil {
		return false, err
	}
	after, err := json.Marshal(next)
	if err != nil {
		return false, err
	}
	if bytes.Equal(before, after) {
		return false, nil
	}
	tags, _ := json.Marshal(next.Tags)
	traits, _ := json.Marshal(next.Traits)
	rev := cur.Revision + 1
	if _, err := tx.ExecContext(ctx, `INSERT INTO profiles (user_id, entity_type, entity_id, name, tags, traits, summary, revision, updated_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (user_id, entity_type, entity_id) DO UPDATE SET name = excluded.name, tags = excluded.tags,
			traits = excluded.traits, summary = excluded.summary, revision = excluded.revision, updated_ms = excluded.updated_ms`,
		user, m.EntityType, m.EntityID, next.Name, string(tags), string(traits), next.Summary, rev, now.UnixMilli()); err != nil {
		return false, fmt.Errorf("profile %s/%s: %w", m.EntityType, m.EntityID, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO profile_revisions (user_id, entity_type, entity_id, revision, snapshot, source, created_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, user, m.EntityType, m.EntityID, rev, string(after), source, now.UnixMilli()); err != nil {
		return false, fmt.Errorf("profile %s/%s revision %d: %w", m.EntityType, m.EntityID, rev, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM profile_revisions
		WHERE user_id = ? AND entity_type = ? AND entity_id = ? AND revision <= ?`,
		user, m.EntityType, m.EntityID, rev-s.cfg.ProfileRevisionKeep); err != nil {
		return false, fmt.Errorf("profile %s/%s: prune revisions: %w", m.EntityType, m.EntityID, err)
	}
	return true, nil
}

// profileText is what the search indexes see of a profile.
func profileText(p Profile) string {
	var b strings.Builder
	b.WriteString(p.Name)
	b.WriteByte('\n')
	b.WriteString(strings.Join(p.Tags, ", "))
	b.WriteByte('\n')
	b.WriteString(p.Summary)
	for _, t := range p.Traits {
		b.WriteByte('\n')
		b.WriteString(t.Value)
	}
	return b.String()
}

type dirtyProfile struct {
	seq  int64
	p    Profile
	text string
}

// syncProfiles brings the lexical index and the vectors of user's profiles
// up to date with their rows. An embedder that fails leaves the vectors
// behind (the next search tries again); the lexical index is written anyway.
func (s *Store) syncProfiles(ctx context.Context, user string) error {
	s.profMu.Lock()
	defer s.profMu.Unlock()
	rows, err := s.r.QueryContext(ctx, `SELECT `+profileCols+` FROM profiles WHERE user_id = ? AND indexed_rev != revision`, user)
	if err != nil {
		return fmt.Errorf("storage: profiles to index: %w", err)
	}
	var dirty []dirtyProfile
	for rows.Next() {
		p, seq, err := scanProfile(rows)
		if err != nil {
			rows.Close()
			return fmt.Errorf("storage: profiles to index: %w", err)
		}
		dirty = append(dirty, dirtyProfile{seq: seq, p: p, text: profileText(p)})
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(dirty) == 0 {
		return err
	}
	b := s.profiles.NewBatch()
	texts := make([]string, len(dirty))
	for i, d := range dirty {
		texts[i] = d.text
		if err := b.Index(strconv.FormatInt(d.seq, 10), map[string]any{
			fUser: d.p.UserID, fEntityType: d.p.EntityType, "text": d.text,
		}); err != nil {
			return fmt.Errorf("storage: profile doc %d: %w", d.seq, err)
		}
	}
	if err := s.profiles.Batch(b); err != nil {
		return fmt.Errorf("storage: profile index: %w", err)
	}
	var vecs [][]float32
	if s.vecOK {
		vecs, err = s.embed(ctx, texts) // through the embedder's breaker, checked
		if err != nil {
			s.log.Warn("profile vectors not updated; profile search is lexical until the embedder answers", "err", err)
			return nil
		}
	}
	err = s.update(ctx, func(tx *sql.Tx) error {
		for i, d := range dirty {
			if vecs != nil {
				if _, err := tx.ExecContext(ctx, `DELETE FROM vec_profiles WHERE rowid = ?`, d.seq); err != nil {
					return err
				}
			}
			// A text whose vector has no norm gets none: the profile is
			// found by its words only.
			if vecs != nil && hasNorm(vecs[i]) {
				blob, err := sqlitevec.SerializeFloat32(vecs[i])
				if err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO vec_profiles (rowid, user_id, entity_type, embedding) VALUES (?, ?, ?, ?)`,
					d.seq, d.p.UserID, d.p.EntityType, blob); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE profiles SET indexed_rev = ? WHERE seq = ? AND revision = ?`,
				d.p.Revision, d.seq, d.p.Revision); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("storage: profile vectors: %w", err)
	}
	return nil
}

// SearchProfiles ranks user's profiles for q twice: BM25 over their text
// (name, tags, summary, trait values) and the cosine similarity of their
// vectors, each best first with up to max(3·TopK, 20) candidates (the
// caller fuses them, queryapi.RRF). A profile's Rank is its position in the
// ranking as searched: profiles deleted meanwhile are dropped but still
// count. With no working embedder the semantic ranking is empty.
func (s *Store) SearchProfiles(ctx context.Context, user string, q ProfileQuery) (_ ProfileRankings, err error) {
	defer s.fault(&err)
	none := ProfileRankings{Lexical: []RankedProfile{}, Semantic: []RankedProfile{}}
	if strings.TrimSpace(q.Text) == "" {
		return none, errorf(ErrInvalid, "empty query")
	}
	if q.TopK < 1 || q.TopK > MaxProfileTopK {
		return none, errorf(ErrInvalid, "top_k must be in 1..%d", MaxProfileTopK)
	}
	if q.EntityType != "" && !ValidEntityType(q.EntityType) {
		return none, errorf(ErrInvalid, "entity_type %q: want user or group", q.EntityType)
	}
	if err := s.syncProfiles(ctx, user); err != nil {
		return none, err
	}
	cand := max(3*q.TopK, 20)
	// lexical and semantic hold the rankings' profile seqs, best first.
	var lexical, semantic []int64
	seen := map[int64]bool{}
	var order []int64
	add := func(list *[]int64, seq int64) {
		if !seen[seq] {
			seen[seq] = true
			order = append(order, seq)
		}
		*list = append(*list, seq)
	}

	// Lexical: any word, both analyzers, inside the user (and entity type).
	words, phrases := splitQuery(q.Text)
	var alts []query.Query
	for _, f := range []string{fTextCJK, fTextEN} {
		for _, text := range append([]string{words}, phrases...) {
			if strings.TrimSpace(text) == "" {
				continue
			}
			m := bleve.NewMatchQuery(text)
			m.SetField(f)
			m.Analyzer = fieldAnalyzer[f]
			alts = append(alts, m)
		}
	}
	userQ := bleve.NewTermQuery(user)
	userQ.SetField(fUser)
	bq := bleve.NewBooleanQuery()
	bq.AddMust(userQ)
	if q.EntityType != "" {
		tq := bleve.NewTermQuery(q.EntityType)
		tq.SetField(fEntityType)
		bq.AddMust(tq)
	}
	bq.AddMust(bleve.NewDisjunctionQuery(alts...))
	req := bleve.NewSearchRequestOptions(bq, cand, 0, false)
	req.SortBy([]string{"-_score", "_id"})
	res, err := s.profiles.SearchInContext(ctx, req)
	if err != nil {
		return none, fmt.Errorf("storage: profile search: %w", err)
	}
	for _, h := range res.Hits {
		seq, err := strconv.ParseInt(h.ID, 10, 64)
		if err != nil {
			return none, fmt.Errorf("storage: profile doc id %q: %w", h.ID, err)
		}
		add(&lexical, seq)
	}

	// Semantic.
	if s.vecOK {
		vs, err := s.embed(ctx, []string{q.Text})
		switch {
		case err != nil:
			s.log.Warn("profile search without vectors: the embedder failed", "err", err)
		case !hasNorm(vs[0]):
			// A question without features has no neighbours.
		default:
			blob, err := sqlitevec.SerializeFloat32(vs[0])
			if err != nil {
				return none, err
			}
			where, args := `embedding MATCH ? AND k = ? AND user_id = ?`, []any{blob, cand, user}
			if q.EntityType != "" {
				where, args = where+` AND entity_type = ?`, append(args, q.EntityType)
			}
			rows, err := s.r.QueryContext(ctx, `SELECT rowid, distance FROM vec_profiles WHERE `+where+` ORDER BY distance`, args...)
			if err != nil {
				return none, fmt.Errorf("storage: profile knn: %w", err)
			}
			for rows.Next() {
				var (
					seq  int64
					dist sql.NullFloat64
				)
				if err := rows.Scan(&seq, &dist); err != nil {
					rows.Close()
					return none, fmt.Errorf("storage: profile knn: %w", err)
				}
				// NULL: a vector without a norm (dropped at open since).
				if dist.Valid && 1-dist.Float64 >= minProfileSimilarity {
					add(&semantic, seq)
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return none, fmt.Errorf("storage: profile knn: %w", err)
			}
		}
	}
	if len(order) == 0 {
		return none, nil
	}

	// Hydrate from SQLite, the source of truth; index entries of profiles
	// deleted meanwhile are dropped here and from the index.
	args := make([]any, 0, len(order)+1)
	for _, seq := range order {
		args = append(args, seq)
	}
	args = append(args, user)
	// The unary + keeps the planner on the primary key (as hydrate does).
	rows, err := s.r.QueryContext(ctx, `SELECT `+profileCols+` FROM profiles WHERE seq IN (`+
		placeholders(len(order))+`) AND +user_id = ?`, args...)
	if err != nil {
		return none, fmt.Errorf("storage: profile search: %w", err)
	}
	defer rows.Close()
	found := map[int64]Profile{}
	for rows.Next() {
		p, seq, err := scanProfile(rows)
		if err != nil {
			return none, fmt.Errorf("storage: profile search: %w", err)
		}
		found[seq] = p
	}
	if err := rows.Err(); err != nil {
		return none, fmt.Errorf("storage: profile search: %w", err)
	}
	stale := s.profiles.NewBatch()
	for _, seq := range order {
		if _, ok := found[seq]; !ok {
			stale.Delete(strconv.FormatInt(seq, 10))
		}
	}
	if stale.Size() > 0 {
		if err := s.profiles.Batch(stale); err != nil {
			s.log.Warn("profile index: drop stale entries", "err", err)
		}
	}
	// ranked hydrates a ranking; a deleted profile keeps its rank counted.
	ranked := func(seqs []int64) []RankedProfile {
		out := make([]RankedProfile, 0, len(seqs))
		for rank, seq := range seqs {
			if p, ok := found[seq]; ok {
				out = append(out, RankedProfile{Profile: p, Rank: rank})
			}
		}
		return out
	}
	return ProfileRankings{Lexical: ranked(lexical), Semantic: ranked(semantic)}, nil
}
