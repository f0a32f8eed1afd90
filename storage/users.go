package storage

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// MaxUserList bounds one page of ListUsers.
const MaxUserList = 200

// UserSummary is what the store holds for one user: counts of each kind of
// record, the last time anything of theirs was written, and the bytes of
// text kept (messages, events, memos and pinned memories; indexes and
// vectors come on top, see the README's tenancy section).
type UserSummary struct {
	UserID     string    `json:"user_id"`
	Messages   int       `json:"messages"`
	Indexed    int       `json:"indexed"` // messages with their indexes written
	Events     int       `json:"events"`
	Profiles   int       `json:"profiles"`
	Memos      int       `json:"memos"`
	Memories   int       `json:"memories"`
	JobsFailed int       `json:"jobs_failed"`
	JobsOpen   int       `json:"jobs_open"` // pending or processing
	TextBytes  int64     `json:"text_bytes"`
	LastActive time.Time `json:"last_active,omitzero"`
}

// UserList selects a page of users for ListUsers.
type UserList struct {
	// Prefix keeps only user ids starting with it (an API key's scope).
	Prefix string
	// After continues a listing: users whose id sorts after it.
	After string
	Limit int
}

// usersWith lists every table that holds a user's records, each with an
// index that starts with user_id, so the union below walks indexes only.
const usersWith = `SELECT user_id FROM user_stats
	UNION SELECT user_id FROM jobs
	UNION SELECT user_id FROM events
	UNION SELECT user_id FROM profiles
	UNION SELECT user_id FROM memos
	UNION SELECT user_id FROM memories`

