package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ErrJobState means a job is not in the state an operation needs: a
// completion whose claim was lost, a retry of a job that has not failed.
var ErrJobState = errors.New("storage: job is not in the state this needs")

// Limits of the job table.
const (
	MaxJobPayload = 1 << 20 // bytes of JSON
	MaxJobKeyLen  = 256
	MaxJobList    = 1000
	maxJobError   = 4096 // bytes of the kept error text
)

const jobCols = `id, user_id, kind, dedup_key, payload, state, attempts, error, created_ms, updated_ms, run_after_ms, lease_ms, lease_owner`

func scanJob(sc interface{ Scan(...any) error }) (Job, error) {
	var (
		j                    Job
		payload              string
		created, updated     int64
		runAfter, leaseUntil int64
	)
	if err := sc.Scan(&j.ID, &j.UserID, &j.Kind, &j.Key, &payload, &j.State, &j.Attempts, &j.Error,
		&created, &updated, &runAfter, &leaseUntil, &j.LeaseOwner); err != nil {
		return j, err
	}
	j.Payload = []byte(payload)
	j.CreatedAt = time.UnixMilli(created).UTC()
	j.UpdatedAt = time.UnixMilli(updated).UTC()
	if runAfter > 0 {
		j.RunAfter = time.UnixMilli(runAfter).UTC()
	}
	if leaseUntil > 0 {
		j.LeaseUntil = time.UnixMilli(leaseUntil).UTC()
	}
	return j, nil
}

func printable(s string, max int) bool {
	return len(s) <= max && utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0
}

