package sandboxtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// H9 (#10 §1.4): bwrun's post-command scan sets aside only what a
// command changed. A repository the invocation leaves writable
// (protect.allow names .git/config and .git/hooks) carries the user's own
// core.fsmonitor and post-commit hook, set before compiling: after a
// command that does not touch them, real host git still runs them and
// the next command is not refused. A command that rewrites that config
// has it set aside, and host git runs nothing it wrote. Control: the
// same invocation with a ledger that holds nothing of the user's (every
// writable directory marked recorded, no entry) sets the user's own
// config and hook aside: the ledger is what keeps them.
func testGitUserKeysKept(t *testing.T, f *fixture) {
	for _, control := range []bool{false, true} {
		p := f.expand("{base}/userkeys")
		if control {
			p += "-control"
		}
		lib := p + "/vendor/lib"
		m := p + ".ran"
		x := strings.NewReplacer("{p}", p, "{m}", m)
		setup := gitInit + `git init -q vendor/lib && git -C vendor/lib config core.fsmonitor "touch {m}.user" && printf '#!/bin/sh\ntouch {m}.hook\n' > vendor/lib/.git/hooks/post-commit && chmod +x vendor/lib/.git/hooks/post-commit && sleep 1.2`
		r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + x.Replace(setup)}, dir: "{base}"})
		if r.code != 0 {
			t.Fatalf("setup: %v", r)
		}
		hostGit := func() (user, hook, evil bool) {
			for _, s := range []string{".user", ".hook", ".evil"} {
				os.Remove(m + s)
			}
			f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; git commit -q --allow-empty -m host >/dev/null 2>&1; true"}, dir: lib})
			_, e1 := os.Stat(m + ".user")
			_, e2 := os.Stat(m + ".hook")
			_, e3 := os.Stat(m + ".evil")
			return e1 == nil, e2 == nil, e3 == nil
		}
		inv, _ := f.compile("cwd: "+p+"\nprotect:\n  allow: [.git/config, .git/hooks]\n", call{dir: p})
		if control {
			withEmptyLedger(f, inv)
		}
		r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "echo y > vendor/lib/f && git -C vendor/lib status >/dev/null 2>&1; true"}, dir: p})
		f.wantCode(r, 0)
		if control {
			f.wantStderr(r, "set aside as", lib+"/.git/config", lib+"/.git/hooks/post-commit")
			continue
		}
		if strings.Contains(r.stderr, "set aside") {
			t.Errorf("the user's own code keys were set aside after a command that did not touch them: %v", r)
		}
		if user, hook, _ := hostGit(); !user || !hook {
			t.Errorf("host git no longer runs the user's own fsmonitor (%v) or hook (%v)", user, hook)
		}
		r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/true"}, dir: p})
		f.wantCode(r, 0)

		// The command adds to the user's config: set aside, nothing it wrote runs.
		r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", x.Replace(`printf '[core]\n\tfsmonitor = "touch {m}.evil"\n' >> vendor/lib/.git/config`)}, dir: p})
		f.wantCode(r, 0)
		f.wantStderr(r, "set aside as", lib+"/.git/config")
		if _, _, evil := hostGit(); evil {
			t.Errorf("host git ran what the command added to the user's config")
		}
	}
}

// withEmptyLedger writes, beside the invocation, a ledger that covers
// every directory and holds no entry: bwrun records nothing, and the
// scan takes nothing for the user's.
func withEmptyLedger(f *fixture, inv string) {
	f.t.Helper()
	r := f.exec(call{argv: []string{"/bin/sh", "-c", `umask 077; printf 'bwpolicy-ledger 1\nroot 0 "/"\n' > "$0"`, inv + ".ledger"}})
	f.wantCode(r, 0)
}

