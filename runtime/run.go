package runtime

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/startup"
	"github.com/bwpolicy/bwpolicy/runtime/cgroup"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
)

// Exit statuses the runtime itself produces. Everything else Run returns
// is the command's own status (128+N when a signal N killed it).
const (
	// ExitTimeout: Options.Timeout expired and the sandbox was killed (the
	// status timeout(1) uses).
	ExitTimeout = 124
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
// are, unless they are a file, a directory or a block device: those the
// command could reopen through /proc/self/fd on the host's mount, so
// they are interposed with a pipe the runtime copies (stdiopipe.go).
// Stderr is always interposed: the command writes to a pipe that Run copies
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
	// is stale now. Its warnings also go to Warn and the run's Status.
	GitScan *GitScanReport
	// Ledger is the environment's record of what the user trusts
	// (runtime/ledger): the post-command scan sets aside what a later
	// host program would run that it does not hold as it is. Nil: all
	// of it is the command's.
	Ledger *ledger.Ledger
	// Index is the environment's directory index (ledger.Index), which
	// the scan reads unchanged directories from and keeps what it read
	// in. Nil: every directory is read.
	Index *ledger.Index
	// Scan, when set, is the post-command scan instead of ScanGit with
	// Ledger and Index (cmd/bwrun: EnvState.Scan, which asks the
	// environment's watcher what changed).
	Scan func(inv *invocation.Invocation) GitScanReport
}

// Options are the per-run choices of the caller (bwrun's options).
type Options struct {
	// Timeout, if positive, is the wall-clock time the sandbox may run
	// (from bwrap's start); on expiry the whole sandbox is killed and the
	// outcome is OutcomeTimeout (status ExitTimeout).
	Timeout time.Duration
	// Chdir, if set, is the directory the command starts in instead of
	// the compiled one (see ApplyChdir).
	Chdir string
	// Expose are files shown read-only to this run only, at their host
	// paths (OpenExposed: below the invocation's expose roots, no
	// symlink on the way, bound through a descriptor).
	Expose []string
	// ExposePinned are files shown read-only to this run at their host
	// paths like Expose, each with the content of the copy pinned for it
	// in PinnedDir (OpenPinned), never the host file as it is now.
	ExposePinned []string
	// PinnedDir is the directory of the pinned copies (PinnedDirOf the
	// invocation file; bwrun sets it).
	PinnedDir string
	// Environ is the environment the command is given (filtered by the
	// invocation) and the checks read, "NAME=VALUE" each; nil is the
	// runtime's own (os.Environ: bwrun's CLI). bwrun --serve passes its
	// caller's.
	Environ []string
}

// environ is the run's environment (Options.Environ, else os.Environ).
func (o Options) environ() []string {
	if o.Environ == nil {
		return os.Environ()
	}
	return o.Environ
}

// lookupEnv is os.LookupEnv over the run's environment.
func (o Options) lookupEnv(name string) (string, bool) {
	if o.Environ == nil {
		return os.LookupEnv(name)
	}
	return LookupIn(o.Environ, name)
}