// EnqueueJob stores a pending job in one transaction: once it returns, the
// job survives a crash. A job of the same user and kind with the same
// non-empty Key is returned instead, with created false. A new job's Memo,
// if any, is stored in the same transaction (see ListMemos); a replay stores
// nothing.
func (s *Store) EnqueueJob(ctx context.Context, nj NewJob) (job Job, created bool, err error) {
	defer s.fault(&err)
	switch {
	case nj.UserID == "" || !printable(nj.UserID, MaxIDLen):
		return Job{}, false, errorf(ErrInvalid, "job user must be printable UTF-8 of 1..%d bytes", MaxIDLen)
	case nj.Kind == "" || !printable(nj.Kind, MaxIDLen):
		return Job{}, false, errorf(ErrInvalid, "job kind must be printable UTF-8 of 1..%d bytes", MaxIDLen)
	case !printable(nj.Key, MaxJobKeyLen):
		return Job{}, false, errorf(ErrInvalid, "job key must be printable UTF-8 of at most %d bytes", MaxJobKeyLen)
	case len(nj.Payload) > MaxJobPayload:
		return Job{}, false, errorf(ErrInvalid, "job payload is larger than %d bytes", MaxJobPayload)
	case !isJSONObject(nj.Payload):
		return Job{}, false, errorf(ErrInvalid, "job payload must be a JSON object")
	}
	if nj.Memo != nil {
		if err := checkMemo(nj.Memo); err != nil {
			return Job{}, false, err
		}
	}
	now := s.now()
	job = Job{
		ID: NewID(now), UserID: nj.UserID, Kind: nj.Kind, Key: nj.Key, Payload: nj.Payload,
		State: JobPending, CreatedAt: time.UnixMilli(now.UnixMilli()).UTC(),
	}
	job.UpdatedAt = job.CreatedAt
	err = s.update(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, user_id, kind, dedup_key, payload, state, created_ms, updated_ms)
			VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)
			ON CONFLICT (user_id, kind, dedup_key) WHERE dedup_key != '' DO NOTHING`,
			job.ID, job.UserID, job.Kind, job.Key, string(job.Payload), now.UnixMilli(), now.UnixMilli())
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n == 1 {
			created = true
			if nj.Memo != nil {
				return insertMemo(ctx, tx, job, nj.Memo, now)
			}
			return nil
		}
		job, err = scanJob(tx.QueryRowContext(ctx, `SELECT `+jobCols+` FROM jobs WHERE user_id = ? AND kind = ? AND dedup_key = ?`,
			nj.UserID, nj.Kind, nj.Key))
		return err
	})
	if err != nil {
		return Job{}, false, fmt.Errorf("storage: enqueue %s job for %q: %w", nj.Kind, nj.UserID, err)
	}
	return job, created, nil
}

// ClaimJob moves the oldest claimable pending job of kind to processing,
// counts the attempt and leases it for lease to this store's owner. ok is
// false when no job waits. The claim is one UPDATE … RETURNING in a write
// transaction, so two claimers never get the same job.
func (s *Store) ClaimJob(ctx context.Context, kind string, lease time.Duration) (job Job, ok bool, err error) {
	defer s.fault(&err)
	if lease <= 0 {
		return Job{}, false, errorf(ErrInvalid, "lease must be positive")
	}
	now := s.now()
	err = s.update(ctx, func(tx *sql.Tx) error {
		job, err = scanJob(tx.QueryRowContext(ctx, `UPDATE jobs
			SET state = 'processing', attempts = attempts + 1, updated_ms = ?, lease_ms = ?, run_after_ms = 0, lease_owner = ?
			WHERE id = (SELECT id FROM jobs WHERE state = 'pending' AND kind = ? AND run_after_ms <= ?
				ORDER BY created_ms, id LIMIT 1)
			RETURNING `+jobCols,
			now.UnixMilli(), now.Add(lease).UnixMilli(), s.owner.id, kind, now.UnixMilli()))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	if err != nil {
		return Job{}, false, fmt.Errorf("storage: claim %s job: %w", kind, err)
	}
	return job, ok, nil
}

// CompleteJob marks the claimed job done and stores its result, in one
// transaction: a job is done exactly when its events and profile changes are
// stored, so a result is stored once however often the job ran. It fails
// with ErrJobState, storing nothing, when the claim is no longer held (the
// lease expired and the job was retaken, or the user was deleted). An event
// whose id exists already is skipped; a profile merge that changes nothing
// makes no revision.
func (s *Store) CompleteJob(ctx context.Context, claimed Job, res JobResult) (_ JobOutcome, err error) {
	defer s.fault(&err)
	if err := checkEvents(claimed, res.Events); err != nil {
		return JobOutcome{}, err
	}
	if err := checkMerges(res.Profiles); err != nil {
		return JobOutcome{}, err
	}
	now := s.now()
	var out JobOutcome
	err = s.update(ctx, func(tx *sql.Tx) error {
		out = JobOutcome{}
		r, err := tx.ExecContext(ctx, `UPDATE jobs SET state = 'done', error = '', updated_ms = ?, lease_ms = 0, lease_owner = ''
			WHERE id = ? AND state = 'processing' AND attempts = ? AND lease_owner = ?`,
			now.UnixMilli(), claimed.ID, claimed.Attempts, claimed.LeaseOwner)
		if err != nil {
			return err
		}
		if c, _ := r.RowsAffected(); c == 0 {
			return ErrJobState
		}
		if out.Events, err = insertEvents(ctx, tx, res.Events, now); err != nil {
			return err
		}
		for _, m := range res.Profiles {
			changed, err := s.mergeProfile(ctx, tx, claimed.UserID, m, "job:"+claimed.ID, now)
			if err != nil {
				return err
			}
			if changed {
				out.Profiles++
			}
		}
		return nil
	})
	if err != nil {
		return JobOutcome{}, fmt.Errorf("storage: complete job %s: %w", claimed.ID, err)
	}
	if out.Events > 0 {
		s.kick() // index the new events now rather than at the next tick
	}
	return out, nil
}

// FailJob records the failure of the claimed job's attempt. While the job has
// made fewer than maxAttempts attempts it goes back to pending, claimable
// after backoff; otherwise it ends failed with cause kept. It returns the
// job as stored, and ErrJobState when the claim is no longer held.
func (s *Store) FailJob(ctx context.Context, claimed Job, cause string, maxAttempts int, backoff time.Duration) (_ Job, err error) {
	defer s.fault(&err)
	if len(cause) > maxJobError {
		cause = strings.ToValidUTF8(cause[:maxJobError], "") + "…"
	}
	if cause == "" {
		cause = "failed without an error message"
	}
	now := s.now()
	var job Job
	err = s.update(ctx, func(tx *sql.Tx) error {
		var err error
		job, err = scanJob(tx.QueryRowContext(ctx, `UPDATE jobs
			SET state = CASE WHEN attempts < ? THEN 'pending' ELSE 'failed' END,
				run_after_ms = CASE WHEN attempts < ? THEN ? ELSE 0 END,
				error = ?, updated_ms = ?, lease_ms = 0, lease_owner = ''
			WHERE id = ? AND state = 'processing' AND attempts = ? AND lease_owner = ?
			RETURNING `+jobCols,
			maxAttempts, maxAttempts, now.Add(max(backoff, 0)).UnixMilli(), cause, now.UnixMilli(), claimed.ID, claimed.Attempts, claimed.LeaseOwner))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrJobState
		}
		return err
	})
	if err != nil {
		return Job{}, fmt.Errorf("storage: fail job %s: %w", claimed.ID, err)
	}
	return job, nil
}

// RecoverStaleJobs returns to pending the processing jobs whose owner has
// died (see ReclaimDeadLeases: not counted as attempts) and those whose
// lease has expired (their worker, still running, took too long: counted),
// or ends the latter failed when they have made maxAttempts attempts
// already, so that a job which hangs its worker cannot loop forever.
// requeued counts both kinds.
func (s *Store) RecoverStaleJobs(ctx context.Context, maxAttempts int) (requeued, failed int, err error) {
	defer s.fault(&err)
	interrupted, err := s.ReclaimDeadLeases(ctx)
	if err != nil {
		return 0, 0, err
	}
	now := s.now().UnixMilli()
	err = s.update(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE jobs
			SET state = 'failed', updated_ms = ?, lease_ms = 0, lease_owner = '',
				error = 'lease expired (worker stopped or timed out) after ' || attempts || ' attempts'
			WHERE state = 'processing' AND lease_ms <= ? AND attempts >= ?`, now, now, maxAttempts)
		if err != nil {
			return err
		}
		n, _ := r.RowsAffected()
		failed = int(n)
		r, err = tx.ExecContext(ctx, `UPDATE jobs
			SET state = 'pending', updated_ms = ?, lease_ms = 0, run_after_ms = 0, lease_owner = '',
				error = 'lease expired (worker stopped or timed out) during attempt ' || attempts
			WHERE state = 'processing' AND lease_ms <= ?`, now, now)
		if err != nil {
			return err
		}
		n, _ = r.RowsAffected()
		requeued = int(n)
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("storage: recover stale jobs: %w", err)
	}
	return requeued + interrupted, failed, nil
}

