package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits of pinned memories.
const (
	MaxMemories       = 100  // per user
	MaxMemoryRunes    = 1000 // characters of content
	MaxMemoryTags     = 16
	MaxMemoryTagRunes = 32
	MaxMemoryIDLen    = 128
)

// Errors of pinned memories callers branch on. ErrMemoryNotFound is also
// ErrNotFound.
var (
	ErrMemoryNotFound = fmt.Errorf("%w: no such pinned memory", ErrNotFound)
	ErrMemoryExists   = errors.New("storage: a pinned memory with this id exists with different content")
	ErrMemoryLimit    = errors.New("storage: pinned memory limit reached")
)

const memoryCols = `id, user_id, group_id, content, tags, created_ms, updated_ms`

// ValidMemoryID reports whether id may name a pinned memory: 1..128 bytes
// of ASCII letters, digits and . _ : -
func ValidMemoryID(id string) bool {
	if id == "" || len(id) > MaxMemoryIDLen {
		return false
	}
	for _, r := range id {
		if !(r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._:-", r))) {
			return false
		}
	}
	return true
}

// checkMemory validates m's content, group and tags.
func checkMemory(m Memory) error {
	n := utf8.RuneCountInString(m.Content)
	switch {
	case !utf8.ValidString(m.Content):
		return errorf(ErrInvalid, "content is not valid UTF-8")
	case strings.TrimSpace(m.Content) == "":
		return errorf(ErrInvalid, "content is empty")
	case n > MaxMemoryRunes:
		return errorf(ErrInvalid, "content has %d characters, at most %d are kept", n, MaxMemoryRunes)
	case strings.IndexFunc(m.Content, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }) >= 0:
		return errorf(ErrInvalid, "content holds control characters")
	case !printable(m.GroupID, MaxIDLen) || strings.TrimSpace(m.GroupID) != m.GroupID:
		return errorf(ErrInvalid, "group_id must be printable UTF-8 of at most %d bytes without surrounding spaces", MaxIDLen)
	case len(m.Tags) > MaxMemoryTags:
		return errorf(ErrInvalid, "at most %d tags, got %d", MaxMemoryTags, len(m.Tags))
	}
	for i, t := range m.Tags {
		switch {
		case t == "" || strings.TrimSpace(t) != t || !printable(t, 4*MaxMemoryTagRunes) || utf8.RuneCountInString(t) > MaxMemoryTagRunes:
			return errorf(ErrInvalid, "tags[%d] must be 1..%d printable characters without surrounding spaces", i, MaxMemoryTagRunes)
		case slices.Contains(m.Tags[:i], t):
			return errorf(ErrInvalid, "tag %q given twice", t)
		}
	}
	return nil
}

