package facts

// This file keeps the symlink chain of every dot entry of the home
// directory read-only where it passes through the writable set (H10):
// with ~/.bashrc -> dotfiles/bashrc, or ~/.xprofile -> dotfiles/x (a name
// on no list: the host's session may read it all the same), and the home
// directory writable, a command could otherwise rewrite what the host
// reads or runs through dotfiles/. What is held is decided by what the
// entry is (a symlink at the top of HOME, or in a dot directory the
// layout rebuilds), never by its name.

import (
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// HomeLinkTarget is Protected.Name for a link or target of a home dot
// entry's symlink chain that lies in a writable directory.
const HomeLinkTarget = "home link target"

// maxLinkHops bounds a chain, as the kernel does (ELOOP).
const maxLinkHops = 40

// homeDotDirs are the dot directories of HOME whose entries count as dot
// entries of HOME (each entry, whatever its name: ~/.config/fish is read
// by the host as surely as ~/.bashrc). Their entries are looked at only
// when the directory is a directory, not a symlink (a symlinked one is a
// dot link of HOME itself).
var homeDotDirs = []string{".config", ".local", ".local/share"}

// homeDotLinks returns the symlinks among the dot entries of the home
// directory (home, resolved) and among the entries of homeDotDirs,
// sorted by directory. Each link is recorded (a link re-pointed later
// makes the invocation stale); the other entries are looked at
// unrecorded. truncated are the directories with more than
// maxHomeEntries entries to look at (refused, H10): a command cannot
// hide a link past the bound.
func (g *gatherer) homeDotLinks(home string) (links, truncated []string) {
	if home == "" || home == "/" {
		return nil, nil
	}
	for _, rel := range append([]string{""}, homeDotDirs...) {
		dir := path.Join(home, rel)
		if rel != "" && g.fs.Lstat(dir).Kind != invocation.KindDir {
			continue
		}
		// The listing's types spare an lstat of each entry it shows as
		// a directory (a symlink never is one, an entry of unknown type
		// is looked at): an entry it shows is there, and anything
		// mounted on a directory is a directory. It never answers for
		// a name it does not show (a case-insensitive lookup finds a
		// name a listing spells otherwise).
		var de git.DirEntries
		if g.fs.ListDir(dir, &de) != nil {
			continue
		}
		n := 0
		for _, i := range byName(&de) {
			if rel == "" && !strings.HasPrefix(de.Names[i], ".") {
				continue // a non-dot entry: bound back as itself (HomeWhyNonDot)
			}
			if n++; n > maxHomeEntries {
				truncated = append(truncated, dir)
				break
			}
			if de.IsDir[i] {
				continue
			}
			p := path.Join(dir, de.Names[i])
			if g.fs.Lstat(p).Kind == invocation.KindSymlink {
				g.lstat(p) // recorded: a precondition
				links = append(links, p)
			}
		}
	}
	return links, truncated
}

// homeLinkTargets returns, for each home dot link (homeDotLinks) and each
// allowed entry of the layout that is a symlink, its final target when
// it lies inside one of the writable roots (the working directory,
// read-write binds at their own path): it is kept read-only like an H9
// entry, its parents pinned. A link further on the chain inside a
// writable root cannot be kept (a bind onto a symlink mounts at its
// target, or bwrap refuses it): homeChains lists it, and policy rule
// H10 refuses it, as it refuses a chain that ends at an absent path
// there or a target that is a writable root itself (DotLinkRoots).
func (g *gatherer) homeLinkTargets(f *Facts, cwdWritable bool) []Protected {
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
	for _, entry := range homeLinkStarts(f) {
		cur := entry
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

// homeLinkStarts are the home entries whose chain homeLinkTargets and
// homeChains follow as links of the home: the dot links, then the
// layout's allowed symlink entries not among them (one deeper than the
// dot directories: ~/.config/git/config on PATH), each once.
func homeLinkStarts(f *Facts) []string {
	out := append([]string(nil), f.HomeDotLinks...)
	seen := map[string]bool{}
	for _, p := range out {
		seen[p] = true
	}
	if l := f.HomeLayout; l.Active() {
		for _, e := range l.Entries {
			if e.Why != HomeWhyNonDot && e.Kind == invocation.KindSymlink && !seen[e.Path] {
				seen[e.Path] = true
				out = append(out, e.Path)
			}
		}
	}
	return out
}

// heldLinkEntries drops from ps the H9 entries that are home dot links
// the home layout leaves out or recreates in its tmpfs: a command cannot
// replace such a link on the host, and homeLinkTargets holds its target
// (or homeChains refuses its chain), so "it cannot be kept read-only"
// would be untrue. In the denylist layout the link itself stays
// writable: the warning stays.
func heldLinkEntries(f *Facts, ps []Protected) []Protected {
	l := f.HomeLayout
	if !l.Active() {
		return ps
	}
	link := map[string]bool{}
	for _, p := range homeLinkStarts(f) {
		link[p] = true
	}
	out := ps[:0]
	for _, p := range ps {
		if p.Symlink && link[p.Path] && (l.Hides(p.Path) || !l.writableAt(p.Path, p.Root)) {
			continue
		}
		out = append(out, p)
	}
	return out
}
