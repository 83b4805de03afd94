package runtime

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestGitUserPath(t *testing.T) {
	lookup := func(n string) (string, bool) {
		if n == "bob" {
			return "/srv/bob", true
		}
		return "", false
	}
	for _, c := range []struct {
		v, want string
		ok      bool
	}{
		{"~", "/home/u", true}, // git: HOME, also with nothing after it
		{"~/", "/home/u/", true},
		{"~/h", "/home/u/h", true},
		{"~bob", "/srv/bob", true},
		{"~bob/h/x", "/srv/bob/h/x", true},
		{"~nobody/h", "", false}, // git dies: "failed to expand user dir"
		{"h/~bob", "h/~bob", true},
		{"/abs", "/abs", true},
	} {
		got, ok := GitUserPath(c.v, "/home/u", lookup)
		if got != c.want || ok != c.ok {
			t.Errorf("GitUserPath(%q) = %q, %v; want %q, %v", c.v, got, ok, c.want, c.ok)
		}
	}
	if _, ok := GitUserPath("~/h", "", lookup); ok {
		t.Error("~/ with no home expanded")
	}
}

func TestPasswdHome(t *testing.T) {
	p := filepath.Join(t.TempDir(), "passwd")
	mustWrite(t, p, "root:x:0:0:root:/root:/bin/bash\nbob:x:1000:1000:Bob,,,:/srv/bob:/bin/sh\n#x\n", 0o644)
	old := passwdFile
	passwdFile = p
	t.Cleanup(func() { passwdFile = old })
	if h, ok := PasswdHome("bob"); !ok || h != "/srv/bob" {
		t.Errorf("bob: %q %v", h, ok)
	}
	if _, ok := PasswdHome("bo"); ok {
		t.Error("a prefix of a name matched")
	}
}

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
	old := passwdFile
	passwdFile = p
	t.Cleanup(func() { passwdFile = old })
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
