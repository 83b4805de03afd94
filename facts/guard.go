package facts

// This file holds the facts stage to its word: once Gather has
// returned, nothing later (the policy, the emitter, the self-check)
// reads the host.

import (
	"errors"
	"path"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/bwpolicy/bwpolicy/runtime"
)

// Guard is an FS that panics on any access once sealed: the golden
// tests give the compiler one and seal it when the facts stage ends
// (Sealer), so a later stage that reads the host fails them.
type Guard struct {
	FS     FS
	sealed atomic.Bool
}

// Sealer is an FS that can be sealed (Guard): the compiler opens it for
// the facts stage and seals it when the stage ends.
type Sealer interface {
	Seal()
	Open()
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
func (g *Guard) Lstat(p string) Stat { g.check("lstat", p); return g.FS.Lstat(p) }

// ReadDir implements FS.
func (g *Guard) ReadDir(p string) ([]string, error) { g.check("readdir", p); return g.FS.ReadDir(p) }

// ReadFile implements FS.
func (g *Guard) ReadFile(p string, max int) ([]byte, error) {
	g.check("read", p)
	return g.FS.ReadFile(p, max)
}

// ListDir implements FS.
func (g *Guard) ListDir(p string, de *runtime.DirEntries) error {
	g.check("listdir", p)
	return g.FS.ListDir(p, de)
}

// denyingDirs returns, for each observed path lstat() could not examine
// for want of search permission (EACCES), the deepest directory on its
// way that could be examined: the one that denies it (the compiler names
// it in the error, R9/input). Read through the gatherer's FS, in the
// facts stage.
func (g *gatherer) denyingDirs() map[string]string {
	var out map[string]string
	for p, st := range g.observed {
		if st.Err == nil || !errors.Is(st.Err, syscall.EACCES) {
			continue
		}
		cur := "/"
		for _, name := range strings.Split(strings.TrimPrefix(path.Clean(p), "/"), "/") {
			next := path.Join(cur, name)
			if s := g.fs.Lstat(next); s.Err != nil {
				if errors.Is(s.Err, syscall.EACCES) {
					if out == nil {
						out = map[string]string{}
					}
					out[p] = cur
				}
				break
			}
			cur = next
		}
	}
	return out
}
