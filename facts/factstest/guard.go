// Package factstest holds what tests give the facts stage: Tree, a
// synthetic file system, and Guard, a host FS that fails any access
// after the facts stage. It imports no facts (the facts package's own
// tests use it too): its FS is facts.FS's method set.
package factstest

import (
	"sync/atomic"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"github.com/bwpolicy/bwpolicy/hazard/git"
)

// FS is facts.FS: what the facts stage reads the host through.
type FS interface {
	Lstat(p string) filekind.Stat
	ReadDir(p string) ([]string, error)
	ReadFile(p string, max int) ([]byte, error)
	ListDir(p string, de *git.DirEntries) error
}

// Guard is an FS that panics on any access once sealed: the golden
// tests give the compiler one and seal it when the facts stage ends
// (facts.Sealer), so a later stage that reads the host fails them.
type Guard struct {
	FS     FS
	sealed atomic.Bool
}

// Seal makes every later access panic.
func (g *Guard) Seal() { g.sealed.Store(true) }

// Open allows access again (the facts stage of the next compile).
func (g *Guard) Open() { g.sealed.Store(false) }

func (g *Guard) check(op, p string) {
	if g.sealed.Load() {
		panic("facts: " + op + " " + p + " after the facts stage: only Gather reads the host")
	}
}

// Lstat implements FS.
func (g *Guard) Lstat(p string) filekind.Stat { g.check("lstat", p); return g.FS.Lstat(p) }

// ReadDir implements FS.
func (g *Guard) ReadDir(p string) ([]string, error) { g.check("readdir", p); return g.FS.ReadDir(p) }

// ReadFile implements FS.
func (g *Guard) ReadFile(p string, max int) ([]byte, error) {
	g.check("read", p)
	return g.FS.ReadFile(p, max)
}

// ListDir implements FS.
func (g *Guard) ListDir(p string, de *git.DirEntries) error {
	g.check("listdir", p)
	return g.FS.ListDir(p, de)
}