// H9 (issue 26 §5): 65 repositories below the working directory are
// accepted: the first 64 (sorted) stay bound read-only, the 65th (zz) is
// left to the ledger and the post-command scan, and the compile warns
// which. Before, the compile was refused and the environment locked
// until a person stepped in. A command that writes code into zz's
// config has it set aside; the real repository's config (bound) is not
// writable while it is within the bound. Control: the same write by
// bwrap alone runs at host git.
func testGitDecoysAccepted(t *testing.T, f *fixture) {
	p := f.expand("{base}/decoyed")
	m := p + ".ran"
	r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + strings.ReplaceAll(gitInit, "{p}", p) + "git init -q zz"}, dir: "{base}"})
	if r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	inv, _ := f.compile("cwd: "+p+"\n", call{dir: p})
	r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "for i in $(seq -w 0 63); do git init -q a$i || exit 1; done; echo '[core]' >> zz/.git/config && echo wrote; true"}, dir: p})
	f.wantCode(r, 0)
	if strings.Contains(r.stdout, "wrote") {
		t.Fatalf("the real repository's config was writable while it was within the bound: %v", r)
	}
	compile := func() result {
		return f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", p + ".inv.json", "--config", f.settings("cwd: " + p + "\n")}, dir: p})
	}
	r = compile()
	f.wantCode(r, 0)
	f.wantStderr(r, "H9", "bound read-only", "ledger")
	r = f.exec(call{argv: []string{tool("bwrun"), p + ".inv.json", "--", "/bin/sh", "-c", `printf '[core]\n\tfsmonitor = "touch ` + m + `"\n' >> zz/.git/config && echo wrote`}, dir: p})
	f.wantCode(r, 0)
	if !strings.Contains(r.stdout, "wrote") {
		t.Fatalf("zz's config, past the bound, was not writable: %v", r)
	}
	f.wantStderr(r, "set aside as", p+"/zz/.git/config")
	f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; true"}, dir: p + "/zz"})
	if f.hostExists(m) {
		t.Errorf("host git ran the fsmonitor a command wrote past the bound")
	}
	// Control: the same write by bwrap alone.
	compile()
	r = f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, p+".inv.json")...), "--", "/bin/sh", "-c", `printf '[core]\n\tfsmonitor = "touch `+m+`"\n' >> zz/.git/config`), dir: p})
	f.wantCode(r, 0)
	f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; true"}, dir: p + "/zz"})
	if !f.hostExists(m) {
		t.Errorf("control: host git did not run the fsmonitor written without the scan")
	}
}

// H9 (#10 §1.2, §1.3): the indirections of the repositories one level
// below the working directory are bound read-only at compile time like
// the top repository's. sub's .git is a file (git init
// --separate-git-dir) whose gitdir is kept in the project, and its
// config includes ../shared.inc (relative to the including file); b's
// config includes local.inc through includeIf. A command can write none
// of them (nor retarget sub's .git), while a commit in sub and a file
// next to them still work; afterwards real host git in sub and b runs
// nothing. Control: the same payload written on the host into the
// include target makes that host git run it.
func testGitNestedIndirectionsBound(t *testing.T, f *fixture) {
	r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + strings.ReplaceAll(gitInit, "{p}", "{proj}") +
		`mkdir .store && git init -q --separate-git-dir={proj}/.store/sub sub && git -C sub commit -q --allow-empty -m s && git -C sub config include.path ../shared.inc && echo '[user]' > .store/shared.inc && ` +
		`git init -q b && git -C b config includeIf.gitdir:{proj}/.path local.inc && echo '[user]' > b/.git/local.inc`}, dir: "{base}"})
	if r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	payload := `printf "[core]\n\tfsmonitor = touch {base}/nested.ran\n"`
	r = f.sandbox("", gitEnvSetup+`
ok sub_gitfile 'echo "gitdir: /tmp" > sub/.git'
ok sub_config '`+payload+` >> .store/sub/config'
ok sub_include '`+payload+` >> .store/shared.inc'
ok b_include '`+payload+` >> b/.git/local.inc'
ok sub_commit 'git -C sub commit -q --allow-empty -m inside'
ok sibling 'echo x > .store/note'
`, call{})
	f.expect(r, want{"sub_gitfile": "no", "sub_config": "no", "sub_include": "no", "b_include": "no", "sub_commit": "yes", "sibling": "yes"})
	f.wantHostFile("{proj}/.store/shared.inc", "[user]\n")
	f.wantHostFile("{proj}/b/.git/local.inc", "[user]\n")
	marker := f.expand("{base}/nested.ran")
	hostGit := func(dir string) bool {
		os.Remove(marker)
		f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; true"}, dir: dir})
		_, err := os.Stat(marker)
		return err == nil
	}
	for _, d := range []string{"{proj}/sub", "{proj}/b"} {
		if hostGit(d) {
			t.Errorf("host git in %s ran code after the sandbox", d)
		}
	}
	// Control: the payload in the include target runs on the host.
	r = f.exec(call{argv: []string{"/bin/sh", "-c", payload + " >> .store/shared.inc"}, dir: "{proj}"})
	if r.code != 0 || !hostGit("{proj}/sub") {
		t.Errorf("control: host git in sub did not run what its include target holds: %v", r)
	}
}

