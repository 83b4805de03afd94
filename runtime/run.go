package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	goruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Exit statuses the runtime itself produces. Everything else Run returns
// is the command's own status (128+N when a signal N killed it).
const (
	// ExitSetup: the runtime or bwrap could not set the sandbox up (or the
	// invocation is invalid or stale); the command did not run.
	ExitSetup = 125
	// ExitCannotExec: the command exists in the sandbox but could not be
	// executed (permission denied, bad format).
	ExitCannotExec = 126
	// ExitNotFound: the command does not exist in the sandbox.
	ExitNotFound = 127
)

// ForwardedSignals are the signals Run relays to the sandbox while it runs.
var ForwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Stdio is the command's standard streams. A nil stream is /dev/null.
//
// Stdin and Stdout are handed to bwrap (and so to the command) as they
// are. Stderr is interposed: the command writes to a pipe that Run copies
// to Stderr, keeping the last few kilobytes so that bwrap's own "bwrap:"
// message can be reported when the sandbox cannot be set up. When Stdout
// and Stderr are the same file (2>&1) and not a terminal, both streams go
// through that one pipe, so their relative order is kept.
type Stdio struct {
	Stdin  *os.File
	Stdout *os.File
	Stderr *os.File
	// Warn receives the runtime's warnings, one line each without a
	// prefix. Nil writes "bwrun: warning: MSG" to Stderr.
	Warn func(msg string)
	// Signals, if set, is a channel the caller has already registered
	// with signal.Notify for ForwardedSignals (cmd/bwrun does so while it
	// loads the invocation); Run relays what arrives on it and leaves the
	// registration alone. A signal already pending stops Run before bwrap
	// starts. Nil: Run registers (and afterwards removes) its own.
	Signals <-chan os.Signal
	// GitScan, if set, receives the report of the post-command git scan
	// (ScanGit): what it set aside, its warnings, and why the invocation
	// is stale now. Its warnings also go to Warn.
	GitScan *GitScanReport
}

// SetupError is the error Run returns when the command did not run to
// completion inside the sandbox for a reason of the runtime's or bwrap's
// (as opposed to the command's own exit status).
type SetupError struct {
	// Code is the exit status Run returned with it (ExitSetup,
	// ExitCannotExec or ExitNotFound).
	Code int
	// Msg says what went wrong.
	Msg string
	// BwrapMessage holds bwrap's own diagnostic lines ("bwrap: ..."), if
	// it printed any.
	BwrapMessage []string
	// Err is the underlying error, if any.
	Err error
}

// Error returns Msg followed by the underlying error.
func (e *SetupError) Error() string {
	msg := e.Msg
	if e.Err != nil {
		if msg == "" {
			msg = e.Err.Error()
		} else {
			msg += ": " + e.Err.Error()
		}
	}
	return msg
}

// Unwrap returns the underlying error.
func (e *SetupError) Unwrap() error { return e.Err }

func setupFailure(err error) (int, error) {
	return ExitSetup, &SetupError{Code: ExitSetup, Err: err}
}

