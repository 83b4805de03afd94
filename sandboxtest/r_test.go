package sandboxtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// R1: a bind of a hidden directory is dropped (warning): .ssh stays
// absent (the allowlist home layout leaves it out).
func testR1(t *testing.T, f *fixture) {
	inv, warnings := f.compile("binds:\n  - {src: {home}/.ssh}\n  - {src: {hermes}/cache}\n", call{})
	if !strings.Contains(warnings, "[R1]") {
		t.Errorf("no R1 warning: %q", warnings)
	}
	r := f.bwrun(inv, `
val ssh_ls 'ls -A {home}/.ssh'
ok key 'cat {home}/.ssh/id_rsa'
ok hermes_env 'cat {hermes}/.env'
ok cwd_write 'echo x > {proj}/r1.txt'
`, call{})
	f.expect(r, want{"ssh_ls": absent, "key": "no", "hermes_env": "no", "cwd_write": "yes"})
	f.wantHostCredentialsUnchanged()
}

// R2: a bind that contains hidden paths, mounted elsewhere, is dropped
// (warning): the credentials do not show up under the other name.
func testR2(t *testing.T, f *fixture) {
	inv, warnings := f.compile("binds:\n  - {src: {home}, dest: {base}/mnt}\n", call{})
	if !strings.Contains(warnings, "[R2]") {
		t.Errorf("no R2 warning: %q", warnings)
	}
	r := f.bwrun(inv, `
val mnt_ls 'ls -A {base}/mnt'
ok key 'cat {base}/mnt/.ssh/id_rsa'
ok npmrc 'cat {base}/mnt/.npmrc'
ok cwd_write 'echo x > {proj}/r2.txt'
`, call{})
	f.expect(r, want{"mnt_ls": "", "key": "no", "npmrc": "no", "cwd_write": "yes"})
}

// R4: a dest under the sandbox's own /tmp is allowed: the bind appears
// there (read-only) and nothing is created on the host.
func testR4Tmp(t *testing.T, f *fixture) {
	r := f.sandbox("binds:\n  - {src: {base}/ro, dest: /tmp/ro-{tag}}\n", `
val read 'cat /tmp/ro-{tag}/file'
ok write 'echo x > /tmp/ro-{tag}/new'
ok tmp_write 'echo x > /tmp/other'
`, call{})
	f.expect(r, want{"read": "read-only-data", "write": "no", "tmp_write": "yes"})
	f.wantHostAbsent("/tmp/ro-{tag}")
	f.wantHostAbsent("{base}/ro/new")
}

// R6: started from a directory under the Hermes home (a gateway run from
// its checkout), the sandbox starts in HOME instead (warning); the
// checkout stays hidden. HOME is the home layout's read-only tmpfs: a
// new name there fails, and never reaches the host.
func testR6Fallback(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/hermes-agent/run.py"), "print('gateway')\n")
	inv, warnings := f.compile("", call{dir: "{hermes}/hermes-agent"})
	if !strings.Contains(warnings, "[R6]") {
		t.Errorf("no R6 warning: %q", warnings)
	}
	r := f.bwrun(inv, `
val pwd 'pwd'
ok checkout 'cat {hermes}/hermes-agent/run.py'
ok home_write 'echo x > {home}/r6.txt'
ok checkout_write 'echo x > {hermes}/hermes-agent/planted'
`, call{dir: "{hermes}/hermes-agent"})
	f.expect(r, want{"pwd": "{home}", "checkout": "no", "home_write": "no"})
	f.wantHostAbsent("{home}/r6.txt")
	f.wantHostAbsent("{hermes}/hermes-agent/planted")
	f.wantHostCredentialsUnchanged()
}

// R11: a read-only bind of the whole home (dest = src) is allowed, but
// the hidden paths inside stay masked (they come after it) and the
// working directory stays writable (the bind does not cover it; TMPDIR
// is the sandbox's /tmp: without a sandbox ID no scratch is bound back). A bind of HOME is the denylist layout's (the allowlist
// layout refuses a bind over the directory it rebuilds, H10).
func testR11(t *testing.T, f *fixture) {
	r := f.sandbox(denylist+"binds:\n  - {src: {home}}\n", `
ok key 'cat {home}/.ssh/id_rsa'
val ssh_ls 'ls -A {home}/.ssh'
val npmrc_size 'wc -c < {home}/.npmrc'
val gnupg_ls 'ls -A {home}/.gnupg/'
ok hermes_env 'cat {hermes}/.env'
ok cwd_write 'echo x > {proj}/r11.txt'
ok home_write 'echo x > {home}/r11.txt'
ok tmpdir_write 'echo x > "$TMPDIR/r11-{tag}"'
val bashrc 'cat {home}/.bashrc'
`, call{})
	f.expect(r, want{"key": "no", "ssh_ls": "", "npmrc_size": "0", "gnupg_ls": "", "hermes_env": "no",
		"cwd_write": "yes", "home_write": "no", "tmpdir_write": "yes", "bashrc": "# bashrc"})
	f.wantHostFile("{proj}/r11.txt", "x\n")
	f.wantHostAbsent("{home}/r11.txt")
	f.wantHostAbsent("{scratch}/r11-{tag}")
	f.wantHostCredentialsUnchanged()
}

