package sandboxtest

import "testing"

// Every variable the compile read is re-checked by bwrun, not only the
// credential variables: compiled without ZDOTDIR, the invocation
// protects no zsh start-up file in the project; run with
// ZDOTDIR={proj}/zdot, a command could plant {proj}/zdot/.zshenv that
// the user's next host zsh runs. bwrun refuses that run as stale, and
// nothing is written. Control: with the same environment at compile and
// run time (ZDOTDIR unset both times) the same command runs and its file
// lands on the host, where nothing set for ZDOTDIR would protect it.
func testEnvCheckedStale(t *testing.T, f *fixture) {
	f.mkdirAll(f.expand("{proj}/zdot"))
	inv, _ := f.compile("", call{})
	script := `ok zshenv 'echo "echo EVIL" > zdot/.zshenv'`
	control := f.bwrun(inv, script, call{})
	f.expect(control, want{"zshenv": "yes"})
	if !f.hostExists("{proj}/zdot/.zshenv") {
		t.Fatalf("control: the command's file is not on the host: %v", control)
	}
	f.exec(call{argv: []string{"/bin/rm", "-f", f.expand("{proj}/zdot/.zshenv")}})

	r := f.bwrun(inv, script, call{env: []string{"ZDOTDIR=" + f.expand("{proj}/zdot")}})
	if r.code == 0 {
		t.Errorf("bwrun ran an invocation compiled without $ZDOTDIR in an environment that sets it: %v", r)
	}
	f.wantStderr(r, "stale", "$ZDOTDIR")
	if f.hostExists("{proj}/zdot/.zshenv") {
		t.Errorf("the command ran: {proj}/zdot/.zshenv is on the host")
	}
}
