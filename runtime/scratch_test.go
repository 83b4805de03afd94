package runtime

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestRestoreScratchRefreshesOldScratch: a scratch directory last
// modified two days ago gets its time set to now, so that an age-based
// cleaner leaves an environment in use; one modified a minute ago is
// left as it is (no write on an ordinary command); a pruned one is made
// again.
func TestRestoreScratchRefreshesOldScratch(t *testing.T) {
	base := t.TempDir()
	inv := &invocation.Invocation{Scratch: filepath.Join(base, "scratch")}
	if err := os.Mkdir(inv.Scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	mtime := func() time.Time {
		t.Helper()
		fi, err := os.Lstat(inv.Scratch)
		if err != nil {
			t.Fatal(err)
		}
		return fi.ModTime()
	}
	now := time.Now()
	old := now.Add(-48 * time.Hour)
	if err := os.Chtimes(inv.Scratch, old, old); err != nil {
		t.Fatal(err)
	}
	restoreScratch(inv, now)
	if got := mtime(); now.Sub(got) > time.Minute {
		t.Errorf("a scratch untouched for two days keeps its time %v: an age-based cleaner would prune it", got)
	}

	recent := now.Add(-time.Minute).Truncate(time.Second)
	if err := os.Chtimes(inv.Scratch, recent, recent); err != nil {
		t.Fatal(err)
	}
	restoreScratch(inv, now)
	if got := mtime(); !got.Equal(recent) {
		t.Errorf("a scratch modified a minute ago was touched: %v, want %v", got, recent)
	}

	// A symlink in its place is neither followed nor refreshed.
	target := filepath.Join(base, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(target, old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(inv.Scratch); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, inv.Scratch); err != nil {
		t.Fatal(err)
	}
	restoreScratch(inv, now)
	if fi, err := os.Stat(target); err != nil || now.Sub(fi.ModTime()) < time.Hour {
		t.Errorf("the symlink's target was refreshed through it (%v, %v)", fi, err)
	}

	if err := os.Remove(inv.Scratch); err != nil {
		t.Fatal(err)
	}
	restoreScratch(inv, now)
	if fi, err := os.Lstat(inv.Scratch); err != nil || !fi.IsDir() {
		t.Errorf("a pruned scratch is not made again: %v, %v", fi, err)
	}
}
