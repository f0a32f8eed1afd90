package storage

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// tierFixture is a store whose messages get synthetic vectors straight
// through writeVectors (no embedder, no Bleve), so that a benchmark can
// build a population of vectors quickly and time one write transaction.
type tierFixture struct {
	tb  testing.TB
	s   *Store
	r   *rand.Rand
	vec []float32
}

func newTierFixture(tb testing.TB) *tierFixture {
	s, err := Open(tb.Context(), Config{Dir: tb.TempDir(), NoIndexer: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return &tierFixture{tb: tb, s: s, r: rand.New(rand.NewPCG(1, 2)), vec: make([]float32, s.emb.Dim())}
}

// store inserts n messages of user (ids from..from+n-1) without vectors.
// Their conversation id is longer than vec0 keeps in a metadata chunk (12
// bytes), so that each vector also has a row in a _metadatatext table.
func (f *tierFixture) store(user string, from, n int) {
	f.tb.Helper()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	msgs := make([]Message, n)
	for i := range msgs {
		msgs[i] = Message{ID: fmt.Sprintf("m%d", from+i), ConversationID: "conversation-of-the-tier-tests", Role: RoleUser,
			Content: fmt.Sprintf("note %d", from+i), CreatedAt: at.Add(time.Duration(from+i) * time.Minute)}
	}
	if _, err := f.s.Insert(f.tb.Context(), user, msgs); err != nil {
		f.tb.Fatal(err)
	}
}

// pending returns vector rows for up to n of user's messages without a
// vector, oldest first, with random vectors.
func (f *tierFixture) pending(user string, n int) []vectorRow {
	f.tb.Helper()
	rows, err := f.s.w.QueryContext(f.tb.Context(), `SELECT seq, role, created_ms, conversation_id, group_id FROM messages
		WHERE user_id = ? AND indexed = 0 ORDER BY seq LIMIT ?`, user, n)
	if err != nil {
		f.tb.Fatal(err)
	}
	defer rows.Close()
	var out []vectorRow
	for rows.Next() {
		var seq, ms int64
		var role, conv, group string
		if err := rows.Scan(&seq, &role, &ms, &conv, &group); err != nil {
			f.tb.Fatal(err)
		}
		v := make([]float32, len(f.vec))
		for i := range v {
			v[i] = float32(f.r.NormFloat64())
		}
		out = append(out, vectorRow{seq: seq, user: user, meta: []any{role, ms, conv, group}, vec: v})
	}
	if err := rows.Err(); err != nil {
		f.tb.Fatal(err)
	}
	return out
}

// write stores rows' vectors in one transaction, as the indexer does.
func (f *tierFixture) write(rows []vectorRow) {
	f.tb.Helper()
	err := f.s.update(f.tb.Context(), func(tx *sql.Tx) error {
		return f.s.writeVectors(f.tb.Context(), tx, messageCorpus, rows)
	})
	if err != nil {
		f.tb.Fatal(err)
	}
}

// populate gives light users of n vectors each and heavy users of
// promoteAt+n vectors each (past the tier boundary).
func (f *tierFixture) populate(light, heavy, n int) {
	f.tb.Helper()
	for u := range light {
		user := fmt.Sprintf("light-%05d", u)
		f.store(user, 0, n)
		f.write(f.pending(user, n))
	}
	for u := range heavy {
		user := fmt.Sprintf("heavy-%05d", u)
		f.store(user, 0, promoteAt+n)
		f.write(f.pending(user, promoteAt+n))
	}
}

// BenchmarkPromote times the write transaction that stores a user's
// promoteAt-th vector, and so moves their vectors to the large-chunk table,
// beside other users already in the tables (light ones of 64 vectors, a
// tenth as many heavy ones), against the same transaction for a vector
// that moves nobody (op=insert) and the promoteAt-1 vectors of a new user written
// in one transaction (op=insert255): how the move's cost grows with the
// vectors and chunks already stored.
//
// Building the populations takes minutes (the largest holds 100k vectors):
//
//	go test -run '^$' -bench Promote -benchtime 5x ./storage
func BenchmarkPromote(b *testing.B) {
	for _, light := range []int{100, 400, 1600} {
		f := newTierFixture(b)
		f.populate(light, light/10, 64)
		b.Run(fmt.Sprintf("users=%d/op=promote", light), func(b *testing.B) {
			i := 0
			for b.Loop() {
				b.StopTimer()
				user := fmt.Sprintf("crossing-%d-%d", light, i)
				f.store(user, 0, promoteAt)
				f.write(f.pending(user, promoteAt-1))
				last := f.pending(user, 1)
				b.StartTimer()
				f.write(last)
				i++
			}
		})
		b.Run(fmt.Sprintf("users=%d/op=insert", light), func(b *testing.B) {
			i := 0
			for b.Loop() {
				b.StopTimer()
				user := fmt.Sprintf("one-%d-%d", light, i)
				f.store(user, 0, 1)
				last := f.pending(user, 1)
				b.StartTimer()
				f.write(last)
				i++
			}
		})
		b.Run(fmt.Sprintf("users=%d/op=insert255", light), func(b *testing.B) {
			i := 0
			for b.Loop() {
				b.StopTimer()
				user := fmt.Sprintf("batch-%d-%d", light, i)
				f.store(user, 0, promoteAt-1)
				rows := f.pending(user, promoteAt-1)
				b.StartTimer()
				f.write(rows)
				i++
			}
		})
	}
}