// H9 (#10 §1.1, §1.4): what the scan could not clear stays "changed"
// across recompiles. A command plants a code key in a writable nested
// repository and makes its git directory read-only (0555), so bwrun
// cannot set the config aside: it warns, and marks the invocation stale.
// The invocation is recompiled at the same path (as Hermes does), and
// the next command's scan still finds the planted file (the ledger,
// which no recompile changes, does not hold it), warns again and marks
// the invocation stale again. Control: with the stale mark and the
// ledger removed before the recompile (a fresh environment records what
// is there before its first command), the planted file passes as the
// user's, silently, and host git runs it.
// As root (whose rename ignores the mode) bwrun sets the file aside at
// once, which the root run asserts instead.
func testGitUnresolvedCarried(t *testing.T, f *fixture) {
	p := f.expand("{base}/unresolved")
	m := p + ".ran"
	inv := p + ".inv.json"
	r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + strings.ReplaceAll(gitInit, "{p}", p) + "git init -q vendor/lib && sleep 1.2"}, dir: "{base}"})
	if r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	// protect.allow leaves vendor/lib's config writable (the compile
	// binds it otherwise): what is left to the scan alone.
	set := f.settings("cwd: " + p + "\nprotect:\n  allow: [.git/config, .git/hooks]\n")
	compile := func() {
		r := f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", inv, "--config", set}, dir: p})
		f.wantCode(r, 0)
	}
	run := func(script string) result {
		return f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", script}, dir: p})
	}
	compile()
	r = run(`printf '[core]\n\tfsmonitor = "touch ` + m + `"\n' >> vendor/lib/.git/config && chmod 0555 vendor/lib/.git`)
	f.wantCode(r, 0)
	if f.id.uid == 0 {
		// Root's rename ignores the mode: the attack fails outright.
		f.wantStderr(r, "set aside as", p+"/vendor/lib/.git/config")
		f.exec(call{argv: []string{"chmod", "0755", p + "/vendor/lib/.git"}})
		return
	}
	f.wantStderr(r, "could not set aside", p+"/vendor/lib/.git/config")
	time.Sleep(1200 * time.Millisecond) // the recompile is well past the plant
	compile()
	r = run("true")
	f.wantCode(r, 0)
	f.wantStderr(r, "could not set aside", p+"/vendor/lib/.git/config")
	r = run("true")
	f.wantCode(r, 125)

	// Control: without the mark and the ledger (a fresh environment's
	// first command records what is there), the planted file passes.
	os.Remove(inv + ".stale")
	os.Remove(inv + ".ledger")
	compile()
	r = run("true")
	f.wantCode(r, 0)
	if strings.Contains(r.stderr, "vendor/lib/.git/config") {
		t.Errorf("control: the scan still reported the planted config without the stale mark: %v", r)
	}
	f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; true"}, dir: p + "/vendor/lib"})
	if _, err := os.Stat(m); err != nil {
		t.Errorf("control: host git did not run the planted fsmonitor")
	}
	f.exec(call{argv: []string{"chmod", "0755", p + "/vendor/lib/.git"}})
}

