package storage

import (
	"encoding/json"
	"time"
)

// Roles a message may have.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleTool      = "tool"
)

// ValidRole reports whether r is one of the message roles.
func ValidRole(r string) bool {
	switch r {
	case RoleUser, RoleAssistant, RoleSystem, RoleTool:
		return true
	}
	return false
}

// Message is one chat message as a bot sent it. SQLite holds it verbatim; the
// vector and lexical indexes are derived from it.
type Message struct {
	ID             string          `json:"id"`
	UserID         string          `json:"user_id"`
	ConversationID string          `json:"conversation_id"`
	GroupID        string          `json:"group_id,omitempty"`
	Role           string          `json:"role"`
	SenderID       string          `json:"sender_id,omitempty"`
	SenderName     string          `json:"sender_name,omitempty"`
	Content        string          `json:"content"`
	CreatedAt      time.Time       `json:"created_at"`
	Meta           json.RawMessage `json:"meta,omitempty"`
}

// Filter narrows a query to part of one user's messages. Zero values match all.
type Filter struct {
	Role           string
	Since, Until   time.Time // Since inclusive, Until exclusive
	ConversationID string
	GroupID        string
}

// Hit is a message found by a search, with its score (higher is better).
type Hit struct {
	Message
	Score float64
}

// InsertResult tells what happened to each message of a batch, in order.
type InsertResult struct {
	Inserted  int
	Duplicate int // same id and same content: a no-op
}

// IndexStatus describes the derived indexes.
type IndexStatus struct {
	Embedder string `json:"embedder"`
	Dim      int    `json:"dim"`
	Pending  int    `json:"pending"` // outbox entries not yet indexed
	// Semantic is SemanticOK, SemanticUnavailable (the embedder fails:
	// lexical-only until it answers) or SemanticOff (no vectors for this
	// embedder: lexical-only mode, or a reindex is due).
	Semantic string `json:"semantic"`
	// EmbedderError is the embedder's last failure while it is unavailable.
	EmbedderError string `json:"embedder_error,omitempty"`
	// Unvectored counts messages indexed lexically that still wait for
	// their vector (the embedder failed when they came); 0 when Semantic is off.
	Unvectored int `json:"unvectored"`
}

// States of IndexStatus.Semantic.
const (
	SemanticOK          = "ok"
	SemanticUnavailable = "unavailable"
	SemanticOff         = "off"
)

// States of a job. A job moves pending → processing → done, or back to
// pending when an attempt fails or its lease expires, and to failed once it
// has used its attempts; when the process holding it dies it goes back to
// pending at once, and that attempt is not counted. Failed jobs stay, with
// their error, until purged or retried.
const (
	JobPending    = "pending"
	JobProcessing = "processing"
	JobDone       = "done"
	JobFailed     = "failed"
)

// ValidJobState reports whether s is one of the job states.
func ValidJobState(s string) bool {
	switch s {
	case JobPending, JobProcessing, JobDone, JobFailed:
		return true
	}
	return false
}

