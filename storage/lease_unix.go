//go:build unix

package storage

import (
	"errors"
	"os"
	"syscall"
)

const lockSupported = true

// tryLock takes an exclusive flock on f without waiting; ok is false when
// another open file description holds it.
func tryLock(f *os.File) (ok bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
