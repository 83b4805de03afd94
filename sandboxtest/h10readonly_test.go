package sandboxtest

import "testing"

// H10: a write that cannot land fails. With the home directory as the
// working directory (the allowlist layout), `printf x > ~/newfile`,
// `mkdir ~/.ssh2` and `touch ~/.config/probe` fail with EROFS (the
// layout's tmpfs over HOME and ~/.config is remounted read-only once
// every mount inside it is made), while a non-dot entry bound back
// read-write (~/notes) stays writable and reaches the host. Control: the
// same invocation without the two remounts lets all three "succeed"
// into a tmpfs that vanishes (nothing on the host): the remount, not
// something else, makes them fail.
func testHomeWritesFail(t *testing.T, f *fixture) {
	script := `
val newfile 'printf x > {home}/newfile'
val ssh2 'mkdir {home}/.ssh2'
val probe 'touch {home}/.config/probe'
ok notes 'echo n >> {home}/notes/todo'
`
	inv, _ := f.compile("cwd: {home}\n", call{})
	r := f.bwrun(inv, script, call{dir: "{home}"})
	f.expect(r, want{"newfile": "~Read-only file system", "ssh2": "~Read-only file system", "probe": "~Read-only file system", "notes": "yes"})
	f.wantHostFile("{home}/notes/todo", "todo\nn\n")

	bare := f.withoutArgs(f.withoutArgs(inv, "--remount-ro", f.home), "--remount-ro", f.expand("{home}/.config"))
	c := f.exec(call{dir: "{home}", argv: append(append([]string{bwrapPath}, rawArgs(t, bare)...), "--", "/bin/sh", "-c", prelude+f.expand(script))})
	f.expect(c, want{"newfile": "", "ssh2": "", "probe": ""})
	for _, p := range []string{"{home}/newfile", "{home}/.ssh2", "{home}/.config/probe"} {
		f.wantHostAbsent(p)
	}
}
