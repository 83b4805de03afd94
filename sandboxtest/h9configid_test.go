package sandboxtest

import (
	"strings"
	"testing"
)

// H9: a configuration file's identity in the ledger is what is
// code-bearing in it. The user's repository holds a code key of the
// user's (core.pager) and its config is writable in the sandbox
// (protect.allow), so the post-command scan judges it. After the ledger
// is recorded, the user runs git config user.name on the host; the next
// sandboxed command leaves the config where it is (nothing set aside,
// not stale), and host git status works with the user's name in place.
// Control: a command that adds a code key (core.fsmonitor) to the same
// file has it set aside, and host git runs nothing.
func testLedgerConfigIdentity(t *testing.T, f *fixture) {
	e := newLedgerEnv(t, f, "ledger-configid")
	if r := f.exec(call{argv: []string{"git", "config", "core.pager", "less -R"}, dir: e.p}); r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	e.settings = f.settings("cwd: " + e.p + "\nprotect:\n  allow: [.git/config, .git/hooks]\n")
	e.compile()
	f.wantCode(e.bwrun("true"), 0) // the ledger is recorded
	if r := f.exec(call{argv: []string{"git", "config", "user.name", "someone else"}, dir: e.p}); r.code != 0 {
		t.Fatalf("host git config: %v", r)
	}
	r := e.bwrun("git config --get core.pager")
	f.wantCode(r, 0)
	if strings.Contains(r.stderr, "set aside") || strings.Contains(r.stderr, "H9") {
		t.Errorf("the host's git config user.name made the user's config the command's: %s", r.stderr)
	}
	if !strings.Contains(r.stdout, "less -R") {
		t.Fatalf("the config was not writable-and-present in the sandbox as the test assumes: %v", r)
	}
	st := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status --short && git config --get user.name"}, dir: e.p})
	f.wantCode(st, 0)
	if !strings.Contains(st.stdout, "someone else") {
		t.Errorf("host git after the command: %v", st)
	}
	// Control: a code key the command adds is set aside.
	r = e.bwrun(`git config core.fsmonitor "touch {m}"`)
	f.wantCode(r, 0)
	f.wantStderr(r, "set aside as", e.p+"/.git/config")
	if e.hostGitRan("") {
		t.Errorf("host git ran the fsmonitor a command added")
	}
}
