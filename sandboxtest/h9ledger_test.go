package sandboxtest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// This file holds the real-sandbox tests of issue 26: the attacks an
// outside review made on H9 when the post-command scan judged files by
// their times, each run as the unprivileged user through bwrun with the
// user's host git afterwards, and each with a control that shows the
// plant works without the protection. The environment is recompiled to
// the same invocation path, as the Hermes plugin does (its ledger and
// journal live beside the invocation).

// ledgerEnv is one environment: a project directory p with a repository
// in it, its invocation at inv (recompiled in place), the marker m a
// planted program creates.
type ledgerEnv struct {
	f         *fixture
	p, inv, m string
	settings  string
}

func newLedgerEnv(t *testing.T, f *fixture, name string) *ledgerEnv {
	t.Helper()
	p := f.expand("{base}/" + name)
	e := &ledgerEnv{f: f, p: p, inv: p + ".inv.json", m: p + ".ran"}
	if r := f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + strings.ReplaceAll(gitInit, "{p}", p) + "true"}, dir: "{base}"}); r.code != 0 {
		t.Fatalf("setup: %v", r)
	}
	e.settings = f.settings("cwd: " + p + "\n")
	e.compile()
	return e
}

// compile compiles the environment's settings to its invocation path.
func (e *ledgerEnv) compile() result {
	e.f.t.Helper()
	r := e.f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", e.inv, "--config", e.settings}, dir: e.p})
	e.f.wantCode(r, 0)
	return r
}

// bwrun runs script through bwrun in the environment.
func (e *ledgerEnv) bwrun(script string) result {
	e.f.t.Helper()
	return e.f.exec(call{argv: []string{tool("bwrun"), e.inv, "--", "/bin/sh", "-c", gitEnvSetup + e.x(script)}, dir: e.p})
}

// bwrap runs script by bwrap alone with the invocation's mounts: no
// scan, no ledger (the controls).
func (e *ledgerEnv) bwrap(script string) result {
	e.f.t.Helper()
	return e.f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(e.f.t, e.inv)...), "--", "/bin/sh", "-c", gitEnvSetup+e.x(script)), dir: e.p})
}

func (e *ledgerEnv) x(s string) string {
	return strings.NewReplacer("{p}", e.p, "{m}", e.m).Replace(s)
}

// hostGitRan runs the user's host git (status, checkout, commit) in dir
// (relative to p) and reports whether a planted program ran.
func (e *ledgerEnv) hostGitRan(dir string) bool {
	e.f.t.Helper()
	os.Remove(e.m)
	if !e.f.hostExists(e.p + dir) {
		return false // nothing there to run
	}
	e.f.exec(call{argv: []string{"/bin/sh", "-c", gitEnvSetup + "git status >/dev/null 2>&1; git checkout -q -b x >/dev/null 2>&1; git commit -q --allow-empty -m host >/dev/null 2>&1; true"}, dir: e.p + dir})
	return e.f.hostExists(e.m)
}

// pending lists the environment's journal entries.
func (e *ledgerEnv) pending() []string {
	m, _ := filepath.Glob(e.inv + ".pending-*") // testglob:may-be-empty
	return m
}

// plantInStash is the first review's route: a repository with a
// core.fsmonitor and a post-checkout hook built inside a/.git/stash
// (a/.git has no HEAD: git passes it by, and the scan walks no .git),
// and an .envrc that makes the environment stale and recompiled.
const plantInStash = `mkdir -p a/.git && git init -q a/.git/stash && ` +
	`printf '[core]\n\tfsmonitor = "touch {m}"\n' >> a/.git/stash/.git/config && ` +
	`printf '#!/bin/sh\ntouch {m}\n' > a/.git/stash/.git/hooks/post-checkout && chmod +x a/.git/stash/.git/hooks/post-checkout && ` +
	`echo 'export X=1' > .envrc; true`

// H9 (issue 26, attack 1): code staged in a .git that is not a
// repository, renamed out after a recompile, keeps its old times; the
// ledger does not hold it, so the scan after the renaming command sets
// it aside and the user's host git (status, checkout) runs nothing.
// Control: the renaming command run by bwrap alone (no scan): host git
// runs the staged fsmonitor.
func testLedgerStagedInNonRepo(t *testing.T, f *fixture) {
	for _, control := range []bool{false, true} {
		name := "ledger-stash"
		if control {
			name += "-control"
		}
		e := newLedgerEnv(t, f, name)
		f.wantCode(e.bwrun(plantInStash), 0)
		time.Sleep(1200 * time.Millisecond) // the staged files are well older than the recompile
		e.compile()
		finish := `mv a/.git/stash t && true`
		if control {
			f.wantCode(e.bwrap(finish), 0)
		} else {
			r := e.bwrun(finish)
			f.wantCode(r, 0)
			f.wantStderr(r, "set aside as", e.p+"/t/.git/config")
		}
		ran := e.hostGitRan("/t")
		switch {
		case !control && ran:
			t.Errorf("host git ran code staged in a .git that is not a repository")
		case control && !ran:
			t.Errorf("control: host git did not run the staged code")
		}
	}
}

