// Package factstest holds what tests of other packages give the facts
// stage: Guard, a host FS that fails any access after the facts stage.
package factstest

import (
	"sync/atomic"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/hazard/git"
)

// Guard is an FS that panics on any access once sealed: the golden
// tests give the compiler one and seal it when the facts stage ends
// (facts.Sealer), so a later stage that reads the host fails them.
type Guard struct {
	FS     facts.FS
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
func (g *Guard) Lstat(p string) facts.Stat { g.check("lstat", p); return g.FS.Lstat(p) }

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
