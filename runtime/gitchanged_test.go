package runtime

import (
	"github.com/bwpolicy/bwpolicy/hazard/git"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// compiledNow marks the fixture's invocation as compiled now: what
// exists is the user's. It waits until the kernel's coarse file clock
// has passed the compile time, so what the test writes next is newer.
func (f *scanFixture) compiledNow() {
	f.inv.GitScanSince = time.Now().Add(GitScanSlack).UnixNano()
	time.Sleep(50 * time.Millisecond)
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
	// The hooks directory changed, so the user's own hook in it goes
	// too: a directory of hooks renamed into place (written before a
	// recompile) looks the same to the scan.
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
	}, newHook, cfg3, hook3)

	// Control: an invocation without a compile time sets the user's own
	// keys and hook aside.
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

// A scan that could not finish marks its report Unresolved with the
// compile time it used; CarriedGitScanSince keeps that time for the next
// invocation compiled at the same path, so a recompile cannot make what
// it left look like the user's. A complete scan's mark carries nothing.
func TestCarriedGitScanSince(t *testing.T) {
	inv := filepath.Join(t.TempDir(), "inv.json")
	if got := CarriedGitScanSince(inv, 200); got != 200 {
		t.Errorf("no mark: %d, want 200", got)
	}
	for _, c := range []struct {
		rep         GitScanReport
		since, want int64
	}{
		{GitScanReport{Unresolved: true, Since: 100}, 200, 100},
		{GitScanReport{Unresolved: true, Since: 0}, 200, 0},
		{GitScanReport{Unresolved: true, Since: 300}, 200, 200},
		{GitScanReport{Unresolved: true, Since: 100}, 0, 0},
		{GitScanReport{Unresolved: false, Since: 100}, 200, 200},
	} {
		if err := MarkStale(inv, c.rep); err != nil {
			t.Fatal(err)
		}
		if got := CarriedGitScanSince(inv, c.since); got != c.want {
			t.Errorf("%+v, since %d: %d, want %d", c.rep, c.since, got, c.want)
		}
	}
	// The scan reports it: a bound reached is unresolved, with its time
	// (a deep tree older than the compile: one the command made is set
	// aside instead).
	f := newScanFixture(t)
	future := time.Now().Add(time.Hour).UnixNano()
	f.inv.GitScanSince = future
	p := filepath.Join(f.proj, "deep")
	for i := 0; i <= git.MaxWalkDepth; i++ {
		p = filepath.Join(p, "d")
	}
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if rep := f.scan(t); !rep.Unresolved || rep.Since != future {
		t.Errorf("a scan past its depth bound: unresolved %v since %d", rep.Unresolved, rep.Since)
	}
	os.RemoveAll(filepath.Join(f.proj, "deep"))
	mustWrite(t, filepath.Join(f.proj, "n", ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	if rep := f.scan(t); rep.Unresolved {
		t.Errorf("a complete scan reported unresolved: %+v", rep)
	}
}
