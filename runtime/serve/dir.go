package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bwpolicy/bwpolicy/runtime/watch"

	"golang.org/x/sys/unix"
)

// DirSuffix names the server's directory beside the invocation
// (INVOCATION + DirSuffix, mode 0700): its socket and lock live there,
// beside the ledger and the journal, where no sandbox reaches (the
// invocation's directory is hidden from the sandbox).
const DirSuffix = ".serve"

// SocketName and lockName are the socket and the lock in that directory.
const (
	SocketName = "sock"
	lockName   = "lock"
)

// SocketOf is the server's socket for the invocation at invPath.
func SocketOf(invPath string) string {
	return filepath.Join(invPath+DirSuffix, SocketName)
}

// privateDir makes (or checks) d: a directory, not a symlink, the
// caller's own, mode 0700.
func privateDir(d string) error {
	if err := unix.Mkdir(d, 0o700); err != nil && err != unix.EEXIST {
		return fmt.Errorf("cannot make the server's directory %s: %w", d, err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(d, &st); err != nil {
		return err
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return fmt.Errorf("%s is not a directory", d)
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s is owned by uid %d, not by you", d, st.Uid)
	case st.Mode&0o077 != 0:
		return fmt.Errorf("%s has mode %o: others could reach the server's socket (0700 expected)", d, st.Mode&0o777)
	}
	return nil
}

// lock takes the directory's lock (one server per environment; a
// server that holds it is not waited for).
func lock(d string) (int, error) {
	p := filepath.Join(d, lockName)
	fd, err := watch.LockFile(p, 0)
	if errors.Is(err, watch.ErrLocked) {
		return -1, fmt.Errorf("another server runs this environment (%s is locked)", p)
	}
	return fd, err
}
