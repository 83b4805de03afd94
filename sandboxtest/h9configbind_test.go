package sandboxtest

import "testing"

// H9: the home's ~/.config bound read-write elsewhere, with .config
// allowed: the start-up entries below it (autostart, systemd/user),
// which the allowlist layout leaves out of the home, are read-only at
// the bind's destination, while the rest of it stays writable there.
// Control: the same arguments without the read-only binds, run by bwrap
// alone, let the command add an autostart entry on the host.
func testConfigBoundElsewhere(t *testing.T, f *fixture) {
	h := f.expand("{base}/h2")
	f.mkdirAll(h + "/proj")
	f.mkdirAll(h + "/.config/systemd/user")
	f.write(h+"/.config/autostart/a.desktop", "[Desktop Entry]\n")
	env := []string{"HOME=" + h}
	dest := f.expand("/tmp/cfg-{tag}")
	yaml := "cwd: " + h + "/proj\nbinds:\n  - {src: " + h + "/.config, dest: " + dest + ", readonly: false}\n"
	inv, _ := f.compile(yaml, call{dir: h + "/proj", env: env})
	script := `
ok autostart 'echo Exec=evil >> ` + dest + `/autostart/a.desktop'
ok unit 'echo "[Service]" > ` + dest + `/systemd/user/x.service'
ok other 'echo x > ` + dest + `/other.conf'
`
	r := f.bwrun(inv, script, call{dir: h + "/proj", env: env})
	f.expect(r, want{"autostart": "no", "unit": "no", "other": "yes"})
	f.wantHostFile(h+"/.config/autostart/a.desktop", "[Desktop Entry]\n")
	f.wantHostAbsent(h + "/.config/systemd/user/x.service")

	bare := f.withoutArgs(f.withoutArgs(inv, "--ro-bind", h+"/.config/autostart", dest+"/autostart"),
		"--ro-bind", h+"/.config/systemd/user", dest+"/systemd/user")
	r = f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, bare)...), "--", "/bin/sh", "-c", "echo Exec=evil >> "+dest+"/autostart/a.desktop"), dir: h + "/proj", env: env})
	if r.code != 0 || f.hostRead(h+"/.config/autostart/a.desktop") == "[Desktop Entry]\n" {
		t.Errorf("control: bwrap alone did not let the command add to the autostart entry: %v", r)
	}
}

// H9: a Mercurial repository's .hg/hgrc ([hooks], [extensions]: run on
// the host at the next hg status) is read-only in the working
// directory, like .git/config. Control: bwrap alone with the same
// arguments less that bind lets the command add a hook.
func testHgrcProtected(t *testing.T, f *fixture) {
	f.write(f.expand("{proj}/.hg/hgrc"), "[ui]\n")
	inv, _ := f.compile("", call{})
	r := f.bwrun(inv, `ok hgrc 'printf "[hooks]\npre-status = touch /tmp/x\n" >> .hg/hgrc'`, call{})
	f.expect(r, want{"hgrc": "no"})
	f.wantHostFile("{proj}/.hg/hgrc", "[ui]\n")
	bare := f.withoutArgs(inv, "--ro-bind", f.expand("{proj}/.hg/hgrc"), f.expand("{proj}/.hg/hgrc"))
	r = f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, bare)...), "--", "/bin/sh", "-c", `printf "[hooks]\n" >> .hg/hgrc`)})
	if r.code != 0 || f.hostRead("{proj}/.hg/hgrc") == "[ui]\n" {
		t.Errorf("control: bwrap alone did not let the command write .hg/hgrc: %v", r)
	}
}
