package storage

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"
)

const msgCols = `seq, id, user_id, conversation_id, group_id, role, sender_id, sender_name, content, created_at, meta`

var (
	ulidMu      sync.Mutex
	ulidEntropy = ulid.Monotonic(rand.Reader, 0)
)

// Limits of a stored message.
const (
	MaxIDLen      = 256
	MaxContentLen = 64 << 10
)

func isJSONObject(b []byte) bool {
	var v map[string]json.RawMessage
	return json.Unmarshal(b, &v) == nil && v != nil
}

// NewID returns a new ULID for a message that came without an id.
func NewID(t time.Time) string {
	ulidMu.Lock()
	defer ulidMu.Unlock()
	return ulid.MustNew(ulid.Timestamp(t), ulidEntropy).String()
}

// Insert stores msgs for user in one transaction. A message whose id exists
// with the same content is skipped; one with different content fails the
// whole batch with ErrConflict and nothing is stored. Messages without an id
// get a ULID, written back into msgs.
func (s *Store) Insert(ctx context.Context, user string, msgs []Message) (_ InsertResult, err error) {
	defer s.fault(&err)
	var res InsertResult
	if user == "" {
		return res, errorf(ErrInvalid, "empty user")
	}
	now := time.Now()
	for i := range msgs {
		m := &msgs[i]
		if m.UserID != "" && m.UserID != user {
			return res, errorf(ErrInvalid, "message %d belongs to another user", i)
		}
		if !ValidRole(m.Role) {
			return res, errorf(ErrInvalid, "message %d: unknown role %q", i, m.Role)
		}
		if m.CreatedAt.IsZero() {
			return res, errorf(ErrInvalid, "message %d: created_at is required", i)
		}
		if len(m.Meta) > 0 && !isJSONObject(m.Meta) {
			return res, errorf(ErrInvalid, "message %d: meta must be a JSON object", i)
		}
		if len(m.ID) > MaxIDLen || !utf8.ValidString(m.ID) || strings.IndexFunc(m.ID, unicode.IsControl) >= 0 {
			return res, errorf(ErrInvalid, "message %d: id must be printable UTF-8 of at most %d bytes", i, MaxIDLen)
		}
		if !utf8.ValidString(m.Content) || !utf8.ValidString(m.SenderName) || !utf8.ValidString(m.ConversationID) {
			return res, errorf(ErrInvalid, "message %d: text is not valid UTF-8", i)
		}
		if len(m.Content) > MaxContentLen {
			return res, errorf(ErrInvalid, "message %d: content is longer than %d bytes", i, MaxContentLen)
		}
		m.UserID = user
		if m.ID == "" {
			m.ID = NewID(now)
		}
	}
	err = s.update(ctx, func(tx *sql.Tx) error {
		ins, err := tx.PrepareContext(ctx, `INSERT INTO messages
			(user_id, id, conversation_id, group_id, role, sender_id, sender_name, content, created_at, created_ms, meta, ingested_ms)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (user_id, id) DO NOTHING`)
		if err != nil {
			return err
		}
		defer ins.Close()
		out, err := tx.PrepareContext(ctx, `INSERT INTO outbox (op, user_id, msg_seq) VALUES ('index', ?, ?)`)
		if err != nil {
			return err
		}
		defer out.Close()
		for _, m := range msgs {
			meta := "{}"
			if len(m.Meta) > 0 {
				meta = string(m.Meta)
			}
			r, err := ins.ExecContext(ctx, user, m.ID, m.ConversationID, m.GroupID, m.Role, m.SenderID, m.SenderName,
				m.Content, m.CreatedAt.Format(time.RFC3339Nano), m.CreatedAt.UnixMilli(), meta, now.UnixMilli())
			if err != nil {
				return fmt.Errorf("insert %q: %w", m.ID, err)
			}
			if n, _ := r.RowsAffected(); n == 0 {
				var content string
				if err := tx.QueryRowContext(ctx, `SELECT content FROM messages WHERE user_id = ? AND id = ?`, user, m.ID).Scan(&content); err != nil {
					return fmt.Errorf("insert %q: %w", m.ID, err)
				}
				if content != m.Content {
					return errorf(ErrConflict, "%q", m.ID)
				}
				res.Duplicate++
				continue
			}
			seq, err := r.LastInsertId()
			if err != nil {
				return err
			}
			if _, err := out.ExecContext(ctx, user, seq); err != nil {
				return err
			}
			res.Inserted++
		}
		if res.Inserted > 0 {
			_, err = tx.ExecContext(ctx, `INSERT INTO user_stats (user_id, messages) VALUES (?, ?)
				ON CONFLICT (user_id) DO UPDATE SET messages = messages + excluded.messages`, user, res.Inserted)
		}
		return err
	})
	if err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrInvalid) {
			return InsertResult{}, err
		}
		return InsertResult{}, fmt.Errorf("storage: insert for %q: %w", user, err)
	}
	if res.Inserted > 0 {
		s.kick()
	}
	return res, nil
}

