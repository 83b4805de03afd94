package main

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A probe performs one syscall and returns its errno (0 on success). A
// non-nil error means the probe could not be set up.
type probe func() (unix.Errno, error)

// empty is a NUL-terminated empty string: as a path it fails with ENOENT
// before anything is looked up.
var empty = []byte{0}

func ptr(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }

func sys(nr uintptr, args ...uintptr) probe {
	return func() (unix.Errno, error) {
		var a [6]uintptr
		copy(a[:], args)
		_, _, e := unix.Syscall6(nr, a[0], a[1], a[2], a[3], a[4], a[5])
		return e, nil
	}
}

// onPty runs an ioctl on the master of a fresh pseudo-terminal of our
// own, never on the terminal sysprobe was started from.
func onPty(req uint64) probe {
	return func() (unix.Errno, error) {
		fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			return 0, err
		}
		defer unix.Close(fd)
		var buf [64]byte // a termios, TIOCSTI's character, TIOCLINUX's subcode 0 (invalid)
		_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(unsafe.Pointer(&buf[0])))
		return e, nil
	}
}

// onSelf transfers zero bytes between this process and itself.
func onSelf(nr uintptr) probe {
	return func() (unix.Errno, error) { return sys(nr, uintptr(os.Getpid()), 0, 0, 0, 0, 0)() }
}

// inChild starts "sysprobe getpid" with attr and returns the errno of the
// clone or unshare that set it up. A child is needed because unshare
// (CLONE_NEWUSER) fails with EINVAL in a multi-threaded process; Go's
// fork path calls clone(2) (not clone3) and unshare(2) single-threaded.
func inChild(attr *syscall.SysProcAttr) probe {
	return func() (unix.Errno, error) {
		cmd := exec.Command("/proc/self/exe", "getpid")
		cmd.SysProcAttr = attr
		err := cmd.Run()
		var e syscall.Errno
		if errors.As(err, &e) {
			return unix.Errno(e), nil
		}
		return 0, err
	}
}

// noCore keeps a probe the filter kills from leaving a core file.
func noCore(p probe) probe {
	return func() (unix.Errno, error) {
		if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}); err != nil {
			return 0, err
		}
		return p()
	}
}

func readDevNull() (unix.Errno, error) {
	f, err := os.Open("/dev/null")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var b [1]byte
	_, _, e := unix.Syscall(unix.SYS_READ, f.Fd(), uintptr(unsafe.Pointer(&b[0])), 1)
	return e, nil
}

const (
	keyctlGetKeyringID    = 0
	keySpecSessionKeyring = -3 & (1<<64 - 1) // as an unsigned register
	uffdUserModeOnly      = 1
	kexecSegmentMax       = 16
	addrNoRandomize       = 0x0040000
	perLinux32            = 0x8
	personalityQuery      = 0xffffffff
	badFD                 = ^uintptr(0) // -1
)

