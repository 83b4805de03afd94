package watch

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Connect connects a stream socket (close-on-exec) to the listener at
// socket and checks the listener as the listeners check their peers
// (CheckPeer: the caller's uid, its pid namespace): a socket some other
// program bound there, or one bound from inside a sandbox, would answer
// what it likes. timeout, when not 0, bounds each send and receive on
// the socket (and the connect). The error of a failed connect wraps its
// errno (ENOENT, ECONNREFUSED: nothing listens).
func Connect(socket string, timeout time.Duration) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if timeout > 0 {
		tv := unix.NsecToTimeval(timeout.Nanoseconds())
		_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	}
	addr, release, err := SockAddr(socket)
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	err = unix.Connect(fd, addr)
	release()
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	if why := CheckPeer(fd, os.Getuid(), ns); why != "" {
		unix.Close(fd)
		return -1, fmt.Errorf("not the listener expected at %s: %s", socket, why)
	}
	return fd, nil
}
