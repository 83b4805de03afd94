package facts

// This file holds the facts stage to its word: once Gather has
// returned, nothing later (the policy, the emitter, the self-check)
// reads the host.

import (
	"errors"
	"path"
	"strings"
	"syscall"
)

// Sealer is an FS that can be sealed (factstest.Guard, in the golden
// tests): the compiler opens it for the facts stage and seals it when
// the stage ends, so that a later stage reading the host fails.
type Sealer interface {
	Seal()
	Open()
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
