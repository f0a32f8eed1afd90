package storage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Vector table layout.
//
// vec0 stores vectors in chunks of chunk_size slots, one chain of chunks per
// partition key value (here user_id), and allocates a whole chunk the first
// time a partition gets a vector. With vec0's default of 1024 slots, a user
// with one message cost 1024 × (4 KB of float32 at 1024 dimensions + the
// 64-byte binary code + the metadata), about 4.2 MB, in each of
// vec_messages, vec_events and vec_profiles. vecChunkSize is the smallest
// size vec0 accepts (a multiple of 8): a new user costs 8 slots (about 34 KB
// at 1024 dimensions), and a user's last chunk wastes at most 7 slots.
// Measured at 100k vectors in one partition (TestChunkExperiment numbers in
// the commit message), the binary-code scan and the exact scan of a
// 2,000-vector user take about as long with chunks of 8 as with 1024: vec0's
// KNN cost is dominated by the per-row work, not the per-chunk reads.
const vecChunkSize = 8

// vecMessagesDDL is the DDL of the messages' vector table for the embedder,
// named name.
func (s *Store) vecMessagesDDL(name string) string {
	return fmt.Sprintf(`CREATE VIRTUAL TABLE %s USING vec0(
		user_id text partition key,
		%s
		role text,
		created_ms integer,
		conversation_id text,
		group_id text,
		embedding int8[%d] distance_metric=cosine,
		coarse bit[%d],
		chunk_size=%d
	)`, name, shardColumn(name), s.emb.Dim(), coarseBits, chunkSizeOf(name))
}

// vecTables are the vector tables with their columns (after rowid), DDL
// and, for those whose embedding column is int8, the table of the int8
// vectors by seq that migrateVecLayout copies them from.
func (s *Store) vecTables() []vecTable {
	return []vecTable{
		{"vec_messages", []string{"user_id", "role", "created_ms", "conversation_id", "group_id", "embedding", "coarse"}, s.vecMessagesDDL, "vec_rescore"},
		{"vec_events", []string{"user_id", "group_id", "sender_id", "ts", "embedding", "coarse"}, func(n string) string { return s.vecEventsDDL(n, false) }, "event_vec_rescore"},
		{"vec_profiles", []string{"user_id", "entity_type", "embedding"}, s.vecProfilesDDL, ""},
	}
}

type vecTable struct {
	name    string
	cols    []string
	ddl     func(name string) string
	rescore string // int8 embeddings: their table of int8 vectors by seq
}

// current reports whether ddl, the table's DDL in the file, has the
// current layout.
func (t vecTable) current(ddl string) bool {
	return strings.Contains(ddl, fmt.Sprintf("chunk_size=%d", vecChunkSize)) &&
		(t.rescore == "" || strings.Contains(ddl, "embedding int8["))
}

