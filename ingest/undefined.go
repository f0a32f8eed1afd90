package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/recalld/recalld/storage"
)

// Kinds of records in Undefined's files.
const (
	// UndefinedSummary is an entry of data/end_summaries.json: a bare
	// string (the oldest format) or {summary, timestamp, location}.
	UndefinedSummary = "end_summary"
	// UndefinedJob is a job of Undefined's cognitive queue
	// (data/cognitive/queues/{pending,processing,failed}/*.json): memo (or
	// action_summary), observations (or new_info) and the turn's scene.
	UndefinedJob = "queue_job"
)

// UndefinedKeyPrefix starts the request id of every imported turn.
const UndefinedKeyPrefix = "undefined:"

// LegacyTurn is one record read from Undefined's files, as a turn to import.
type LegacyTurn struct {
	// Source names the record: "FILE[INDEX]" in an array, else "FILE".
	Source string
	Kind   string // UndefinedSummary or UndefinedJob
	// Turn has RequestID set to a key derived from the record's content, so
	// that importing the same record again stores nothing.
	Turn TurnEnd
	// Err is why the record cannot be imported; Turn is then empty.
	Err error
}

// LegacyOptions say how to read records that lack a time or a zone.
type LegacyOptions struct {
	// DefaultTime dates records without a timestamp (the bare strings of
	// the oldest end_summaries.json).
	DefaultTime time.Time
	// Location reads timestamps without a UTC offset; nil means UTC.
	Location *time.Location
}

// flexString is a JSON string that may also have been written as a number
// (Undefined keeps QQ ids as either).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*f = flexString(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("want a string or a number")
	}
	*f = flexString(n.String())
	return nil
}