func scanMessage(sc interface{ Scan(...any) error }) (Message, int64, error) {
	var (
		m       Message
		seq     int64
		created string
		meta    string
	)
	if err := sc.Scan(&seq, &m.ID, &m.UserID, &m.ConversationID, &m.GroupID, &m.Role, &m.SenderID, &m.SenderName, &m.Content, &created, &meta); err != nil {
		return m, 0, err
	}
	t, err := time.Parse(time.RFC3339Nano, created)
	if err != nil {
		return m, 0, fmt.Errorf("storage: message %q: bad created_at: %w", m.ID, err)
	}
	m.CreatedAt = t
	if meta != "" && meta != "{}" {
		m.Meta = json.RawMessage(meta)
	}
	return m, seq, nil
}

// Get returns one message of user by id.
func (s *Store) Get(ctx context.Context, user, id string) (_ Message, err error) {
	defer s.fault(&err)
	m, _, err := s.get(ctx, user, id)
	return m, err
}

func (s *Store) get(ctx context.Context, user, id string) (Message, int64, error) {
	row := s.r.QueryRowContext(ctx, `SELECT `+msgCols+` FROM messages WHERE user_id = ? AND id = ?`, user, id)
	m, seq, err := scanMessage(row)
	if errors.Is(err, sql.ErrNoRows) {
		return m, 0, ErrNotFound
	}
	if err != nil {
		return m, 0, fmt.Errorf("storage: get %q: %w", id, err)
	}
	return m, seq, nil
}

