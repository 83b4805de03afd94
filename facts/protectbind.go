package facts

import (
	"path"
	"slices"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// WritableProtected is a writable directory of the settings (the
// working directory, or a read-write bind's source, whatever its
// destination) that is one of the home's protected entries
// (ProtectedNames below the home: ~/.config/systemd/user, ~/.local/bin,
// ~/.config/autostart, ~/.bashrc, …) or lies inside one, as written or
// resolved, or that such an entry, a symlink, resolves to or into. The
// names protected below a writable directory do not cover it: the
// directory itself is what the host runs, so the compile refuses it
// (H9) unless protect.allow names the entry.
type WritableProtected struct {
	// Index is the bind's index; -1 for the working directory.
	Index int `json:"index"`
	// Name is the ProtectedNames entry; Entry the home's entry, or the
	// path it resolves to.
	Name  string `json:"name"`
	Entry string `json:"entry"`
}

// writableProtected lists the writable directories that are or lie
// inside one of the home's protected entries. Each entry is resolved
// through the file system unrecorded: a symlink made later is the run
// time scan's to see, not a precondition of every invocation.
func (g *gatherer) writableProtected(h *Host, f *Facts, cwdWritable bool) []WritableProtected {
	type root struct {
		index int
		paths []string
	}
	var roots []root
	if cwdWritable && f.Cwd.Exists {
		roots = append(roots, root{-1, []string{f.Cwd.Path, f.Cwd.Real}})
	}
	for _, b := range f.Binds {
		if !b.Readonly && b.SrcAbs {
			roots = append(roots, root{b.Index, []string{path.Clean(b.Src), b.SrcReal}})
		}
	}
	if f.Home == "" || len(roots) == 0 {
		return nil
	}
	homes := []string{f.Home}
	if ph := otherPasswdHome(h); ph != "" {
		homes = append(homes, ph)
	}
	var out []WritableProtected
	for _, home := range homes {
		for _, name := range ProtectedNames {
			entries := []string{path.Join(home, name)}
			if real, _, err := Resolve(g.fs, entries[0]); err == nil && real != entries[0] {
				entries = append(entries, real)
			}
			for _, r := range roots {
				if e := firstHolding(entries, r.paths); e != "" {
					out = append(out, WritableProtected{Index: r.index, Name: name, Entry: e})
				}
			}
		}
	}
	// A writable directory that is itself on PATH: what a command puts
	// there, the host's shells run by name.
	for _, d := range g.pathDirs(h) {
		for _, r := range roots {
			if slices.Contains(r.paths, d) {
				out = append(out, WritableProtected{Index: r.index, Name: AllowPath, Entry: d})
			}
		}
	}
	return out
}

// firstHolding returns the first of entries that one of paths is at or
// below; "" when none is.
func firstHolding(entries, paths []string) string {
	for _, e := range entries {
		for _, p := range paths {
			if p != "" && Within(p, e) {
				return e
			}
		}
	}
	return ""
}

// linkedProtected returns the home's protected entries that are
// symlinks resolving below a writable directory, from outside it
// (~/.config/systemd/user -> ~/dots/units with ~/dots writable): the
// target is what the host runs, so it is bound read-only like an entry
// below the directory, and recorded. Entries protected already (the
// home layout's links, homeLinkTargets) are left out; a target that is
// the writable directory itself is refused instead (writableProtected).
func (g *gatherer) linkedProtected(f *Facts, cwdWritable bool, allow map[string]bool) []Protected {
	roots := writableRoots(f, cwdWritable)
	if f.Home == "" || len(roots) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, p := range f.Protected {
		have[p.Path] = true
	}
	var out []Protected
	for _, name := range ProtectedNames {
		e := path.Join(f.Home, name)
		real, _, err := Resolve(g.fs, e)
		if err != nil || real == e || have[real] {
			continue
		}
		for _, r := range roots {
			if !Within(real, r.dir) || real == r.dir || Within(e, r.dir) {
				continue
			}
			if pp := g.path(real); pp.Kind == invocation.KindFile || pp.Kind == invocation.KindDir {
				have[real] = true
				out = append(out, Protected{Name: name, Root: r.dir, BindIndex: r.index, Path: real, Kind: pp.Kind,
					Symlink: pp.HasLink, Allowed: allow[name]})
			}
			break
		}
	}
	return out
}