// undefinedRecord is the union of the two record shapes. Fields Undefined
// writes that recalld has no use for (bot_name, message_ids,
// profile_targets, perspective, ...) are ignored.
type undefinedRecord struct {
	Summary  string `json:"summary"`
	Location *struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"location"`
	Timestamp json.RawMessage `json:"timestamp"`

	Memo           string            `json:"memo"`
	ActionSummary  string            `json:"action_summary"`
	Observations   json.RawMessage   `json:"observations"`
	NewInfo        json.RawMessage   `json:"new_info"`
	RequestID      flexString        `json:"request_id"`
	EndSeq         json.Number       `json:"end_seq"`
	UserID         flexString        `json:"user_id"`
	GroupID        flexString        `json:"group_id"`
	GroupName      string            `json:"group_name"`
	SenderID       flexString        `json:"sender_id"`
	SenderName     string            `json:"sender_name"`
	RequestType    string            `json:"request_type"`
	TimestampUTC   string            `json:"timestamp_utc"`
	TimestampLocal string            `json:"timestamp_local"`
	TimestampEpoch *float64          `json:"timestamp_epoch"`
	SourceMessage  string            `json:"source_message"`
	RecentMessages []json.RawMessage `json:"recent_messages"`
	Force          json.RawMessage   `json:"force"`
}

// ReadUndefined reads one of Undefined's files: data/end_summaries.json (a
// JSON array of summaries) or a job file of its cognitive queue (one JSON
// object; an array of them works too). It fails only when the file is not
// such JSON at all; a record that cannot be imported comes back with Err.
func ReadUndefined(data []byte, name string, opt LegacyOptions) ([]LegacyTurn, error) {
	data = bytes.TrimSpace(data)
	var items []json.RawMessage
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, fmt.Errorf("%s: not a JSON array: %w", name, err)
		}
	case len(data) > 0 && data[0] == '{':
		if !json.Valid(data) {
			return nil, fmt.Errorf("%s: malformed JSON object", name)
		}
		items = []json.RawMessage{data}
	default:
		return nil, fmt.Errorf("%s: want a JSON array (end_summaries.json) or object (a queue job)", name)
	}
	out := make([]LegacyTurn, 0, len(items))
	seen := map[string]int{} // keys of records without a time, to tell repeats apart
	for i, raw := range items {
		src := name
		if data[0] == '[' {
			src = fmt.Sprintf("%s[%d]", name, i)
		}
		lt := readRecord(raw, opt)
		lt.Source = src
		if lt.Err == nil && lt.Turn.RequestID == "" {
			// No time in the record: the n-th identical one is its own turn.
			k := legacyKey(lt.Kind, lt.Turn, "")
			seen[k]++
			lt.Turn.RequestID = legacyKey(lt.Kind, lt.Turn, strconv.Itoa(seen[k]))
		}
		out = append(out, lt)
	}
	return out, nil
}

// legacyKey is the stable request id of an imported turn: a hash of what
// the record says, so re-importing finds it and the file's rotation (it
// keeps the last 200) does not matter.
func legacyKey(kind string, t TurnEnd, extra ...string) string {
	b, _ := json.Marshal(append([]string{kind, t.Memo, strings.Join(t.Observations, "\x1f"), t.RequestType, t.GroupID, t.GroupName,
		t.SenderID, t.SenderName, t.RequestID}, extra...))
	sum := sha256.Sum256(b)
	return UndefinedKeyPrefix + hex.EncodeToString(sum[:16])
}

func readRecord(raw json.RawMessage, opt LegacyOptions) LegacyTurn {
	fail := func(format string, args ...any) LegacyTurn {
		return LegacyTurn{Err: fmt.Errorf(format, args...)}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		if strings.TrimSpace(s) == "" {
			return fail("empty summary")
		}
		return LegacyTurn{Kind: UndefinedSummary, Turn: TurnEnd{Memo: strings.TrimSpace(s), RequestType: RequestPrivate, Timestamp: opt.DefaultTime}}
	}
	var r undefinedRecord
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return fail("field %s: want %s, got %s", ute.Field, ute.Type, ute.Value)
		}
		return fail("not a summary string or record object: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	kind := UndefinedSummary
	if r.Memo != "" || r.ActionSummary != "" || r.Observations != nil || r.NewInfo != nil {
		kind = UndefinedJob
	}
	t := TurnEnd{
		Memo:          strings.TrimSpace(firstNonEmpty(r.Memo, r.ActionSummary, r.Summary)),
		GroupID:       strings.TrimSpace(string(r.GroupID)),
		GroupName:     strings.TrimSpace(r.GroupName),
		SenderID:      strings.TrimSpace(firstNonEmpty(string(r.SenderID), string(r.UserID))),
		SenderName:    strings.TrimSpace(r.SenderName),
		SourceMessage: r.SourceMessage,
	}
	obs, err := stringList(firstRaw(r.Observations, r.NewInfo))
	if err != nil {
		return fail("observations: %v", err)
	}
	t.Observations = obs
	if t.Memo == "" && len(t.Observations) == 0 {
		return fail("no summary, memo or observations")
	}
	if r.Location != nil {
		name := strings.TrimSpace(r.Location.Name)
		switch r.Location.Type {
		case RequestGroup:
			t.RequestType = RequestGroup
			t.GroupName = firstNonEmpty(t.GroupName, name)
		case RequestPrivate:
			t.RequestType = RequestPrivate
			t.SenderName = firstNonEmpty(t.SenderName, name)
		default:
			return fail("location.type %q: want private or group", r.Location.Type)
		}
	}
	switch rt := strings.ToLower(strings.TrimSpace(r.RequestType)); rt {
	case "":
		if t.RequestType == "" {
			t.RequestType = RequestPrivate
			if t.GroupID != "" {
				t.RequestType = RequestGroup
			}
		}
	case RequestPrivate, RequestGroup:
		t.RequestType = rt
	default:
		return fail("request_type %q: want private or group", r.RequestType)
	}
	if t.RequestType == RequestPrivate {
		t.GroupID = "" // Undefined leaves the group of a private turn empty; never trust one
	}
	for i, m := range r.RecentMessages {
		var line string
		if json.Unmarshal(m, &line) == nil {
			if strings.TrimSpace(line) != "" {
				t.RecentMessages = append(t.RecentMessages, RecentMessage{Text: line})
			}
			continue
		}
		var rm struct {
			Time       flexString `json:"time"`
			Timestamp  flexString `json:"timestamp"`
			SenderName string     `json:"sender_name"`
			SenderID   flexString `json:"sender_id"`
			Text       string     `json:"text"`
			Message    string     `json:"message"`
		}
		if err := json.Unmarshal(m, &rm); err != nil {
			return fail("recent_messages[%d]: want a string or an object", i)
		}
		t.RecentMessages = append(t.RecentMessages, RecentMessage{Time: firstNonEmpty(string(rm.Time), string(rm.Timestamp)),
			SenderName: rm.SenderName, SenderID: string(rm.SenderID), Text: firstNonEmpty(rm.Text, rm.Message)})
	}
	if len(r.Force) > 0 {
		if t.Force, err = looseBool(r.Force); err != nil {
			return fail("force: %v", err)
		}
	}

	// The time: the job's UTC stamp, its epoch, its local stamp, the
	// summary's stamp, else the default.
	stamp := ""
	var ts time.Time
	switch {
	case r.TimestampUTC != "":
		stamp = r.TimestampUTC
	case r.TimestampEpoch != nil:
		if math.IsNaN(*r.TimestampEpoch) || *r.TimestampEpoch <= 0 {
			return fail("timestamp_epoch %v is not a time", *r.TimestampEpoch)
		}
		sec, frac := math.Modf(*r.TimestampEpoch)
		ts = time.Unix(int64(sec), int64(frac*1e9))
		stamp = strconv.FormatFloat(*r.TimestampEpoch, 'f', -1, 64)
	case r.TimestampLocal != "":
		stamp = r.TimestampLocal
	case len(r.Timestamp) > 0 && string(r.Timestamp) != "null":
		if err := json.Unmarshal(r.Timestamp, &stamp); err != nil {
			var n float64
			if json.Unmarshal(r.Timestamp, &n) != nil || n <= 0 {
				return fail("timestamp: want an ISO 8601 string or Unix seconds")
			}
			sec, frac := math.Modf(n)
			ts = time.Unix(int64(sec), int64(frac*1e9))
			stamp = string(r.Timestamp)
		}
	}
	if stamp != "" && ts.IsZero() {
		if ts, err = parseLegacyTime(stamp, opt.Location); err != nil {
			return fail("%v", err)
		}
	}
	if ts.IsZero() {
		t.Timestamp = opt.DefaultTime
	} else {
		t.Timestamp = ts
	}
	if stamp != "" {
		t.RequestID = legacyKey(kind, t, stamp, string(r.RequestID), r.EndSeq.String())
	}
	return LegacyTurn{Kind: kind, Turn: t}
}

// parseLegacyTime reads Python's isoformat(): with an offset it is RFC 3339;
// without one it is a wall time in loc.
func parseLegacyTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if loc == nil {
		loc = time.UTC
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q is not an ISO 8601 time", s)
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

func firstRaw(vs ...json.RawMessage) json.RawMessage {
	for _, v := range vs {
		if len(v) > 0 && string(v) != "null" {
			return v
		}
	}
	return nil
}

// stringList reads a string or a list of strings, dropping blank ones.
func stringList(raw json.RawMessage) ([]string, error) {
	if raw == nil {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if strings.TrimSpace(one) == "" {
			return nil, nil
		}
		return []string{strings.TrimSpace(one)}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("want a string or a list of strings")
	}
	out := []string{}
	for _, s := range many {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// looseBool reads Undefined's lenient booleans: true/false, 0/1, "yes"/"no".
func looseBool(raw json.RawMessage) (bool, error) {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return b, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n float64
		if json.Unmarshal(raw, &n) != nil {
			return false, errors.New("want a boolean")
		}
		return n != 0, nil
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "y", "on":
		return true, nil
	case "0", "false", "no", "n", "off", "":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean", s)
}

// MergeUndefined drops the summaries that repeat a queue job's memo: the end
// tool wrote a turn's memo to end_summaries.json and, with its
// observations, to the queue. A summary with the same text as a job's memo,
// dated within two minutes of it, is the same turn. It returns the turns to
// import and how many were dropped.
func MergeUndefined(turns []LegacyTurn) ([]LegacyTurn, int) {
	const window = 2 * time.Minute
	jobs := map[string][]time.Time{}
	for _, lt := range turns {
		if lt.Err == nil && lt.Kind == UndefinedJob && lt.Turn.Memo != "" {
			jobs[lt.Turn.Memo] = append(jobs[lt.Turn.Memo], lt.Turn.Timestamp)
		}
	}
	out := make([]LegacyTurn, 0, len(turns))
	dropped := 0
	for _, lt := range turns {
		if lt.Err == nil && lt.Kind == UndefinedSummary {
			dup := false
			for _, at := range jobs[lt.Turn.Memo] {
				if d := lt.Turn.Timestamp.Sub(at); d <= window && d >= -window {
					dup = true
				}
			}
			if dup {
				dropped++
				continue
			}
		}
		out = append(out, lt)
	}
	return out, dropped
}

// Import stores one turn read from an old format. A turn with observations
// is queued like an ended turn (its memo with it), so that the historian
// makes its events the normal way; a turn with only a memo stores the memo
// alone, with no job. Either way the request id makes it idempotent:
// Duplicate reports a turn imported before. Unlike Enqueue, a group turn may
// lack its group id when it has no observations (the old summaries know
// only the group's name).
func (q *Queue) Import(ctx context.Context, user string, t TurnEnd) (Receipt, error) {
	if t.RequestID == "" {
		return Receipt{}, invalid("an imported turn needs a request id")
	}
	if len(t.Observations) > 0 {
		return q.Enqueue(ctx, user, t)
	}
	// Validate as a private turn when a group turn lacks its id.
	nameOnly := t.RequestType == RequestGroup && t.GroupID == ""
	if nameOnly {
		t.RequestType = RequestPrivate
	}
	t, err := t.normalize(q.now())
	if err != nil {
		return Receipt{}, err
	}
	if nameOnly {
		t.RequestType = RequestGroup
	}
	if strings.TrimSpace(t.Memo) == "" {
		return Receipt{}, invalid("nothing to import: no memo and no observations")
	}
	created, err := q.store.AddMemo(ctx, user, t.RequestID, storage.NewMemo{
		GroupID: t.GroupID, GroupName: t.GroupName, SenderID: t.SenderID, SenderName: t.SenderName,
		RequestType: t.RequestType, Content: t.Memo, Timestamp: t.Timestamp,
	})
	if err != nil {
		return Receipt{}, err
	}
	return Receipt{Queued: false, Duplicate: !created, Reason: "memo only: stored without a job"}, nil
}

// ReadUndefinedPaths reads the Undefined files at paths (see ReadUndefined):
// a directory stands for the *.json files in it (a queue directory), in
// name order. A record without a time of its own is dated opt.DefaultTime,
// or, when that is zero, its file's modification time.
func ReadUndefinedPaths(paths []string, opt LegacyOptions) ([]LegacyTurn, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(p, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("%s: no *.json files", p)
		}
		slices.Sort(matches)
		files = append(files, matches...)
	}
	var turns []LegacyTurn
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		o := opt
		if o.DefaultTime.IsZero() {
			st, err := os.Stat(f)
			if err != nil {
				return nil, err
			}
			o.DefaultTime = st.ModTime()
		}
		ts, err := ReadUndefined(data, f, o)
		if err != nil {
			return nil, err
		}
		turns = append(turns, ts...)
	}
	return turns, nil
}