// filterSQL appends the WHERE conditions of f (table alias-free columns).
func filterSQL(f Filter, where []string, args []any) ([]string, []any) {
	if f.Role != "" {
		where = append(where, "role = ?")
		args = append(args, f.Role)
	}
	if !f.Since.IsZero() {
		where = append(where, "created_ms >= ?")
		args = append(args, f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		where = append(where, "created_ms < ?")
		args = append(args, f.Until.UnixMilli())
	}
	if f.ConversationID != "" {
		where = append(where, "conversation_id = ?")
		args = append(args, f.ConversationID)
	}
	if f.GroupID != "" {
		where = append(where, "group_id = ?")
		args = append(args, f.GroupID)
	}
	return where, args
}

// Count returns how many messages of user match f.
func (s *Store) Count(ctx context.Context, user string, f Filter) (_ int, err error) {
	defer s.fault(&err)
	var n int
	if f == (Filter{}) {
		err := s.r.QueryRowContext(ctx, `SELECT messages FROM user_stats WHERE user_id = ?`, user).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("storage: count: %w", err)
		}
		return n, nil
	}
	if f == (Filter{Role: f.Role}) {
		// by role alone: kept by triggers (migration 0011)
		err := s.r.QueryRowContext(ctx, `SELECT messages FROM user_role_stats WHERE user_id = ? AND role = ?`, user, f.Role).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		if err != nil {
			return 0, fmt.Errorf("storage: count: %w", err)
		}
		return n, nil
	}
	if f.ConversationID == "" && f.GroupID == "" && f.Since.IsZero() != f.Until.IsZero() {
		return s.countHalfOpen(ctx, user, f)
	}
	where, args := filterSQL(f, []string{"user_id = ?"}, []any{user})
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE `+strings.Join(where, " AND "), args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("storage: count: %w", err)
	}
	return n, nil
}

// countHalfOpen counts user's messages of a window open at one end (Since
// or Until, and perhaps a role) by counting the smaller side of its edge:
// a count reads one index entry per message, and a heavy user's window
// "since last month" or "until last week" can hold nearly all of them,
// while the total (user_stats, user_role_stats) is one row. Which side is
// smaller is guessed from where the edge falls between the user's first
// and last message; a wrong guess costs time, not correctness. Total and
// count come from one statement, so one snapshot.
func (s *Store) countHalfOpen(ctx context.Context, user string, f Filter) (int, error) {
	edge, since := f.Until.UnixMilli(), false
	if !f.Since.IsZero() {
		edge, since = f.Since.UnixMilli(), true
	}
	scope, args := "user_id = ?", []any{user}
	total := `(SELECT messages FROM user_stats WHERE user_id = ?)`
	if f.Role != "" {
		scope, args = "user_id = ? AND role = ?", []any{user, f.Role}
		total = `(SELECT messages FROM user_role_stats WHERE user_id = ? AND role = ?)`
	}
	var lo, hi sql.NullInt64
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT min(created_ms) FROM messages WHERE `+scope+`),
		(SELECT max(created_ms) FROM messages WHERE `+scope+`)`, append(slices.Clone(args), args...)...).Scan(&lo, &hi)
	if err != nil {
		return 0, fmt.Errorf("storage: count: %w", err)
	}
	if !lo.Valid || !hi.Valid {
		return 0, nil // no messages
	}
	// before: the fraction of the span before the edge
	before := 0.5
	if hi.Int64 > lo.Int64 {
		before = float64(edge-lo.Int64) / float64(hi.Int64-lo.Int64)
	}
	op := "<"
	if since {
		op = ">="
	}
	q := `SELECT count(*) FROM messages WHERE ` + scope + ` AND created_ms ` + op + ` ?`
	qargs := append(slices.Clone(args), edge)
	if (since && before > 0.5) || (!since && before < 0.5) {
		// the other side is the smaller: total minus it
		other := map[string]string{"<": ">=", ">=": "<"}[op]
		q = `SELECT coalesce(` + total + `, 0) - (SELECT count(*) FROM messages WHERE ` + scope + ` AND created_ms ` + other + ` ?)`
		qargs = append(append(slices.Clone(args), args...), edge)
	}
	var n int
	if err := s.r.QueryRowContext(ctx, q, qargs...).Scan(&n); err != nil {
		return 0, fmt.Errorf("storage: count: %w", err)
	}
	return n, nil
}

// listCursor is the position after the last message of a page.
type listCursor struct {
	ms  int64
	seq int64
}

func (c listCursor) encode() string {
	return base64.RawURLEncoding.EncodeToString([]byte("l1:" + strconv.FormatInt(c.ms, 10) + ":" + strconv.FormatInt(c.seq, 10)))
}

func decodeListCursor(s string) (listCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return listCursor{}, errorf(ErrInvalid, "bad cursor")
	}
	parts := strings.Split(string(b), ":")
	if len(parts) != 3 || parts[0] != "l1" {
		return listCursor{}, errorf(ErrInvalid, "bad cursor")
	}
	ms, err1 := strconv.ParseInt(parts[1], 10, 64)
	seq, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil {
		return listCursor{}, errorf(ErrInvalid, "bad cursor")
	}
	return listCursor{ms, seq}, nil
}