// plantHook makes a new repository k whose fsmonitor and post-checkout
// hook run the marker.
const plantHook = `git init -q k && printf '[core]\n\tfsmonitor = "touch {m}"\n' >> k/.git/config && ` +
	`printf '#!/bin/sh\ntouch {m}\n' > k/.git/hooks/post-checkout && chmod +x k/.git/hooks/post-checkout`

// H9 (issue 26, attack 2 and §7): bwrun SIGKILLed at every phase of a
// command that plants code for host git: before the command ran, while
// it runs, while the post-command scan runs (the command made 40,000
// directories so the scan takes a while) and after the scan (not
// killed). Then the environment is recompiled in place, as the plugin
// does, and the user's host git runs in the planted repository: it runs
// nothing, because the journal entry the dead bwrun left makes the
// recompile finish the scan first (and a next bwrun would too: the
// "command" phase checks that path). Control: the same kill with the
// journal entry removed (as before the journal): the recompile trusts
// nothing, but nothing scans either, and host git runs the plant.
func testLedgerKillPhases(t *testing.T, f *fixture) {
	type phase struct {
		name    string
		script  string
		killAt  string // a file the command creates; "" = right away; "-" = not killed
		delay   time.Duration
		control bool
	}
	phases := []phase{
		{name: "before", script: plantHook + `; sleep 30`, killAt: ""},
		{name: "command", script: plantHook + ` && touch {p}/.planted && sleep 30`, killAt: "/.planted"},
		{name: "scan", script: plantHook + ` && mkdir -p many && cd many && seq 1 40000 | xargs mkdir && touch {p}/.planted`, killAt: "/.planted", delay: 20 * time.Millisecond},
		{name: "after", script: plantHook, killAt: "-"},
		{name: "command_control", script: plantHook + ` && touch {p}/.planted && sleep 30`, killAt: "/.planted", control: true},
	}
	for _, ph := range phases {
		t.Run(ph.name, func(t *testing.T) {
			g := *f
			g.t = t
			e := newLedgerEnv(t, &g, "ledger-kill-"+ph.name)
			f.wantCode(e.bwrun("true"), 0) // the ledger is recorded
			c := call{argv: []string{tool("bwrun"), e.inv, "--", "/bin/sh", "-c", gitEnvSetup + e.x(ph.script)}, dir: e.p}
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd, _, stderr := g.command(ctx, c)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if ph.killAt == "-" {
				cmd.Wait()
				if !strings.Contains(stderr.String(), "set aside as") {
					t.Errorf("the finished scan set nothing aside: %s", stderr)
				}
			} else {
				if ph.killAt != "" {
					deadline := time.Now().Add(60 * time.Second)
					for !g.hostExists(e.p+ph.killAt) && time.Now().Before(deadline) {
						time.Sleep(5 * time.Millisecond)
					}
					time.Sleep(ph.delay)
				}
				journal := e.pending()
				cmd.Process.Kill()
				cmd.Wait()
				if ph.killAt != "" && len(journal) == 0 {
					t.Fatalf("bwrun had no journal entry when it was killed (phase %s): %s", ph.name, stderr)
				}
				if ph.name == "scan" {
					t.Logf("killed during the scan, journal %v", journal)
				}
			}
			if ph.control {
				for _, j := range e.pending() {
					os.Remove(j)
				}
			}
			r := e.compile()
			if len(e.pending()) > 0 {
				t.Errorf("the recompile left journal entries %v: %s", e.pending(), r.stderr)
			}
			ran := e.hostGitRan("/k")
			switch {
			case !ph.control && ran:
				t.Errorf("host git ran the plant after bwrun was killed (%s) and the environment recompiled", ph.name)
			case ph.control && !ran:
				t.Errorf("control: host git did not run the plant")
			}
		})
	}
	// The next bwrun (not a compile) finishes a pending scan too, before
	// its own command runs, and refuses to run it (stale).
	e := newLedgerEnv(t, f, "ledger-kill-next-bwrun")
	f.wantCode(e.bwrun("true"), 0)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, _, _ := f.command(ctx, call{argv: []string{tool("bwrun"), e.inv, "--", "/bin/sh", "-c", gitEnvSetup + e.x(plantHook+` && touch {p}/.planted && sleep 30`)}, dir: e.p})
	cmd.Start()
	for i := 0; i < 6000 && !f.hostExists(e.p+"/.planted"); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	r := e.bwrun("touch {p}.second-ran")
	f.wantCode(r, 125)
	f.wantStderr(r, "did not finish its scan")
	if f.hostExists(e.p + ".second-ran") {
		t.Errorf("the next command ran before the pending scan was dealt with")
	}
	if e.hostGitRan("/k") {
		t.Errorf("host git ran the plant after the next bwrun finished the pending scan")
	}
}

