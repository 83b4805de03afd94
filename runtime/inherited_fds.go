package runtime

import (
	"golang.org/x/sys/unix"
)

// CloseInheritedFDs marks every descriptor from 3 up close-on-exec, so
// that nothing the caller left open (a credential file, a socket) reaches
// bwrap and the sandboxed command: bwrap does not close them itself. The
// descriptors the invocation declares are opened afterwards and handed to
// bwrap explicitly. Call it first thing in a process whose only job is to
// run sandboxes (cmd/bwrun, `bwpolicy run`); a library caller of Run must
// make sure its own descriptors are close-on-exec.
func CloseInheritedFDs() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Kernels before 5.11: mark them one by one, up to the soft limit.
	var rl unix.Rlimit
	max := uint64(4096)
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Cur < 1<<20 {
		max = rl.Cur
	}
	for fd := 3; uint64(fd) < max; fd++ {
		unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
	}
}