// Run executes argv in the sandbox inv describes and returns the
// command's exit status. The flow:
//
//  1. CheckBwrap, CheckPreconditions (lstat/readlink only) and
//     CheckCredentialEnv (the environment's credential paths); a stale
//     invocation is refused.
//  2. The environment is os.Environ() filtered by inv.Env (BuildEnv);
//     a shell's -c script is prefixed with an unset of
//     inv.Env.UnsetAfterRC, so the names are removed again after its rc
//     files (UnsetAfterRC).
//  3. The descriptors of inv.FDs are opened at exactly their numbers.
//  4. bwrap starts as `bwrap ARGS... -- argv...` (same process group,
//     stdio as described at Stdio), forked from the calling goroutine's
//     thread, which stays locked until bwrap exits (bwrap's
//     --die-with-parent follows the thread that forked it). If
//     inv.Landlock is set, bwrap is forked from a dedicated thread that is
//     first restricted with it and then discarded.
//  5. When bwrap reports the sandbox's first process on --info-fd, Run
//     sets RLIMIT_NPROC (inside its user namespace; kernels >= 5.14 and
//     not as root, which the kernel exempts; otherwise it is skipped with
//     one warning), RLIMIT_AS and RLIMIT_CPU on it
//     with prlimit (soft = hard = value, clamped to the inherited hard
//     limit). That process is then blocked on --block-fd, after all of
//     bwrap's set-up and before it forks or executes the command, so the
//     command and everything it starts inherit the limits. bwrap's end
//     of --block-fd never sees end-of-file: if the runtime dies first,
//     the command never runs.
//  6. Run writes one byte to --block-fd and waits. SIGINT, SIGTERM, SIGHUP
//     and SIGQUIT are relayed to the sandbox's process group (with
//     --new-session that is the command's group); a second one kills the
//     sandbox.
//  7. The exit status is the "exit-code" bwrap reports on
//     --json-status-fd. If bwrap exits without one, it failed before the
//     command ran: ExitNotFound or ExitCannotExec when the command could
//     not be executed, ExitSetup otherwise, with a *SetupError carrying
//     bwrap's message.
//
// Any failure before bwrap has started returns ExitSetup and a
// *SetupError (wrapping a *StaleError for a stale invocation); no command
// ever runs outside bwrap. Cancelling ctx kills
// the sandbox and returns ExitSetup with an error wrapping ctx.Err(). When
// a relayed signal ends the sandbox, Run returns 128+signal and a nil
// error.
func Run(ctx context.Context, inv *Invocation, argv []string, stdio Stdio) (int, error) {
	if inv == nil {
		return setupFailure(errors.New("no invocation"))
	}
	if len(argv) == 0 || argv[0] == "" {
		return setupFailure(errors.New("no command given"))
	}
	r := &runner{inv: inv, pidfd: -1, bwrapPidfd: -1, notified: make(chan struct{}), gitScan: stdio.GitScan}
	if stdio.Signals != nil {
		r.sigc = stdio.Signals
		close(r.notified)
	} else {
		// Installing the relay costs a few hundred microseconds of
		// runtime thread set-up: do it while the rest is prepared.
		sigc := make(chan os.Signal, 4)
		r.sigc = sigc
		go func() {
			signal.Notify(sigc, ForwardedSignals...)
			close(r.notified)
		}()
		defer func() {
			<-r.notified
			signal.Stop(sigc)
		}()
	}
	defer r.cleanup()
	if err := CheckBwrap(inv); err != nil {
		return setupFailure(err)
	}
	if err := CheckPreconditions(inv); err != nil {
		return setupFailure(err)
	}
	if err := CheckCredentialEnv(inv, os.LookupEnv); err != nil {
		return setupFailure(err)
	}
	if inv.Seccomp != nil && inv.Seccomp.Arch != "" {
		if m := machine(); m != "" && m != inv.Seccomp.Arch {
			return setupFailure(fmt.Errorf("the seccomp program was compiled for %s, this machine is %s; recompile with `bwpolicy compile`", inv.Seccomp.Arch, m))
		}
	}
	if err := r.openStdio(stdio); err != nil {
		return setupFailure(err)
	}
	fds, err := openFDs(inv)
	if err != nil {
		return setupFailure(err)
	}
	r.fds = fds
	argv, _ = UnsetAfterRC(argv, inv.Env.UnsetAfterRC)
	return r.run(ctx, argv)
}

type runner struct {
	inv  *Invocation
	warn func(string)

	stdin, stdout, stderr *os.File // the caller's (or /dev/null)
	own                   []*os.File
	errR, errW            *os.File // the interposed stderr pipe
	merged                bool     // stdout goes through the pipe too
	tail                  tailBuffer
	copyDone              chan struct{}

	fds          *fdSet
	bwrapPID     int
	bwrapPidfd   int      // -1 if pidfd_open is unavailable
	bwrapPidFile *os.File // bwrapPidfd when it is non-blocking (owns it)
	pid1         int      // the sandbox's first process (from --info-fd)
	pidfd        int

	exitCode *int // from --json-status-fd

	sigc     <-chan os.Signal
	notified chan struct{}  // closed once sigc receives ForwardedSignals
	sig      syscall.Signal // last relayed signal
	nsig     int
	ctxErr   error

	gitScan *GitScanReport // Stdio.GitScan
}