// probes maps a probe name to the call it makes. Unsandboxed, each call
// fails harmlessly (EFAULT, EBADF, ENOENT, EINVAL after the capability
// check) or changes only this process (unshare, personality, a TIOCSTI
// into our own pty).
var probes = map[string]probe{
	// Allowed calls: the probe and the sandbox work.
	"getpid": sys(unix.SYS_GETPID),
	"read":   readDevNull,
	"tcgets": onPty(unix.TCGETS),

	// tty-inject
	"tiocsti":        onPty(unix.TIOCSTI),
	"tiocsti-high":   onPty(unix.TIOCSTI | 1<<32),
	"tioclinux":      onPty(unix.TIOCLINUX),
	"tioclinux-high": onPty(unix.TIOCLINUX | 1<<32),

	// keyring
	"keyctl":      sys(unix.SYS_KEYCTL, keyctlGetKeyringID, keySpecSessionKeyring, 0),
	"add_key":     sys(unix.SYS_ADD_KEY, 0, 0, 0, 0, 0),
	"request_key": sys(unix.SYS_REQUEST_KEY, 0, 0, 0, 0),

	// ptrace: pid 0 does not exist (ESRCH); reading zero bytes of ourself.
	"ptrace":            sys(unix.SYS_PTRACE, unix.PTRACE_PEEKDATA, 0, 0, 0),
	"process_vm_readv":  onSelf(unix.SYS_PROCESS_VM_READV),
	"process_vm_writev": onSelf(unix.SYS_PROCESS_VM_WRITEV),
	// pidfd_getfd: a bad pidfd (EBADF).
	"pidfd_getfd": sys(unix.SYS_PIDFD_GETFD, badFD, 0, 0),

	"perf_event_open": sys(unix.SYS_PERF_EVENT_OPEN, 0, 0, badFD, badFD, 0),

	// vsock (a network group, in every profile): a hypervisor socket,
	// closed at once (EAFNOSUPPORT outside too on a kernel without vsock).
	"vsock": func() (unix.Errno, error) {
		fd, _, e := unix.Syscall(unix.SYS_SOCKET, unix.AF_VSOCK, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if e == 0 {
			unix.Close(int(fd))
		}
		return e, nil
	},
	"bpf": sys(unix.SYS_BPF, 0xffff, 0, 0),
	"userfaultfd": func() (unix.Errno, error) {
		fd, _, e := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC|uffdUserModeOnly, 0, 0)
		if e == 0 {
			unix.Close(int(fd))
		}
		return e, nil
	},

	// io_uring: a NULL params pointer (EFAULT), a bad fd (EBADF).
	"io_uring_setup":    sys(unix.SYS_IO_URING_SETUP, 1, 0),
	"io_uring_enter":    sys(unix.SYS_IO_URING_ENTER, badFD, 0, 0, 0, 0, 0),
	"io_uring_register": sys(unix.SYS_IO_URING_REGISTER, badFD, 0, 0, 0),

	// mount: empty paths.
	"mount":      sys(unix.SYS_MOUNT, ptr(empty), ptr(empty), ptr(empty), 0, 0),
	"umount2":    sys(unix.SYS_UMOUNT2, ptr(empty), 0),
	"pivot_root": sys(unix.SYS_PIVOT_ROOT, ptr(empty), ptr(empty)),

	// new-mount-api
	"open_tree":      sys(unix.SYS_OPEN_TREE, badFD, ptr(empty), 0),
	"move_mount":     sys(unix.SYS_MOVE_MOUNT, badFD, ptr(empty), badFD, ptr(empty), 0),
	"fsopen":         sys(unix.SYS_FSOPEN, 0, 0),
	"fsconfig":       sys(unix.SYS_FSCONFIG, badFD, 0, 0, 0, 0),
	"fsmount":        sys(unix.SYS_FSMOUNT, badFD, 0, 0),
	"fspick":         sys(unix.SYS_FSPICK, badFD, ptr(empty), 0),
	"mount_setattr":  sys(unix.SYS_MOUNT_SETATTR, badFD, ptr(empty), 0, 0, 0),
	"open_tree_attr": sys(unix.SYS_OPEN_TREE_ATTR, badFD, ptr(empty), 0, 0, 0),

	// clone3: a NULL, zero-sized argument (EINVAL).
	"clone3": sys(unix.SYS_CLONE3, 0, 0),

	// namespaces
	"unshare":       sys(unix.SYS_UNSHARE, 0),
	"unshare-user":  inChild(&syscall.SysProcAttr{Unshareflags: unix.CLONE_NEWUSER}),
	"setns":         sys(unix.SYS_SETNS, badFD, 0),
	"clone-newuser": inChild(&syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWUSER}),

	// kexec: too many segments (EINVAL); a flag that does not exist
	// (EINVAL; never KEXEC_FILE_UNLOAD).
	"kexec_load":      sys(unix.SYS_KEXEC_LOAD, 0, kexecSegmentMax+1, 0, 0),
	"kexec_file_load": sys(unix.SYS_KEXEC_FILE_LOAD, badFD, badFD, 0, 0, 1<<31),

	// modules: an empty image (ENOEXEC), no fd, no module called "".
	"init_module":   sys(unix.SYS_INIT_MODULE, ptr(empty), 0, ptr(empty)),
	"finit_module":  sys(unix.SYS_FINIT_MODULE, badFD, ptr(empty), 0),
	"delete_module": sys(unix.SYS_DELETE_MODULE, ptr(empty), unix.O_NONBLOCK),

	// personality: a query and PER_LINUX32 are allowed; switching ASLR
	// off is not. Either way only this process changes.
	"personality-query":   sys(unix.SYS_PERSONALITY, personalityQuery),
	"personality-linux32": sys(unix.SYS_PERSONALITY, perLinux32),
	"personality-noaslr":  sys(unix.SYS_PERSONALITY, addrNoRandomize),
}

func init() {
	for name, p := range archProbes {
		probes[name] = noCore(p)
	}
}
