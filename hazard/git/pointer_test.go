package git

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProcDependent: a path is process-dependent when it goes through
// /proc or /dev/fd as written or through a symlink on the way, ".."
// after a link taken physically.
func TestProcDependent(t *testing.T) {
	d := t.TempDir()
	os.Symlink("/proc/self/cwd", filepath.Join(d, "cwd"))
	os.Symlink("cwd", filepath.Join(d, "hop"))
	os.MkdirAll(filepath.Join(d, "a/b"), 0o755)
	os.Symlink(filepath.Join(d, "a/b"), filepath.Join(d, "ab"))
	for p, want := range map[string]bool{
		"/proc/self/cwd/x":  true,
		"/dev/fd/3":         true,
		"/dev/stdin":        true,
		d + "/cwd/../x":     true,
		d + "/hop/x":        true,
		d + "/a/../proc/x":  false,
		d + "/ab/../b":      false,
		d + "/ab/../../cwd": true,
		"/procx":            false,
		d + "/missing/x":    false,
	} {
		if got := ProcDependent(p); got != want {
			t.Errorf("ProcDependent(%q) = %v, want %v", p, got, want)
		}
	}
}
