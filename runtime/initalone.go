package runtime

import (
	"bytes"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// pfExiting is the kernel's PF_EXITING task flag (include/linux/sched.h),
// field 9 of /proc/PID/stat: set at the start of do_exit, after which the
// task never returns to user space.
const pfExiting = 0x4

// initAlone reports whether the sandbox's init (pid, held by pidfd) has
// exited, or is exiting, single-threaded, with no child left: then
// nothing of the sandbox can run any more, and contain need not wait for
// the kernel to finish the init's exit (the teardown of the sandbox's
// mounts, which the init, as the last user of the mount namespace, does
// on its way out: most of that wait). It is called after SIGKILL was
// sent to the init, so the init forks no new child from here on (a fork
// with a fatal signal pending fails). An init that has not yet begun to
// exit is looked at again for up to initAloneTries × initAloneStep
// (it usually is on its way out: bwrap's init exits right after it
// reports the command's status, and SIGKILL gets it there at once).
//
// Why no child means no process: every process of the sandbox's pid
// namespace descends from its init (a command cannot enter the
// namespace from outside, orphans are reparented within the tree, and
// the init may not clone with CLONE_PARENT), so an init without
// children is the namespace's last process; and an exiting one (the
// kernel's PF_EXITING, set when do_exit begins) runs only the kernel's
// exit path, never user code or the rest of a system call of its own.
// Any other state (a child, even a zombie, still listed, another
// thread, /proc unreadable) answers false, and the caller waits for the
// exit.
func initAlone(pidfd, pid int) bool {
	if exited(pidfd) {
		return true
	}
	dir, err := unix.Open("/proc/"+strconv.Itoa(pid), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(dir)
	// The pid was not yet reaped (so not reused) when dir was opened: dir
	// is the init's.
	if err := unix.PidfdSendSignal(pidfd, 0, nil, 0); err != nil {
		return err == unix.ESRCH && exited(pidfd)
	}
	children := "task/" + strconv.Itoa(pid) + "/children"
	var buf [1024]byte
	for try := 0; ; try++ {
		flags, threads, ok := statFlagsThreads(readAt(dir, "stat", buf[:]))
		switch {
		case !ok:
			return exited(pidfd)
		case flags&pfExiting == 0:
			if try == initAloneTries {
				return false
			}
			time.Sleep(initAloneStep)
			continue
		case threads != 1:
			return false
		}
		c := readAt(dir, children, buf[:])
		return c != nil && len(bytes.TrimSpace(c)) == 0
	}
}

// initAloneTries and initAloneStep bound how long initAlone waits for the
// init to begin its exit.
const (
	initAloneTries = 10
	initAloneStep  = 20 * time.Microsecond
)

// exited reports whether pidfd polls readable now (its process exited).
func exited(pidfd int) bool {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0
}

// readAt reads up to len(buf) bytes of the file name under dir; nil when
// it cannot be read (an empty file gives an empty, non-nil slice).
func readAt(dir int, name string, buf []byte) []byte {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	n, err := unix.Read(fd, buf)
	if err != nil || n == len(buf) {
		return nil
	}
	return buf[:n]
}

// statFlagsThreads parses the flags (field 9) and num_threads (field 20)
// of a /proc/PID/stat line. The command name (field 2) is in parentheses
// and may hold anything, so the fields are counted after its last ')'.
func statFlagsThreads(stat []byte) (flags uint64, threads int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:]) // f[0] is field 3 (state)
	if len(f) < 18 {
		return 0, 0, false
	}
	flags, err1 := strconv.ParseUint(string(f[6]), 10, 64)
	threads, err2 := strconv.Atoi(string(f[17]))
	return flags, threads, err1 == nil && err2 == nil
}
