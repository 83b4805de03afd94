package scan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
)

// pyFixture is a writable profile home with user site directories, the
// invocation binding it read-write (and what the compile binds
// read-only), compiled "before" the files it writes first.
type pyFixture struct {
	home string
	inv  *invocation.Invocation
	led  *ledger.Ledger
}

func newPyFixture(t testing.TB) *pyFixture {
	base := t.TempDir()
	f := &pyFixture{home: filepath.Join(base, "ph")}
	if err := os.MkdirAll(f.home, 0o755); err != nil {
		t.Fatal(err)
	}
	f.inv = &invocation.Invocation{Env: invocation.Env{Set: map[string]string{"HOME": f.home}},
		Bwrap: invocation.Bwrap{Args: []string{"--ro-bind", "/", "/", "--bind", f.home, f.home}}}
	return f
}

func (f *pyFixture) site(v string) string {
	return filepath.Join(f.home, ".local/lib", v, "site-packages")
}

// TestScanPythonSites: what a command leaves in a user site directory
// that python runs at start is set aside, in any version directory,
// lib64, through a symlinked site directory and when moved in; data
// (path-only .pth files, packages) and what the compile bound read-only
// or the user left unchanged stay.
func TestScanPythonSites(t *testing.T) {
	f := newPyFixture(t)
	// Before the compile: the user's own hooks, one bound read-only, one
	// in a symlinked site directory (not bindable), and a staged tree.
	s311 := f.site("python3.11")
	mustWrite(t, filepath.Join(s311, "distutils-precedence.pth"), "import os; __import__('_distutils_hack')\n", 0o644)
	mustWrite(t, filepath.Join(s311, "_distutils_hack", "__init__.py"), "", 0o644)
	other := filepath.Join(f.home, "elsewhere", "sp")
	mustWrite(t, filepath.Join(other, "users-own.pth"), "import users_own\n", 0o644)
	if err := os.MkdirAll(filepath.Dir(f.site("python3.9")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, f.site("python3.9")); err != nil {
		t.Fatal(err)
	}
	stage := filepath.Join(f.home, "stage", "python3.13t", "site-packages")
	mustWrite(t, filepath.Join(stage, "moved.pth"), "import os\n", 0o644)
	// An editable install (compat mode): a path .pth adding a project
	// directory.
	mustWrite(t, filepath.Join(s311, "__editable__.proj-0.1.pth"), filepath.Join(f.home, "proj", "src")+"\n", 0o644)
	mustWrite(t, filepath.Join(f.home, "proj", "src", "proj", "__init__.py"), "", 0o644)
	oldFile := filepath.Join(f.home, "old-notes.txt")
	mustWrite(t, oldFile, "import os\n", 0o644)
	f.inv.Bwrap.Args = append(f.inv.Bwrap.Args, "--ro-bind", filepath.Join(s311, "distutils-precedence.pth"), filepath.Join(s311, "distutils-precedence.pth"),
		"--ro-bind", filepath.Join(s311, "_distutils_hack"), filepath.Join(s311, "_distutils_hack"))
	f.inv.Preconditions = append(f.inv.Preconditions, invocation.Precondition{Path: filepath.Join(other, "users-own.pth"), Kind: invocation.KindFile, Why: "H9"})
	// The ledger is recorded after these writes: they are the user's.
	f.led = recordNow(t, f.inv, "")

	// The command.
	planted := []string{
		filepath.Join(s311, "evil.pth"),
		filepath.Join(s311, "indented.pth"),
		filepath.Join(s311, "usercustomize.py"),
		filepath.Join(s311, "__pycache__", "sitecustomize.cpython-311.pyc"),
		filepath.Join(f.home, ".local/lib64/python3.12/site-packages/lib64.pth"),
		filepath.Join(other, "through-link.pth"),
		filepath.Join(s311, "renamed.pth"),
		filepath.Join(f.home, ".local/lib/python3.13t/site-packages/moved.pth"),
		filepath.Join(s311, "old-renamed.pth"),
		filepath.Join(f.home, "proj", "src", "usercustomize.py"),
		filepath.Join(f.home, "added", "sitecustomize"),
	}
	mustWrite(t, planted[0], "import os;os.system('x')\n", 0o644)
	mustWrite(t, planted[1], "/a/path\n   import os\n", 0o644)
	mustWrite(t, planted[2], "", 0o644)
	mustWrite(t, planted[3], "", 0o644)
	mustWrite(t, planted[4], "import os\n", 0o644)
	mustWrite(t, planted[5], "x;import os\n", 0o644)
	mustWrite(t, filepath.Join(s311, "notes.txt"), "import os\n", 0o644)
	if err := os.Rename(filepath.Join(s311, "notes.txt"), planted[6]); err != nil {
		t.Fatal(err)
	}
	// A file from before the compile, renamed in (rename sets its ctime).
	if err := os.Rename(oldFile, planted[8]); err != nil {
		t.Fatal(err)
	}
	// The user's editable install now leads to a start-up module; a new
	// path-only .pth adds a directory holding one.
	mustWrite(t, planted[9], "", 0o644)
	mustWrite(t, filepath.Join(planted[10], "__init__.py"), "", 0o644)
	mustWrite(t, filepath.Join(s311, "adds.pth"), "../../../../added\n", 0o644)
	if err := os.Rename(filepath.Dir(stage), filepath.Join(f.home, ".local/lib/python3.13t")); err != nil {
		t.Fatal(err)
	}
	kept := []string{
		filepath.Join(s311, "distutils-precedence.pth"),
		filepath.Join(other, "users-own.pth"),
		filepath.Join(s311, "paths.pth"),
		filepath.Join(s311, "requests", "__init__.py"),
	}
	mustWrite(t, kept[2], "/home/u/src/pkg\n", 0o644)
	mustWrite(t, kept[3], "", 0o644)

	rep := ScanGit(f.inv, "", time.Now(), f.led)
	for _, p := range planted {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still in place", p)
		}
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was set aside: %v", p, err)
		}
	}
	if !rep.Stale() || !strings.Contains(strings.Join(rep.Warnings, "\n"), "set aside as") {
		t.Errorf("report: %+v", rep)
	}
	// A second scan of the same invocation finds nothing new.
	if rep := ScanGit(f.inv, "", time.Now(), f.led); len(rep.SetAside) > 0 {
		t.Errorf("second scan set aside %+v", rep.SetAside)
	}
}

