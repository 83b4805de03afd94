package sandboxtest

import (
	"strings"
	"testing"
)

// H10 (Hermes' test_covered_by_a_restricted_cwd_runs, issue 30 S44): the
// working directory is ~/.local, a directory the home layout rebuilds,
// under restricted. It compiles and runs there read-only: `pwd` is
// ~/.local, a write there (and into ~/.local/share) fails, the allowed
// ~/.local/bin reads, and the denied ~/.local/share/keyrings stays out of
// sight (so does ~/.local/share/app, which the layout leaves out).
// Under workspace (the working directory bound read-write) the compile
// refuses. Control: binding the working directory as it is, read-only
// (what running there without the layout would do), shows the keyring
// file.
func testCwdLayoutDirRestricted(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.local/share/keyrings/login.keyring"), f.marker+"\n")
	f.write(f.expand("{home}/.local/share/app/x"), "app\n")
	f.write(f.expand("{home}/.local/bin/tool"), "tool\n")
	f.chown(f.base)
	script := `
val pwd 'pwd'
ok write 'echo x > ./w-{tag}'
ok share_write 'echo x > {home}/.local/share/w-{tag}'
val bin 'cat {home}/.local/bin/tool'
ok keyring 'cat {home}/.local/share/keyrings/login.keyring'
val keyrings_ls 'ls -A {home}/.local/share/keyrings'
val share_ls 'ls -A {home}/.local/share'
`
	inv, _ := f.compile("profile: restricted\ncwd: {home}/.local\n", call{})
	r := f.bwrun(inv, script, call{})
	f.expect(r, want{"pwd": "{home}/.local", "write": "no", "share_write": "no", "bin": "tool", "keyring": "no",
		"keyrings_ls": absent, "share_ls": ""})
	f.wantHostAbsent("{home}/.local/w-{tag}")
	f.wantHostAbsent("{home}/.local/share/w-{tag}")

	c := f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", f.expand("{base}/ws.json"), "--config", f.settings("profile: workspace\ncwd: {home}/.local\n")}})
	if c.code == 0 || !strings.Contains(c.stderr, "[H10]") {
		t.Errorf("workspace with the working directory ~/.local: want an H10 refusal: %v", c)
	}

	local := f.expand("{home}/.local")
	control := f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--tmpfs", f.home, "--ro-bind", local, local,
		"--dev", "/dev", "--proc", "/proc", "--unshare-all", "--chdir", local, "/bin/sh", "-c", "cat share/keyrings/login.keyring"}})
	if control.stdout != f.marker+"\n" {
		t.Errorf("control: the keyring file was not shown by a plain read-only bind of the working directory: %v", control)
	}
}
