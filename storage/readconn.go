package storage

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/mattn/go-sqlite3"
)

// readConnector opens the reader connections with mmap_size set, as the
// writer's is (the DSN has no parameter for it). Without it a reader reads
// every page it does not cache with a pread, and SQLite reads large blobs
// (vec0's chunks) past its page cache (direct overflow reads): a KNN over
// a 100k-vector user's binary codes spent a quarter of its time copying
// 7 MB out of the kernel's page cache. Mapped pages are clean and shared
// with the kernel's cache; those a connection touched count in the RSS.
func readConnector(dsn string, mmap int64) driver.Connector {
	d := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		if _, err := c.Exec(fmt.Sprintf("PRAGMA mmap_size=%d", max(mmap, 0)), nil); err != nil {
			return fmt.Errorf("storage: reader mmap_size: %w", err)
		}
		return nil
	}}
	return connector{d: d, dsn: dsn}
}

type connector struct {
	d   *sqlite3.SQLiteDriver
	dsn string
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.d.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.d }
