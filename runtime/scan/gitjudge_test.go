package scan

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
)

// compiledNow records the fixture's ledger now: what exists is the
// user's.
func (f *scanFixture) compiledNow() {
	time.Sleep(2 * ledgerSlack) // what the test made is older than the recording
	f.led = recordNow(f.t, f.inv, f.home)
}

// recordNow records a ledger of inv's writable set as it is now (what
// bwrun does before the first command of an environment).
func recordNow(t testing.TB, inv *invocation.Invocation, home string) *ledger.Ledger {
	t.Helper()
	led := ledger.New()
	roots, warns := RecordLedger(inv, home, led)
	if len(roots) == 0 {
		t.Fatalf("recording the ledger recorded no root (warnings %q)", warns)
	}
	for _, w := range warns {
		t.Logf("recording: %s", w)
	}
	return led
}

// userRepo is a repository the invocation leaves writable (nested, not
// bound read-only) whose owner set code keys and a hook before
// compiling.
func (f *scanFixture) userRepo(t *testing.T) (dir, cfg, hook string) {
	t.Helper()
	dir = filepath.Join(f.proj, "vendor", "lib")
	runGit(t, f.home, f.proj, "init", "-q", dir)
	runGit(t, f.home, dir, "config", "core.pager", "less -R")
	runGit(t, f.home, dir, "config", "alias.lg", "!git log --oneline")
	hook = filepath.Join(dir, ".git", "hooks", "pre-commit")
	mustWrite(t, hook, "#!/bin/sh\nexit 0\n", 0o755)
	return dir, filepath.Join(dir, ".git", "config"), hook
}

// H9 (#10 §1.4): the scan sets aside only what changed since the
// compile. The user's own code keys and hook in a writable repository
// stay (no warning, not stale); a command that adds a key to that same
// file, rewrites the hook, links a new one or swaps the config for a
// symlink is set aside. Control: without a compile time (an older
// invocation), the user's own keys are set aside, as before.
func TestScanGitLeavesUnchangedUserKeys(t *testing.T) {
	f := newScanFixture(t)
	dir, cfg, hook := f.userRepo(t)
	f.compiledNow()
	if rep := f.scan(t); rep.Stale() || len(rep.Warnings) > 0 {
		t.Fatalf("the user's own keys and hook, unchanged since the compile, were set aside: %+v", rep)
	}
	for _, p := range []string{cfg, hook} {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}

	// The command adds a key to the user's config: the file is set aside.
	f.attack(t, dir, func() {
		b, _ := os.ReadFile(cfg)
		mustWrite(t, cfg, string(b)+"[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	}, cfg)

	// The command rewrites the user's hook (same inode, same mode).
	f2 := newScanFixture(t)
	dir2, _, hook2 := f2.userRepo(t)
	f2.compiledNow()
	f2.attack(t, dir2, func() {
		w, err := os.OpenFile(hook2, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString("#!/bin/sh\n" + f2.evil() + "\n")
		w.Close()
	}, hook2)

	// A new hook next to the user's, and the config swapped for a symlink
	// to an old file of the user's that holds a code key: both are new.
	// The user's own hook, unchanged in the same hooks directory, stays
	// (a hooks directory renamed into place is another directory:
	// TestScanGitRenamedHooksDir).
	f3 := newScanFixture(t)
	dir3, cfg3, hook3 := f3.userRepo(t)
	old := filepath.Join(f3.proj, "old.cfg")
	mustWrite(t, old, "[core]\n\tfsmonitor = \""+f3.evil()+"\"\n", 0o644)
	f3.compiledNow()
	newHook := filepath.Join(dir3, ".git", "hooks", "post-commit")
	f3.attack(t, dir3, func() {
		mustWrite(t, newHook, "#!/bin/sh\n"+f3.evil()+"\n", 0o755)
		os.Rename(cfg3, cfg3+".orig")
		os.Symlink(old, cfg3)
	}, newHook, cfg3)
	if _, err := os.Stat(hook3); err != nil {
		t.Errorf("the user's own hook was set aside: %v", err)
	}

	// Control: without a ledger, the user's own keys and hook are set
	// aside.
	f4 := newScanFixture(t)
	_, cfg4, hook4 := f4.userRepo(t)
	wantSetAside(t, f4.scan(t), cfg4, hook4)
}

// What the scan cannot read where git reads configuration (a FIFO or a
// directory a command put there) is set aside, not passed by: the scan
// fails closed. An absent include target is no finding.
func TestScanGitUnreadableConfigSetAside(t *testing.T) {
	f := newScanFixture(t)
	n := filepath.Join(f.proj, "n")
	runGit(t, f.home, f.proj, "init", "-q", n)
	runGit(t, f.home, n, "config", "include.path", "../absent.inc")
	cfg := filepath.Join(n, ".git", "config")
	cw := filepath.Join(n, ".git", "config.worktree")
	if err := syscall.Mkfifo(cw, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := f.scan(t)
	wantSetAside(t, rep, cfg, cw) // cfg: its include.path is a code key
	m := filepath.Join(f.proj, "m", ".git")
	runGit(t, f.home, f.proj, "init", "-q", filepath.Dir(m))
	os.Rename(filepath.Join(m, "config"), filepath.Join(m, "config.orig"))
	os.Mkdir(filepath.Join(m, "config"), 0o755)
	rep = f.scan(t)
	wantSetAside(t, rep, filepath.Join(m, "config"))
}

// A scan that could not finish marks its report Unresolved, and a
// recompile changes nothing of that: the ledger is not re-recorded, so
// the next scan judges what was left as the command's again. A complete
// scan is not unresolved.
func TestScanUnresolvedAcrossRecompile(t *testing.T) {
	f := newScanFixture(t)
	f.compiledNow()
	p := filepath.Join(f.proj, "deep")
	for i := 0; i <= git.MaxWalkDepth; i++ {
		p = filepath.Join(p, "d")
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	rep := f.scan(t)
	if !rep.Stale() {
		t.Fatalf("a directory past the depth bound, made by the command: %+v", rep)
	}
	// The same tree from before the ledger: reported, unresolved, every
	// time (no recording makes it the user's later).
	f2 := newScanFixture(t)
	p = filepath.Join(f2.proj, "deep")
	for i := 0; i <= git.MaxWalkDepth; i++ {
		p = filepath.Join(p, "d")
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	f2.led = ledger.New()
	RecordLedger(f2.inv, f2.home, f2.led)
	for i := 0; i < 2; i++ {
		if rep := f2.scan(t); !rep.Unresolved {
			t.Errorf("scan %d past its depth bound: not unresolved: %+v", i, rep)
		}
		if roots, _ := RecordLedger(f2.inv, f2.home, f2.led); len(roots) > 0 {
			t.Errorf("a second recording recorded %q again", roots)
		}
	}
	os.RemoveAll(filepath.Join(f2.proj, "deep"))
	if rep := f2.scan(t); rep.Unresolved {
		t.Errorf("a complete scan reported unresolved: %+v", rep)
	}
}
