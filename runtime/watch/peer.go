package watch

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// soPeerPidfd is SO_PEERPIDFD (Linux 6.5): a pidfd of the peer that
// connected, so that what is read about its pid is about that process.
const soPeerPidfd = 77

// CheckPeer reports why the peer of the connection c may not talk to the
// watcher, "" when it may: it has the watcher's uid (SO_PEERCRED) and is
// in the watcher's own pid namespace (nsSelf, /proc/self/ns/pid), which
// no sandboxed process is. The namespace is read from /proc/PID; the
// peer's pidfd (SO_PEERPIDFD; else one opened for the pid) must still
// refer to a live process afterwards, so the pid was not reused in
// between.
func CheckPeer(c int, uid int, nsSelf string) string {
	cred, err := unix.GetsockoptUcred(c, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return "no peer credentials: " + err.Error()
	}
	if int(cred.Uid) != uid {
		return fmt.Sprintf("peer uid %d", cred.Uid)
	}
	if cred.Pid <= 0 {
		return "the peer's pid is not in the watcher's pid namespace"
	}
	pidfd, err := unix.GetsockoptInt(c, unix.SOL_SOCKET, soPeerPidfd)
	if errors.Is(err, unix.ENOPROTOOPT) {
		// Before Linux 6.5: a pidfd for the pid as it is now.
		if pidfd, err = unix.PidfdOpen(int(cred.Pid), 0); err != nil {
			return "the peer is gone"
		}
	} else if err != nil {
		// The kernel knows the option and has no pidfd for the peer:
		// it has exited, and its pid may be another process's now.
		return "the peer is gone"
	}
	defer unix.Close(pidfd)
	ns, err := os.Readlink("/proc/" + strconv.Itoa(int(cred.Pid)) + "/ns/pid")
	if err != nil {
		return "cannot read the peer's pid namespace: " + err.Error()
	}
	if err := unix.PidfdSendSignal(pidfd, 0, nil, 0); err != nil {
		return "the peer is gone"
	}
	if ns != nsSelf {
		return "the peer is in another pid namespace (" + ns + ")"
	}
	return ""
}
