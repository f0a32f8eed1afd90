package storage

import (
	"context"
	"log/slog"
	"time"
)

// Queue is a data dir's SQLite alone: the job table and the rows jobs
// write (memos, events, profiles), without the Bleve indexes, the indexer
// or the embedder check, so that operator tools (`recalld jobs`,
// `profiles`, `import-undefined`) and a second worker work beside a running
// server. Its methods are the Store methods of the same name, on the same
// SQL; it has no search, indexing or message methods, so nothing can ask it
// for an index it did not open.
type Queue struct{ s *Store }

// QueueConfig configures OpenQueue; its fields mean what Config's do.
type QueueConfig struct {
	Dir                 string
	ProfileRevisionKeep int
	Now                 func() time.Time
	Logger              *slog.Logger
}

// OpenQueue opens (creating if needed) the database in cfg.Dir and applies
// migrations. Like Open, it returns the jobs of owners that died to pending
// first, and claims jobs under an owner of its own.
func OpenQueue(ctx context.Context, cfg QueueConfig) (*Queue, error) {
	s, err := open(ctx, Config{Dir: cfg.Dir, ProfileRevisionKeep: cfg.ProfileRevisionKeep, Now: cfg.Now, Logger: cfg.Logger}, true)
	if err != nil {
		return nil, err
	}
	return &Queue{s}, nil
}

// Close closes the database and gives up the queue's job claims.
func (q *Queue) Close() error { return q.s.Close() }

// RecordedEmbedder is Store.RecordedEmbedder.
func (q *Queue) RecordedEmbedder(ctx context.Context) (name string, dim int, err error) {
	return q.s.RecordedEmbedder(ctx)
}

// EnqueueJob is Store.EnqueueJob.
func (q *Queue) EnqueueJob(ctx context.Context, nj NewJob) (Job, bool, error) {
	return q.s.EnqueueJob(ctx, nj)
}

// ClaimJob is Store.ClaimJob.
func (q *Queue) ClaimJob(ctx context.Context, kind string, lease time.Duration) (Job, bool, error) {
	return q.s.ClaimJob(ctx, kind, lease)
}

// CompleteJob is Store.CompleteJob; the events and profiles it stores are
// indexed by the next Store that opens the data dir (or the one running).
func (q *Queue) CompleteJob(ctx context.Context, claimed Job, res JobResult) (JobOutcome, error) {
	return q.s.CompleteJob(ctx, claimed, res)
}

// FailJob is Store.FailJob.
func (q *Queue) FailJob(ctx context.Context, claimed Job, cause string, maxAttempts int, backoff time.Duration) (Job, error) {
	return q.s.FailJob(ctx, claimed, cause, maxAttempts, backoff)
}

// RecoverStaleJobs is Store.RecoverStaleJobs.
func (q *Queue) RecoverStaleJobs(ctx context.Context, maxAttempts int) (requeued, failed int, err error) {
	return q.s.RecoverStaleJobs(ctx, maxAttempts)
}

// ReclaimDeadLeases is Store.ReclaimDeadLeases.
func (q *Queue) ReclaimDeadLeases(ctx context.Context) (int, error) {
	return q.s.ReclaimDeadLeases(ctx)
}

// GetJob is Store.GetJob.
func (q *Queue) GetJob(ctx context.Context, user, id string) (Job, error) {
	return q.s.GetJob(ctx, user, id)
}

// ListJobs is Store.ListJobs.
func (q *Queue) ListJobs(ctx context.Context, f JobFilter) ([]Job, error) {
	return q.s.ListJobs(ctx, f)
}

// RetryJob is Store.RetryJob.
func (q *Queue) RetryJob(ctx context.Context, user, id string) (Job, error) {
	return q.s.RetryJob(ctx, user, id)
}

// PurgeJobs is Store.PurgeJobs.
func (q *Queue) PurgeJobs(ctx context.Context, p JobPurge) (int, error) { return q.s.PurgeJobs(ctx, p) }

// AddMemo is Store.AddMemo.
func (q *Queue) AddMemo(ctx context.Context, user, requestID string, m NewMemo) (bool, error) {
	return q.s.AddMemo(ctx, user, requestID, m)
}

// ListMemos is Store.ListMemos.
func (q *Queue) ListMemos(ctx context.Context, user string, f MemoFilter) ([]Memo, error) {
	return q.s.ListMemos(ctx, user, f)
}

// ListEvents is Store.ListEvents.
func (q *Queue) ListEvents(ctx context.Context, user string, f EventFilter) ([]Event, error) {
	return q.s.ListEvents(ctx, user, f)
}

// GetProfile is Store.GetProfile.
func (q *Queue) GetProfile(ctx context.Context, user, entityType, entityID string) (Profile, error) {
	return q.s.GetProfile(ctx, user, entityType, entityID)
}

// ListProfiles is Store.ListProfiles.
func (q *Queue) ListProfiles(ctx context.Context, user, entityType string, limit int) ([]Profile, error) {
	return q.s.ListProfiles(ctx, user, entityType, limit)
}

// ProfileRevisions is Store.ProfileRevisions.
func (q *Queue) ProfileRevisions(ctx context.Context, user, entityType, entityID string) ([]ProfileRevision, error) {
	return q.s.ProfileRevisions(ctx, user, entityType, entityID)
}

// RestoreProfile is Store.RestoreProfile.
func (q *Queue) RestoreProfile(ctx context.Context, user, entityType, entityID string, revision int) (Profile, error) {
	return q.s.RestoreProfile(ctx, user, entityType, entityID, revision)
}