// H9: a protected path under the destination of a user bind from
// elsewhere. core.hooksPath names data/hooks, and the settings bind an
// empty host directory (src) at {p}/data. Inside, data shows src, so the
// host's hooks are out of reach and need no read-only bind; emitting one
// anyway made bwrap look for its mount point in src: with a read-only
// bind it could not be created and the sandbox did not start, with a
// writable one bwrap created an empty data/hooks in src on the host.
// Both binds: the command runs, bwrap creates nothing in src, a hook
// the command writes lands in src (where the bind allows it; bwrun's
// scan sets it aside there, an executable named as a git hook) and
// host git in {p} runs only the user's own hook. Control: the same hook
// written on the host into {p}/data/hooks makes host git run it.
func testProtectionUnderForeignBind(t *testing.T, f *fixture) {
	p := f.expand("{base}/shadowed")
	src := f.expand("{base}/shadowsrc")
	m := p + ".ran"
	x := strings.NewReplacer("{p}", p, "{m}", m)
	hook := `printf '#!/bin/sh\ntouch {m}.evil\n' > data/hooks/post-commit && chmod +x data/hooks/post-commit`
	setup := gitInit + `git config core.hooksPath data/hooks && mkdir -p data/hooks ` + src + ` && printf '#!/bin/sh\ntouch {m}.user\n' > data/hooks/post-commit && chmod +x data/hooks/post-commit`
	r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + x.Replace(setup)}, dir: "{base}"})
	if r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	hostGit := func() (user, evil bool) {
		os.Remove(m + ".user")
		os.Remove(m + ".evil")
		f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git commit -q --allow-empty -m host >/dev/null 2>&1; true"}, dir: p})
		return f.hostExists(m + ".user"), f.hostExists(m + ".evil")
	}
	for _, readonly := range []bool{true, false} {
		inv, _ := f.compile(fmt.Sprintf("cwd: %s\nbinds:\n  - {src: %s, dest: %s/data, readonly: %v}\n", p, src, p, readonly), call{dir: p})
		r = f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "ls -A data; mkdir -p data/hooks && " + x.Replace(hook) + " && echo planted; true"}, dir: p})
		f.wantCode(r, 0)
		if got := f.hostList(src); readonly && len(got) != 0 {
			t.Errorf("readonly: bwrap created %v in the bind's source on the host", got)
		}
		if planted := strings.Contains(r.stdout, "planted"); planted == readonly {
			t.Errorf("readonly %v: the command planted a hook in the bound data: %v (want %v): %v", readonly, planted, !readonly, r)
		}
		if !readonly {
			// It lands in src, and bwrun's scan sets it aside there too:
			// an executable named as a git hook in a hooks directory.
			f.wantStderr(r, "set aside as", src+"/hooks/post-commit")
		}
		if user, evil := hostGit(); !user || evil {
			t.Errorf("readonly %v: host git ran the user's hook %v (want true) and the command's %v (want false)", readonly, user, evil)
		}
	}
	r = f.exec(call{argv: []string{"/bin/sh", "-c", x.Replace(hook)}, dir: p})
	if _, evil := hostGit(); r.code != 0 || !evil {
		t.Errorf("control: host git did not run a hook written into {p}/data/hooks: %v", r)
	}
}

// H9: a read-write bind mounted elsewhere (src ≠ dest) gets the same
// compile-time protections as the working directory, at its place below
// the destination: a repository bound at /tmp/moved-TAG keeps its
// config and hooks read-only there and .git cannot be renamed away,
// while commits and new files work; bwrun has nothing to set aside and
// real host git in the source runs nothing. Control: the same mounts
// without the read-only bind of the config, run by bwrap alone (no
// post-command scan), let the command plant a core.fsmonitor that host
// git in the source then runs.
func testMovedBindProtected(t *testing.T, f *fixture) {
	src := f.expand("{base}/movedsrc")
	dest := f.expand("/tmp/moved-{tag}")
	m := src + ".ran"
	x := strings.NewReplacer("{p}", src, "{m}", m, "{d}", dest)
	r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + x.Replace(gitInit) + "true"}, dir: "{base}"})
	if r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	hostGit := func() bool {
		os.Remove(m)
		f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; git commit -q --allow-empty -m host >/dev/null 2>&1; true"}, dir: src})
		return f.hostExists(m)
	}
	inv, _ := f.compile(x.Replace("binds:\n  - {src: {p}, dest: {d}, readonly: false}\n"), call{})
	r = f.bwrun(inv, gitEnvSetup+x.Replace(`
ok config 'printf "[core]\n\tfsmonitor = touch {m}\n" >> {d}/.git/config'
ok hook 'printf "#!/bin/sh\ntouch {m}\n" > {d}/.git/hooks/post-commit && chmod +x {d}/.git/hooks/post-commit'
ok rename 'mv {d}/.git {d}/.git-away'
ok commit 'git -C {d} commit -q --allow-empty -m inside'
ok file 'echo x > {d}/new'
`), call{})
	f.expect(r, want{"config": "no", "hook": "no", "rename": "no", "commit": "yes", "file": "yes"})
	if strings.Contains(r.stderr, "set aside") {
		t.Errorf("bwrun set something aside: the protections did not hold: %v", r)
	}
	if hostGit() {
		t.Errorf("host git in the bind's source ran code after the sandbox")
	}
	// Control: without the config's read-only bind and without bwrun.
	bare := f.withoutArgs(inv, "--ro-bind", src+"/.git/config", dest+"/.git/config")
	r = f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, bare)...), "--", "/bin/sh", "-c", x.Replace(fsm+` >> {d}/.git/config`)), dir: "{proj}"})
	if r.code != 0 || !hostGit() {
		t.Errorf("control: host git in the source did not run what the command planted through the bind: %v", r)
	}
}