// LookupIn is os.LookupEnv over environ ("NAME=VALUE" each; the last
// one of a name wins, as for exec).
func LookupIn(environ []string, name string) (string, bool) {
	val, found := "", false
	for _, kv := range environ {
		if len(kv) > len(name) && kv[len(name)] == '=' && kv[:len(name)] == name {
			val, found = kv[len(name)+1:], true
		}
	}
	return val, found
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

// RunWith executes argv in the sandbox inv describes and returns the
// run's Status (ExitStatus is the status to exit with). The steps, one
// function each:
//
//  1. prepare: CheckTrust (the arguments make a sandbox, bwrap is the
//     binary compiled for; after --chdir and the binds of
//     Options.Expose, OpenExposed, are applied), CheckPreconditions
//     (lstat/readlink only; when it fails only because the working
//     directory was deleted, RecoverGoneCwd runs the command in its
//     nearest existing parent instead) and
//     CheckCredentialEnv (the environment's credential paths) and
//     CheckCheckedEnv (every variable the compile read; a stale
//     invocation is refused); Options.Chdir; the environment (os.Environ()
//     filtered by inv.Env, BuildEnv; a shell's -c script is prefixed with
//     an unset of inv.Env.UnsetAfterRC, see startup.UnsetAfterRC); the
//     descriptors of inv.FDs at exactly their numbers.
//  2. start: bwrap starts as `bwrap ARGS... -- argv...` (same process
//     group, stdio as described at Stdio; cloned into a memory cgroup
//     of its own where inv sets memory.max and the host delegates one,
//     see joinCgroup), forked from a thread that
//     stays locked until bwrap exits (bwrap's --die-with-parent follows
//     the thread that forked it); with inv.Landlock that thread is first
//     restricted with it and then discarded.
//  3. setUp: when bwrap reports the sandbox's first process on --info-fd
//     (the init of its pid namespace), the runtime opens a pidfd for it,
//     checks it has a pid namespace of its own, and sets RLIMIT_NPROC
//     (inside its user namespace; kernels >= 5.14 and not as root, which
//     the kernel exempts; otherwise skipped with one warning), RLIMIT_AS
//     and RLIMIT_CPU on it with prlimit (soft = hard = value, clamped to
//     the inherited hard limit). That process is blocked on --block-fd,
//     after all of bwrap's set-up and before it forks or executes the
//     command, so the command and everything it starts inherit the limits;
//     one byte on --block-fd releases it. bwrap's end of --block-fd never
//     sees end-of-file: if the runtime dies first, the command never runs.
//  4. supervise: wait for bwrap. SIGINT, SIGTERM, SIGHUP and SIGQUIT are
//     relayed to the sandbox's process group (with --new-session that is
//     the command's group); a second one, Options.Timeout or ctx kills the
//     sandbox.
//  5. finish, on every path once bwrap has started: the sandbox's pid
//     namespace is killed (SIGKILL to its init through the pidfd, which
//     takes every process of the namespace along) and the runtime waits,
//     bounded, until the init is gone; then the post-command checks
//     (CreatedProtected) and the outcome: the "exit-code" bwrap reported
//     on --json-status-fd, or, when bwrap exits without one (it failed
//     before the command ran), ExitNotFound or ExitCannotExec when the
//     command could not be executed, ExitSetup otherwise, with a
//     *SetupError carrying bwrap's message.
//
// Any failure before bwrap has started returns ExitSetup and a
// *SetupError (wrapping a *StaleError for a stale invocation); no command
// ever runs outside bwrap. Cancelling ctx kills the sandbox and returns
// ExitSetup with an error wrapping ctx.Err(). When a relayed signal ends
// the sandbox, the status is 128+signal and the error nil.
func RunWith(ctx context.Context, inv *invocation.Invocation, argv []string, stdio Stdio, opts Options) (Status, error) {
	r := &runner{inv: inv, opts: opts, pidfd: -1, bwrapPidfd: -1, notified: make(chan struct{}), gitScan: stdio.GitScan, ledger: stdio.Ledger, index: stdio.Index, scanFn: stdio.Scan}
	code, err := r.runAll(ctx, argv, stdio)
	return r.status(code, err), err
}

type runner struct {
	inv  *invocation.Invocation
	opts Options
	warn func(string)
	// warnings collects every warning of the run for the Status.
	warnings []string

	stdin, stdout, stderr *os.File // the caller's (or /dev/null)
	own                   []*os.File
	errR, errW            *os.File // the interposed stderr pipe
	merged                bool     // stdout goes through the pipe too
	tail                  tailBuffer
	copyDone              chan struct{}
	// childStdio are the sandbox's ends of the interposed stdin and
	// stdout pipes (stdiopipe.go), closed here once bwrap has started;
	// outR, outDst and outDone the runtime's copy of stdout.
	childStdio []*os.File
	outR       *os.File
	outDst     *os.File
	outDone    chan struct{}

	fds          *fdSet
	bwrapPID     int
	bwrapPidfd   int             // -1 if pidfd_open is unavailable
	bwrapPidFile *os.File        // bwrapPidfd when it is non-blocking (owns it)
	waited       chan waitResult // receives bwrap's reaping
	w            waitResult      // bwrap's exit, once reaped
	reaped       bool
	pid1         int // the sandbox's first process (from --info-fd)
	pidfd        int

	exposed     []exposed             // Options.Expose, opened
	cgroup      *cgroup.Group         // the sandbox's own cgroup, if any
	cgroupFound <-chan cgroup.Support // findCgroup's answer

	exitCode *int                                       // from --json-status-fd
	created  []string                                   // CreatedProtected after the command
	scan     GitScanReport                              // ScanGit after the command
	gitScan  *GitScanReport                             // Stdio.GitScan
	ledger   *ledger.Ledger                             // Stdio.Ledger
	index    *ledger.Index                              // Stdio.Index
	scanFn   func(*invocation.Invocation) GitScanReport // Stdio.Scan

	sigc     <-chan os.Signal
	notified chan struct{}  // closed once sigc receives ForwardedSignals
	sig      syscall.Signal // last relayed signal
	nsig     int
	// killedByContext: supervise killed the sandbox for ctx (for a
	// second signal it does when nsig > 1).
	killedByContext bool
	ctxErr          error
	timer           *time.Timer // Options.Timeout, from bwrap's start
	timedOut        bool
}

// runAll is the whole run: prepare, start, set up, supervise, finish.
func (r *runner) runAll(ctx context.Context, argv []string, stdio Stdio) (int, error) {
	if r.inv == nil {
		return setupFailure(errors.New("no invocation"))
	}
	if len(argv) == 0 || argv[0] == "" {
		return setupFailure(errors.New("no command given"))
	}
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
	argv, err := r.prepare(argv, stdio)
	if err != nil {
		return setupFailure(err)
	}
	<-r.notified // the relay must be in place before bwrap starts
	select {
	case s := <-r.sigc:
		r.relayed(s)
		return 128 + int(r.sig), nil
	default:
	}
	// A context already done starts nothing (no bwrap, no command): the
	// run was cancelled before the sandbox existed.
	if err := ctx.Err(); err != nil {
		return setupFailure(fmt.Errorf("cancelled before the sandbox started: %w", err))
	}
	unlock, err := r.start(argv)
	if err != nil {
		return setupFailure(err)
	}
	defer unlock()
	if r.opts.Timeout > 0 {
		r.timer = time.NewTimer(r.opts.Timeout)
		defer r.timer.Stop()
	}
	released, setupErr := r.setUp(ctx)
	if released {
		r.supervise(ctx)
	}
	return r.finish(setupErr)
}

// prepare runs the checks and opens what bwrap is handed; it returns the
// command's argv as bwrap will run it.
func (r *runner) prepare(argv []string, stdio Stdio) ([]string, error) {
	inv := r.inv
	r.findCgroup()
	if err := r.openStdio(stdio); err != nil {
		return nil, err
	}
	if r.opts.Chdir != "" {
		note, err := ApplyChdir(inv, r.opts.Chdir)
		if err != nil {
			return nil, err
		}
		if note != "" {
			r.warn(note)
		}
	}
	if len(r.opts.Expose)+len(r.opts.ExposePinned) > 0 {
		if err := r.applyExpose(r.opts.Expose, r.opts.ExposePinned, r.opts.PinnedDir); err != nil {
			return nil, err
		}
		inv = r.inv
	}
	if err := CheckTrust(inv); err != nil {
		return nil, err
	}
	RestoreScratch(inv)
	if err := CheckPreconditions(inv); err != nil {
		gone, note, err := RecoverGoneCwd(inv, err)
		if err != nil {
			return nil, err
		}
		r.inv, inv = gone, gone
		r.warn(note)
	}
	if err := CheckCredentialEnv(inv, r.opts.lookupEnv); err != nil {
		return nil, err
	}
	if err := CheckCheckedEnv(inv, r.opts.lookupEnv); err != nil {
		return nil, err
	}
	if inv.Seccomp != nil && inv.Seccomp.Arch != "" {
		if m := machine(); m != "" && m != inv.Seccomp.Arch {
			return nil, fmt.Errorf("the seccomp program was compiled for %s, this machine is %s; recompile with `bwpolicy compile`", inv.Seccomp.Arch, m)
		}
	}
	fds, err := openFDs(inv)
	if err != nil {
		return nil, err
	}
	r.fds = fds
	for _, e := range r.exposed {
		fds.add(e.num, e.file)
	}
	if fds.info == nil {
		return nil, errors.New("the invocation has no --info-fd: the runtime could not kill the sandbox's processes when the command ends (S11); recompile with `bwpolicy compile`")
	}
	argv, _ = startup.UnsetAfterRC(argv, inv.Env.UnsetAfterRC)
	return argv, nil
}

func (r *runner) cleanup() {
	r.leaveCgroup() // bwrap failed to start
	if r.fds != nil {
		r.fds.closeAll()
	}
	for _, f := range append([]*os.File{r.errR, r.errW, r.outR}, r.childStdio...) {
		if f != nil {
			f.Close()
		}
	}
	for _, f := range r.own {
		f.Close()
	}
	for _, e := range r.exposed {
		e.file.Close() // if never handed to fds
	}
	if r.bwrapPidFile != nil {
		r.bwrapPidFile.Close()
		r.bwrapPidFile = nil
		r.bwrapPidfd = -1
	}
	for _, fd := range []*int{&r.pidfd, &r.bwrapPidfd} {
		if *fd >= 0 {
			closeFD(*fd)
			*fd = -1
		}
	}
}

// timeout is the channel Options.Timeout fires on (nil: never).
func (r *runner) timeout() <-chan time.Time {
	if r.timer == nil {
		return nil
	}
	return r.timer.C
}
