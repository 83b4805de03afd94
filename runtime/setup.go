package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"golang.org/x/sys/unix"
)

// setUp is the set-up phase: bwrap reports the sandbox's first process on
// --info-fd and waits on --block-fd; the runtime takes a pidfd for that
// process, checks its pid namespace, applies the limits and releases it.
// It returns whether the command was released (false: a signal, ctx or
// the timeout aborted the set-up, or bwrap died first; the sandbox is
// being killed) and a set-up error for finish to report.
func (r *runner) setUp(ctx context.Context) (released bool, err error) {
	if r.fds.info != nil {
		infoc := make(chan infoResult, 1)
		go readInfo(r.fds.info, infoc)
		var info infoResult
		select {
		case info = <-infoc:
		case s := <-r.sigc:
			r.relayed(s)
			r.abortSetup(infoc)
			return false, nil
		case <-ctx.Done():
			r.ctxErr = ctx.Err()
			r.abortSetup(infoc)
			return false, nil
		case <-r.timeout():
			r.timedOut = true
			r.abortSetup(infoc)
			return false, nil
		}
		if info.err != nil {
			// bwrap died (or closed the fd) before starting the sandbox.
			r.killAll()
			return false, nil
		}
		r.adopt(info.pid)
		if err := r.checkOwnPidNS(); err != nil {
			r.killAll()
			return false, err
		}
		if err := r.applyLimits(); err != nil {
			r.killAll()
			return false, err
		}
	}
	if r.fds.block != nil {
		// A context done while bwrap set up (select above may have
		// picked bwrap's report) never releases the command.
		if err := ctx.Err(); err != nil {
			r.ctxErr = err
			r.killAll()
			return false, nil
		}
		// Release bwrap. An error means bwrap is gone; its exit says why.
		_, _ = r.fds.block.Write([]byte{'x'})
		r.fds.block.Close()
		r.fds.block = nil
	}
	return true, nil
}

// adopt records the sandbox's first process and opens a pidfd for it.
// Its pid is stable here: it is bwrap's unreaped child, blocked on
// --block-fd (or, from abortSetup, on bwrap's start-up).
func (r *runner) adopt(pid int) {
	r.pid1 = pid
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		r.pidfd = fd
	}
}

// checkOwnPidNS refuses a sandbox whose first process shares the
// runtime's pid namespace: killing it would not take the command's
// processes along, so the sandbox could not be contained (finish).
func (r *runner) checkOwnPidNS() error {
	own, err1 := os.Readlink("/proc/self/ns/pid")
	theirs, err2 := os.Readlink("/proc/" + strconv.Itoa(r.pid1) + "/ns/pid")
	if err1 != nil || err2 != nil {
		return nil // no /proc: cannot tell (the pidfd kill still applies)
	}
	if own == theirs {
		return errors.New("the sandbox has no pid namespace of its own (bwrap's arguments lack --unshare-pid/--unshare-all): its processes could not be contained; recompile with `bwpolicy compile`")
	}
	return nil
}

// abortSetup ends a sandbox that is still being set up. It first waits
// (briefly) for bwrap to report the sandbox's first process, then kills
// that process and bwrap. Killing bwrap alone before it has reported
// would leave the first process blocked for good (on --block-fd, which
// never sees EOF, see blockPipe, or on bwrap's own start-up eventfd,
// which bwrap writes right after the report).
func (r *runner) abortSetup(infoc <-chan infoResult) {
	select {
	case info := <-infoc:
		if info.err == nil && info.pid > 0 {
			r.adopt(info.pid)
		}
	case <-time.After(statusGrace):
	}
	r.killAll()
}

// applyLimits sets the invocation's rlimits on the sandbox's first
// process while it waits on --block-fd.
func (r *runner) applyLimits() error {
	l := r.inv.Rlimits
	if l.NProc != 0 {
		ok, err := nprocPerUserNS()
		switch {
		case err != nil:
			r.warn(fmt.Sprintf("RLIMIT_NPROC not set (max_procs not enforced): cannot tell the kernel version: %v", err))
		case !ok:
			rel, _ := hostprobe.KernelRelease()
			r.warn(fmt.Sprintf("RLIMIT_NPROC not set (max_procs not enforced): kernel %s counts it per user, not per user namespace (needs %s or later)", rel, hostprobe.NProcPerUserNSSince))
		case os.Getuid() == 0:
			// bwrap maps the sandbox's user to the caller's real uid, and
			// the kernel never applies RLIMIT_NPROC to global root.
			r.warn("RLIMIT_NPROC not set (max_procs not enforced): the kernel exempts root (uid 0) from it; run as an ordinary user to enforce max_procs")
		default:
			if err := prlimitClamped(r.pid1, unix.RLIMIT_NPROC, l.NProc); err != nil {
				return fmt.Errorf("setting RLIMIT_NPROC=%d in the sandbox: %w", l.NProc, err)
			}
		}
	}
	if err := prlimitClamped(r.pid1, unix.RLIMIT_AS, l.AsBytes); err != nil {
		return fmt.Errorf("setting RLIMIT_AS=%d in the sandbox: %w", l.AsBytes, err)
	}
	if err := prlimitClamped(r.pid1, unix.RLIMIT_CPU, l.CPUSeconds); err != nil {
		return fmt.Errorf("setting RLIMIT_CPU=%d in the sandbox: %w", l.CPUSeconds, err)
	}
	if err := prlimitClamped(r.pid1, unix.RLIMIT_NOFILE, l.NoFile); err != nil {
		return fmt.Errorf("setting RLIMIT_NOFILE=%d in the sandbox: %w", l.NoFile, err)
	}
	return nil
}

// prlimitClamped sets soft = hard = v (0: leave alone) on pid, clamped to
// the hard limit pid has now (inherited from the runtime).
func prlimitClamped(pid, resource int, v uint64) error {
	if v == 0 {
		return nil
	}
	var old unix.Rlimit
	if err := unix.Prlimit(pid, resource, nil, &old); err != nil {
		return err
	}
	v = min(v, old.Max)
	return unix.Prlimit(pid, resource, &unix.Rlimit{Cur: v, Max: v}, nil)
}

type infoResult struct {
	pid int
	err error
}

func readInfo(f *os.File, c chan<- infoResult) {
	defer f.Close()
	var doc struct {
		ChildPid int `json:"child-pid"`
	}
	// Decode one object rather than read to EOF.
	if err := json.NewDecoder(io.LimitReader(f, 1<<16)).Decode(&doc); err != nil {
		c <- infoResult{err: fmt.Errorf("reading bwrap's --info-fd: %w", err)}
		return
	}
	if doc.ChildPid <= 0 {
		c <- infoResult{err: errors.New("bwrap's --info-fd has no child-pid")}
		return
	}
	c <- infoResult{pid: doc.ChildPid}
}

// nprocPerUserNS is hostprobe.NProcPerUserNS (a variable so that a test
// can stand in for an older kernel).
var nprocPerUserNS = hostprobe.NProcPerUserNS
