package facts

import (
	"github.com/bwpolicy/bwpolicy/facts/factstest"

	"io/fs"
	"syscall"
	"testing"
)

// TestDenyingDirs: for a path lstat() was denied, the facts name the
// directory that denies search (the compiler's error names it), read
// through the facts' FS.
func TestDenyingDirs(t *testing.T) {
	denied := &fs.PathError{Op: "lstat", Path: "/home/u/locked/x", Err: syscall.EACCES}
	tree := factstest.Tree{"/home": {Kind: "dir"}, "/home/u": {Kind: "dir"}, "/home/u/locked": {Kind: "dir"},
		"/home/u/locked/x": {Kind: "other", Err: denied}}
	g := &gatherer{fs: tree, observed: map[string]Stat{}, walked: map[string]*Walked{}}
	g.lstat("/home/u/locked/x")
	g.lstat("/home/u")
	got := g.denyingDirs()
	if len(got) != 1 || got["/home/u/locked/x"] != "/home/u/locked" {
		t.Fatalf("denyingDirs = %v", got)
	}
}
