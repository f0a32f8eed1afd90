package storage

import (
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestVectorTiers: a user whose vectors reach promoteAt moves, with all of
// them, to the large-chunk table, and later vectors go there too; searches
// find the same messages on either side; a light user beside them stays in
// the small table and never sees the heavy user's messages; deleting a
// message and forgetting the user clear the large table.
func TestVectorTiers(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	batch := func(user string, from, n int) {
		var msgs []Message
		for i := from; i < from+n; i++ {
			msgs = append(msgs, Message{ID: fmt.Sprintf("m%d", i), ConversationID: "c", Role: RoleUser,
				Content: fmt.Sprintf("note %d about topic%d and token%d", i, i%17, i), CreatedAt: at.Add(time.Duration(i) * time.Minute)})
		}
		if _, err := s.Insert(ctx, user, msgs); err != nil {
			t.Fatal(err)
		}
		if err := s.Drain(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	rows := func(table, user string) int {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM `+table+` WHERE user_id = ?`, user).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	batch("heavy", 0, promoteAt-1)
	batch("light", 0, 5)
	if big, _ := isBig(ctx, s.r, messageCorpus, "heavy"); big || rows("vec_messages", "heavy") != promoteAt-1 {
		t.Fatalf("below the threshold: big %v, %d small rows", big, rows("vec_messages", "heavy"))
	}
	search := func(user, text string) []Hit {
		hits, err := s.SemanticSearch(ctx, user, SemanticQuery{Text: text, TopK: 3})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	before := search("heavy", "note 42 about topic8 and token42")
	batch("heavy", promoteAt-1, 40)
	if big, _ := isBig(ctx, s.r, messageCorpus, "heavy"); !big {
		t.Fatal("heavy not moved at the threshold")
	}
	if small, bigRows := rows("vec_messages", "heavy"), rows("vec_messages_large", "heavy"); small != 0 || bigRows != promoteAt+39 {
		t.Fatalf("after the move: %d small rows, %d large, want 0 and %d", small, bigRows, promoteAt+39)
	}
	if rows("vec_messages", "light") != 5 || rows("vec_messages_large", "light") != 0 {
		t.Fatal("light user moved")
	}
	after := search("heavy", "note 42 about topic8 and token42")
	if len(before) == 0 || len(after) == 0 || before[0].ID != after[0].ID || after[0].ID != "m42" {
		t.Fatalf("top hit before %v, after %v, want m42", before, after)
	}
	if hits := search("heavy", "note 280 about topic8 and token280"); len(hits) == 0 || hits[0].ID != "m280" {
		t.Fatalf("a vector stored after the move: %v", hits)
	}
	for _, h := range search("light", "note 42 about topic8 and token42") {
		if h.UserID != "light" {
			t.Fatalf("light user found %s of %s", h.ID, h.UserID)
		}
	}
	if err := s.Delete(ctx, "heavy", "m42"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := rows("vec_messages_large", "heavy"); n != promoteAt+38 {
		t.Fatalf("after deleting one: %d large rows", n)
	}
	if _, err := s.DeleteUser(ctx, "heavy"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if big, _ := isBig(ctx, s.r, messageCorpus, "heavy"); big || rows("vec_messages_large", "heavy") != 0 {
		t.Fatal("forgotten user still in the large table")
	}
	// A returning user starts small again.
	batch("heavy", 0, 3)
	if rows("vec_messages", "heavy") != 3 {
		t.Fatal("returning user not in the small table")
	}
}

// vecRowids is the sorted rowids of user's rows of vec0 table table, by
// vec0's own (full-scan) filter on the partition key.
func vecRowids(t *testing.T, s *Store, table, user string) []int64 {
	t.Helper()
	rows, err := s.w.QueryContext(t.Context(), `SELECT rowid FROM `+table+` WHERE user_id = ?`, user)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

// unindex removes the vectors of user's messages seqs, as deleting them does.
func unindex(t *testing.T, s *Store, user string, seqs ...int64) {
	t.Helper()
	err := s.update(t.Context(), func(tx *sql.Tx) error {
		for _, seq := range seqs {
			if err := s.unindexVector(t.Context(), tx, messageCorpus, user, seq, ""); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPartitionChunks: the rowids read from vec0's shadow chunks are those
// of vec0's own filter on the partition key, for users whose chunks
// interleave and have deleted slots, and for a user without vectors.
func TestPartitionChunks(t *testing.T) {
	f := newTierFixture(t)
	s := f.s
	for _, u := range []string{"a", "b"} {
		f.store(u, 0, 40)
	}
	for range 4 {
		f.write(f.pending("a", 7))
		f.write(f.pending("b", 3))
	}
	a := vecRowids(t, s, "vec_messages", "a")
	unindex(t, s, "a", a[0], a[8], a[9], a[len(a)-1])
	for _, u := range []string{"a", "b", "nobody"} {
		var got []int64
		err := s.update(t.Context(), func(tx *sql.Tx) error {
			var err error
			_, got, err = partitionChunks(t.Context(), tx, "vec_messages", u)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if want := vecRowids(t, s, "vec_messages", u); !slices.Equal(got, want) {
			t.Errorf("%s: partitionChunks %v, vec0 %v", u, got, want)
		}
	}
}

// TestPromoteMovesLiveRows: a move takes exactly the user's live vectors
// (chunks shared in time with other users, slots deleted before the move)
// to the large-chunk table, frees the user's small chunks, and leaves the
// other users' vectors where they were.
func TestPromoteMovesLiveRows(t *testing.T) {
	f := newTierFixture(t)
	s := f.s
	f.store("h", 0, promoteAt+10)
	for _, u := range []string{"l1", "l2"} {
		f.store(u, 0, 30)
	}
	for range 10 {
		f.write(f.pending("h", 10))
		f.write(f.pending("l1", 2))
		f.write(f.pending("l2", 3))
	}
	h := vecRowids(t, s, "vec_messages", "h")
	unindex(t, s, "h", h[1], h[50], h[99])
	l1, l2 := vecRowids(t, s, "vec_messages", "l1"), vecRowids(t, s, "vec_messages", "l2")
	f.write(f.pending("h", promoteAt-1-97))
	want := vecRowids(t, s, "vec_messages", "h")
	if big, _ := isBig(t.Context(), s.r, messageCorpus, "h"); big || len(want) != promoteAt-1 {
		t.Fatalf("before the move: big %v, %d vectors", big, len(want))
	}
	last := f.pending("h", 1)
	want = append(want, last[0].seq)
	f.write(last)
	if big, _ := isBig(t.Context(), s.r, messageCorpus, "h"); !big {
		t.Fatal("h not moved")
	}
	if got := vecRowids(t, s, "vec_messages_large", "h"); !slices.Equal(got, want) {
		t.Errorf("large table holds %v, want %v", got, want)
	}
	if got := vecRowids(t, s, "vec_messages", "h"); len(got) != 0 {
		t.Errorf("small table still holds %v", got)
	}
	var chunks int
	if err := s.r.QueryRowContext(t.Context(), `SELECT count(*) FROM vec_messages_chunks WHERE partition00 = 'h'`).Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	if chunks != 0 {
		t.Errorf("%d small chunks of h left", chunks)
	}
	if got := vecRowids(t, s, "vec_messages", "l1"); !slices.Equal(got, l1) {
		t.Errorf("l1: %v, was %v", got, l1)
	}
	if got := vecRowids(t, s, "vec_messages", "l2"); !slices.Equal(got, l2) {
		t.Errorf("l2: %v, was %v", got, l2)
	}
	for _, u := range []string{"l1", "l2"} {
		if got := vecRowids(t, s, "vec_messages_large", u); len(got) != 0 {
			t.Errorf("%s in the large table: %v", u, got)
		}
	}
	// No trace of h's rows in the small table's row-keyed shadow tables
	// (the conversation id is long text: vec_messages_metadatatext02),
	// while the other users' rows keep theirs; vec0 finds none by point
	// read or KNN.
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := s.r.QueryRowContext(t.Context(), q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, sh := range []string{"vec_messages_rowids", "vec_messages_metadatatext02"} {
		in := func(ids []int64) int {
			n := 0
			for _, id := range ids {
				n += count(`SELECT count(*) FROM `+sh+` WHERE rowid = ?`, id)
			}
			return n
		}
		if n := in(want); n != 0 {
			t.Errorf("%s: %d rows of h left", sh, n)
		}
		if n := in(append(slices.Clone(l1), l2...)); n != len(l1)+len(l2) {
			t.Errorf("%s: %d rows of l1 and l2, want %d", sh, n, len(l1)+len(l2))
		}
	}
	if n := count(`SELECT count(*) FROM vec_messages WHERE rowid = ?`, want[0]); n != 0 {
		t.Errorf("point read of a moved row: %d rows", n)
	}
	knn := func(table, user string) int {
		return count(`SELECT count(*) FROM `+table+` WHERE embedding MATCH vec_int8(?) AND k = 10 AND user_id = ?`, make([]byte, s.emb.Dim()), user)
	}
	if n := knn("vec_messages", "h"); n != 0 {
		t.Errorf("small table KNN of h: %d rows", n)
	}
	if n := knn("vec_messages_large", "h"); n != 10 {
		t.Errorf("large table KNN of h: %d rows, want 10", n)
	}
	// The small table goes on: l1's later vectors take new chunks beside
	// the dropped ones.
	f.write(f.pending("l1", 10))
	if got := vecRowids(t, s, "vec_messages", "l1"); len(got) != len(l1)+10 {
		t.Errorf("l1 after 10 more: %d rows, want %d", len(got), len(l1)+10)
	}
	if n := knn("vec_messages", "l1"); n != 10 {
		t.Errorf("small table KNN of l1: %d rows, want 10", n)
	}
}

// TestPromoteRollsBack: a move is part of the transaction that stores the
// crossing vector, so a transaction cut short (as a crash cuts it) leaves
// every vector where it was, and the retry moves them.
func TestPromoteRollsBack(t *testing.T) {
	f := newTierFixture(t)
	s := f.s
	f.store("h", 0, promoteAt)
	f.write(f.pending("h", promoteAt-1))
	last := f.pending("h", 1)
	cut := errors.New("cut")
	err := s.update(t.Context(), func(tx *sql.Tx) error {
		if err := s.writeVectors(t.Context(), tx, messageCorpus, last); err != nil {
			return err
		}
		if big, err := isBig(t.Context(), tx, messageCorpus, "h"); err != nil || !big {
			t.Errorf("not moved inside the transaction: %v %v", big, err)
		}
		return cut
	})
	if !errors.Is(err, cut) {
		t.Fatal(err)
	}
	p, err := s.VectorPlacement(t.Context(), "h")
	if err != nil {
		t.Fatal(err)
	}
	if want := (VectorPlacement{Stored: promoteAt - 1, Small: promoteAt - 1}); p != want {
		t.Fatalf("after the cut: %+v, want %+v", p, want)
	}
	f.write(last)
	p, err = s.VectorPlacement(t.Context(), "h")
	if err != nil {
		t.Fatal(err)
	}
	if want := (VectorPlacement{Stored: promoteAt, Big: promoteAt, Promoted: true}); p != want {
		t.Fatalf("after the retry: %+v, want %+v", p, want)
	}
}

// TestChunkPartitionIndex: vec0's lookups of a user's chunks (the latest
// one on each insert, all of them on each KNN query) go through the index
// on _chunks(partition00) in every vector table, not a scan of every
// user's chunks.
func TestChunkPartitionIndex(t *testing.T) {
	s, err := Open(t.Context(), Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, table := range []string{"vec_messages", "vec_messages_large", "vec_events", "vec_events_large", "vec_profiles"} {
		for _, q := range []string{
			`SELECT max(rowid) FROM "` + table + `_chunks" WHERE partition00 = ?`,
			`SELECT chunk_id, validity, rowids FROM "` + table + `_chunks" WHERE partition00 = ?`,
		} {
			rows, err := s.w.QueryContext(t.Context(), `EXPLAIN QUERY PLAN `+q, "qq:1")
			if err != nil {
				t.Fatal(err)
			}
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			rows.Close()
			if !strings.Contains(strings.Join(plan, "; "), table+"_chunks_partition") {
				t.Errorf("%s: plan %q does not use the partition index", q, plan)
			}
		}
	}
}

// TestShardSizes: shardSizes counts what shardOf assigns, shard 0 alone
// takes a user's first shardBlock vectors, and a shard opens only as the
// user grows past its block.
func TestShardSizes(t *testing.T) {
	for _, n := range []int{0, 1, shardBlock - 1, shardBlock, shardBlock + 1, 2300, 7*shardBlock + 5, 10_000, 100_003} {
		want := make([]int, vecShards)
		for i := range n {
			want[shardOf(i)]++
		}
		got := shardSizes(n)
		if !slices.Equal(got, want) {
			t.Errorf("n=%d: shardSizes %v, shardOf counts %v", n, got, want)
		}
		for sh, m := range got {
			if m > 0 && n <= sh*shardBlock {
				t.Errorf("n=%d: shard %d holds %d vectors before its block", n, sh, m)
			}
		}
	}
	if got := shardSizes(shardBlock); got[0] != shardBlock {
		t.Errorf("first block: %v", got)
	}
}

// TestShardedCandidates: a user in the large-chunk twin past a few blocks
// has their vectors in the shards shardOf gives, and the binary-code
// candidates asked of each shard hold the same nearest rows as one query
// over all of the user's rows; the search finds a stored vector first.
func TestShardedCandidates(t *testing.T) {
	f := newTierFixture(t)
	s := f.s
	const n = 2*shardBlock + 300
	f.store("h", 0, n)
	f.store("l", 0, 20)
	for range n / 500 {
		f.write(f.pending("h", 500))
	}
	f.write(f.pending("h", n))
	f.write(f.pending("l", 20))
	ctx := t.Context()
	sizes := shardSizes(n)
	for sh, want := range sizes {
		var got int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM vec_messages_large WHERE user_id = 'h' AND shard = ?`, sh).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("shard %d holds %d vectors, want %d", sh, got, want)
		}
	}
	sharded, err := s.tierOf(ctx, messageCorpus, "h", n)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sharded.shards, sizes) {
		t.Fatalf("tierOf: shards %v, want %v", sharded.shards, sizes)
	}
	whole := sharded
	whole.shards = nil
	r := rand.New(rand.NewPCG(3, 4))
	for q := range 20 {
		v := make([]float32, s.emb.Dim())
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		code := s.proj.code(v)
		got, err := s.binaryCandidates(ctx, sharded, code, 64, []string{"user_id = ?"}, []any{"h"})
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.binaryCandidates(ctx, whole, code, 64, []string{"user_id = ?"}, []any{"h"})
		if err != nil {
			t.Fatal(err)
		}
		dists := func(c []scoredSeq) []float64 {
			out := make([]float64, len(c))
			for i, x := range c {
				out[i] = x.score
			}
			return out
		}
		if !slices.Equal(dists(got), dists(want)) {
			t.Fatalf("query %d: sharded candidates at %v, whole partition at %v", q, dists(got), dists(want))
		}
	}
	// A stored vector is its own nearest, on the binary-code path.
	var id string
	var scale float64
	var b []byte
	if err := s.r.QueryRowContext(ctx, `SELECT m.id, r.scale, r.v FROM vec_rescore r JOIN messages m ON m.seq = r.seq
		WHERE m.user_id = 'h' ORDER BY r.seq DESC LIMIT 1`).Scan(&id, &scale, &b); err != nil {
		t.Fatal(err)
	}
	s.cfg.CoarseThreshold = 100
	hits, err := s.SemanticSearch(ctx, "h", SemanticQuery{Vector: dequantize(make([]float32, s.emb.Dim()), scale, b), TopK: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ID != id {
		t.Fatalf("own vector: hits %v, want %s first", hits, id)
	}
	for _, h := range hits {
		if h.UserID != "h" {
			t.Fatalf("hit of %s", h.UserID)
		}
	}
	// Forgetting the user frees every shard's chunks; the light user stays.
	if _, err := s.DeleteUser(ctx, "h"); err != nil {
		t.Fatal(err)
	}
	var chunks int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM vec_messages_large_chunks WHERE partition00 = 'h'`).Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	if rows := vecRowids(t, s, "vec_messages_large", "h"); chunks != 0 || len(rows) != 0 {
		t.Fatalf("after forgetting h: %d chunks, %d rows in the large twin", chunks, len(rows))
	}
	if rows := vecRowids(t, s, "vec_messages", "l"); len(rows) != 20 {
		t.Fatalf("light user has %d vectors, want 20", len(rows))
	}
}

// TestLegacyBigMigrates: a store whose large users' vectors are in the
// unsharded twin of before (vec_messages_big) opens with them moved to the
// sharded one, every row kept, the old twin dropped, and the same search
// results.
func TestLegacyBigMigrates(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	f := &tierFixture{tb: t, r: rand.New(rand.NewPCG(1, 2))}
	var err error
	if f.s, err = Open(ctx, Config{Dir: dir, NoIndexer: true}); err != nil {
		t.Fatal(err)
	}
	s := f.s
	f.vec = make([]float32, s.emb.Dim())
	f.store("h", 0, promoteAt+50)
	f.store("l", 0, 10)
	f.write(f.pending("h", promoteAt+50))
	f.write(f.pending("l", 10))
	ids := vecRowids(t, s, "vec_messages_large", "h")
	light := vecRowids(t, s, "vec_messages", "l")
	search := func(s *Store) []string {
		var out []string
		for _, seq := range []int64{ids[3], ids[len(ids)-1]} {
			var scale float64
			var b []byte
			if err := s.r.QueryRowContext(ctx, `SELECT scale, v FROM vec_rescore WHERE seq = ?`, seq).Scan(&scale, &b); err != nil {
				t.Fatal(err)
			}
			hits, err := s.SemanticSearch(ctx, "h", SemanticQuery{Vector: dequantize(make([]float32, s.emb.Dim()), scale, b), TopK: 5})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				out = append(out, h.ID)
			}
		}
		return out
	}
	before := search(s)
	// Put h's vectors back in the twin of before, as an older version kept them.
	if err := s.MakeLegacyBig(ctx, "h"); err != nil {
		t.Fatal(err)
	}
	if got := vecRowids(t, s, "vec_messages_big", "h"); !slices.Equal(got, ids) {
		t.Fatalf("old twin holds %d rows, want %d", len(got), len(ids))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(ctx, Config{Dir: dir, NoIndexer: true}); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var n int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'vec_messages_big'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("old twin still there (%d, %v)", n, err)
	}
	if got := vecRowids(t, s, "vec_messages_large", "h"); !slices.Equal(got, ids) {
		t.Fatalf("after the move: %d rows, want %d", len(got), len(ids))
	}
	if got := vecRowids(t, s, "vec_messages", "l"); !slices.Equal(got, light) {
		t.Fatalf("light user: %v, was %v", got, light)
	}
	if after := search(s); !slices.Equal(after, before) {
		t.Fatalf("search after the move %v, before %v", after, before)
	}
}