// R12: a limit above the inherited hard limit is clamped to it (warning)
// and the sandbox gets the clamped value.
func testR12Clamp(t *testing.T, f *fixture) {
	settings := f.settings("cpu_seconds: 30\n")
	inv := f.expand("{base}/r12.json")
	limited := func(argv ...string) []string {
		return append([]string{"/bin/sh", "-c", `ulimit -t 5 && exec "$@"`, "sh"}, argv...)
	}
	r := f.exec(call{argv: limited(tool("bwpolicy"), "compile", "--config", settings, "-o", inv)})
	f.wantCode(r, 0)
	f.wantStderr(r, "[R12]")
	r = f.exec(call{argv: limited(tool("bwrun"), inv, "--", "/bin/sh", "-c", prelude+"val cpu 'ulimit -t'\n")})
	f.expect(r, want{"cpu": "5"})
}

// refusal is a setting the compiler refuses: nothing is compiled, and
// `bwpolicy run` exits 125 without running the command.
type refusal struct {
	name, yaml, rule string
	setup, undo      func(f *fixture)
	absent           []string // host paths that must not appear
}

var refusals = []refusal{
	{name: "R3 rw bind deep inside cwd", rule: "[R3]", yaml: "binds:\n  - {src: {proj}/sub/inner, readonly: false}\n"},
	{name: "R4 dest missing", rule: "[R4]", yaml: "binds:\n  - {src: {base}/data, dest: {proj}/newdir}\n", absent: []string{"{proj}/newdir"}},
	{name: "R4 dest missing outside cwd", rule: "[R4]", yaml: "binds:\n  - {src: {base}/data, dest: {base}/newdir}\n", absent: []string{"{base}/newdir"}},
	{name: "R5 cwd /", rule: "[R5]", yaml: "cwd: /\n"},
	{name: "R6 cwd hidden", rule: "[R6]", yaml: "cwd: {home}/.ssh\n"},
	{name: "R6 cwd Hermes scratch", rule: "[R6]", yaml: "cwd: {scratch}\n"},
	{name: "R8 profile home links into .ssh", rule: "[R8]", yaml: "home_mode: profile\n",
		setup: func(f *fixture) { f.symlink("{home}/.ssh", "{hermes}/home") },
		undo:  func(f *fixture) { os.Remove(f.expand("{hermes}/home")) }},
	{name: "R9 missing source", rule: "[R9]", yaml: "binds:\n  - {src: {base}/no-such-dir}\n"},
	{name: "R9 relative source", rule: "[R9]", yaml: "binds:\n  - {src: data}\n"},
	{name: "R10 dest symlink", rule: "[R10]", yaml: "binds:\n  - {src: {base}/data, dest: {base}/link}\n",
		setup: func(f *fixture) { f.symlink("{base}/mnt", "{base}/link") },
		undo:  func(f *fixture) { os.Remove(f.expand("{base}/link")) }},
	{name: "R10 dest /proc", rule: "[R10]", yaml: "binds:\n  - {src: {base}/data, dest: /proc}\n"},
	{name: "R12 negative limit", rule: "memory_mb", yaml: "memory_mb: -1\n"},
	{name: "unknown profile", rule: "unknown profile", yaml: "profile: no-such-profile\n"},
}

func (f *fixture) symlink(target, link string) {
	f.t.Helper()
	if err := os.Symlink(f.expand(target), f.expand(link)); err != nil {
		f.t.Fatal(err)
	}
	f.chown(f.expand(link))
}

// R3, R4, R5, R6, R8, R9, R10, R12, R13 (errors): the compiler refuses
// (exit 1, the rule named, no invocation written) and `bwpolicy run`
// never runs the command (125); no bind destination appears on the host.
func testRefused(t *testing.T, f *fixture) {
	for i, c := range refusals {
		if c.setup != nil {
			c.setup(f)
		}
		settings := f.settings(c.yaml)
		inv := f.expand(fmt.Sprintf("{base}/refused-%d.json", i))
		r := f.exec(call{argv: []string{tool("bwpolicy"), "compile", "--config", settings, "-o", inv}})
		if r.code != 1 || !strings.Contains(r.stderr, c.rule) {
			t.Errorf("%s: compile exit %d, want 1 naming %s: %v", c.name, r.code, c.rule, r)
		}
		f.wantHostAbsent(inv)
		ran := fmt.Sprintf("{proj}/ran-%d.txt", i)
		r = f.exec(call{argv: []string{tool("bwpolicy"), "run", "--config", settings, "--", "/bin/sh", "-c", "echo ran > " + ran}})
		if r.code != 125 {
			t.Errorf("%s: run exit %d, want 125: %v", c.name, r.code, r)
		}
		f.wantHostAbsent(ran)
		for _, p := range c.absent {
			f.wantHostAbsent(p)
		}
		if c.undo != nil {
			c.undo(f)
		}
	}
}