func (r *runner) openStdio(s Stdio) error {
	open := func(f *os.File, flag int) (*os.File, error) {
		if f != nil {
			return f, nil
		}
		n, err := os.OpenFile(os.DevNull, flag, 0)
		if err != nil {
			return nil, err
		}
		r.own = append(r.own, n)
		return n, nil
	}
	var err error
	if r.stdin, err = open(s.Stdin, os.O_RDONLY); err != nil {
		return err
	}
	if r.stdout, err = open(s.Stdout, os.O_WRONLY); err != nil {
		return err
	}
	if r.stderr, err = open(s.Stderr, os.O_WRONLY); err != nil {
		return err
	}
	r.warn = s.Warn
	if r.warn == nil {
		errOut := r.stderr
		r.warn = func(msg string) { fmt.Fprintf(errOut, "bwrun: warning: %s\n", msg) }
	}
	if r.errR, r.errW, err = os.Pipe(); err != nil {
		return err
	}
	r.merged = sameFile(r.stdout, r.stderr) && !isTerminal(r.stderr)
	return nil
}

func (r *runner) cleanup() {
	if r.fds != nil {
		r.fds.closeAll()
	}
	for _, f := range []*os.File{r.errR, r.errW} {
		if f != nil {
			f.Close()
		}
	}
	for _, f := range r.own {
		f.Close()
	}
	if r.bwrapPidFile != nil {
		r.bwrapPidFile.Close()
		r.bwrapPidFile = nil
		r.bwrapPidfd = -1
	}
	for _, fd := range []*int{&r.pidfd, &r.bwrapPidfd} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}

type waitResult struct {
	status syscall.WaitStatus
	err    error
}

func (r *runner) run(ctx context.Context, argv []string) (int, error) {
	inv := r.inv
	args := make([]string, 0, len(inv.Bwrap.Args)+len(argv)+2)
	args = append(args, "bwrap")
	args = append(args, inv.Bwrap.Args...)
	args = append(args, "--")
	args = append(args, argv...)

	out := r.stdout
	if r.merged {
		out = r.errW
	}
	files := append([]*os.File{r.stdin, out, r.errW}, r.fds.extra...)
	fdnums := make([]uintptr, len(files))
	for i, f := range files {
		fdnums[i] = f.Fd() // a nil *os.File gives ^0: closed in the child
	}
	attr := &syscall.ProcAttr{
		Env:   BuildEnv(os.Environ(), inv.Env),
		Files: fdnums,
		Sys:   &syscall.SysProcAttr{}, // same process group: terminal job control still reaches bwrap
	}

	sigc := r.sigc
	<-r.notified // the relay must be in place before bwrap starts
	select {
	case s := <-sigc:
		r.relayed(s)
		return 128 + int(r.sig), nil
	default:
	}

	waited := make(chan waitResult, 1)
	var startErr error
	if inv.Landlock == nil {
		// Fork from this goroutine's thread and keep the goroutine on it
		// until bwrap has exited: bwrap's --die-with-parent
		// (PR_SET_PDEATHSIG) fires when the *thread* that forked it
		// exits, and the runtime may end a thread that another goroutine
		// leaves locked.
		goruntime.LockOSThread()
		defer goruntime.UnlockOSThread()
		if startErr = r.forkBwrap(args, attr); startErr == nil {
			go func() { waited <- r.waitBwrap() }()
		}
	} else {
		started := make(chan error, 1)
		go func() {
			// Never unlocked: the thread, restricted by Landlock, ends
			// with this goroutine, after bwrap has exited.
			goruntime.LockOSThread()
			if err := applyLandlock(inv.Landlock, r.warn); err != nil {
				started <- fmt.Errorf("landlock: %w", err)
				return
			}
			err := r.forkBwrap(args, attr)
			started <- err
			if err == nil {
				waited <- r.waitBwrap()
			}
		}()
		startErr = <-started
	}
	if startErr != nil {
		return setupFailure(startErr)
	}
	r.fds.closeChild()
	r.errW.Close()
	r.errW = nil

	r.copyDone = make(chan struct{})
	go r.copyStderr(r.merged)

	// Phase 1: the sandbox is being set up; bwrap will wait on
	// --block-fd until the limits are in place.
	if r.fds.info != nil {
		infoc := make(chan infoResult, 1)
		go readInfo(r.fds.info, infoc)
		var info infoResult
		select {
		case info = <-infoc:
		case s := <-sigc:
			r.relayed(s)
			r.abortSetup(infoc)
			return r.finish(<-waited)
		case <-ctx.Done():
			r.ctxErr = ctx.Err()
			r.abortSetup(infoc)
			return r.finish(<-waited)
		}
		if info.err != nil {
			// bwrap died (or closed the fd) before starting the sandbox.
			r.killAll()
			return r.finish(<-waited)
		}
		r.pid1 = info.pid
		if fd, err := unix.PidfdOpen(r.pid1, 0); err == nil {
			r.pidfd = fd
		}
		if err := r.applyLimits(); err != nil {
			r.killAll()
			<-waited
			r.drain()
			return setupFailure(err)
		}
	}
	if r.fds.block != nil {
		// Release bwrap. An error means bwrap is gone; its exit says why.
		_, _ = r.fds.block.Write([]byte{'x'})
		r.fds.block.Close()
		r.fds.block = nil
	}

	// Phase 2: the command runs.
	for {
		select {
		case w := <-waited:
			return r.finish(w)
		case s := <-sigc:
			r.relayed(s)
			if r.nsig == 1 {
				r.forward()
			} else {
				r.killAll()
			}
		case <-ctx.Done():
			if r.ctxErr == nil {
				r.ctxErr = ctx.Err()
				r.killAll()
			}
			ctx = context.Background() // don't spin on the closed channel
		}
	}
}

