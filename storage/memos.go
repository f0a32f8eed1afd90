package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits of memos.
const (
	MaxMemoContent = 16 << 10 // bytes
	MaxMemoList    = 1000
)

const memoCols = `id, user_id, request_id, job_id, group_id, group_name, sender_id, sender_name, request_type,
	content, timestamp_utc, timestamp_epoch, created_ms`

// checkMemo validates the memo of a job being enqueued.
func checkMemo(m *NewMemo) error {
	for _, f := range []struct{ name, v string }{
		{"group_id", m.GroupID}, {"group_name", m.GroupName}, {"sender_id", m.SenderID}, {"sender_name", m.SenderName},
	} {
		if !printable(f.v, MaxIDLen) {
			return errorf(ErrInvalid, "memo %s must be printable UTF-8 of at most %d bytes", f.name, MaxIDLen)
		}
	}
	switch {
	case strings.TrimSpace(m.Content) == "":
		return errorf(ErrInvalid, "memo is empty")
	case len(m.Content) > MaxMemoContent || !utf8.ValidString(m.Content):
		return errorf(ErrInvalid, "memo must be valid UTF-8 of at most %d bytes", MaxMemoContent)
	case m.RequestType != "private" && m.RequestType != "group":
		return errorf(ErrInvalid, "memo: unknown request type %q", m.RequestType)
	case m.RequestType == "private" && m.GroupID != "":
		// A group memo may lack its group id (imported ones know only the name).
		return errorf(ErrInvalid, "memo: a private turn has no group_id")
	case m.Timestamp.IsZero():
		return errorf(ErrInvalid, "memo: timestamp is required")
	}
	return nil
}

// insertMemo stores the memo of job in tx. A memo of the same user and
// request id that exists already is kept, and nothing is written.
func insertMemo(ctx context.Context, tx *sql.Tx, job Job, m *NewMemo, now time.Time) error {
	ts := m.Timestamp.UTC()
	_, err := tx.ExecContext(ctx, `INSERT INTO memos (`+memoCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`,
		job.ID, job.UserID, job.Key, job.ID, m.GroupID, m.GroupName, m.SenderID, m.SenderName, m.RequestType,
		strings.TrimSpace(m.Content), ts.Format(time.RFC3339Nano), ts.Unix(), now.UnixMilli())
	if err != nil {
		return fmt.Errorf("memo: %w", err)
	}
	return nil
}

func scanMemo(sc interface{ Scan(...any) error }) (Memo, error) {
	var (
		m       Memo
		utc     string
		created int64
	)
	if err := sc.Scan(&m.ID, &m.UserID, &m.RequestID, &m.JobID, &m.GroupID, &m.GroupName, &m.SenderID, &m.SenderName,
		&m.RequestType, &m.Content, &utc, &m.Epoch, &created); err != nil {
		return m, err
	}
	t, err := time.Parse(time.RFC3339Nano, utc)
	if err != nil {
		return m, fmt.Errorf("memo %s: bad timestamp: %w", m.ID, err)
	}
	m.Timestamp = t
	m.CreatedAt = time.UnixMilli(created).UTC()
	return m, nil
}

// ListMemos returns the memos of user matching f, the latest turn first.
func (s *Store) ListMemos(ctx context.Context, user string, f MemoFilter) (_ []Memo, err error) {
	defer s.fault(&err)
	if user == "" {
		return nil, errorf(ErrInvalid, "empty user")
	}
	if f.Limit <= 0 || f.Limit > MaxMemoList {
		return nil, errorf(ErrInvalid, "limit must be in 1..%d", MaxMemoList)
	}
	if f.RequestType != "" && f.RequestType != "private" && f.RequestType != "group" {
		return nil, errorf(ErrInvalid, "unknown request type %q", f.RequestType)
	}
	where, args := []string{"user_id = ?"}, []any{user}
	for _, c := range []struct{ col, v string }{{"group_id", f.GroupID}, {"sender_id", f.SenderID}, {"request_type", f.RequestType}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+memoCols+` FROM memos WHERE `+strings.Join(where, " AND ")+
		` ORDER BY timestamp_epoch DESC, seq DESC LIMIT ?`, append(args, f.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("storage: list memos: %w", err)
	}
	defer rows.Close()
	out := []Memo{}
	for rows.Next() {
		m, err := scanMemo(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: list memos: %w", err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: list memos: %w", err)
	}
	return out, nil
}

// AddMemo stores a memo of user that came without a job (an imported turn
// that had nothing for the historian). The request id is required and makes
// the insert idempotent: when user has a memo with it, nothing is written
// and created is false.
func (s *Store) AddMemo(ctx context.Context, user, requestID string, m NewMemo) (created bool, err error) {
	defer s.fault(&err)
	switch {
	case user == "" || !printable(user, MaxIDLen):
		return false, errorf(ErrInvalid, "memo user must be printable UTF-8 of 1..%d bytes", MaxIDLen)
	case requestID == "" || !printable(requestID, MaxJobKeyLen):
		return false, errorf(ErrInvalid, "memo request id must be printable UTF-8 of 1..%d bytes", MaxJobKeyLen)
	}
	if err := checkMemo(&m); err != nil {
		return false, err
	}
	now := s.now()
	ts := m.Timestamp.UTC()
	err = s.update(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `INSERT INTO memos (`+memoCols+`)
			VALUES (?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`,
			NewID(now), user, requestID, m.GroupID, m.GroupName, m.SenderID, m.SenderName, m.RequestType,
			strings.TrimSpace(m.Content), ts.Format(time.RFC3339Nano), ts.Unix(), now.UnixMilli())
		if err != nil {
			return err
		}
		n, _ := r.RowsAffected()
		created = n == 1
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("storage: add memo %q: %w", requestID, err)
	}
	return created, nil
}