// TestScanPythonSitesHostHome: with the host's home read-only and a
// project writable, the host's user site is still followed: an editable
// install's path .pth adds the project's src directory, and a
// usercustomize.py a command puts there (every later host python would
// import it) is set aside, while the project's own code stays.
func TestScanPythonSitesHostHome(t *testing.T) {
	base := t.TempDir()
	home, proj := filepath.Join(base, "home"), filepath.Join(base, "home", "proj")
	site := filepath.Join(home, ".local/lib/python3.11/site-packages")
	mustWrite(t, filepath.Join(site, "__editable__.proj-0.1.pth"), proj+"/src\n", 0o644)
	mustWrite(t, filepath.Join(proj, "src", "proj", "__init__.py"), "", 0o644)
	inv := &invocation.Invocation{Bwrap: invocation.Bwrap{Args: []string{"--ro-bind", "/", "/", "--bind", proj, proj}}}
	led := recordNow(t, inv, home)
	planted := filepath.Join(proj, "src", "usercustomize.py")
	mustWrite(t, planted, "", 0o644)
	mustWrite(t, filepath.Join(proj, "src", "proj", "__init__.py"), "x = 1\n", 0o644)
	rep := ScanGit(inv, home, time.Now(), led)
	if _, err := os.Lstat(planted); err == nil || len(rep.SetAside) != 1 {
		t.Errorf("%s is still in place, or more was set aside: %+v", planted, rep)
	}
}
