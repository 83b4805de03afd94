package runtime

import (
	"context"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// supervise waits for bwrap while the command runs, relaying signals: the
// first is forwarded to the sandbox, a second kills it, as do ctx and
// Options.Timeout. It returns once bwrap has been reaped (r.w).
func (r *runner) supervise(ctx context.Context) {
	timeout := r.timeout()
	for {
		select {
		case w := <-r.waited:
			r.w, r.reaped = w, true
			// Both may be ready at once, and select picks either: a
			// context done by the time bwrap was reaped ended the run
			// (its kill may be what bwrap died of).
			if err := ctx.Err(); err != nil && r.ctxErr == nil {
				r.ctxErr = err
			}
			return
		case s := <-r.sigc:
			r.relayed(s)
			if r.nsig == 1 {
				r.forward()
			} else {
				r.killAll()
			}
		case <-ctx.Done():
			if r.ctxErr == nil {
				r.ctxErr = ctx.Err()
				r.killedByContext = true
				r.killAll()
			}
			ctx = context.Background() // don't spin on the closed channel
		case <-timeout:
			r.timedOut = true
			r.killAll()
			timeout = nil
		}
	}
}

func (r *runner) relayed(s os.Signal) {
	if ss, ok := s.(syscall.Signal); ok {
		r.sig = ss
	}
	r.nsig++
}

// forward relays r.sig to the sandbox: to its process group when the
// sandbox's first process leads one (bwrap --new-session calls setsid in
// it before forking the command, so the group is the command's), else to
// bwrap itself, which dies and takes the sandbox down with it.
func (r *runner) forward() {
	if r.pid1 > 0 && r.alive() {
		if pgid, err := unix.Getpgid(r.pid1); err == nil && pgid == r.pid1 {
			if unix.Kill(-r.pid1, r.sig) == nil {
				return
			}
		}
	}
	r.signalBwrap(r.sig)
}

// signalBwrap sends sig to bwrap (through its pidfd, so never to a
// reused pid).
func (r *runner) signalBwrap(sig syscall.Signal) {
	if r.bwrapPidfd >= 0 {
		_ = unix.PidfdSendSignal(r.bwrapPidfd, sig, nil, 0)
	} else if r.bwrapPID > 0 {
		_ = syscall.Kill(r.bwrapPID, sig)
	}
}

// alive reports whether the sandbox's first process still exists (so its
// pid, and the group id equal to it, cannot have been reused).
func (r *runner) alive() bool {
	if r.pidfd < 0 {
		return true // no pidfd (kernel < 5.3): bwrap, our child, is alive
	}
	return unix.PidfdSendSignal(r.pidfd, 0, nil, 0) == nil
}

// killAll tears the sandbox down while bwrap runs: SIGKILL to its first
// process (which, as the pid namespace's init, takes every process in it
// along) and to bwrap.
func (r *runner) killAll() {
	if r.pidfd >= 0 {
		_ = unix.PidfdSendSignal(r.pidfd, unix.SIGKILL, nil, 0)
	} else if r.pid1 > 0 && !r.reaped {
		_ = unix.Kill(r.pid1, unix.SIGKILL)
	}
	r.signalBwrap(unix.SIGKILL)
}
