package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/recalld/recalld/storage"
)

// ErrInvalidTurn marks an end-of-turn payload that fails validation. It
// comes as an *InvalidTurnError.
var ErrInvalidTurn = errors.New("ingest: invalid turn")

// InvalidTurnError is an ErrInvalidTurn whose Msg, what is wrong with the
// turn, a client may see (the HTTP and MCP layers read it with errors.As).
type InvalidTurnError struct{ Msg string }

// Error is ErrInvalidTurn's text, a colon and Msg.
func (e *InvalidTurnError) Error() string { return ErrInvalidTurn.Error() + ": " + e.Msg }

// Unwrap returns ErrInvalidTurn.
func (e *InvalidTurnError) Unwrap() error { return ErrInvalidTurn }

// KindTurnEnd is the job kind of an ended turn.
const KindTurnEnd = "turn_end"

// Request types of a turn.
const (
	RequestPrivate = "private"
	RequestGroup   = "group"
)

// Limits of an end-of-turn payload, in bytes.
const (
	MaxIDLen          = 256
	MaxMemo           = 16 << 10
	MaxObservations   = 50
	MaxObservation    = 4 << 10
	MaxSourceMessage  = 64 << 10
	MaxRecentMessages = 100
	MaxRecentText     = 8 << 10
)

// TurnEnd is what a bot sends when it ends a turn (its `end` tool): a memo of
// the turn and observations for the historian, with the scene they came from.
// The user is never part of it; it comes from the caller's credentials.
type TurnEnd struct {
	// RequestID identifies the turn; re-sending it finds the job already queued.
	RequestID    string   `json:"request_id,omitempty"`
	Memo         string   `json:"memo,omitempty"`
	Observations []string `json:"observations,omitempty"`
	// Force asks the historian to store the observations even when its rule
	// check finds relative words left.
	Force bool `json:"force,omitempty"`
	// SourceMessage is the message that started the turn, as received.
	SourceMessage  string          `json:"source_message,omitempty"`
	RecentMessages []RecentMessage `json:"recent_messages,omitempty"`
	GroupID        string          `json:"group_id,omitempty"`
	GroupName      string          `json:"group_name,omitempty"`
	SenderID       string          `json:"sender_id,omitempty"`
	SenderName     string          `json:"sender_name,omitempty"`
	// RequestType is private or group; empty means group when GroupID is
	// set, else private.
	RequestType string `json:"request_type,omitempty"`
	// Timestamp is when the turn happened; relative times in the
	// observations are resolved against it. Zero means when it was enqueued.
	Timestamp time.Time `json:"timestamp,omitzero"`
}

// RecentMessage is one line of the conversation before the turn.
type RecentMessage struct {
	Time       string `json:"time,omitempty"`
	SenderName string `json:"sender_name,omitempty"`
	SenderID   string `json:"sender_id,omitempty"`
	// Text is required (an empty string is fine): an HTTP body without it
	// is refused.
	Text string `json:"text" jsonschema:"required"`
}

func invalid(format string, args ...any) error {
	return &InvalidTurnError{Msg: fmt.Sprintf(format, args...)}
}

// checkID reports whether s is printable UTF-8 of at most MaxIDLen bytes.
func checkID(name, s string) error {
	if len(s) > MaxIDLen || !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return invalid("%s must be printable UTF-8 of at most %d bytes", name, MaxIDLen)
	}
	return nil
}

func checkText(name, s string, max int) error {
	if len(s) > max {
		return invalid("%s is longer than %d bytes", name, max)
	}
	if !utf8.ValidString(s) {
		return invalid("%s is not valid UTF-8", name)
	}
	return nil
}