// forkBwrap starts bwrap. syscall.ForkExec rather than os.StartProcess:
// the latter first probes pidfd support by forking a throw-away child.
func (r *runner) forkBwrap(args []string, attr *syscall.ProcAttr) error {
	pid, err := syscall.ForkExec(r.inv.Bwrap.Path, args, attr)
	if err != nil {
		return fmt.Errorf("starting bwrap %s: %w", r.inv.Bwrap.Path, err)
	}
	r.bwrapPID = pid
	// bwrap is our unreaped child: its pid is stable here. A non-blocking
	// pidfd lets waitBwrap park on the runtime's poller instead of
	// holding an OS thread in wait4 (Linux 5.10+; else a plain pidfd,
	// 5.3+, for signals only).
	if fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK); err == nil {
		r.bwrapPidfd = fd
		r.bwrapPidFile = os.NewFile(uintptr(fd), "pidfd")
	} else if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		r.bwrapPidfd = fd
	}
	return nil
}

// waitBwrap reaps bwrap.
func (r *runner) waitBwrap() waitResult {
	var ws syscall.WaitStatus
	if r.bwrapPidFile != nil {
		if rc, err := r.bwrapPidFile.SyscallConn(); err == nil {
			var werr error
			reaped := false
			err = rc.Read(func(uintptr) bool {
				pid, err := syscall.Wait4(r.bwrapPID, &ws, syscall.WNOHANG, nil)
				switch {
				case err == syscall.EINTR:
					return false
				case err != nil:
					werr = err
					return true
				}
				reaped = pid == r.bwrapPID
				return reaped
			})
			if reaped || werr != nil {
				return waitResult{ws, werr}
			}
		}
	}
	for {
		_, err := syscall.Wait4(r.bwrapPID, &ws, 0, nil)
		if err != syscall.EINTR {
			return waitResult{ws, err}
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
			r.pid1 = info.pid
			if fd, err := unix.PidfdOpen(r.pid1, 0); err == nil {
				r.pidfd = fd
			}
		}
	case <-time.After(statusGrace):
	}
	r.killAll()
}

// killAll tears the sandbox down: SIGKILL to its first process (which,
// as the pid namespace's init, takes every process in it along) and to
// bwrap.
func (r *runner) killAll() {
	if r.pidfd >= 0 {
		_ = unix.PidfdSendSignal(r.pidfd, unix.SIGKILL, nil, 0)
	} else if r.pid1 > 0 {
		_ = unix.Kill(r.pid1, unix.SIGKILL)
	}
	r.signalBwrap(unix.SIGKILL)
}

