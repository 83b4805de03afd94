package watch

import (
	"path"
	"strconv"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// SockAddr is p as a unix socket address. A path longer than the
// address can hold is reached through its directory held open
// (/proc/self/fd/N/NAME); release closes that descriptor.
func SockAddr(p string) (addr *unix.SockaddrUnix, release func(), err error) {
	if len(p) < 100 {
		return &unix.SockaddrUnix{Name: p}, func() {}, nil
	}
	fd, err := unix.Open(path.Dir(p), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return &unix.SockaddrUnix{Name: "/proc/self/fd/" + strconv.Itoa(fd) + "/" + path.Base(p)}, func() { unix.Close(fd) }, nil
}

// Listen binds a socket, mode 0600, under a name of its own beside p
// and renames it onto p (the caller holds the lock), so that p is never
// absent: a socket of the user's that the compile saw bound (H8) is
// hidden from the sandbox and checked to be there by every run, and
// the watchers' come and go. The one a watcher leaves when it ends stays
// (connect() is refused there: no watcher).
func Listen(p string) (int, error) {
	tmp := invocation.WatchSocketTemp(p, unix.Getpid()) // a name H8 skips (invocation.IsWatchSocketTemp)
	RemoveSocket(tmp)
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	addr, release, err := SockAddr(tmp)
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	defer release()
	old := unix.Umask(0o177)
	err = unix.Bind(fd, addr)
	unix.Umask(old)
	if err == nil {
		if err = unix.Listen(fd, 16); err == nil {
			err = unix.Rename(tmp, p)
		}
		if err != nil {
			RemoveSocket(tmp)
		}
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// RemoveSocket removes the socket at p, if that is what is there (a
// file of another kind at p stays).
func RemoveSocket(p string) {
	var st unix.Stat_t
	if unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
		_ = unix.Unlink(p)
	}
}