func scanMemory(sc interface{ Scan(...any) error }) (Memory, error) {
	var (
		m                Memory
		tags             string
		created, updated int64
	)
	if err := sc.Scan(&m.ID, &m.UserID, &m.GroupID, &m.Content, &tags, &created, &updated); err != nil {
		return m, err
	}
	if err := json.Unmarshal([]byte(tags), &m.Tags); err != nil {
		return m, fmt.Errorf("memory %s: bad tags: %w", m.ID, err)
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	m.CreatedAt = time.UnixMilli(created).UTC()
	m.UpdatedAt = time.UnixMilli(updated).UTC()
	return m, nil
}

func getMemory(ctx context.Context, q queryer, user, id string) (Memory, error) {
	m, err := scanMemory(q.QueryRowContext(ctx, `SELECT `+memoryCols+` FROM memories WHERE user_id = ? AND id = ?`, user, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Memory{}, ErrMemoryNotFound
	}
	return m, err
}

func sameMemory(a, b Memory) bool {
	return a.Content == b.Content && a.GroupID == b.GroupID && slices.Equal(a.Tags, b.Tags)
}

// AddMemory pins a memory for user. An empty m.ID gets a ULID. When a memory
// with m.ID exists, AddMemory returns it with created false if it has the
// same content, group and tags (a replayed create), and fails with
// ErrMemoryExists otherwise. A user holds at most MaxMemories; one more is
// ErrMemoryLimit.
func (s *Store) AddMemory(ctx context.Context, user string, m Memory) (out Memory, created bool, err error) {
	defer s.fault(&err)
	if user == "" {
		return Memory{}, false, errorf(ErrInvalid, "empty user")
	}
	if m.ID != "" && !ValidMemoryID(m.ID) {
		return Memory{}, false, errorf(ErrInvalid, "id must be 1..%d ASCII letters, digits or . _ : -", MaxMemoryIDLen)
	}
	if m.Tags == nil {
		m.Tags = []string{}
	}
	if err := checkMemory(m); err != nil {
		return Memory{}, false, err
	}
	tags, err := json.Marshal(m.Tags)
	if err != nil {
		return Memory{}, false, err
	}
	now := s.now()
	if m.ID == "" {
		m.ID = NewID(now)
	}
	m.UserID = user
	m.CreatedAt = time.UnixMilli(now.UnixMilli()).UTC()
	m.UpdatedAt = m.CreatedAt
	err = s.update(ctx, func(tx *sql.Tx) error {
		old, err := getMemory(ctx, tx, user, m.ID)
		switch {
		case err == nil && sameMemory(old, m):
			out = old
			return nil
		case err == nil:
			return ErrMemoryExists
		case !errors.Is(err, ErrMemoryNotFound):
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories WHERE user_id = ?`, user).Scan(&n); err != nil {
			return err
		}
		if n >= MaxMemories {
			return errorf(ErrMemoryLimit, "a user keeps at most %d pinned memories; delete or update one", MaxMemories)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO memories (`+memoryCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			m.ID, user, m.GroupID, m.Content, string(tags), now.UnixMilli(), now.UnixMilli())
		out, created = m, true
		return err
	})
	if err != nil {
		if errors.Is(err, ErrMemoryExists) || errors.Is(err, ErrMemoryLimit) {
			return Memory{}, false, err
		}
		return Memory{}, false, fmt.Errorf("storage: add memory %s: %w", m.ID, err)
	}
	return out, created, nil
}

// GetMemory returns one pinned memory of user; another user's is ErrMemoryNotFound.
func (s *Store) GetMemory(ctx context.Context, user, id string) (_ Memory, err error) {
	defer s.fault(&err)
	m, err := getMemory(ctx, s.r, user, id)
	if err != nil && !errors.Is(err, ErrMemoryNotFound) {
		return Memory{}, fmt.Errorf("storage: get memory %s: %w", id, err)
	}
	return m, err
}

// ListMemories returns the pinned memories of user matching f, oldest first.
func (s *Store) ListMemories(ctx context.Context, user string, f MemoryFilter) (_ []Memory, err error) {
	defer s.fault(&err)
	if user == "" {
		return nil, errorf(ErrInvalid, "empty user")
	}
	q, args := `SELECT `+memoryCols+` FROM memories WHERE user_id = ?`, []any{user}
	switch {
	case f.Exact:
		q, args = q+` AND group_id = ?`, append(args, f.GroupID)
	case f.GroupID != "":
		q, args = q+` AND group_id IN ('', ?)`, append(args, f.GroupID)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY created_ms, seq`, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: list memories: %w", err)
	}
	defer rows.Close()
	out := []Memory{}
	for rows.Next() {
		m, err := scanMemory(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: list memories: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: list memories: %w", err)
	}
	return out, nil
}

// UpdateMemory applies p to a pinned memory of user and returns it. A patch
// that changes nothing leaves updated_at as it was.
func (s *Store) UpdateMemory(ctx context.Context, user, id string, p MemoryPatch) (_ Memory, err error) {
	defer s.fault(&err)
	var out Memory
	err = s.update(ctx, func(tx *sql.Tx) error {
		old, err := getMemory(ctx, tx, user, id)
		if err != nil {
			return err
		}
		m := old
		if p.Content != nil {
			m.Content = *p.Content
		}
		if p.GroupID != nil {
			m.GroupID = *p.GroupID
		}
		if p.Tags != nil {
			m.Tags = slices.Clone(*p.Tags)
			if m.Tags == nil {
				m.Tags = []string{}
			}
		}
		if err := checkMemory(m); err != nil {
			return err
		}
		if sameMemory(old, m) {
			out = old
			return nil
		}
		tags, err := json.Marshal(m.Tags)
		if err != nil {
			return err
		}
		now := s.now()
		m.UpdatedAt = time.UnixMilli(now.UnixMilli()).UTC()
		_, err = tx.ExecContext(ctx, `UPDATE memories SET content = ?, group_id = ?, tags = ?, updated_ms = ? WHERE user_id = ? AND id = ?`,
			m.Content, m.GroupID, string(tags), now.UnixMilli(), user, id)
		out = m
		return err
	})
	if err != nil {
		if errors.Is(err, ErrMemoryNotFound) || errors.Is(err, ErrInvalid) {
			return Memory{}, err
		}
		return Memory{}, fmt.Errorf("storage: update memory %s: %w", id, err)
	}
	return out, nil
}

// DeleteMemory unpins a memory of user; a missing one is ErrMemoryNotFound.
func (s *Store) DeleteMemory(ctx context.Context, user, id string) (err error) {
	defer s.fault(&err)
	err = s.update(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM memories WHERE user_id = ? AND id = ?`, user, id)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n == 0 {
			return ErrMemoryNotFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrMemoryNotFound) {
		return fmt.Errorf("storage: delete memory %s: %w", id, err)
	}
	return err
}