// H9 (issue 26, attack 3): 1,000 symlinks into a .git directory do not
// make later commands slow: the scan looks at each place inside it once.
// The command after the one that made them costs less than a second more
// than the one before (the bound is 150 ms of CPU; bench/run.sh
// measures it: a loaded test machine is not a benchmark). Control:
// without the links, the same command's time (the baseline).
func testLedgerLinksIntoGit(t *testing.T, f *fixture) {
	e := newLedgerEnv(t, f, "ledger-links")
	f.wantCode(e.bwrun("mkdir -p .git/objects/d/e/e/p/e/r && true"), 0)
	base := e.bwrun("true")
	f.wantCode(base, 0)
	r := e.bwrun(`mkdir links && i=0; while [ $i -lt 1000 ]; do ln -s "$PWD/.git/objects/d/e/e/p/e/r" links/l$i; ln -s "../.git/objects/d/e/./e/p/e/r" links/m$i; i=$((i+1)); done`)
	f.wantCode(r, 0)
	r = e.bwrun("true")
	f.wantCode(r, 0)
	if strings.Contains(r.stderr, "set aside") || strings.Contains(r.stderr, "budget") {
		t.Errorf("links to nothing that runs: %s", r.stderr)
	}
	if r.elapsed > base.elapsed+time.Second {
		t.Errorf("2,000 symlinks into .git: the next command took %v, the one before %v", r.elapsed, base.elapsed)
	}
	t.Logf("bwrun true: %v without links, %v with 2,000 links into .git", base.elapsed, r.elapsed)
}

// H9 (issue 26, attack 3 and §5): a command that makes 70 repositories
// (more than the compile binds read-only) and a stale trigger does not
// lock the environment: the recompile is accepted with a warning, the
// next command runs, and code a command gives the 70th repository is set
// aside after that command. Control: the same code written by bwrap
// alone (no scan) runs at the user's host git.
func testLedgerSeventyRepos(t *testing.T, f *fixture) {
	e := newLedgerEnv(t, f, "ledger-seventy")
	f.wantCode(e.bwrun(`for i in $(seq -w 0 69); do git init -q r$i || exit 1; done; echo 'export X=1' > .envrc`), 0)
	r := e.compile()
	f.wantStderr(r, "H9", "bound read-only")
	r = e.bwrun(`printf '[core]\n\tfsmonitor = "touch {m}"\n' >> r69/.git/config && echo wrote`)
	f.wantCode(r, 0)
	if !strings.Contains(r.stdout, "wrote") {
		t.Fatalf("r69, past the bound, was not writable (the control below would prove nothing): %v", r)
	}
	f.wantStderr(r, "set aside as", e.p+"/r69/.git/config")
	if e.hostGitRan("/r69") {
		t.Errorf("host git ran code a command gave a repository past the read-only bound")
	}
	e.compile()
	f.wantCode(e.bwrun("true"), 0)
	// Control: the same write by bwrap alone.
	f.wantCode(e.bwrap(`printf '[core]\n\tfsmonitor = "touch {m}"\n' >> r68/.git/config`), 0)
	if !e.hostGitRan("/r68") {
		t.Errorf("control: host git did not run the fsmonitor written without the scan")
	}
}

// H9 (issue 26, attack 4): an invocation named through a symlink in the
// writable directory is refused, so a command cannot re-point it at
// another of the user's invocations; so is a --status-file through one.
// Control: the same invocation by its real path runs.
func testLedgerInvocationSymlink(t *testing.T, f *fixture) {
	e := newLedgerEnv(t, f, "ledger-invlink")
	f.wantCode(e.bwrun(`ln -s `+e.inv+` current.json`), 0)
	r := f.exec(call{argv: []string{tool("bwrun"), e.p + "/current.json", "--", "/bin/true"}, dir: e.p})
	f.wantCode(r, 125)
	f.wantStderr(r, "symbolic link")
	st := e.p + "-status"
	f.exec(call{argv: []string{"/bin/sh", "-c", "mkdir " + st + "-real && ln -s " + st + "-real " + st}})
	r = f.exec(call{argv: []string{tool("bwrun"), "--status-file", st + "/status.json", e.inv, "--", "/bin/true"}, dir: e.p})
	f.wantCode(r, 125)
	f.wantStderr(r, "symbolic link")
	// Control: by its real path.
	f.wantCode(f.exec(call{argv: []string{tool("bwrun"), e.inv, "--", "/bin/true"}, dir: e.p}), 0)
}