// migrateVecLayout rebuilds, once, the vector tables made before they had
// chunk_size=vecChunkSize (every user's partition took a chunk of 1024
// slots) or, for messages and events, before their embedding column was
// int8 (a float copy of the int8 vector that the rescore table already
// held: 4 KB a message at 1024 dimensions). It copies every vector (vec0
// has no ALTER TABLE: the rows go through a temporary table); a float
// embedding becomes the row's int8 vector from the rescore table. Then it
// runs VACUUM so that the file shrinks and takes auto_vacuum=INCREMENTAL
// (see vacuum.go). Nothing is re-embedded.
func (s *Store) migrateVecLayout(ctx context.Context) error {
	migrated := false
	for _, t := range s.vecTables() {
		var ddl string
		err := s.w.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, t.name).Scan(&ddl)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return fmt.Errorf("storage: vector layout %s: %w", t.name, err)
		}
		if t.current(ddl) {
			continue
		}
		start := time.Now()
		tmp := t.name + "_relayout"
		// sel selects the columns of t.name (out) or of tmp (in) for an
		// INSERT into the current layout.
		sel := func(out bool) string {
			cs := []string{"v.rowid"}
			for _, c := range t.cols {
				switch {
				case c == "coarse":
					c = "vec_bit(v.coarse)"
				case c == "embedding" && t.rescore != "" && out && !strings.Contains(ddl, "embedding int8["):
					// A row without an int8 copy (none is known) gets vec0's
					// fixed-range quantisation rather than no vector.
					c = "vec_int8(coalesce(r.v, vec_quantize_int8(v.embedding, 'unit')))"
				case c == "embedding" && t.rescore != "":
					c = "vec_int8(v.embedding)"
				default:
					c = "v." + c
				}
				cs = append(cs, c)
			}
			from := tmp + " v"
			if out {
				from = t.name + " v"
				if t.rescore != "" && !strings.Contains(ddl, "embedding int8[") {
					from += " LEFT JOIN " + t.rescore + " r ON r.seq = v.rowid"
				}
			}
			return strings.Join(cs, ", ") + ` FROM ` + from
		}
		cols := "rowid, " + strings.Join(t.cols, ", ")
		var n int64
		err = s.update(ctx, func(tx *sql.Tx) error {
			for _, q := range []string{
				`DROP TABLE IF EXISTS ` + tmp,
				t.ddl(tmp),
				`INSERT INTO ` + tmp + ` (` + cols + `) SELECT ` + sel(true),
				`DROP TABLE ` + t.name,
				t.ddl(t.name),
				`INSERT INTO ` + t.name + ` (` + cols + `) SELECT ` + sel(false),
				`DROP TABLE ` + tmp,
			} {
				r, err := tx.ExecContext(ctx, q)
				if err != nil {
					return err
				}
				if strings.HasPrefix(q, "INSERT INTO "+t.name) {
					n, _ = r.RowsAffected()
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("storage: vector layout %s: %w", t.name, err)
		}
		migrated = true
		s.log.Info("vector table rebuilt (small chunks, int8 vectors)", "table", t.name, "vectors", n, "took", time.Since(start))
	}
	if migrated {
		return s.vacuum(ctx)
	}
	return nil
}

// partitionChunks returns the chunk ids of user's partition of vec0 table
// table and the rowids of its live rows. vec0 (0.1.6) answers `WHERE
// user_id = ?` outside a KNN query with a full scan: it visits every row of
// the table and reads its partition key with a statement it prepares for
// that row (about 4 µs a row), so selecting one user's rows, or deleting
// them by a subquery, cost a scan of every user's (3 s for a tier move at
// 1,000 users of 255 vectors). `rowid IN (…)` is no better: outside KNN,
// vec0 plans it as a full scan too; only `rowid = ?` is a point lookup.
// This reads vec0's shadow table <table>_chunks instead, a plain table of
// one row a chunk: user's chunks (partition00), each with the bitmap of its
// live slots (validity, slot 8i+j at bit j of byte i) and the rowid of each
// slot (rowids, int64s in the machine's byte order, as vec0 memcpys them).
// A deleted row's slot keeps its rowid and loses its bit.
func partitionChunks(ctx context.Context, tx *sql.Tx, table, user string) (chunks, ids []int64, _ error) {
	rows, err := tx.QueryContext(ctx, `SELECT chunk_id, validity, rowids FROM "`+table+`_chunks" WHERE partition00 = ? ORDER BY chunk_id`, user)
	if err != nil {
		return nil, nil, fmt.Errorf("%s chunks: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var chunk int64
		var validity, rowids []byte
		if err := rows.Scan(&chunk, &validity, &rowids); err != nil {
			return nil, nil, fmt.Errorf("%s chunks: %w", table, err)
		}
		chunks = append(chunks, chunk)
		for slot := range len(validity) * 8 {
			if validity[slot/8]&(1<<(slot%8)) == 0 {
				continue
			}
			if (slot+1)*8 > len(rowids) {
				return nil, nil, fmt.Errorf("%s chunk %d: slot %d past the rowids (%d bytes)", table, chunk, slot, len(rowids))
			}
			ids = append(ids, int64(binary.NativeEndian.Uint64(rowids[slot*8:])))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s chunks: %w", table, err)
	}
	return chunks, ids, nil
}

// deleteUserVectors deletes user's vectors from vec0 table table and frees
// their chunks (dropPartition); it returns the rowids it deleted.
func deleteUserVectors(ctx context.Context, tx *sql.Tx, table, user string) ([]int64, error) {
	chunks, ids, err := partitionChunks(ctx, tx, table, user)
	if err != nil {
		return nil, err
	}
	return ids, dropPartition(ctx, tx, table, chunks, ids)
}

// dropPartition removes a user's partition from vec0 table table: chunks,
// its chunks, and ids, all its live rows (partitionChunks). vec0 (0.1.6)
// deletes a row by clearing its slot in the chunk (validity, each metadata
// column: five blobs opened and written, about 45 µs a row) and removing
// its row of <table>_rowids and of any row-keyed shadow table; it never
// frees a chunk, so a forgotten user's chunks stayed in the file for good.
// Since the whole partition goes, this skips the slots and works on the
// shadow tables directly:
//   - the rows go from the row-keyed tables: <table>_rowids (rowid, the
//     vec0 rowid), <table>_metadatatextNN (text metadata longer than 12
//     bytes) and <table>_auxiliary;
//   - the chunks' rows go from <table>_chunks (one row a chunk, the
//     partition key in partition00), so a later vector of the user starts
//     a new chunk;
//   - their rows of <table>_vector_chunksNN and <table>_metadatachunksNN
//     are emptied, not deleted: their column "rowid" is not the table's
//     rowid, and vec0 opens a chunk's blob by the table's rowid, which it
//     expects to equal the chunk id; that holds only while no row is
//     deleted (a deleted last row's rowid would be given to the next
//     chunk, whose id AUTOINCREMENT makes larger). An emptied row costs a
//     few bytes.
//
// vec0's own view afterwards is that of deleting each row: no point read,
// scan or KNN query finds them (TestPromoteMovesLiveRows).
func dropPartition(ctx context.Context, tx *sql.Tx, table string, chunks, ids []int64) error {
	if len(chunks) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'
		AND (name GLOB ?1 || '_vector_chunks[0-9][0-9]' OR name GLOB ?1 || '_metadatachunks[0-9][0-9]'
		OR name GLOB ?1 || '_metadatatext[0-9][0-9]' OR name = ?1 || '_auxiliary')`, table)
	if err != nil {
		return fmt.Errorf("%s shadow tables: %w", table, err)
	}
	byRow := []string{table + "_rowids"}
	var byChunk []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return fmt.Errorf("%s shadow tables: %w", table, err)
		}
		if strings.Contains(n, "_metadatatext") || strings.HasSuffix(n, "_auxiliary") {
			byRow = append(byRow, n)
		} else {
			byChunk = append(byChunk, n)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s shadow tables: %w", table, err)
	}
	// Each statement a lookup by key: <table>_chunks has no index on
	// partition00, so a statement filtering on it scans every chunk.
	for _, sh := range byRow {
		if err := execEach(ctx, tx, `DELETE FROM "`+sh+`" WHERE rowid = ?`, ids); err != nil {
			return fmt.Errorf("%s: %w", sh, err)
		}
	}
	for _, sh := range byChunk {
		if err := execEach(ctx, tx, `UPDATE "`+sh+`" SET `+shadowCol(sh)+` = X'' WHERE rowid = ?`, chunks); err != nil {
			return fmt.Errorf("%s: %w", sh, err)
		}
	}
	if err := execEach(ctx, tx, `DELETE FROM "`+table+`_chunks" WHERE chunk_id = ?`, chunks); err != nil {
		return fmt.Errorf("%s chunks: %w", table, err)
	}
	return nil
}

// execEach runs query, prepared once, with each of args.
func execEach(ctx context.Context, tx *sql.Tx, query string, args []int64) error {
	st, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, a := range args {
		if _, err := st.ExecContext(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// shadowCol is the blob column of a vec0 chunk shadow table.
func shadowCol(table string) string {
	if strings.Contains(table, "_vector_chunks") {
		return "vectors"
	}
	return "data"
}
