package runtime

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// statusGrace bounds how long Run waits, after bwrap has exited, for the
// end of the status documents (bwrap is the only writer, so EOF is
// immediate unless something else inherited the fd).
const statusGrace = time.Second

// containGrace bounds how long finish waits for the sandbox's pid
// namespace to be gone after SIGKILL to its init.
const containGrace = 5 * time.Second

// finish is the one way out once bwrap has started, whatever ended the
// run (the command's exit reported, bwrap exiting, a relayed signal, the
// timeout, ctx, or a set-up error of the runtime's, setupErr): bwrap is
// reaped, the sandbox's whole pid namespace is killed and confirmed gone
// (contain), the stderr and status pipes are drained, the post-command
// checks run, and the outcome is decided.
func (r *runner) finish(setupErr error) (int, error) {
	if !r.reaped {
		r.killAll()
		r.w, r.reaped = <-r.waited, true
	}
	r.contain()
	r.leaveCgroup()
	r.drain()
	if setupErr != nil {
		// bwrap ran: what it started may have written before it was
		// killed. The scan runs whatever ended the run (H9).
		r.scan = r.postScan()
		if r.gitScan != nil {
			*r.gitScan = r.scan
		}
		return setupFailure(setupErr)
	}
	r.created = CreatedProtected(r.inv)
	for _, p := range r.created {
		r.warn(fmt.Sprintf("the command created %s, which runs outside the sandbox later (H9): review it before you use it; the next command needs a recompile", p))
	}
	// The sandbox is dead: nothing can change the writable set while the
	// scan looks at it and sets aside what a later host git would run.
	r.scan = r.postScan()
	for _, w := range r.scan.Warnings {
		r.warn(w)
	}
	if r.gitScan != nil {
		*r.gitScan = r.scan
	}
	return r.outcome(r.w)
}

// postScan is the post-command scan: Stdio.Scan, else ScanGit with the
// run's ledger and index.
func (r *runner) postScan() GitScanReport {
	if r.scanFn != nil {
		return r.scanFn(r.inv)
	}
	home, _ := r.opts.lookupEnv("HOME")
	return ScanGitIndexed(r.inv, home, time.Now(), r.ledger, r.index)
}

// contain kills the sandbox's pid namespace: SIGKILL to its init through
// the pidfd taken while bwrap still held it unreaped (so never a reused
// pid), then waits until the init has exited. The kernel kills every
// other process of a pid namespace when its init exits and lets the init
// finish exiting only once they are all gone, so a readable pidfd means
// nothing of the sandbox runs any more, whatever the command did to the
// init (a command that rewrote pid 1's code to clear its parent-death
// signal and report a fake exit included). bwrap itself is already
// reaped here. The wait is cut short when initAlone finds the init
// already exiting with nothing else left in its namespace (the kernel's
// teardown of the sandbox's mounts is then all that remains), except
// with a cgroup, which can only be removed once the init has exited.
func (r *runner) contain() {
	if r.pid1 <= 0 || !containKill {
		return // bwrap never reported a first process: no command ran
	}
	if r.pidfd < 0 {
		r.warn(fmt.Sprintf("cannot confirm that the sandbox's processes ended: no pidfd for its first process %d (pidfd_open needs Linux 5.3)", r.pid1))
		return
	}
	_ = unix.PidfdSendSignal(r.pidfd, unix.SIGKILL, nil, 0) // ESRCH: already gone
	if r.cgroup == nil && initAlone(r.pidfd, r.pid1) {
		return
	}
	if !pidfdExited(r.pidfd, containGrace) {
		r.warn(fmt.Sprintf("the sandbox's first process %d did not exit within %v of SIGKILL: processes of the sandbox may still run", r.pid1, containGrace))
	}
}

// pidfdExited waits up to d for the process of pidfd to exit (the pidfd
// polls readable).
func pidfdExited(pidfd int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		left := time.Until(deadline)
		if left < 0 {
			left = 0
		}
		n, err := unix.Poll(fds, int(left.Milliseconds()))
		switch {
		case n > 0:
			return true
		case err == unix.EINTR:
			continue
		case err != nil || left == 0:
			return false
		}
	}
}

// drain collects the last status documents and stderr output once bwrap
// has exited. It does not wait for EOF on stderr: everything the command
// and bwrap wrote before bwrap exited is already in the pipe.
func (r *runner) drain() {
	r.errR.SetReadDeadline(time.Now())
	if r.outR != nil {
		r.outR.SetReadDeadline(time.Now())
	}
	if r.fds.status != nil {
		r.readStatus()
	}
	<-r.copyDone
	if r.outDone != nil {
		<-r.outDone
	}
}

// readStatus reads the --json-status-fd documents once bwrap has exited
// (bwrap is their only writer and they are far smaller than a pipe
// buffer, so no reader needs to run meanwhile), keeping the
// "exit-code".
func (r *runner) readStatus() {
	f := r.fds.status
	f.SetReadDeadline(time.Now().Add(statusGrace))
	dec := json.NewDecoder(io.LimitReader(f, 1<<20))
	for {
		var doc struct {
			ExitCode *int `json:"exit-code"`
		}
		if err := dec.Decode(&doc); err != nil {
			return
		}
		if doc.ExitCode != nil {
			r.exitCode = doc.ExitCode
		}
	}
}

// CreatedProtected returns the paths the invocation kept read-only where
// they existed (H9) and recorded absent, that exist now: a command
// created them (a `git init` makes .git/config and .git/hooks), and what
// it wrote there will run on the host. One lstat each, after the command.
func CreatedProtected(inv *invocation.Invocation) []string {
	var out []string
	for _, p := range inv.Preconditions {
		if p.Why != invocation.ReasonProtectedEntries || p.Kind != invocation.KindAbsent {
			continue
		}
		if _, err := os.Lstat(p.Path); err == nil {
			out = append(out, p.Path)
		}
	}
	return out
}