// applyLimits sets the invocation's rlimits on the sandbox's first
// process while it waits on --block-fd.
func (r *runner) applyLimits() error {
	l := r.inv.Rlimits
	if l.NProc != 0 {
		ok, err := NProcPerUserNS()
		switch {
		case err != nil:
			r.warn(fmt.Sprintf("RLIMIT_NPROC not set (max_procs not enforced): cannot tell the kernel version: %v", err))
		case !ok:
			rel, _ := KernelRelease()
			r.warn(fmt.Sprintf("RLIMIT_NPROC not set (max_procs not enforced): kernel %s counts it per user, not per user namespace (needs %s or later)", rel, NProcPerUserNSSince))
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

// copyStderr copies the interposed pipe to the caller's stream, keeping
// the tail for bwrap's messages. Write errors (the caller closed its
// stream) do not stop the draining: the command must not block. When
// drain sets a past read deadline, it takes what is still in the pipe
// without waiting and returns.
func (r *runner) copyStderr(toStdout bool) {
	defer close(r.copyDone)
	dst := r.stderr
	if toStdout {
		dst = r.stdout
	}
	buf := make([]byte, 32<<10)
	emit := func(p []byte) {
		r.tail.Write(p)
		if dst != nil {
			if _, err := dst.Write(p); err != nil {
				dst = nil
			}
		}
	}
	for {
		n, err := r.errR.Read(buf)
		if n > 0 {
			emit(buf[:n])
		}
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Final non-blocking pass over what is already buffered.
			r.errR.SetReadDeadline(time.Time{})
			if rc, err := r.errR.SyscallConn(); err == nil {
				_ = rc.Read(func(fd uintptr) bool {
					for {
						n, err := unix.Read(int(fd), buf)
						if n <= 0 || err != nil {
							return true
						}
						emit(buf[:n])
					}
				})
			}
		}
		return
	}
}

// statusGrace bounds how long Run waits, after bwrap has exited, for the
// end of the status documents (bwrap is the only writer, so EOF is
// immediate unless something else inherited the fd).
const statusGrace = time.Second

func (r *runner) finish(w waitResult) (int, error) {
	r.drain()
	for _, p := range CreatedProtected(r.inv) {
		r.warn(fmt.Sprintf("the command created %s, which runs outside the sandbox later (H9): review it before you use it; the next command needs a recompile", p))
	}
	rep := ScanGit(r.inv, os.Getenv("HOME"), time.Now())
	for _, w := range rep.Warnings {
		r.warn(w)
	}
	if r.gitScan != nil {
		*r.gitScan = rep
	}
	return r.outcome(w)
}

// CreatedProtected returns the paths the invocation kept read-only where
// they existed (H9) and recorded absent, that exist now: a command
// created them (a `git init` makes .git/config and .git/hooks), and what
// it wrote there will run on the host. One lstat each, after the command.
func CreatedProtected(inv *Invocation) []string {
	var out []string
	for _, p := range inv.Preconditions {
		if p.Why != "H9" && p.Why != WhyProfileHome || p.Kind != KindAbsent {
			continue
		}
		if _, err := os.Lstat(p.Path); err == nil {
			out = append(out, p.Path)
		}
	}
	return out
}

// drain collects the last status documents and stderr output once bwrap
// has exited. It does not wait for EOF on stderr: the sandbox's first
// process, which holds the pipe too, is only now being killed (bwrap's
// --die-with-parent), and everything the command and bwrap wrote before
// bwrap exited is already in the pipe.
func (r *runner) drain() {
	r.errR.SetReadDeadline(time.Now())
	if r.fds.status != nil {
		r.readStatus()
	}
	<-r.copyDone
}

func (r *runner) outcome(w waitResult) (int, error) {
	if r.exitCode != nil {
		return *r.exitCode, nil
	}
	if w.err != nil {
		return setupFailure(fmt.Errorf("waiting for bwrap: %w", w.err))
	}
	ws := w.status
	if r.ctxErr != nil {
		return ExitSetup, &SetupError{Code: ExitSetup, Msg: "sandbox killed", Err: r.ctxErr}
	}
	if r.nsig > 0 && (ws.Signaled() || r.fds.status == nil) {
		return 128 + int(r.sig), nil
	}
	lines := bwrapLines(r.tail.Bytes())
	if r.fds.status == nil {
		// Without --json-status-fd the command's status and bwrap's own
		// failure (status 1 and a message) cannot be told apart for sure;
		// only a trailing "bwrap:" line counts as bwrap's failure.
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		if ws.ExitStatus() != 1 || len(lines) == 0 || !endsWithBwrapLine(r.tail.Bytes()) {
			return ws.ExitStatus(), nil
		}
	}
	return r.bwrapFailure(ws, lines)
}

func (r *runner) bwrapFailure(ws syscall.WaitStatus, lines []string) (int, error) {
	e := &SetupError{Code: ExitSetup, BwrapMessage: lines}
	last := ""
	if len(lines) > 0 {
		last = lines[len(lines)-1]
	}
	switch {
	case strings.HasPrefix(last, "bwrap: execvp "):
		rest := strings.TrimPrefix(last, "bwrap: execvp ")
		cmd, reason := rest, ""
		if i := strings.LastIndex(rest, ": "); i >= 0 {
			cmd, reason = rest[:i], rest[i+2:]
		}
		if strings.EqualFold(reason, syscall.ENOENT.Error()) {
			e.Code = ExitNotFound
			e.Msg = fmt.Sprintf("command not found in the sandbox: %s", cmd)
		} else {
			e.Code = ExitCannotExec
			e.Msg = fmt.Sprintf("cannot execute %s in the sandbox: %s", cmd, reason)
		}
	case strings.HasPrefix(last, "bwrap: Unknown option "):
		opt := strings.TrimPrefix(last, "bwrap: Unknown option ")
		e.Msg = fmt.Sprintf("bwrap at %s lacks option %s required by this invocation; recompile or upgrade bubblewrap", r.inv.Bwrap.Path, opt)
	case len(lines) > 0:
		e.Msg = "bwrap could not set up the sandbox: " + strings.Join(lines, "; ")
	case ws.Signaled():
		e.Msg = fmt.Sprintf("bwrap was killed by signal %d (%v) and reported no exit status for the command", int(ws.Signal()), ws.Signal())
	default:
		e.Msg = fmt.Sprintf("bwrap exited with status %d without reporting the command's exit status (sandbox set-up failed)", ws.ExitStatus())
	}
	return e.Code, e
}

// bwrapLines returns bwrap's diagnostic lines in out: lines starting
// with "bwrap: ", optionally after a "<N>" level prefix (--level-prefix).
func bwrapLines(out []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimRight(l, "\r")
		if len(l) > 3 && l[0] == '<' && l[2] == '>' {
			l = l[3:]
		}
		if strings.HasPrefix(l, "bwrap: ") {
			lines = append(lines, l)
		}
	}
	return lines
}

func endsWithBwrapLine(out []byte) bool {
	s := strings.TrimRight(string(out), "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return len(bwrapLines([]byte(s))) == 1
}

// tailBuffer keeps the last tailSize bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 8 << 10

// Write appends p, keeping only the last tailSize bytes.
func (t *tailBuffer) Write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= tailSize {
		t.buf = append(t.buf[:0], p[len(p)-tailSize:]...)
		return
	}
	if len(t.buf)+len(p) > 2*tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize+len(p):]...)
	}
	t.buf = append(t.buf, p...)
}

// Bytes returns a copy of the kept bytes.
func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) > tailSize {
		return append([]byte(nil), t.buf[len(t.buf)-tailSize:]...)
	}
	return append([]byte(nil), t.buf...)
}

func fstat(f *os.File) (unix.Stat_t, bool) {
	var st unix.Stat_t
	rc, err := f.SyscallConn()
	if err != nil {
		return st, false
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return st, false
	}
	return st, true
}

func sameFile(a, b *os.File) bool {
	if a == b {
		return true
	}
	sa, ok1 := fstat(a)
	sb, ok2 := fstat(b)
	return ok1 && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	_ = rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		tty = err == nil
	})
	return tty
}

func machine() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Machine[:])
}
