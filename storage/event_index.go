package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
)

// Events are indexed like messages: insertEvents writes an 'event_index'
// outbox entry in the transaction that stores the event, and the indexer
// writes the event's lexical document (into bleve_events/, an index of its
// own so that message rankings and their statistics never see events) and
// its vector (vec_events, partitioned by user_id) the same way it does for
// messages, resuming after a crash.

// Outbox operation of an event; msg_seq holds events.seq.
const opEventIndex = "event_index"

// eventIndexDir is the events' Bleve index beside the messages' bleve/.
const eventIndexDir = "bleve_events"

// Bleve field names of event documents (user_id, group_id and the text
// fields share the messages' names).
const (
	fSender = "sender_id"
	fTS     = "ts" // timestamp_epoch, seconds
)

func eventIndexMapping() (*mapping.IndexMappingImpl, error) {
	im, err := newMapping()
	if err != nil {
		return nil, err
	}
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fUser, keywordField(fUser))
	doc.AddFieldMappingsAt(fGroup, keywordField(fGroup))
	doc.AddFieldMappingsAt(fSender, keywordField(fSender))
	doc.AddFieldMappingsAt(fTS, numericField())
	doc.AddFieldMappingsAt("text", textField(fTextCJK, cjkAnalyzer), textField(fTextEN, en.AnalyzerName))
	im.DefaultMapping = doc
	return im, nil
}

// vecEventsDDL is the DDL of the events' vector table for the embedder,
// named name.
func (s *Store) vecEventsDDL(name string, ifNotExists bool) string {
	ine := ""
	if ifNotExists {
		ine = "IF NOT EXISTS "
	}
	return fmt.Sprintf(`CREATE VIRTUAL TABLE %s%s USING vec0(
		user_id text partition key,
		%s
		group_id text,
		sender_id text,
		ts integer,
		embedding int8[%d] distance_metric=cosine,
		coarse bit[%d],
		chunk_size=%d
	)`, ine, name, shardColumn(name), s.emb.Dim(), coarseBits, chunkSizeOf(name))
}

// pendingEvent is an event on its way into the indexes.
type pendingEvent struct {
	seq           int64
	user          string
	group, sender string
	ts            int64
	text          string
	vec           []float32
	terms         []uint64
}

// eventDocID is the Bleve id of an event.
func eventDocID(seq int64) string { return strconv.FormatInt(seq, 10) }

// loadEvents reads the events the outbox entries point at; deleted ones are skipped.
func (s *Store) loadEvents(ctx context.Context, entries []outboxEntry) ([]pendingEvent, error) {
	var out []pendingEvent
	for _, e := range entries {
		if e.op != opEventIndex {
			continue
		}
		var d pendingEvent
		err := s.r.QueryRowContext(ctx, `SELECT seq, user_id, group_id, sender_id, timestamp_epoch, content
			FROM events WHERE seq = ? AND user_id = ?`, e.msgSeq, e.user).
			Scan(&d.seq, &d.user, &d.group, &d.sender, &d.ts, &d.text)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("storage: load event %d: %w", e.msgSeq, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// indexEvent adds the lexical document of d to b.
func indexEvent(b *bleve.Batch, d *pendingEvent) error {
	if err := b.Index(eventDocID(d.seq), map[string]any{
		fUser: d.user, fGroup: d.group, fSender: d.sender, fTS: float64(d.ts), "text": d.text,
	}); err != nil {
		return fmt.Errorf("storage: lexical event %d: %w", d.seq, err)
	}
	return nil
}

// indexEventVectors stores the events' vectors and term statistics (writeVectors).
func (s *Store) indexEventVectors(ctx context.Context, tx *sql.Tx, evs []pendingEvent) error {
	rows := make([]vectorRow, 0, len(evs))
	for _, d := range evs {
		rows = append(rows, vectorRow{seq: d.seq, user: d.user, meta: []any{d.group, d.sender, d.ts}, vec: d.vec, terms: d.terms})
	}
	return s.writeVectors(ctx, tx, eventCorpus, rows)
}

// deleteUserEvents removes user's event vectors and statistics in tx; the
// caller deletes the rows and queues the lexical deletion.
func (s *Store) deleteUserEvents(ctx context.Context, tx *sql.Tx, user string) error {
	if s.vecTable {
		for _, t := range []string{"vec_events", "vec_events" + bigSuffix} {
			if _, err := deleteUserVectors(ctx, tx, t, user); err != nil {
				return fmt.Errorf("event vectors: %w", err)
			}
		}
	}
	for _, q := range []string{
		`DELETE FROM event_vec_rescore WHERE seq IN (SELECT seq FROM events WHERE user_id = ?)`,
		`DELETE FROM event_term_df WHERE user_id = ?`,
		`DELETE FROM event_stats WHERE user_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, user); err != nil {
			return err
		}
	}
	return nil
}
