package privatedir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMake: the missing directories are created, the last with mode
// 0700, and a symlink planted on the way is refused, not followed: its
// target stays empty. Control: the first path, without a link, is made.
// A path not below base is refused.
func TestMake(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "a", "b")
	if err := os.MkdirAll(filepath.Join(base, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Make(base, dir); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, want a directory of mode 0700", dir, err)
	}
	target := t.TempDir()
	if err := os.Symlink(target, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if err := Make(base, filepath.Join(base, "link", "c")); err == nil {
		t.Error("Make went through a planted symlink")
	}
	if names, _ := os.ReadDir(target); len(names) != 0 {
		t.Errorf("the symlink's target got %v", names)
	}
	for _, bad := range []string{filepath.Join(base, "..", "x"), base, "/elsewhere"} {
		if err := Make(base, bad); err == nil {
			t.Errorf("Make(%q) outside or at base succeeded", bad)
		}
	}
}