// ReclaimDeadLeases returns to pending, at once, every processing job whose
// lease owner is no longer alive: the process that claimed it died (kill -9,
// a crash, a power cut) or closed its store in the middle of the job. The
// cut-off attempt is not counted (attempts goes back down by one), because
// the job did not fail: a job interrupted any number of times is never
// failed for it. Jobs of a live owner (this store, or another process that
// has the data dir open) keep their claim. Open calls it; RecoverStaleJobs
// too, for a second process that dies while this one runs.
func (s *Store) ReclaimDeadLeases(ctx context.Context) (int, error) {
	rows, err := s.w.QueryContext(ctx, `SELECT DISTINCT lease_owner FROM jobs
		WHERE state = 'processing' AND lease_owner != '' AND lease_owner != ?`, s.owner.id)
	if err != nil {
		return 0, fmt.Errorf("storage: reclaim dead leases: %w", err)
	}
	var owners []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			rows.Close()
			return 0, fmt.Errorf("storage: reclaim dead leases: %w", err)
		}
		owners = append(owners, o)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, fmt.Errorf("storage: reclaim dead leases: %w", err)
	}
	var dead []any
	for _, o := range owners {
		alive, err := ownerAlive(s.cfg.Dir, o)
		if err != nil {
			// Unknown is alive: the lease still bounds the wait.
			s.log.Warn("job lease owner liveness unknown; its jobs wait for their lease", "owner", o, "err", err)
		}
		if !alive {
			dead = append(dead, o)
		}
	}
	if len(dead) == 0 {
		return 0, nil
	}
	var n int64
	err = s.update(ctx, func(tx *sql.Tx) error {
		r, err := tx.ExecContext(ctx, `UPDATE jobs
			SET state = 'pending', attempts = max(attempts - 1, 0), updated_ms = ?, lease_ms = 0, run_after_ms = 0, lease_owner = '',
				error = 'interrupted: the process running attempt ' || attempts || ' stopped (not counted as an attempt)'
			WHERE state = 'processing' AND lease_owner IN (`+placeholders(len(dead))+`)`,
			append([]any{s.now().UnixMilli()}, dead...)...)
		if err != nil {
			return err
		}
		n, err = r.RowsAffected()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("storage: reclaim dead leases: %w", err)
	}
	if n > 0 {
		s.log.Warn("jobs of a stopped process returned to pending", "jobs", n, "owners", len(dead))
	}
	return int(n), nil
}