// ListUsers returns the users with any record whose id starts with
// l.Prefix and sorts after l.After, in id order, each summarized, and
// whether more follow.
func (s *Store) ListUsers(ctx context.Context, l UserList) (_ []UserSummary, more bool, err error) {
	defer s.fault(&err)
	if l.Limit <= 0 || l.Limit > MaxUserList {
		return nil, false, errorf(ErrInvalid, "limit must be in 1..%d", MaxUserList)
	}
	// A prefix range instead of LIKE: ids may hold % and _, and the range
	// lets SQLite seek each index.
	q := `SELECT user_id FROM (` + usersWith + `) WHERE user_id > ? AND user_id >= ?`
	args := []any{l.After, l.Prefix}
	if hi, ok := prefixEnd(l.Prefix); ok {
		q += ` AND user_id < ?`
		args = append(args, hi)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY user_id LIMIT ?`, append(args, l.Limit+1)...)
	if err != nil {
		return nil, false, fmt.Errorf("storage: list users: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, false, fmt.Errorf("storage: list users: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("storage: list users: %w", err)
	}
	if len(ids) > l.Limit {
		ids, more = ids[:l.Limit], true
	}
	out := make([]UserSummary, 0, len(ids))
	for _, id := range ids {
		u, err := s.summarize(ctx, id)
		if err != nil {
			return nil, false, err
		}
		out = append(out, u)
	}
	return out, more, nil
}

// SummarizeUser returns the user's summary; a user without records has
// all counts zero.
func (s *Store) SummarizeUser(ctx context.Context, user string) (_ UserSummary, err error) {
	defer s.fault(&err)
	return s.summarize(ctx, user)
}

// prefixEnd returns the least string greater than every string starting
// with p, false when there is none (p empty or all 0xff bytes).
func prefixEnd(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

func (s *Store) summarize(ctx context.Context, user string) (UserSummary, error) {
	u := UserSummary{UserID: user}
	var lastMs sql.NullInt64
	// One statement reads one snapshot: the counts are of one moment.
	err := s.r.QueryRowContext(ctx, `SELECT
		COALESCE((SELECT messages FROM user_stats WHERE user_id = ?1), 0),
		COALESCE((SELECT indexed FROM user_stats WHERE user_id = ?1), 0),
		(SELECT COUNT(*) FROM events WHERE user_id = ?1),
		(SELECT COUNT(*) FROM profiles WHERE user_id = ?1),
		(SELECT COUNT(*) FROM memos WHERE user_id = ?1),
		(SELECT COUNT(*) FROM memories WHERE user_id = ?1),
		(SELECT COUNT(*) FROM jobs WHERE user_id = ?1 AND state = 'failed'),
		(SELECT COUNT(*) FROM jobs WHERE user_id = ?1 AND state IN ('pending', 'processing')),
		COALESCE((SELECT SUM(LENGTH(CAST(content AS BLOB))) FROM messages WHERE user_id = ?1), 0)
		+ COALESCE((SELECT SUM(LENGTH(CAST(content AS BLOB))) FROM events WHERE user_id = ?1), 0)
		+ COALESCE((SELECT SUM(LENGTH(CAST(content AS BLOB))) FROM memos WHERE user_id = ?1), 0)
		+ COALESCE((SELECT SUM(LENGTH(CAST(content AS BLOB))) FROM memories WHERE user_id = ?1), 0),
		MAX(COALESCE((SELECT MAX(created_ms) FROM messages WHERE user_id = ?1), 0),
			COALESCE((SELECT MAX(updated_ms) FROM jobs WHERE user_id = ?1), 0),
			COALESCE((SELECT MAX(updated_ms) FROM memories WHERE user_id = ?1), 0))`, user).Scan(
		&u.Messages, &u.Indexed, &u.Events, &u.Profiles, &u.Memos, &u.Memories,
		&u.JobsFailed, &u.JobsOpen, &u.TextBytes, &lastMs)
	if err != nil {
		return u, fmt.Errorf("storage: summarize user: %w", err)
	}
	if lastMs.Valid && lastMs.Int64 > 0 {
		u.LastActive = time.UnixMilli(lastMs.Int64).UTC()
	}
	return u, nil
}

// Totals counts the records of every user whose id starts with a prefix.
type Totals struct {
	Users    int            `json:"users"`
	Messages int            `json:"messages"`
	Indexed  int            `json:"indexed"`
	Events   int            `json:"events"`
	Profiles int            `json:"profiles"`
	Memos    int            `json:"memos"`
	Memories int            `json:"memories"`
	Jobs     map[string]int `json:"jobs"` // by state, every state present
}

// CountAll returns the totals over the users whose id starts with prefix
// ("" for all).
func (s *Store) CountAll(ctx context.Context, prefix string) (_ Totals, err error) {
	defer s.fault(&err)
	scope, args := `user_id >= ?1`, []any{prefix}
	if hi, ok := prefixEnd(prefix); ok {
		scope, args = scope+` AND user_id < ?2`, append(args, hi)
	}
	t := Totals{Jobs: map[string]int{JobPending: 0, JobProcessing: 0, JobDone: 0, JobFailed: 0}}
	err = s.r.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM (`+usersWith+`) WHERE `+scope+`),
		(SELECT COALESCE(SUM(messages), 0) FROM user_stats WHERE `+scope+`),
		(SELECT COALESCE(SUM(indexed), 0) FROM user_stats WHERE `+scope+`),
		(SELECT COUNT(*) FROM events WHERE `+scope+`),
		(SELECT COUNT(*) FROM profiles WHERE `+scope+`),
		(SELECT COUNT(*) FROM memos WHERE `+scope+`),
		(SELECT COUNT(*) FROM memories WHERE `+scope+`)`, args...).Scan(
		&t.Users, &t.Messages, &t.Indexed, &t.Events, &t.Profiles, &t.Memos, &t.Memories)
	if err != nil {
		return t, fmt.Errorf("storage: count: %w", err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT state, COUNT(*) FROM jobs WHERE `+scope+` GROUP BY state`, args...)
	if err != nil {
		return t, fmt.Errorf("storage: count jobs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			state string
			n     int
		)
		if err := rows.Scan(&state, &n); err != nil {
			return t, fmt.Errorf("storage: count jobs: %w", err)
		}
		t.Jobs[state] = n
	}
	if err := rows.Err(); err != nil {
		return t, fmt.Errorf("storage: count jobs: %w", err)
	}
	return t, nil
}
