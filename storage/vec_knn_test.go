package storage_test

import (
	"database/sql"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	sqlitevec "github.com/asg017/sqlite-vec-go-bindings/cgo"
)

var auto sync.Once

// TestKNNSelectsTheNearest checks sqlite-vec's selection of a chunk's k
// nearest rows against a brute-force ranking: a KNN query returns the k
// smallest distances in order, with every row of a tie at the boundary
// as near as the ones left out. Binary codes of few bits tie often; the
// chunks are smaller and larger than k, some rows are deleted (holes in
// the chunk's validity bitmap) and a metadata filter leaves out others.
func TestKNNSelectsTheNearest(t *testing.T) {
	auto.Do(sqlitevec.Auto)
	db, err := sql.Open("sqlite3", filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, tc := range []struct {
		name       string
		chunk, n   int
		bitsPerRow int
		k          int
	}{
		{"chunk smaller than k", 8, 300, 64, 20},
		{"chunk larger than k", 128, 1000, 64, 50},
		{"k of a whole chunk", 64, 700, 128, 64},
		{"many ties", 256, 1500, 64, 100},
		{"k above the rows", 32, 40, 64, 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(tc.n), uint64(tc.k)))
			tbl := fmt.Sprintf("v_%d_%d", tc.chunk, tc.n)
			if _, err := db.Exec(fmt.Sprintf(`CREATE VIRTUAL TABLE %s USING vec0(p text partition key, tag integer, code bit[%d], chunk_size=%d)`, tbl, tc.bitsPerRow, tc.chunk)); err != nil {
				t.Fatal(err)
			}
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			codes := map[int64][]byte{}
			tags := map[int64]int64{}
			for i := range tc.n {
				c := make([]byte, tc.bitsPerRow/8)
				for j := range c {
					c[j] = byte(r.Uint32())
				}
				// the other partition gets the same codes: never returned
				for _, p := range []string{"a", "b"} {
					rowid := int64(i + 1)
					if p == "b" {
						rowid += 1 << 20
					}
					tag := int64(r.IntN(4))
					if _, err := tx.Exec(`INSERT INTO `+tbl+` (rowid, p, tag, code) VALUES (?, ?, ?, vec_bit(?))`, rowid, p, tag, c); err != nil {
						t.Fatal(err)
					}
					if p == "a" {
						codes[rowid], tags[rowid] = c, tag
					}
				}
			}
			for rowid := range codes {
				if rowid%7 == 0 {
					if _, err := tx.Exec(`DELETE FROM `+tbl+` WHERE rowid = ?`, rowid); err != nil {
						t.Fatal(err)
					}
					delete(codes, rowid)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			for q := range 5 {
				query := make([]byte, tc.bitsPerRow/8)
				for j := range query {
					query[j] = byte(r.Uint32())
				}
				filter := q%2 == 1
				sqlq := `SELECT rowid, distance FROM ` + tbl + ` WHERE code MATCH vec_bit(?) AND k = ? AND p = 'a'`
				args := []any{query, tc.k}
				if filter {
					sqlq += ` AND tag != 0`
				}
				rows, err := db.Query(sqlq+` ORDER BY distance`, args...)
				if err != nil {
					t.Fatal(err)
				}
				var got []int
				var gotIDs []int64
				for rows.Next() {
					var id int64
					var d float64
					if err := rows.Scan(&id, &d); err != nil {
						t.Fatal(err)
					}
					got = append(got, int(d))
					gotIDs = append(gotIDs, id)
				}
				rows.Close()
				var all []int
				dist := map[int64]int{}
				for id, c := range codes {
					if filter && tags[id] == 0 {
						continue
					}
					d := 0
					for j := range c {
						d += bits.OnesCount8(c[j] ^ query[j])
					}
					all = append(all, d)
					dist[id] = d
				}
				slices.Sort(all)
				want := all[:min(tc.k, len(all))]
				if !slices.Equal(got, want) {
					t.Fatalf("query %d: distances %v, want %v", q, got, want)
				}
				for i, id := range gotIDs {
					if d, ok := dist[id]; !ok || d != got[i] {
						t.Fatalf("query %d: row %d at distance %d is not a candidate at that distance (%d, %v)", q, id, got[i], d, ok)
					}
				}
			}
		})
	}
}
