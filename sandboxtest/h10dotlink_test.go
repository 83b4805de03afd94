package sandboxtest

import (
	"os"
	"testing"
)

// H10: what the host runs is held by what it is, not by its name.
// ~/.xprofile -> dotfiles/bashrc is a dot symlink on no list (the host's
// X session sources it), and with the home directory as the working
// directory (or dotfiles/ itself) dotfiles/ is writable. The final
// target is bound read-only: `echo EVIL >> ~/dotfiles/bashrc` fails
// (EROFS) and the host file keeps its content, while a sibling in
// dotfiles/ stays writable; the same for ~/.zz-anything, on no list. A chain with a second link in the writable set
// (~/.zz-chain -> dotfiles/mid -> bashrc) and a chain to a target that
// does not exist yet (~/.zz-later -> dotfiles/later/rc, created later)
// are refused at compile with the chain in the message; a dot link made
// on the host after the compile makes the invocation stale (125) and the
// recompile holds its target. Control: bwrap
// with the home directory writable and no hold lets the write land.
func testDotLinkTargetHeld(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/dotfiles/bashrc"), "# rc\n")
	f.symlink("dotfiles/bashrc", "{home}/.xprofile")
	// ~/.xprofile is a start-up name; ~/.zz-anything is on no list.
	f.write(f.expand("{home}/dotfiles/zz"), "zz\n")
	f.symlink("{home}/dotfiles/zz", "{home}/.zz-anything")
	for _, cwd := range []string{"{home}", "{home}/dotfiles"} {
		r := f.sandbox("cwd: "+cwd+"\n", `
ok evil 'echo EVIL >> {home}/dotfiles/bashrc'
val why 'echo EVIL >> {home}/dotfiles/bashrc'
ok zz 'echo EVIL >> {home}/dotfiles/zz'
ok sibling 'echo x > {home}/dotfiles/other && rm {home}/dotfiles/other'
`, call{dir: cwd})
		f.expect(r, want{"evil": "no", "why": "~Read-only file system", "zz": "no", "sibling": "yes"})
		f.wantHostFile("{home}/dotfiles/bashrc", "# rc\n")
		f.wantHostFile("{home}/dotfiles/zz", "zz\n")
	}

	// Refused: a second link on the chain inside the writable set, and a
	// target created later.
	f.symlink("bashrc", "{home}/dotfiles/mid")
	f.symlink("dotfiles/mid", "{home}/.zz-chain")
	f.compileRefused("cwd: {home}\n", "[H10]", "{home}/.zz-chain -> {home}/dotfiles/mid -> {home}/dotfiles/bashrc", "re-point")
	if err := os.Remove(f.expand("{home}/.zz-chain")); err != nil {
		t.Fatal(err)
	}
	f.symlink("dotfiles/later/rc", "{home}/.zz-later")
	f.compileRefused("cwd: {home}\n", "[H10]", "{home}/.zz-later -> {home}/dotfiles/later/rc", "does not exist")
	if err := os.Remove(f.expand("{home}/.zz-later")); err != nil {
		t.Fatal(err)
	}

	// A dot link made on the host after the compile: the invocation is
	// stale (its target was never held), and the recompile holds it.
	inv, _ := f.compile("cwd: {home}\n", call{dir: "{home}"})
	f.write(f.expand("{home}/dotfiles/later"), "later\n")
	f.symlink("dotfiles/later", "{home}/.zz-made-later")
	r := f.exec(call{dir: "{home}", argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "echo EVIL >> {home}/dotfiles/later"}})
	f.wantCode(r, 125)
	f.wantStderr(r, ".zz-made-later", "recompile")
	f.wantHostFile("{home}/dotfiles/later", "later\n")
	r = f.sandbox("cwd: {home}\n", `ok later 'echo EVIL >> {home}/dotfiles/later'`, call{dir: "{home}"})
	f.expect(r, want{"later": "no"})
	f.wantHostFile("{home}/dotfiles/later", "later\n")

	// Control: the home directory writable, nothing held.
	home := f.expand("{home}")
	c := f.exec(call{dir: "{home}", argv: []string{bwrapPath, "--ro-bind", "/", "/", "--bind", home, home,
		"--dev", "/dev", "--proc", "/proc", "--unshare-all", "--chdir", home, "/bin/sh", "-c", "echo EVIL >> " + home + "/dotfiles/bashrc"}})
	f.wantCode(c, 0)
	f.wantHostFile("{home}/dotfiles/bashrc", "# rc\nEVIL\n")
}
