package runtime

import (
	"fmt"
	"strings"
	"syscall"
)

// outcome decides Run's status and error once bwrap has exited and the
// sandbox is gone.
func (r *runner) outcome(w waitResult) (int, error) {
	if r.timedOut {
		return ExitTimeout, &SetupError{Code: ExitTimeout, Msg: fmt.Sprintf("timed out after %v: the sandbox was killed", r.opts.Timeout)}
	}
	// When bwrun killed the sandbox itself (ctx, a second signal), the
	// run ends for that reason, whatever bwrap managed to report first:
	// killAll kills the sandbox's first process, then bwrap, and a busy
	// machine can run bwrap in between, which then reports its child's
	// death by SIGKILL (137).
	if r.killedByContext {
		return ExitSetup, &SetupError{Code: ExitSetup, Msg: "sandbox killed", Err: r.ctxErr}
	}
	if r.nsig > 1 { // the second signal: supervise killed the sandbox
		return 128 + int(r.sig), nil
	}
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
