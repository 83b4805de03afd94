package runtime

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Command is one command as bwrun runs it: the invocation as loaded
// (LoadTrustedData), the command, the per-run options and the streams.
// bwrun's CLI and its serve mode (runtime/serve) both run a command
// through RunCommand, so the checks, the H9 journal, the sandbox and the
// post-command scan are one code path.
type Command struct {
	// InvPath is the invocation's path; Inv and Data what
	// LoadTrustedData returned for it, LoadErr its error.
	InvPath string
	Inv     *invocation.Invocation
	Data    []byte
	LoadErr error
	// Argv is the command.
	Argv []string
	// Options are the run's options (PinnedDir is set by RunCommand).
	Options Options
	// Stdin, Stdout and Stderr are the command's streams; Messages
	// receives bwrun's own lines ("bwrun: ..."), Stderr when nil.
	Stdin, Stdout, Stderr *os.File
	Messages              io.Writer
	// Signals is Stdio.Signals; Ready, when set, is waited for just
	// before the sandbox starts (bwrun: its signal relay in place).
	Signals <-chan os.Signal
	Ready   <-chan struct{}
}

// RunCommand runs c and returns its Status (ExitStatus is the status to
// exit with; Nonce is left to the caller): a load error, a stale mark,
// a scan a killed run left pending (BeginEnv) end it before anything
// runs; otherwise RunWith, then the journal entry is cleared once the
// post-command scan has finished (EnvState.End). Cancelling ctx kills
// the sandbox; the scan still runs to its end.
func RunCommand(ctx context.Context, c Command) Status {
	msg := c.Messages
	if msg == nil {
		msg = c.Stderr
		if c.Stderr == nil {
			msg = io.Discard
		}
	}
	if c.LoadErr != nil {
		fmt.Fprintf(msg, "bwrun: %v\n", c.LoadErr)
		return Status{Outcome: OutcomeSetupFailed, ExitStatus: ExitSetup, Message: c.LoadErr.Error()}
	}
	c.Options.PinnedDir = PinnedDirOf(c.InvPath)
	if err := CheckStaleMark(c.InvPath); err != nil {
		fmt.Fprintf(msg, "bwrun: %v\n", err)
		return Status{Outcome: OutcomeStale, ExitStatus: ExitSetup, Message: err.Error(), StalePaths: []string{c.InvPath + StaleMarkSuffix}}
	}
	// The scan's HOME is the process's own, as the rest of the scan's
	// environment (GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME) is: a request's
	// environment to bwrun --serve must not point the scan elsewhere.
	home := os.Getenv("HOME")
	// H9: a scan a killed run left pending is finished first; the
	// ledger is loaded (and new writable directories recorded); this
	// run's journal entry is written before the command starts.
	env, err := BeginEnv(c.InvPath, c.Inv, c.Data, home)
	if err != nil {
		fmt.Fprintf(msg, "bwrun: %v\n", err)
		st := Status{Outcome: OutcomeSetupFailed, ExitStatus: ExitSetup, Message: err.Error()}
		var se *StaleError
		if errors.As(err, &se) {
			st.Outcome, st.StalePaths = OutcomeStale, []string{c.InvPath + StaleMarkSuffix}
		}
		return st
	}
	for _, w := range env.Warnings {
		fmt.Fprintf(msg, "bwrun: warning: %s\n", w)
	}
	if c.Ready != nil {
		<-c.Ready
	}
	var scan GitScanReport
	st, err := RunWith(ctx, c.Inv, c.Argv, Stdio{
		Stdin:   c.Stdin,
		Stdout:  c.Stdout,
		Stderr:  c.Stderr,
		Signals: c.Signals,
		GitScan: &scan,
		Ledger:  env.Ledger,
		Scan:    func(inv *invocation.Invocation) GitScanReport { return env.Scan(inv, home) },
	}, c.Options)
	if err != nil {
		fmt.Fprintf(msg, "bwrun: %v\n", err)
	}
	// The scan has finished: a stale one marks the invocation (the next
	// command must be compiled again, so that what the command left is
	// protected), then the journal entry goes (H9).
	if err := env.End(scan); err != nil {
		fmt.Fprintf(msg, "bwrun: warning: %v\n", err)
	}
	return st
}
