package watch

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// ErrLocked is LockFile's error when another process holds the lock.
var ErrLocked = errors.New("held by another process")

// LockFile opens p (created mode 0600; never through a symlink) and
// takes an exclusive lock on it, the one-per-environment lock of a
// watcher and of a runtime (bwrun --serve): it waits up to wait for a
// holder that is ending to let go, then fails with ErrLocked. The
// descriptor is close-on-exec: a child started later does not hold the
// lock past its starter.
func LockFile(p string, wait time.Duration) (int, error) {
	fd, err := unix.Open(p, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return fd, nil
		}
		if err != unix.EWOULDBLOCK || !time.Now().Before(deadline) {
			unix.Close(fd)
			if err == unix.EWOULDBLOCK {
				return -1, ErrLocked
			}
			return -1, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