// List returns up to size messages of user matching f in time order, after
// cursor (empty for the first page), and the cursor of the next page ("" at the end).
func (s *Store) List(ctx context.Context, user string, f Filter, size int, cursor string) (_ []Message, _ string, err error) {
	defer s.fault(&err)
	if size <= 0 {
		return nil, "", errorf(ErrInvalid, "page size must be positive")
	}
	where, args := filterSQL(f, []string{"user_id = ?"}, []any{user})
	if cursor != "" {
		c, err := decodeListCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		where = append(where, "(created_ms, seq) > (?, ?)")
		args = append(args, c.ms, c.seq)
	}
	args = append(args, size+1)
	rows, err := s.r.QueryContext(ctx, `SELECT `+msgCols+`, created_ms FROM messages WHERE `+strings.Join(where, " AND ")+
		` ORDER BY created_ms, seq LIMIT ?`, args...)
	if err != nil {
		return nil, "", fmt.Errorf("storage: list: %w", err)
	}
	defer rows.Close()
	var (
		out  []Message
		last listCursor
		more bool
	)
	for rows.Next() {
		if len(out) == size {
			more = true
			break
		}
		var (
			m             Message
			seq, ms       int64
			created, meta string
		)
		if err := rows.Scan(&seq, &m.ID, &m.UserID, &m.ConversationID, &m.GroupID, &m.Role, &m.SenderID, &m.SenderName, &m.Content, &created, &meta, &ms); err != nil {
			return nil, "", fmt.Errorf("storage: list: %w", err)
		}
		if m.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil {
			return nil, "", fmt.Errorf("storage: list: %w", err)
		}
		if meta != "{}" {
			m.Meta = json.RawMessage(meta)
		}
		out = append(out, m)
		last = listCursor{ms, seq}
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("storage: list: %w", err)
	}
	next := ""
	if more {
		next = last.encode()
	}
	return out, next, nil
}

// Neighbors returns the message id of user with up to before messages that
// precede it and after messages that follow it in the same conversation, in
// time order. A message of another user is ErrNotFound, like a missing one.
func (s *Store) Neighbors(ctx context.Context, user, id string, before, after int) (anchor Message, prev, next []Message, err error) {
	defer s.fault(&err)
	row := s.r.QueryRowContext(ctx, `SELECT `+msgCols+`, created_ms FROM messages WHERE user_id = ? AND id = ?`, user, id)
	var (
		seq, ms       int64
		created, meta string
	)
	a := &anchor
	err = row.Scan(&seq, &a.ID, &a.UserID, &a.ConversationID, &a.GroupID, &a.Role, &a.SenderID, &a.SenderName, &a.Content, &created, &meta, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return anchor, nil, nil, ErrNotFound
	}
	if err != nil {
		return anchor, nil, nil, fmt.Errorf("storage: neighbors %q: %w", id, err)
	}
	if a.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil {
		return anchor, nil, nil, fmt.Errorf("storage: neighbors %q: %w", id, err)
	}
	if meta != "{}" {
		a.Meta = json.RawMessage(meta)
	}
	if before > 0 {
		prev, err = s.scanMessages(ctx, `SELECT `+msgCols+` FROM messages WHERE user_id = ? AND conversation_id = ? AND (created_ms, seq) < (?, ?)
			ORDER BY created_ms DESC, seq DESC LIMIT ?`, user, anchor.ConversationID, ms, seq, before)
		if err != nil {
			return anchor, nil, nil, err
		}
		for i, j := 0, len(prev)-1; i < j; i, j = i+1, j-1 {
			prev[i], prev[j] = prev[j], prev[i]
		}
	}
	if after > 0 {
		next, err = s.scanMessages(ctx, `SELECT `+msgCols+` FROM messages WHERE user_id = ? AND conversation_id = ? AND (created_ms, seq) > (?, ?)
			ORDER BY created_ms, seq LIMIT ?`, user, anchor.ConversationID, ms, seq, after)
		if err != nil {
			return anchor, nil, nil, err
		}
	}
	return anchor, prev, next, nil
}

func (s *Store) scanMessages(ctx context.Context, q string, args ...any) ([]Message, error) {
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: query: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, _, err := scanMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: query: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: query: %w", err)
	}
	return out, nil
}

