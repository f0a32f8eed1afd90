package storage

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// leasesDir is the folder of the data dir that holds one lock file per open
// store: leases/<owner>.lock.
const leasesDir = "leases"

// leaseOwner is the identity an open Store claims jobs under. While the
// store is open it holds an exclusive flock on its lock file; the kernel
// releases the lock when the process exits for any reason (kill -9
// included), which is what tells other stores that the owner is gone. Every
// Open is a new owner, so a second Open in the same process (its own open
// file description, its own flock) is a separate owner too.
type leaseOwner struct {
	id   string
	path string
	f    *os.File
}

// newLeaseOwner creates and locks the lock file of a fresh owner id. The
// file is created and locked under a temporary name and then renamed into
// place, so that a sweep never sees an owner's file before it is locked. On
// a file system that refuses flock the owner goes on unlocked (logged):
// there every other store's test of it fails too and counts it alive.
func newLeaseOwner(dir string, log *slog.Logger) (*leaseOwner, error) {
	ldir := filepath.Join(dir, leasesDir)
	if err := os.MkdirAll(ldir, 0o755); err != nil {
		return nil, fmt.Errorf("storage: lease dir: %w", err)
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("storage: lease owner id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	f, err := os.CreateTemp(ldir, ".new-*")
	if err != nil {
		return nil, fmt.Errorf("storage: lease lock: %w", err)
	}
	ok, err := tryLock(f)
	switch {
	case err != nil:
		log.Warn("job lease lock not supported here: jobs of a killed process wait for their lease", "dir", ldir, "err", err)
		err = nil
	case !ok:
		err = errors.New("fresh lock file is locked")
	}
	path := filepath.Join(ldir, id+".lock")
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("storage: lease lock: %w", err)
	}
	return &leaseOwner{id: id, path: path, f: f}, nil
}

// close removes the lock file, then releases the lock: an owner whose file
// is gone, or not locked, is not alive.
func (o *leaseOwner) close() error {
	if o == nil {
		return nil
	}
	rmErr := os.Remove(o.path)
	if errors.Is(rmErr, fs.ErrNotExist) {
		rmErr = nil
	}
	return errors.Join(rmErr, o.f.Close())
}

// validOwnerID reports whether id can be an owner id (32 hex digits), so
// that a value read from the database never names another path.
func validOwnerID(id string) bool {
	if len(id) != 32 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil && strings.ToLower(id) == id
}

// ownerAlive reports whether the store that owns id still holds its lock.
// A dead owner's lock file is removed. An id that is not an owner id, or a
// platform without file locks, counts as alive: its jobs then wait for their
// lease to expire, as before owners existed.
func ownerAlive(dir, id string) (bool, error) {
	if !validOwnerID(id) || !lockSupported {
		return true, nil
	}
	path := filepath.Join(dir, leasesDir, id+".lock")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("storage: lease of %s: %w", id, err)
	}
	defer f.Close()
	locked, err := tryLock(f)
	if err != nil {
		return true, fmt.Errorf("storage: lease of %s: %w", id, err)
	}
	if !locked {
		return true, nil
	}
	// We hold the dead owner's lock; nobody can take it back (ids are never
	// reused), so the file can go.
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("storage: lease of %s: %w", id, err)
	}
	return false, nil
}

// sweepLeases removes the lock files of dead owners that held no job when
// they died. It returns how many it removed.
func sweepLeases(dir string) (int, error) {
	if !lockSupported {
		return 0, nil
	}
	names, err := filepath.Glob(filepath.Join(dir, leasesDir, "*.lock"))
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, name := range names {
		alive, err := ownerAlive(dir, strings.TrimSuffix(filepath.Base(name), ".lock"))
		if err != nil {
			errs = append(errs, err)
		} else if !alive {
			n++
		}
	}
	return n, errors.Join(errs...)
}