// normalize validates t, drops blank observations, infers the request type
// and fills a zero timestamp with now.
func (t TurnEnd) normalize(now time.Time) (TurnEnd, error) {
	for _, f := range []struct{ name, v string }{
		{"request_id", t.RequestID}, {"group_id", t.GroupID}, {"group_name", t.GroupName},
		{"sender_id", t.SenderID}, {"sender_name", t.SenderName},
	} {
		if err := checkID(f.name, f.v); err != nil {
			return t, err
		}
	}
	if err := checkText("memo", t.Memo, MaxMemo); err != nil {
		return t, err
	}
	if err := checkText("source_message", t.SourceMessage, MaxSourceMessage); err != nil {
		return t, err
	}
	if len(t.Observations) > MaxObservations {
		return t, invalid("at most %d observations, got %d", MaxObservations, len(t.Observations))
	}
	obs := make([]string, 0, len(t.Observations))
	for i, o := range t.Observations {
		if err := checkText(fmt.Sprintf("observations[%d]", i), o, MaxObservation); err != nil {
			return t, err
		}
		if o = strings.TrimSpace(o); o != "" {
			obs = append(obs, o)
		}
	}
	t.Observations = obs
	if len(t.RecentMessages) > MaxRecentMessages {
		return t, invalid("at most %d recent_messages, got %d", MaxRecentMessages, len(t.RecentMessages))
	}
	for i, m := range t.RecentMessages {
		for _, f := range []struct{ name, v string }{{"time", m.Time}, {"sender_id", m.SenderID}, {"sender_name", m.SenderName}} {
			if err := checkID(fmt.Sprintf("recent_messages[%d].%s", i, f.name), f.v); err != nil {
				return t, err
			}
		}
		if err := checkText(fmt.Sprintf("recent_messages[%d].text", i), m.Text, MaxRecentText); err != nil {
			return t, err
		}
	}
	switch t.RequestType {
	case "":
		t.RequestType = RequestPrivate
		if t.GroupID != "" {
			t.RequestType = RequestGroup
		}
	case RequestPrivate:
		if t.GroupID != "" {
			return t, invalid("group_id is set but request_type is private")
		}
	case RequestGroup:
		if t.GroupID == "" {
			return t, invalid("request_type group needs a group_id")
		}
	default:
		return t, invalid("request_type %q: want private or group", t.RequestType)
	}
	if t.Timestamp.IsZero() {
		t.Timestamp = now
	}
	t.Timestamp = t.Timestamp.UTC()
	return t, nil
}

// empty reports whether the turn has nothing for the historian.
func (t TurnEnd) empty() bool {
	return strings.TrimSpace(t.Memo) == "" && len(t.Observations) == 0
}

// Receipt tells a bot what became of its ended turn.
type Receipt struct {
	// Queued is false when the turn had neither memo nor observations: the
	// turn ended and nothing was stored.
	Queued bool   `json:"queued"`
	JobID  string `json:"job_id,omitempty"`
	// Duplicate means the request id was queued before; JobID is that job.
	Duplicate bool   `json:"duplicate,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// Queue accepts ended turns and makes them durable jobs for the Worker.
type Queue struct {
	store jobTable
	now   func() time.Time
}

// jobTable is what a Queue needs of storage: a *storage.Store (serve) or a
// *storage.Queue (import-undefined beside a running server).
type jobTable interface {
	EnqueueJob(ctx context.Context, nj storage.NewJob) (storage.Job, bool, error)
	AddMemo(ctx context.Context, user, requestID string, m storage.NewMemo) (bool, error)
}

var (
	_ jobTable = (*storage.Store)(nil)
	_ jobTable = (*storage.Queue)(nil)
)

// NewQueue returns a queue over store's job table.
func NewQueue(store jobTable) *Queue {
	return &Queue{store: store, now: time.Now}
}

// Enqueue validates t and stores it as a pending job of user, with its memo
// (see storage.ListMemos), in one transaction: when it returns a receipt
// with Queued, the job and the memo survive a crash and the memo is already
// listed. A turn with neither memo nor observations queues nothing.
func (q *Queue) Enqueue(ctx context.Context, user string, t TurnEnd) (Receipt, error) {
	t, err := t.normalize(q.now())
	if err != nil {
		return Receipt{}, err
	}
	if t.empty() {
		return Receipt{Queued: false, Reason: "no memo and no observations: the turn ended, nothing was queued"}, nil
	}
	payload, err := json.Marshal(t)
	if err != nil {
		return Receipt{}, fmt.Errorf("ingest: encode turn: %w", err)
	}
	nj := storage.NewJob{UserID: user, Kind: KindTurnEnd, Key: t.RequestID, Payload: payload}
	if memo := strings.TrimSpace(t.Memo); memo != "" {
		nj.Memo = &storage.NewMemo{
			GroupID: t.GroupID, GroupName: t.GroupName, SenderID: t.SenderID, SenderName: t.SenderName,
			RequestType: t.RequestType, Content: memo, Timestamp: t.Timestamp,
		}
	}
	job, created, err := q.store.EnqueueJob(ctx, nj)
	if err != nil {
		return Receipt{}, err
	}
	return Receipt{Queued: true, JobID: job.ID, Duplicate: !created}, nil
}