// hydrate re-reads the messages with the given seqs from SQLite, bound to
// user, in the order of seqs; seqs of other users or of deleted messages drop out.
func (s *Store) hydrate(ctx context.Context, user string, seqs []int64) (map[int64]Message, error) {
	out := make(map[int64]Message, len(seqs))
	if len(seqs) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(seqs)+1)
	for _, q := range seqs {
		args = append(args, q)
	}
	args = append(args, user)
	// The unary + keeps the planner on the primary key: with user_id
	// indexable it walks all of the user's rows for a long seq list.
	rows, err := s.r.QueryContext(ctx, `SELECT `+msgCols+` FROM messages WHERE seq IN (`+placeholders(len(seqs))+`) AND +user_id = ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: hydrate: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		m, seq, err := scanMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: hydrate: %w", err)
		}
		out[seq] = m
	}
	return out, rows.Err()
}

// Delete removes one message of user and its vector; the lexical index
// entry follows through the outbox (and is never returned meanwhile).
func (s *Store) Delete(ctx context.Context, user, id string) (err error) {
	defer s.fault(&err)
	err = s.update(ctx, func(tx *sql.Tx) error {
		var (
			seq     int64
			indexed int
			content string
			sender  string
		)
		err := tx.QueryRowContext(ctx, `SELECT seq, indexed, content, sender_name FROM messages WHERE user_id = ? AND id = ?`, user, id).
			Scan(&seq, &indexed, &content, &sender)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE seq = ?`, seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE user_stats SET messages = messages - 1 WHERE user_id = ?`, user); err != nil {
			return err
		}
		if indexed == vecStored {
			if err := s.unindexVector(ctx, tx, messageCorpus, user, seq, embedText(sender, content)); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO outbox (op, user_id, msg_seq) VALUES ('delete', ?, ?)`, user, seq)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("storage: delete %q: %w", id, err)
	}
	s.kick()
	return nil
}

// DeleteUser forgets user: messages, events, profiles, memos, pinned
// memories, their vectors and statistics, jobs, and (through the outbox)
// lexical entries. It returns how many messages were removed.
func (s *Store) DeleteUser(ctx context.Context, user string) (_ int, err error) {
	defer s.fault(&err)
	var n int
	err = s.update(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE user_id = ?`, user)
		if err != nil {
			return err
		}
		c, _ := r.RowsAffected()
		n = int(c)
		if s.vecTable {
			rescore, err := tx.PrepareContext(ctx, `DELETE FROM vec_rescore WHERE seq = ?`)
			if err != nil {
				return err
			}
			defer rescore.Close()
			for _, t := range []string{"vec_messages", "vec_messages" + bigSuffix} {
				seqs, err := deleteUserVectors(ctx, tx, t, user)
				if err != nil {
					return fmt.Errorf("vectors: %w", err)
				}
				for _, seq := range seqs {
					if _, err := rescore.ExecContext(ctx, seq); err != nil {
						return err
					}
				}
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM vec_big_users WHERE user_id = ?`, user); err != nil {
				return err
			}
			if _, err := deleteUserVectors(ctx, tx, "vec_profiles", user); err != nil {
				return fmt.Errorf("profile vectors: %w", err)
			}
		}
		if err := s.deleteUserEvents(ctx, tx, user); err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM term_df WHERE user_id = ?`, `DELETE FROM user_stats WHERE user_id = ?`,
			`DELETE FROM user_role_stats WHERE user_id = ?`,
			`DELETE FROM outbox WHERE user_id = ? AND op IN ('index', '` + opEventIndex + `')`,
			`DELETE FROM jobs WHERE user_id = ?`, `DELETE FROM events WHERE user_id = ?`,
			`DELETE FROM profiles WHERE user_id = ?`, `DELETE FROM profile_revisions WHERE user_id = ?`,
			`DELETE FROM memos WHERE user_id = ?`, `DELETE FROM memories WHERE user_id = ?`} {
			if _, err := tx.ExecContext(ctx, q, user); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO outbox (op, user_id) VALUES ('delete_user', ?)`, user)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("storage: delete user: %w", err)
	}
	s.kick()
	// The user is forgotten once the transaction commits; giving the pages
	// back to the file system may fail without undoing that.
	if err := s.freePages(ctx); err != nil {
		s.log.Warn("pages of a deleted user not freed", "err", err)
	}
	return n, nil
}
