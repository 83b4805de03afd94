package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// lowerBound sets a scan bound to n for the test.
func lowerBound(t *testing.T, b *int, n int) {
	t.Helper()
	old := *b
	*b = n
	t.Cleanup(func() { *b = old })
}

// fakeRepo makes dir a repository git accepts (HEAD, refs, objects),
// cheaply: a decoy.
func fakeRepo(t *testing.T, gitDir string) {
	t.Helper()
	for _, d := range []string{"refs", "objects"} {
		if err := os.MkdirAll(filepath.Join(gitDir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, filepath.Join(gitDir, "HEAD"), "ref: refs/heads/main\n", 0o644)
}

// gone reports whether nothing is left at p (set aside).
func gone(p string) bool { _, err := os.Lstat(p); return err != nil }

// H9 (#10 §1): decoy repositories past MaxGitScanRepos do not push a
// repository of the user's past the scan: git directories that existed
// when compiling are counted apart, and a repository the command
// created past the bound is set aside whole.
func TestScanGitPastRepoBound(t *testing.T) {
	lowerBound(t, &MaxGitScanRepos, 4)
	f := newScanFixture(t)
	lib, cfg, _ := f.userRepo(t) // depth 2: after every decoy at depth 1
	f.compiledNow()
	for i := 0; i < 5; i++ {
		fakeRepo(t, filepath.Join(f.proj, fmt.Sprintf("d%d", i), ".git"))
	}
	rep := f.plantBoth(t, lib, cfg, filepath.Join(f.proj, "fresh"))
	if rep.Unresolved {
		t.Errorf("what the command created past the bound was set aside, yet the scan says it left something: %+v", rep)
	}
	if len(rep.SetAside) < 3 {
		t.Errorf("want the repositories created past the bound set aside whole: %+v", rep.SetAside)
	}
}

// H9 (#10 §1): 200,001 entries do not hide a repository from the scan.
// Past git.MaxWalkEntries, the directories that existed when compiling
// are still walked, and those the command created are set aside whole.
func TestScanGitPastEntryBound(t *testing.T) {
	lowerBound(t, &git.MaxWalkEntries, 40)
	f := newScanFixture(t)
	lib, cfg, _ := f.userRepo(t)
	f.compiledNow()
	flat := filepath.Join(f.proj, "flat")
	for i := 0; i < 60; i++ {
		mustWrite(t, filepath.Join(flat, fmt.Sprintf("f%02d", i)), "", 0o644)
	}
	rep := f.plantBoth(t, lib, cfg, filepath.Join(f.proj, "fresh", "sub"))
	if gone(flat) && gone(filepath.Join(f.proj, "fresh")) {
		t.Logf("set aside: %+v", rep.SetAside)
	}
	if gone(filepath.Join(f.proj, "vendor")) || gone(filepath.Join(f.proj, "README")) {
		t.Errorf("what existed when compiling was set aside: %+v", rep.SetAside)
	}
}

// H9 (#10 §1): a linked worktree outside the writable set, whose git
// directory (.git/worktrees/NAME) is inside it. A command rewrites its
// commondir to a common directory of its own; with more entries in
// worktrees than the scan lists one by one, the scan used to stop there.
// Now a worktrees directory the command added to is set aside whole,
// and one it did not add to is listed in full.
func TestScanGitPastWorktreesBound(t *testing.T) {
	for _, decoys := range []bool{true, false} {
		t.Run(fmt.Sprintf("decoys_%v", decoys), func(t *testing.T) {
			lowerBound(t, &maxGitHooks, 8)
			f := newScanFixture(t)
			outside := filepath.Join(f.home, "outside")
			runGit(t, f.home, f.proj, "worktree", "add", "-q", outside)
			wts := filepath.Join(f.proj, ".git", "worktrees")
			if !decoys {
				for i := 0; i < 9; i++ {
					fakeRepo(t, filepath.Join(wts, fmt.Sprintf("user%d", i)))
				}
			}
			f.compiledNow()
			if decoys {
				for i := 0; i < 9; i++ {
					fakeRepo(t, filepath.Join(wts, fmt.Sprintf("z%d", i)))
				}
			}
			c := filepath.Join(f.proj, ".cache", "c")
			mustWrite(t, filepath.Join(c, "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
			os.Symlink(filepath.Join(f.proj, ".git", "objects"), filepath.Join(c, "objects"))
			os.Symlink(filepath.Join(f.proj, ".git", "refs"), filepath.Join(c, "refs"))
			cd := filepath.Join(wts, "outside", "commondir")
			if err := os.WriteFile(cd, []byte(c+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if !f.hostGitRuns(t, outside) {
				t.Fatal("control: the planted code did not run before the scan")
			}
			rep := f.scan(t)
			if f.hostGitRuns(t, outside) {
				t.Errorf("host git in the linked worktree ran planted code after the scan; report %+v", rep)
			}
			if decoys && !gone(wts) {
				t.Errorf("the worktrees directory the command added to was not set aside: %+v", rep)
			}
			if !decoys && (gone(wts) || !gone(filepath.Join(c, "config"))) {
				t.Errorf("want the planted configuration set aside, the user's worktrees kept: %+v", rep)
			}
		})
	}
}

// plantBoth plants core.fsmonitor in the user's repository lib (its
// config cfg, in place) and in a repository the command creates at
// fresh, checks that host git runs both (the control), scans, and
// checks that host git runs neither and that cfg was set aside.
func (f *scanFixture) plantBoth(t *testing.T, lib, cfg, fresh string) GitScanReport {
	t.Helper()
	runGit(t, f.home, f.proj, "init", "-q", fresh)
	evil := "[core]\n\tfsmonitor = \"" + f.evil() + "\"\n"
	mustWrite(t, filepath.Join(fresh, ".git", "config"), evil, 0o644)
	appendFile(t, cfg, evil)
	for _, d := range []string{lib, fresh} {
		if !f.hostGitRuns(t, d) {
			t.Fatalf("control: the code planted in %s did not run before the scan", d)
		}
	}
	rep := f.scan(t)
	wantSetAside(t, rep, cfg)
	for _, d := range []string{lib, fresh} {
		if f.hostGitRuns(t, d) {
			t.Errorf("host git in %s ran planted code after the scan; report %+v", d, rep)
		}
	}
	return rep
}

func appendFile(t *testing.T, p, s string) {
	t.Helper()
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// H9 (#10 §1): a modules directory the command filled past the bound
// of entries listed one by one, with code in one submodule's git
// directory, is set aside whole: git then finds none of its submodules'
// git directories (the scan used to stop listing there).
func TestScanGitPastModulesBound(t *testing.T) {
	lowerBound(t, &maxGitHooks, 8)
	f := newScanFixture(t)
	f.compiledNow()
	mods := filepath.Join(f.proj, ".git", "modules")
	for i := 0; i < 9; i++ {
		fakeRepo(t, filepath.Join(mods, fmt.Sprintf("m%d", i)))
	}
	mustWrite(t, filepath.Join(mods, "m8", "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	rep := f.scan(t)
	if !gone(mods) || !rep.Stale() {
		t.Errorf("the modules directory the command filled was not set aside: %+v", rep)
	}
}

// H9 (#10 §1): submodule names nested past the scan's bound of 8
// levels, and more nested names than the scan's entries bound lets it
// list, are set aside whole when the command made them.
func TestScanGitPastModulesNesting(t *testing.T) {
	f := newScanFixture(t)
	f.compiledNow()
	mods := filepath.Join(f.proj, ".git", "modules")
	deep := filepath.Join(mods, "a", "b", "c", "d", "e", "f", "g", "h")
	fakeRepo(t, filepath.Join(deep, "x"))
	mustWrite(t, filepath.Join(deep, "x", "config"), "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	rep := f.scan(t)
	if !gone(filepath.Join(mods, "a", "b", "c", "d", "e", "f", "g", "h")) || rep.Unresolved {
		t.Errorf("submodule names nested past the bound were not set aside: %+v", rep)
	}
	lowerBound(t, &git.MaxWalkEntries, 4)
	for i := 0; i < 6; i++ {
		fakeRepo(t, filepath.Join(mods, "n", fmt.Sprintf("m%d", i), "x"))
	}
	rep = f.scan(t)
	n := 0
	for _, a := range rep.SetAside {
		if invocation.Within(a.Path, filepath.Join(mods, "n")) {
			n++
		}
	}
	if n == 0 || rep.Unresolved {
		t.Errorf("submodule names past the entries bound were not set aside: %+v", rep)
	}
}
