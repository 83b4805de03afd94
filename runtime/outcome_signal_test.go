package runtime

import (
	"syscall"
	"testing"
)

// TestOutcomeSecondSignal: when a second signal killed the sandbox, the
// run ends with 128+signal even if bwrap reported its child's death by
// SIGKILL (137) before it was killed itself — the kills go to the
// sandbox's first process, then to bwrap, and a busy machine can run
// bwrap in between (seen once in CI as TestSandboxSecondSignalKills
// getting 137).
func TestOutcomeSecondSignal(t *testing.T) {
	killed := 137
	r := &runner{sig: syscall.SIGTERM, nsig: 2, killedBySignal: true, exitCode: &killed}
	if code, err := r.outcome(waitResult{}); code != 128+int(syscall.SIGTERM) || err != nil {
		t.Errorf("outcome = %d, %v; want %d", code, err, 128+int(syscall.SIGTERM))
	}
	// One signal, forwarded: the command's own status stands.
	r = &runner{sig: syscall.SIGTERM, nsig: 1, exitCode: &killed}
	if code, _ := r.outcome(waitResult{}); code != 137 {
		t.Errorf("one forwarded signal: outcome = %d, want the command's 137", code)
	}
}
