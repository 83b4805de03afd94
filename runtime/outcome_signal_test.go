package runtime

import (
	"context"
	"errors"
	"syscall"
	"testing"
)

// TestOutcomeSecondSignal: when bwrun killed the sandbox itself (a
// second signal, the context), the run ends for that reason even if
// bwrap reported its child's death by SIGKILL (137) before it was killed
// itself — the kills go to the sandbox's first process, then to bwrap,
// and a busy machine can run bwrap in between (seen in CI as
// TestSandboxSecondSignalKills getting 137, and here under load as
// TestSandboxContextCancel getting 137).
func TestOutcomeSecondSignal(t *testing.T) {
	killed := 137
	r := &runner{sig: syscall.SIGTERM, nsig: 2, exitCode: &killed}
	if code, err := r.outcome(waitResult{}); code != 128+int(syscall.SIGTERM) || err != nil {
		t.Errorf("outcome = %d, %v; want %d", code, err, 128+int(syscall.SIGTERM))
	}
	// The context ended the run: killed, whatever bwrap reported (seen
	// as TestSandboxContextCancel getting 137 under load).
	r = &runner{killedByContext: true, ctxErr: context.DeadlineExceeded, exitCode: &killed}
	if code, err := r.outcome(waitResult{}); code != ExitSetup || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("context: outcome = %d, %v; want %d and the deadline", code, err, ExitSetup)
	}
	// One signal, forwarded: the command's own status stands.
	r = &runner{sig: syscall.SIGTERM, nsig: 1, exitCode: &killed}
	if code, _ := r.outcome(waitResult{}); code != 137 {
		t.Errorf("one forwarded signal: outcome = %d, want the command's 137", code)
	}
}