// Job is one unit of background work of a user, durable in the jobs table.
type Job struct {
	ID     string `json:"id"` // ULID
	UserID string `json:"user_id"`
	Kind   string `json:"kind"`
	// Key deduplicates enqueues of one user and kind (the bot's request id);
	// empty means no deduplication.
	Key     string          `json:"key,omitempty"`
	Payload json.RawMessage `json:"payload"`
	State   string          `json:"state"`
	// Attempts counts the claims that count towards the retry limit: every
	// claim, less those cut off by the death of the claiming process.
	Attempts int `json:"attempts"`
	// Error is the last failure, kept when the job ends failed.
	Error     string    `json:"error,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// RunAfter delays the next claim of a pending job after a failure.
	RunAfter time.Time `json:"run_after,omitzero"`
	// LeaseUntil is when the claim of a processing job expires.
	LeaseUntil time.Time `json:"lease_until,omitzero"`
	// LeaseOwner is the open store (one per process) that claimed a
	// processing job; with Attempts it fences the claim.
	LeaseOwner string `json:"-"`
}

// NewJob is a job to enqueue.
type NewJob struct {
	UserID  string
	Kind    string
	Key     string // optional deduplication key
	Payload json.RawMessage
	// Memo, if set, is stored with a new job in the same transaction.
	Memo *NewMemo
}

// JobFilter selects jobs to list. Zero values match all.
type JobFilter struct {
	// UserID restricts the list to one user. Empty lists every user's jobs,
	// which only operator tools do.
	UserID string
	State  string
	Kind   string
	Limit  int // required, at most MaxJobList
}

// JobPurge selects jobs of one final state to delete.
type JobPurge struct {
	State string // JobFailed or JobDone
	// UserID restricts the purge to one user's jobs; empty purges every
	// user's, which only operator tools do.
	UserID string
	// OlderThan deletes the jobs last updated longer ago than it (0: no age limit).
	OlderThan time.Duration
	// Keep deletes all but the Keep most recently updated (0: no count limit).
	Keep int
	// All deletes every job of the state (of UserID, when set), whatever
	// OlderThan and Keep say.
	All bool
}

// Perspectives of an event: whose memory it belongs to.
const (
	PerspectiveGroup  = "group"
	PerspectiveSender = "sender"
	PerspectiveGlobal = "global"
)

// EventSchemaVersion is the version of the event record written now.
const EventSchemaVersion = 1

// Event is an observation rewritten to absolute form by the historian.
type Event struct {
	ID          string `json:"id"` // job id : observation index : perspective
	UserID      string `json:"user_id"`
	GroupID     string `json:"group_id,omitempty"`
	SenderID    string `json:"sender_id,omitempty"`
	SenderName  string `json:"sender_name,omitempty"`
	JobID       string `json:"job_id"`
	Perspective string `json:"perspective"`  // group | sender | global
	RequestType string `json:"request_type"` // private | group
	Content     string `json:"content"`      // the absolute form
	Original    string `json:"original"`     // the observation as the bot wrote it
	// IsAbsolute is false when the rule check found relative words left;
	// Warning names them.
	IsAbsolute bool   `json:"is_absolute"`
	Warning    string `json:"warning,omitempty"`
	// Timestamp is when the turn happened; TimestampLocal is the same instant
	// in the historian's time zone.
	Timestamp      time.Time `json:"timestamp_utc"`
	TimestampLocal time.Time `json:"timestamp_local"`
	SourceMessage  string    `json:"source_message,omitempty"`
	SchemaVersion  int       `json:"schema_version"`
}

// EventFilter narrows a list of one user's events. Zero values match all.
type EventFilter struct {
	GroupID string
	JobID   string
	// Before keeps events of turns before it (a page of a timeline
	// continues from the oldest event it showed); zero: no bound.
	Before time.Time
	Limit  int // required, at most MaxEventList
}

// Entity types of a profile.
const (
	EntityUser  = "user"
	EntityGroup = "group"
)

// ValidEntityType reports whether t is one of the profile entity types.
func ValidEntityType(t string) bool { return t == EntityUser || t == EntityGroup }

// Polarities of a trait: whether the entity is for or against its value.
const (
	PolarityPositive = "positive"
	PolarityNegative = "negative"
)

// Trait is one long-lived fact in a profile.
type Trait struct {
	// Category groups traits (diet, location, hobby...); Slot is what the
	// trait is about inside it: a newer trait on the same category and slot
	// replaces the older one.
	Category string `json:"category"`
	Slot     string `json:"slot"`
	Value    string `json:"value"`
	// Polarity is positive or negative for likes and dislikes, else empty.
	Polarity string `json:"polarity,omitempty"`
	// Lang is the language the fact was stated in (zh or en).
	Lang          string    `json:"lang,omitempty"`
	FirstSeen     time.Time `json:"first_seen"`
	LastSeen      time.Time `json:"last_seen"`
	SourceEventID string    `json:"source_event_id,omitempty"`
}

// ProfileContent is what a revision of a profile holds.
type ProfileContent struct {
	Name    string   `json:"name"`
	Tags    []string `json:"tags"`
	Traits  []Trait  `json:"traits"`
	Summary string   `json:"summary"`
}

// Profile is what the memory of one user knows about a person (entity type
// user, id = sender id) or a group (id = group id).
type Profile struct {
	UserID     string `json:"user_id"`
	EntityType string `json:"entity_type"`
	EntityID   string `json:"entity_id"`
	ProfileContent
	// Revision counts the profile's changes; 0 means it was never stored.
	Revision  int       `json:"revision"`
	UpdatedAt time.Time `json:"updated_at"`
}

// ProfileRevision is a kept state of a profile: the state its change produced.
type ProfileRevision struct {
	Revision int `json:"revision"`
	// Source is what made the change: job:<id> or restore:<revision>.
	Source    string         `json:"source"`
	CreatedAt time.Time      `json:"created_at"`
	Profile   ProfileContent `json:"profile"`
}

// ProfileMerge changes one profile of a job's user in the transaction that
// completes the job. Apply gets the stored profile (Revision 0 when there is
// none) and returns it changed; it must be a pure function (it may run again
// when the transaction is retried). A result equal to the input stores nothing.
type ProfileMerge struct {
	EntityType string
	EntityID   string
	Apply      func(Profile) Profile
}

// JobResult is what a job produced; CompleteJob stores it with the job's
// completion, once.
type JobResult struct {
	Events   []Event
	Profiles []ProfileMerge
}

// JobOutcome counts what completing a job stored.
type JobOutcome struct {
	Events   int // new events
	Profiles int // profiles that changed (each got a new revision)
}

// RankedProfile is a profile at its position in one of SearchProfiles'
// rankings: Rank is 0 for the best, and profiles deleted since the search
// (dropped from the ranking) still count.
type RankedProfile struct {
	Profile
	Rank int
}

// ProfileRankings are SearchProfiles' two rankings of profiles, best first:
// BM25 over their text and the cosine similarity of their vectors (empty
// without a working embedder).
type ProfileRankings struct {
	Lexical  []RankedProfile
	Semantic []RankedProfile
}

// ProfileHit is a profile found by search_profiles, with its fused score
// (queryapi fuses SearchProfiles' rankings).
type ProfileHit struct {
	Profile
	Score float64 `json:"score"`
}

// ProfileQuery searches one user's profiles.
type ProfileQuery struct {
	Text       string
	EntityType string // "" for both
	TopK       int
}

// Memo is the note a bot left when it ended a turn. It is stored with the
// turn's job, in the same transaction.
type Memo struct {
	ID          string `json:"id"` // the id of the job it came with, or its own ULID
	UserID      string `json:"user_id"`
	RequestID   string `json:"request_id,omitempty"`
	JobID       string `json:"job_id,omitempty"` // empty for a memo stored without a job (AddMemo)
	GroupID     string `json:"group_id,omitempty"`
	GroupName   string `json:"group_name,omitempty"`
	SenderID    string `json:"sender_id,omitempty"`
	SenderName  string `json:"sender_name,omitempty"`
	RequestType string `json:"request_type"` // private | group
	Content     string `json:"content"`
	// Timestamp is when the turn happened (UTC); Epoch is the same in seconds.
	Timestamp time.Time `json:"timestamp_utc"`
	Epoch     int64     `json:"timestamp_epoch"`
	CreatedAt time.Time `json:"created_at"`
}

// NewMemo is the memo of a job being enqueued. The job supplies its id, user
// and request id.
type NewMemo struct {
	GroupID     string
	GroupName   string
	SenderID    string
	SenderName  string
	RequestType string // private | group
	Content     string
	Timestamp   time.Time
}

// MemoFilter narrows a list of one user's memos. Zero values match all.
type MemoFilter struct {
	GroupID     string
	SenderID    string
	RequestType string
	Limit       int // required, at most MaxMemoList
}

// Memory is a pinned long-term memory: a fact a user's bot always sees.
type Memory struct {
	ID     string `json:"id"`
	UserID string `json:"user_id"`
	// GroupID scopes the memory to one group chat; empty means everywhere.
	GroupID   string    `json:"group_id,omitempty"`
	Content   string    `json:"content"`
	Tags      []string  `json:"tags"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// MemoryFilter selects a user's pinned memories.
type MemoryFilter struct {
	// GroupID lists the memories that apply in this group: the unscoped ones
	// and those scoped to it. Empty lists all of them.
	GroupID string
	// Exact lists only the memories scoped to exactly GroupID (with an empty
	// GroupID: only the unscoped ones).
	Exact bool
}

// MemoryPatch changes some fields of a pinned memory; nil leaves a field as it is.
type MemoryPatch struct {
	Content *string
	GroupID *string
	Tags    *[]string
}