// GetJob returns one job. An empty user finds any user's job (operator
// tools); otherwise another user's job is ErrNotFound, like a missing one.
func (s *Store) GetJob(ctx context.Context, user, id string) (_ Job, err error) {
	defer s.fault(&err)
	q, args := `SELECT `+jobCols+` FROM jobs WHERE id = ?`, []any{id}
	if user != "" {
		q, args = q+` AND user_id = ?`, append(args, user)
	}
	j, err := scanJob(s.r.QueryRowContext(ctx, q, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return Job{}, ErrNotFound
	}
	if err != nil {
		return Job{}, fmt.Errorf("storage: get job %s: %w", id, err)
	}
	return j, nil
}

// ListJobs returns the jobs matching f, newest first.
func (s *Store) ListJobs(ctx context.Context, f JobFilter) (_ []Job, err error) {
	defer s.fault(&err)
	if f.Limit <= 0 || f.Limit > MaxJobList {
		return nil, errorf(ErrInvalid, "limit must be in 1..%d", MaxJobList)
	}
	if f.State != "" && !ValidJobState(f.State) {
		return nil, errorf(ErrInvalid, "unknown job state %q", f.State)
	}
	var (
		where []string
		args  []any
	)
	for _, c := range []struct{ col, v string }{{"user_id", f.UserID}, {"state", f.State}, {"kind", f.Kind}} {
		if c.v != "" {
			where = append(where, c.col+" = ?")
			args = append(args, c.v)
		}
	}
	q := `SELECT ` + jobCols + ` FROM jobs`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY created_ms DESC, id DESC LIMIT ?`, append(args, f.Limit)...)
	if err != nil {
		return nil, fmt.Errorf("storage: list jobs: %w", err)
	}
	defer rows.Close()
	out := []Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("storage: list jobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("storage: list jobs: %w", err)
	}
	return out, nil
}

// RetryJob puts a failed job back to pending with its attempts reset; its
// last error stays until an attempt succeeds. An empty user acts on any
// user's job. A job that is not failed is ErrJobState.
func (s *Store) RetryJob(ctx context.Context, user, id string) (_ Job, err error) {
	defer s.fault(&err)
	q, args := `UPDATE jobs SET state = 'pending', attempts = 0, run_after_ms = 0, lease_ms = 0, lease_owner = '', updated_ms = ?
		WHERE id = ? AND state = 'failed'`, []any{s.now().UnixMilli(), id}
	if user != "" {
		q, args = q+` AND user_id = ?`, append(args, user)
	}
	var job Job
	err = s.update(ctx, func(tx *sql.Tx) error {
		var err error
		job, err = scanJob(tx.QueryRowContext(ctx, q+` RETURNING `+jobCols, args...))
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		// Tell a missing job from one in another state.
		var state string
		q, args := `SELECT state FROM jobs WHERE id = ?`, []any{id}
		if user != "" {
			q, args = q+` AND user_id = ?`, append(args, user)
		}
		err = tx.QueryRowContext(ctx, q, args...).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: job is %s, only failed jobs are retried", ErrJobState, state)
	})
	if errors.Is(err, ErrNotFound) {
		return Job{}, err
	}
	if err != nil {
		return Job{}, fmt.Errorf("storage: retry job %s: %w", id, err)
	}
	return job, nil
}

// PurgeJobs deletes jobs of a final state by age and count (see JobPurge)
// and returns how many it deleted.
func (s *Store) PurgeJobs(ctx context.Context, p JobPurge) (_ int, err error) {
	defer s.fault(&err)
	if p.State != JobFailed && p.State != JobDone {
		return 0, errorf(ErrInvalid, "only failed or done jobs are purged, not %q", p.State)
	}
	if p.Keep < 0 || p.OlderThan < 0 {
		return 0, errorf(ErrInvalid, "keep and age must not be negative")
	}
	before := s.now().Add(-p.OlderThan).UnixMilli()
	scope, scopeArgs := `state = ?`, []any{p.State}
	if p.UserID != "" {
		scope, scopeArgs = scope+` AND user_id = ?`, append(scopeArgs, p.UserID)
	}
	var n int64
	err = s.update(ctx, func(tx *sql.Tx) error {
		if p.All {
			r, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE `+scope, scopeArgs...)
			if err != nil {
				return err
			}
			n, _ = r.RowsAffected()
			return nil
		}
		if p.OlderThan > 0 {
			r, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE `+scope+` AND updated_ms < ?`, append(slices.Clone(scopeArgs), before)...)
			if err != nil {
				return err
			}
			c, _ := r.RowsAffected()
			n += c
		}
		if p.Keep > 0 {
			args := append(append(slices.Clone(scopeArgs), scopeArgs...), p.Keep)
			r, err := tx.ExecContext(ctx, `DELETE FROM jobs WHERE `+scope+` AND id NOT IN
				(SELECT id FROM jobs WHERE `+scope+` ORDER BY updated_ms DESC, id DESC LIMIT ?)`, args...)
			if err != nil {
				return err
			}
			c, _ := r.RowsAffected()
			n += c
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("storage: purge %s jobs: %w", p.State, err)
	}
	return int(n), nil
}
