package sandboxtest

import (
	"os"
	"testing"
)

// testUserSockets: Unix sockets the user owns, bound on the host outside
// /tmp and /run/user, are replaced by empty files (H8): an ssh
// ControlMaster socket in a non-dot directory of HOME (shown, read-only:
// a read-only bind does not stop connect(), and the master runs commands
// on the remote host without a key; ~/.cache/ssh, its usual place, is
// left out of the home layout whole) and an agent started with
// `-a /var/tmp/…`. Both
// answer on the host (the control) and from a sandbox compiled before
// they were bound (what the compile did not see stays reachable: the
// Known limit). Once one goes away the invocation is stale.
func testUserSockets(t *testing.T, f *fixture) {
	cm := f.expand("{home}/ctl/cm-host")
	agent := f.expand("{base}/agent.sock")
	f.mkdirAll(f.expand("{home}/ctl"))
	script := `
val cm '{bin}/sbxtool connect-unix ` + cm + `'
val agent '{bin}/sbxtool connect-unix ` + agent + `'
ok readme 'grep -q readme {proj}/README'
`
	before, _ := f.compile("memory_mb: 0\n", call{})
	greetingListener(t, cm, "control-master\n")
	greetingListener(t, agent, "agent\n")
	f.chown(cm)
	f.chown(agent)
	for _, p := range []string{cm, agent} {
		if r := f.exec(call{argv: []string{tool("sbxtool"), "connect-unix", p}}); r.code != 0 {
			t.Fatalf("the host cannot reach its own socket %s: %v", p, r)
		}
	}
	r := f.bwrun(before, script, call{})
	f.expect(r, want{"cm": "connected: control-master", "agent": "connected: agent", "readme": "yes"})

	inv, _ := f.compile("memory_mb: 0\n", call{})
	r = f.bwrun(inv, script, call{})
	f.expect(r, want{"cm": "~connect failed", "agent": "~connect failed", "readme": "yes"})

	if err := os.Remove(agent); err != nil {
		t.Fatal(err)
	}
	r = f.bwrun(inv, script, call{})
	f.wantCode(r, 125)
	f.wantStderr(r, "stale")
}
