package ingest

import (
	"context"
	"fmt"
	"time"

	"github.com/recalld/recalld/storage"
)

// DefaultTimeZone is where relative times are resolved unless configured.
const DefaultTimeZone = "Asia/Shanghai"

// HistorianConfig tunes the offline historian.
type HistorianConfig struct {
	// Location resolves relative times ("yesterday" is a date there); nil
	// means DefaultTimeZone.
	Location *time.Location
	// SourceMax is how many characters of the source message an event keeps
	// (default 800).
	SourceMax int
	// Kinds tells the fact extractor what things are (a mangosteen is a
	// food); nil: the lexicon's word lists only (see ExtractFacts).
	Kinds *Kinds
}

// Historian is the offline historian, the default Processor: it rewrites
// each observation of a turn to absolute form with rules (relative times to
// dates in its time zone, first and second person to the sender's name and
// id), checks what is left with zh and en word lists, and makes one event
// per observation. It is deterministic and needs no model.
type Historian struct {
	cfg HistorianConfig
}

// NewHistorian returns the offline historian.
func NewHistorian(cfg HistorianConfig) *Historian {
	if cfg.Location == nil {
		cfg.Location = shanghai()
	}
	if cfg.SourceMax <= 0 {
		cfg.SourceMax = 800
	}
	return &Historian{cfg: cfg}
}

// shanghai is Asia/Shanghai, or its fixed offset (no DST since 1991) on a
// system without the time zone database.
func shanghai() *time.Location {
	if loc, err := time.LoadLocation(DefaultTimeZone); err == nil {
		return loc
	}
	return time.FixedZone(DefaultTimeZone, 8*3600)
}

var _ Processor = (*Historian)(nil)

// Process returns the events of job's observations, one per observation,
// with ids derived from the job so that storing them twice stores them once,
// and the profile changes they make (see ProfileMerges).
func (h *Historian) Process(ctx context.Context, job Job) (Result, error) {
	evs := h.Events(job)
	return Result{Events: evs, Profiles: ProfileMerges(job.Turn, evs, h.cfg.Kinds)}, nil
}

// Events returns the events of job's observations.
func (h *Historian) Events(job Job) []storage.Event {
	t := job.Turn
	sc := scene{at: t.Timestamp.In(h.cfg.Location), senderID: t.SenderID, senderName: t.SenderName}
	mat := materialOf(t)
	evs := make([]storage.Event, 0, len(t.Observations))
	for i, obs := range t.Observations {
		rw := absolutize(obs, sc)
		v := verdict{leftovers: rw.leftovers, drift: mat.drift(textIDs(rw.text))}
		evs = append(evs, h.event(job, i, rw.text, v))
	}
	return evs
}

// event is observation i of job rewritten to content, judged by v. Its id
// derives from the job, the index and the perspective, so that storing it
// twice stores it once.
func (h *Historian) event(job Job, i int, content string, v verdict) storage.Event {
	t := job.Turn
	perspective := storage.PerspectiveSender
	if t.RequestType == RequestGroup {
		perspective = storage.PerspectiveGroup
	}
	e := storage.Event{
		ID:             fmt.Sprintf("%s:%d:%s", job.ID, i, perspective),
		UserID:         job.UserID,
		GroupID:        t.GroupID,
		SenderID:       t.SenderID,
		SenderName:     t.SenderName,
		JobID:          job.ID,
		Perspective:    perspective,
		RequestType:    t.RequestType,
		Content:        content,
		Original:       t.Observations[i],
		Timestamp:      t.Timestamp.UTC(),
		TimestampLocal: t.Timestamp.In(h.cfg.Location),
		SourceMessage:  truncate(t.SourceMessage, h.cfg.SourceMax),
		SchemaVersion:  storage.EventSchemaVersion,
	}
	e.IsAbsolute, e.Warning = v.outcome(t.Force)
	return e
}

// truncate keeps the first max characters of s.
func truncate(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
