package scan

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/ledger"
	"golang.org/x/sys/unix"
)

// H9 (issue 26 §4): with the environment's index, a scan reads only the
// directories that changed since the last one; what it does not read
// is judged all the same. A repository made deep in an unchanged tree
// (its parent changed), a code key added in place to a known repository
// (no directory changed: the repository is looked at every time) are
// each set aside. A
// saved index loads back with the same listings; a malformed one does
// not load.
func TestScanGitIndex(t *testing.T) {
	f := newScanFixture(t)
	for i := 0; i < 50; i++ {
		os.MkdirAll(filepath.Join(f.proj, "node_modules", fmt.Sprintf("p%02d", i), "lib"), 0o755)
	}
	_, cfg, _ := f.userRepo(t)
	f.compiledNow()
	time.Sleep(2 * indexSlack)
	idx := ledger.NewIndex()
	scan := func() (GitScanReport, int) {
		s := newGitScan(f.inv, f.home, time.Now(), f.led)
		s.index = idx
		s.run(f.inv)
		return s.rep, s.read
	}
	rep, first := scan()
	if rep.Stale() {
		t.Fatalf("first scan: %+v", rep)
	}
	rep, second := scan()
	if rep.Stale() || second > first/4 {
		t.Fatalf("second scan read %d directories of %d (stale %v)", second, first, rep.Stale())
	}
	t.Logf("directories read: %d, then %d with the index", first, second)

	// A repository with code made deep in the tree.
	deep := filepath.Join(f.proj, "node_modules", "p07", "lib", "evil")
	runGit(t, f.home, f.proj, "init", "-q", deep)
	mustWrite(t, filepath.Join(deep, ".git", "hooks", "post-checkout"), "#!/bin/sh\n"+f.evil()+"\n", 0o755)
	rep, _ = scan()
	wantSetAside(t, rep, filepath.Join(deep, ".git", "hooks", "post-checkout"))

	// A code key added in place to the user's repository: no directory
	// changed.
	time.Sleep(2 * indexSlack)
	scan()
	w, err := os.OpenFile(cfg, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("[core]\n\tfsmonitor = \"" + f.evil() + "\"\n")
	w.Close()
	rep, _ = scan()
	wantSetAside(t, rep, cfg)

	p := filepath.Join(t.TempDir(), "inv.json"+ledger.IndexSuffix)
	if err := idx.Save(p); err != nil {
		t.Fatal(err)
	}
	back, err := ledger.LoadIndex(p)
	if err != nil || back.Len() != idx.Len() || back.Len() == 0 {
		t.Fatalf("index loaded back: %v, %d of %d directories", err, back.Len(), idx.Len())
	}
	for _, d := range []string{f.proj, filepath.Join(f.proj, "node_modules")} {
		a, b := idx.Get(d), back.Get(d)
		if a == nil || b == nil || fmt.Sprint(*a) != fmt.Sprint(*b) {
			t.Errorf("%s: %+v, loaded %+v", d, a, b)
		}
	}
	os.WriteFile(p, []byte("bwpolicy-index 1\n\xff\xff"), 0o600)
	if _, err := ledger.LoadIndex(p); err == nil {
		t.Error("a malformed index loaded")
	}
}

// siblingStat answers as lstat does, for siblings asked one after
// another (looked up in the parent held open): a symlink as the last
// component is not followed, one on the way is, a missing name is an
// error; and close leaves nothing open.
func TestSiblingStat(t *testing.T) {
	d := t.TempDir()
	for _, n := range []string{"p/a", "p/b", "q/c"} {
		os.MkdirAll(filepath.Join(d, n), 0o755)
	}
	os.Symlink(filepath.Join(d, "q"), filepath.Join(d, "p", "link"))
	os.Symlink("p", filepath.Join(d, "via"))
	var x siblingStat
	for _, n := range []string{"p/a", "p/b", "p/link", "p/missing", "p/a", "via/a", "via/b", "via/link", "q/c", "p"} {
		p := filepath.Join(d, n)
		var got, want unix.Stat_t
		gerr, werr := x.lstat(p, &got), unix.Lstat(p, &want)
		if (gerr == nil) != (werr == nil) || gerr == nil && (got.Ino != want.Ino || got.Mode != want.Mode) {
			t.Errorf("%s: siblingStat %v (ino %d mode %o), lstat %v (ino %d mode %o)", n, gerr, got.Ino, got.Mode, werr, want.Ino, want.Mode)
		}
		if n == "via/link" && x.held == 0 {
			t.Error("no parent was held open for siblings")
		}
	}
	x.close()
	if x.held != 0 {
		t.Error("close left the parent open")
	}
}
