package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// This file holds the run-time check of the bwrap binary and its
// execution through the descriptor that was checked.

// CheckBwrap checks the bwrap at inv.Bwrap.Path as the runtime would
// execute it (see openBwrap): a regular ELF executable, owned by root or
// the caller, not writable by group or others, with the identity the
// compiler recorded, and outside the sandbox's writable set. It does not
// run bwrap: whether bwrap supports every
// option in inv.Bwrap.Requires is checked when the invocation is compiled
// (ProbeBwrap) and by `bwpolicy doctor`; at run time an older bwrap fails
// with "Unknown option", which Run reports as exit 125 naming the option.
func CheckBwrap(inv *invocation.Invocation) error {
	f, err := openBwrap(inv)
	if err != nil {
		return err
	}
	defer f.Close()
	return bwrapOutsideWritable(f, inv)
}

// recompileHint ends the messages about an invocation that no longer
// matches this host or was edited by hand.
const recompileHint = "recompile with `bwpolicy compile` (never edit an invocation by hand)"

// openBwrap opens inv.Bwrap.Path and checks the open file (fstat, not the
// path again): a regular file starting with the ELF magic, executable,
// owned by root or the caller, not writable by group or others, and with
// the identity (device, inode, size, modification time) the compiler
// recorded. A wrapper script, another program put at the path, or a
// bwrap replaced since the compile is refused. The caller executes the
// returned file through its descriptor (startBwrap), so the file checked
// is the file run.
func openBwrap(inv *invocation.Invocation) (*os.File, error) {
	p := inv.Bwrap.Path
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("bwrap not found at %s (the invocation was compiled for it); %s, then recompile with `bwpolicy compile`", p, invocation.InstallHint)
		}
		return nil, fmt.Errorf("bwrap at %s: %v", p, err)
	}
	f := os.NewFile(uintptr(fd), p)
	if err := checkBwrapFile(f, inv); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func checkBwrapFile(f *os.File, inv *invocation.Invocation) error {
	p := inv.Bwrap.Path
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fmt.Errorf("bwrap at %s: %v", p, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("bwrap at %s is not a regular file; %s", p, recompileHint)
	}
	if st.Mode&0o111 == 0 {
		return fmt.Errorf("bwrap at %s is not executable; reinstall bubblewrap (%s)", p, invocation.InstallHint)
	}
	if uid := uint32(os.Geteuid()); st.Uid != 0 && st.Uid != uid {
		return fmt.Errorf("bwrap at %s is owned by uid %d, neither root nor the caller (uid %d): whoever owns it decides what runs; install bubblewrap from the system's packages and recompile", p, st.Uid, uid)
	}
	if st.Mode&0o022 != 0 {
		return fmt.Errorf("bwrap at %s is writable by group or others (mode %#o): anyone in them could replace the sandbox; `chmod go-w %s`, then recompile", p, st.Mode&0o7777, p)
	}
	var magic [4]byte
	if n, _ := unix.Pread(int(f.Fd()), magic[:], 0); n != 4 || string(magic[:]) != "\x7fELF" {
		return fmt.Errorf("bwrap at %s is not an ELF executable (a script or a wrapper cannot be trusted to set up the sandbox); point $%s at the bubblewrap binary itself and recompile", p, hostprobe.EnvBwrap)
	}
	want := inv.Bwrap.Identity
	if want == (invocation.FileIdentity{}) {
		return fmt.Errorf("the invocation records no identity for bwrap at %s (compiled by an older bwpolicy, or edited); %s", p, recompileHint)
	}
	if got := hostprobe.IdentityOf(&st); got != want {
		// Stale, like a changed precondition: a bubblewrap upgrade calls
		// for a recompile, which probes the new binary.
		return &StaleError{Mismatches: []Mismatch{{Precondition: invocation.Precondition{Path: p, Kind: invocation.KindFile, Why: invocation.ReasonBwrap}, Kind: invocation.KindFile,
			Changed: fmt.Sprintf("not the bwrap binary the invocation was compiled for (device, inode, size or modification time differ: now %s, recorded %s): upgraded or replaced", got, want)}}}
	}
	return nil
}

// bwrapOutsideWritable refuses a bwrap that lies in the sandbox's
// writable set (a read-write bind's source, by its real path): a command
// could replace it, and the next compile would probe (run) what it put
// there.
func bwrapOutsideWritable(f *os.File, inv *invocation.Invocation) error {
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return fmt.Errorf("bwrap at %s: cannot tell where it lies (is /proc mounted?)", inv.Bwrap.Path)
	}
	args := inv.Bwrap.Args
	for i := 0; i < len(args); i += 1 + arity(args[i]) {
		if mountOps[args[i]] == mountRW && i+2 < len(args) && invocation.Within(real, args[i+1]) {
			return fmt.Errorf("bwrap at %s (%s) lies in the sandbox's writable set (%s is bound read-write at %s): a command could replace it; install bubblewrap outside the working directory and the read-write binds, then recompile", inv.Bwrap.Path, real, args[i+1], args[i+2])
		}
	}
	return nil
}

// startBwrap checks bwrap again (openBwrap) and starts it with
// syscall.ForkExec through /proc/self/fd/N, the descriptor it checked
// (fexecve semantics): replacing the file at bwrap.path after the check
// cannot change what runs. The descriptor is duplicated above every
// number ForkExec's child uses while it arranges attr.Files, so it is
// still open, and unchanged, when the child executes it; it is
// close-on-exec, so bwrap does not inherit it.
func startBwrap(inv *invocation.Invocation, args []string, attr *syscall.ProcAttr) (int, error) {
	f, err := openBwrap(inv)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	// ForkExec's child dup2s attr.Files onto 0..len-1 and first moves
	// any that would be clobbered to numbers from max(len, highest)+1 on
	// (one more for its own error pipe): stay above all of them.
	low := len(attr.Files)
	for _, fd := range attr.Files {
		if fd != ^uintptr(0) && int(fd) > low {
			low = int(fd)
		}
	}
	low += len(attr.Files) + 3
	n, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, low)
	if err != nil {
		return 0, fmt.Errorf("bwrap at %s: duplicating its descriptor: %w", inv.Bwrap.Path, err)
	}
	defer unix.Close(n)
	return syscall.ForkExec("/proc/self/fd/"+strconv.Itoa(n), args, attr)
}
