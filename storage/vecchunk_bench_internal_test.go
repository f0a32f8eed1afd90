package storage

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	sqlitevec "github.com/asg017/sqlite-vec-go-bindings/cgo"
)

// BenchmarkVecChunkSize compares vec0 chunk sizes at 100k vectors of 1024
// dimensions in one partition (plus a 2,000-vector one): insertion, the
// binary-code KNN the coarse path runs, and the exact KNN of a user below
// the coarse threshold. It runs once and logs (it takes about 90 s):
//
//	go test -run '^$' -bench VecChunkSize -benchtime 1x -v ./storage
func BenchmarkVecChunkSize(b *testing.B) {
	for b.Loop() {
		vecChunkSizes(b)
	}
}

func vecChunkSizes(t testing.TB) {
	s, err := Open(t.Context(), Config{Dir: t.TempDir(), NoIndexer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	r := rand.New(rand.NewPCG(1, 1))
	for _, cs := range []int{8, 32, 128, 1024} {
		tbl := fmt.Sprintf("exp_%d", cs)
		if _, err := s.w.ExecContext(ctx, fmt.Sprintf(`CREATE VIRTUAL TABLE %s USING vec0(user_id text partition key, role text, created_ms integer, conversation_id text, group_id text, embedding float[1024] distance_metric=cosine, coarse bit[512], chunk_size=%d)`, tbl, cs)); err != nil {
			t.Fatal(err)
		}
		const n = 100000
		start := time.Now()
		err := s.update(ctx, func(tx *sql.Tx) error {
			st, err := tx.PrepareContext(ctx, `INSERT INTO `+tbl+` (rowid, user_id, role, created_ms, conversation_id, group_id, embedding, coarse) VALUES (?, ?, 'user', ?, 'c1', '', ?, vec_bit(?))`)
			if err != nil {
				return err
			}
			v := make([]float32, 1024)
			code := make([]byte, 64)
			for i := range n {
				user := "heavy"
				if i < 2000 {
					user = "mid"
				}
				for j := range v {
					v[j] = float32(r.NormFloat64())
				}
				for j := range code {
					code[j] = byte(r.Uint32())
				}
				blob, _ := sqlitevec.SerializeFloat32(v)
				if _, err := st.ExecContext(ctx, i+1, user, i, blob, code); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ins := time.Since(start)
		q := make([]byte, 64)
		for j := range q {
			q[j] = byte(r.Uint32())
		}
		qv := make([]float32, 1024)
		for j := range qv {
			qv[j] = float32(r.NormFloat64())
		}
		qb, _ := sqlitevec.SerializeFloat32(qv)
		timeit := func(what string, f func() error) {
			f()
			start := time.Now()
			const reps = 10
			for range reps {
				if err := f(); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("chunk %4d %s: %v", cs, what, time.Since(start)/reps)
		}
		count := func(query string, args ...any) func() error {
			return func() error {
				rows, err := s.r.QueryContext(ctx, query, args...)
				if err != nil {
					return err
				}
				defer rows.Close()
				for rows.Next() {
				}
				return rows.Err()
			}
		}
		t.Logf("chunk %4d insert 100k: %v", cs, ins)
		timeit("coarse k=192 heavy(98k)", count(`SELECT rowid, distance FROM `+tbl+` WHERE coarse MATCH vec_bit(?) AND k = 192 AND user_id = 'heavy'`, q))
		timeit("coarse k=192 heavy role", count(`SELECT rowid, distance FROM `+tbl+` WHERE coarse MATCH vec_bit(?) AND k = 192 AND user_id = 'heavy' AND role = 'user'`, q))
		timeit("exact k=64 mid(2k)", count(`SELECT rowid, distance FROM `+tbl+` WHERE embedding MATCH ? AND k = 64 AND user_id = 'mid'`, qb))
	}
}
