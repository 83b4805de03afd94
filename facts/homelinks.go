package facts

// This file keeps an allowed home entry's symlink chain read-only where
// it passes through the writable set (H10): with ~/.bashrc ->
// dotfiles/bashrc and the home directory writable, a command could
// otherwise rewrite the host's .bashrc through dotfiles/.

import (
	"path"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// HomeLinkTarget is Protected.Name for a link or target of an allowed
// home entry's symlink chain that lies in a writable directory.
const HomeLinkTarget = "home link target"

// maxLinkHops bounds a chain, as the kernel does (ELOOP).
const maxLinkHops = 40

// homeLinkTargets returns, for each allowed dot entry of the layout that
// is a symlink, its final target when it lies inside one of the writable
// roots (the working directory, read-write binds at their own path): it
// is kept read-only like an H9 entry, its parents pinned. A link further
// on the chain inside a writable root cannot be kept (a bind onto a
// symlink mounts at its target, or bwrap refuses it): homeChains lists
// it, and policy rule H10 refuses the layout.
func (g *gatherer) homeLinkTargets(f *Facts, cwdWritable bool) []Protected {
	l := f.HomeLayout
	if !l.Active() {
		return nil
	}
	roots := writableRoots(f, cwdWritable)
	if len(roots) == 0 {
		return nil
	}
	rootOf := func(p string) (writableRoot, bool) {
		var best writableRoot
		found := false
		for _, r := range roots {
			if Within(p, r.dir) && (!found || len(r.dir) > len(best.dir)) {
				best, found = r, true
			}
		}
		return best, found
	}
	var out []Protected
	seen := map[string]bool{}
	add := func(p string) {
		r, ok := rootOf(p)
		if !ok || seen[p] || p == r.dir {
			return
		}
		seen[p] = true
		kind := g.lstat(p).Kind
		if invocation.Missing(kind) {
			return
		}
		out = append(out, Protected{Name: HomeLinkTarget, Root: r.dir, BindIndex: r.index, Path: p, Kind: kind})
	}
	for _, e := range l.Entries {
		if e.Why == HomeWhyNonDot || e.Kind != invocation.KindSymlink {
			continue
		}
		cur := e.Path
		for hop := 0; hop < maxLinkHops; hop++ {
			st := g.lstat(cur)
			if st.Kind != invocation.KindSymlink {
				add(cur)
				break
			}
			t := st.Target
			if !path.IsAbs(t) {
				t = path.Join(path.Dir(cur), t)
			}
			// Resolve the directories on the way; the last component is
			// looked at by the next hop.
			dir := g.path(path.Dir(path.Clean(t))).Real
			cur = path.Join(dir, path.Base(t))
		}
	}
	return out
}
