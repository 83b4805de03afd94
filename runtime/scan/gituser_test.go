package scan

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/git"
)

// H9 (#10 §1): "~NAME/" in an include path and in core.hooksPath is
// NAME's home directory, as git expands it (getpwnam), not a directory
// named "~NAME" next to the configuration. Here NAME's home lies in the
// writable set: what a command plants there is set aside. One the scan
// cannot resolve leaves the invocation stale.
func TestScanGitTildeUser(t *testing.T) {
	f := newScanFixture(t)
	bob := filepath.Join(f.proj, "people", "bob")
	p := filepath.Join(t.TempDir(), "passwd")
	mustWrite(t, p, "bob:x:1000:1000::"+bob+":/bin/sh\n", 0o644)
	old := git.PasswdFile
	git.PasswdFile = p
	t.Cleanup(func() { git.PasswdFile = old })
	lib, _, _ := f.userRepo(t)
	runGit(t, f.home, lib, "config", "include.path", "~bob/inc")
	runGit(t, f.home, f.proj, "init", "-q", "other")
	other := filepath.Join(f.proj, "other")
	runGit(t, f.home, other, "config", "core.hooksPath", "~bob/hooks")
	runGit(t, f.home, f.proj, "init", "-q", "third")
	runGit(t, f.home, filepath.Join(f.proj, "third"), "config", "include.path", "~nosuch/inc")
	f.compiledNow()
	inc := filepath.Join(bob, "inc")
	hook := filepath.Join(bob, "hooks", "post-commit")
	mustWrite(t, inc, "[core]\n\tfsmonitor = \""+f.evil()+"\"\n", 0o644)
	mustWrite(t, hook, "#!/bin/sh\n"+f.evil()+"\n", 0o755)
	rep := f.scan(t)
	wantSetAside(t, rep, inc, hook)
	if !rep.Unresolved || !slices.Contains(rep.StalePaths, filepath.Join(f.proj, "third", ".git", "config")) {
		t.Errorf("an include of an unknown user's home was not reported: %+v", rep)
	}
}
