package watch

import (
	"path"
	"strconv"

	"golang.org/x/sys/unix"
)

// sockAddr is p as a unix socket address. A path longer than the
// address can hold is reached through its directory held open
// (/proc/self/fd/N/NAME); release closes that descriptor.
func sockAddr(p string) (addr *unix.SockaddrUnix, release func(), err error) {
	if len(p) < 100 {
		return &unix.SockaddrUnix{Name: p}, func() {}, nil
	}
	fd, err := unix.Open(path.Dir(p), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	return &unix.SockaddrUnix{Name: "/proc/self/fd/" + strconv.Itoa(fd) + "/" + path.Base(p)}, func() { unix.Close(fd) }, nil
}

// listen binds p (a stale socket there, left by a watcher that died, is
// removed first: the caller holds the lock) mode 0600.
func listen(p string) (int, error) {
	removeSocket(p)
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	addr, release, err := sockAddr(p)
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	defer release()
	old := unix.Umask(0o177)
	err = unix.Bind(fd, addr)
	unix.Umask(old)
	if err == nil {
		err = unix.Listen(fd, 16)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// removeSocket removes the socket at p, if that is what is there.
func removeSocket(p string) {
	var st unix.Stat_t
	if unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
		_ = unix.Unlink(p)
	}
}
