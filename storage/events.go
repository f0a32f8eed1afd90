package storage

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// MaxEventList is the most events ListEvents returns at once.
const MaxEventList = 1000

const eventCols = `id, user_id, group_id, sender_id, sender_name, job_id, perspective, request_type, content, original,
	is_absolute, warning, timestamp_utc, timestamp_local, source_message, schema_version`

func validPerspective(p string) bool {
	return p == PerspectiveGroup || p == PerspectiveSender || p == PerspectiveGlobal
}

// checkEvents validates the events of claimed.
func checkEvents(claimed Job, evs []Event) error {
	for i, e := range evs {
		switch {
		case e.ID == "" || !printable(e.ID, MaxIDLen):
			return errorf(ErrInvalid, "event %d: id must be printable UTF-8 of 1..%d bytes", i, MaxIDLen)
		case e.UserID != claimed.UserID:
			return errorf(ErrInvalid, "event %d belongs to another user than its job", i)
		case e.JobID != claimed.ID:
			return errorf(ErrInvalid, "event %d names another job", i)
		case !validPerspective(e.Perspective):
			return errorf(ErrInvalid, "event %d: unknown perspective %q", i, e.Perspective)
		case e.RequestType != "private" && e.RequestType != "group":
			return errorf(ErrInvalid, "event %d: unknown request type %q", i, e.RequestType)
		case e.Timestamp.IsZero():
			return errorf(ErrInvalid, "event %d: timestamp is required", i)
		}
	}
	return nil
}

// insertEvents stores evs in tx, skipping ids that exist, queues each new
// one for indexing, and returns how many were new.
func insertEvents(ctx context.Context, tx *sql.Tx, evs []Event, now time.Time) (int, error) {
	if len(evs) == 0 {
		return 0, nil
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO events (`+eventCols+`, timestamp_epoch, created_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	// The outbox entry commits with the event, so indexing survives a crash.
	out, err := tx.PrepareContext(ctx, `INSERT INTO outbox (op, user_id, msg_seq) VALUES ('`+opEventIndex+`', ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer out.Close()
	n := 0
	for _, e := range evs {
		local := e.TimestampLocal
		if local.IsZero() {
			local = e.Timestamp
		}
		version := e.SchemaVersion
		if version == 0 {
			version = EventSchemaVersion
		}
		r, err := ins.ExecContext(ctx, e.ID, e.UserID, e.GroupID, e.SenderID, e.SenderName, e.JobID, e.Perspective,
			e.RequestType, e.Content, e.Original, e.IsAbsolute, e.Warning,
			e.Timestamp.UTC().Format(time.RFC3339Nano), local.Format(time.RFC3339Nano), e.SourceMessage, version,
			e.Timestamp.Unix(), now.UnixMilli())
		if err != nil {
			return n, fmt.Errorf("event %s: %w", e.ID, err)
		}
		if c, _ := r.RowsAffected(); c == 0 {
			continue
		}
		seq, err := r.LastInsertId()
		if err != nil {
			return n, err
		}
		if _, err := out.ExecContext(ctx, e.UserID, seq); err != nil {
			return n, fmt.Errorf("event %s: outbox: %w", e.ID, err)
		}
		n++
	}
	return n, nil
}

// ListEvents returns events of user matching f, newest first.
func (s *Store) ListEvents(ctx context.Context, user string, f EventFilter) (_ []Event, err error) {
	defer s.fault(&err)
	if f.Limit <= 0 || f.Limit > MaxEventList {
		return nil, errorf(ErrInvalid, "limit must be in 1..%d", MaxEventList)
	}
	where, args := []string{"user_id = ?"}, []any{user}
	if f.GroupID != "" {
		where, args = append(where, "group_id = ?"), append(args, f.GroupID)
	}
	if f.JobID != "" {
		where, args = append(where, "job_id = ?"), append(args, f.JobID)
	}
	if !f.Before.IsZero() {
		where, args = append(where, "timestamp_epoch < ?"), append(args, f.Before.Unix())
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+eventCols+` FROM events WHERE `+strings.Join(where, " AND ")+
		` ORDER BY timestamp_epoch DESC, seq DESC LIMIT ?`, append(args, f.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("storage: list events: %w", err)
	}
	defer rows.Close()
	out := []Event{}
	for rows.Next() {
		e, _, err := scanEvent(rows, false)
		if err != nil {
			return nil, fmt.Errorf("storage: list events: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: list events: %w", err)
	}
	return out, nil
}

type rowScanner interface {
	Scan(dest ...any) error
}

// scanEvent reads the eventCols of a row, followed by seq when withSeq.
func scanEvent(r rowScanner, withSeq bool) (Event, int64, error) {
	var (
		e          Event
		utc, local string
		seq        int64
	)
	dest := []any{&e.ID, &e.UserID, &e.GroupID, &e.SenderID, &e.SenderName, &e.JobID, &e.Perspective, &e.RequestType,
		&e.Content, &e.Original, &e.IsAbsolute, &e.Warning, &utc, &local, &e.SourceMessage, &e.SchemaVersion}
	if withSeq {
		dest = append(dest, &seq)
	}
	if err := r.Scan(dest...); err != nil {
		return e, 0, err
	}
	var err error
	if e.Timestamp, err = time.Parse(time.RFC3339Nano, utc); err != nil {
		return e, 0, fmt.Errorf("event %s: bad timestamp: %w", e.ID, err)
	}
	if e.TimestampLocal, err = time.Parse(time.RFC3339Nano, local); err != nil {
		return e, 0, fmt.Errorf("event %s: bad local timestamp: %w", e.ID, err)
	}
	return e, seq, nil
}

// hydrateEvents reads user's events by seq.
func (s *Store) hydrateEvents(ctx context.Context, user string, seqs []int64) (map[int64]Event, error) {
	out := make(map[int64]Event, len(seqs))
	if len(seqs) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(seqs)+1)
	for _, q := range seqs {
		args = append(args, q)
	}
	args = append(args, user)
	// The unary + keeps the planner on the primary key (see hydrate).
	rows, err := s.r.QueryContext(ctx, `SELECT `+eventCols+`, seq FROM events WHERE seq IN (`+placeholders(len(seqs))+`) AND +user_id = ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("storage: hydrate events: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		e, seq, err := scanEvent(rows, true)
		if err != nil {
			return nil, fmt.Errorf("storage: hydrate events: %w", err)
		}
		out[seq] = e
	}
	return out, rows.Err()
}
