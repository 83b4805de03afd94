package facts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// This file finds hidden paths that a second mount shows elsewhere
// (H7): `mount --bind /home/u /mnt/mirror`, a btrfs subvolume mounted
// twice, an NFS export mounted at two places. The sandbox binds the host
// root recursively, so every such mount is in it too.

// MountinfoPath is where the mount table is read, through FS.
const MountinfoPath = "/proc/self/mountinfo"

// Bounds: a mount table larger than maxMountinfo bytes, or more second
// locations than maxMirrors, is not (fully) looked through, and the
// compile says so.
const (
	maxMountinfo = 4 << 20
	maxMirrors   = 256
)

// Mount is one line of the mount table.
type Mount struct {
	// Dev is the filesystem's "major:minor".
	Dev string
	// Root is the directory of that filesystem the mount shows.
	Root string
	// Point is where it is mounted.
	Point string
}

// ParseMountinfo reads /proc/self/mountinfo lines: "ID PARENT MAJ:MIN
// ROOT POINT OPTIONS ..." with ROOT and POINT octal-escaped (\040 for a
// space). Malformed lines are an error.
func ParseMountinfo(data []byte) ([]Mount, error) {
	var out []Mount
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		f := strings.Fields(string(line))
		if len(f) < 5 || !strings.Contains(f[2], ":") || !strings.HasPrefix(f[3], "/") || !strings.HasPrefix(f[4], "/") {
			return nil, fmt.Errorf("mountinfo line %d: malformed", i+1)
		}
		out = append(out, Mount{Dev: f[2], Root: path.Clean(hostprobe.UnescapeMount(f[3])), Point: path.Clean(hostprobe.UnescapeMount(f[4]))})
	}
	return out, nil
}

// mountOf returns the index of the mount p is on: the longest mount
// point above it, the last listed (the top of a stack) on a tie.
func mountOf(mounts []Mount, p string) int {
	best := -1
	for i, m := range mounts {
		if Within(p, m.Point) && (best < 0 || len(m.Point) >= len(mounts[best].Point)) {
			best = i
		}
	}
	return best
}

// SecondLocations returns where else the mount table shows the file
// system object at p: for every other mount of the same filesystem
// whose root holds p's place in it, the same place under that mount; for
// one whose root lies inside p's place, its mount point (the whole mount
// is inside p).
func SecondLocations(mounts []Mount, p string) []string {
	var out []string
	for _, c := range secondCopies(mounts, p) {
		out = append(out, c.loc)
	}
	return out
}

// secondCopy is a second location of (a part of) a path: loc shows
// shows, the path itself or a directory in it.
type secondCopy struct {
	loc, shows string
}

// secondCopies is SecondLocations with what each location shows: p
// itself, or, for a mount whose root lies inside p's place, the
// directory of p that mount shows.
func secondCopies(mounts []Mount, p string) []secondCopy {
	i := mountOf(mounts, p)
	if i < 0 {
		return nil
	}
	m0 := mounts[i]
	inFS := path.Join(m0.Root, strings.TrimPrefix(p, m0.Point))
	var out []secondCopy
	for j, m := range mounts {
		if j == i || m.Dev != m0.Dev {
			continue
		}
		var c secondCopy
		switch {
		case Within(inFS, m.Root):
			c = secondCopy{path.Join(m.Point, strings.TrimPrefix(inFS, m.Root)), p}
		case Within(m.Root, inFS):
			c = secondCopy{m.Point, path.Join(p, strings.TrimPrefix(m.Root, inFS))}
		default:
			continue
		}
		if !Within(c.loc, p) {
			out = append(out, c)
		}
	}
	return out
}

// mirrors describes the second locations of the present hidden paths
// (H7), each hidden like its original, and notes what it could not do:
// an unreadable or oversized mount table, more locations than
// maxMirrors.
func (g *gatherer) mirrors(f *Facts) (out []Hidden, notes []string) {
	data, err := g.fs.ReadFile(MountinfoPath, maxMountinfo+1)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // no /proc (a synthetic tree without one)
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("%v: second mounts of hidden paths are not looked for", err)}
	}
	if len(data) > maxMountinfo {
		return nil, []string{fmt.Sprintf("the mount table (%s) is larger than %d bytes: second mounts of hidden paths are not looked for", MountinfoPath, maxMountinfo)}
	}
	mounts, err := ParseMountinfo(data)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: %v: second mounts of hidden paths are not looked for", MountinfoPath, err)}
	}
	seen := map[string]bool{}
	homeCopies := homeMirrors(mounts, f.HomeLayout)
	for _, hm := range homeCopies {
		if seen[hm.loc] || alreadyUnreachable(hm.loc, f) {
			continue
		}
		seen[hm.loc] = true
		x := g.hidden(hm.loc, SourceHomeMirror)
		if invocation.Missing(x.Kind) {
			continue
		}
		x.MirrorOf = hm.shows
		out = append(out, x)
	}
	for _, h := range f.Hidden {
		// A denied path is looked for too: another mount may show what
		// lies below the directory that denies search, where it does not.
		if h.Kind == invocation.KindAbsent || h.MirrorOf != "" {
			continue
		}
		for _, loc := range SecondLocations(mounts, h.Path) {
			if seen[loc] || alreadyUnreachable(loc, f) || insideHomeCopy(loc, homeCopies) {
				continue
			}
			seen[loc] = true
			if len(out) == maxMirrors {
				notes = append(notes, fmt.Sprintf("more than %d second locations of hidden paths: %s (which shows %s) and the rest are not hidden", maxMirrors, loc, h.Path))
				return out, notes
			}
			x := g.hidden(loc, SourceMountMirror)
			x.Why = h.Why // ReasonInherited: hidden for the same reason
			if invocation.Missing(x.Kind) {
				continue // covered by another mount: nothing shows there
			}
			x.Var, x.HideIndex, x.MirrorOf = h.Var, h.HideIndex, h.Path
			out = append(out, x)
		}
	}
	return out, notes
}

// homeMirrors returns the second locations that show what the home
// layout leaves out (H10): every other mount of the home directory's
// filesystem that shows the whole home directory (a bind of /home/u, the
// same filesystem mounted twice), and every mount of a directory inside
// it that is left out or holds something left out (a bind of
// ~/.mozilla or of ~/.config). The layout cannot be rebuilt there, so
// each such location is hidden whole. A mount of a directory the layout
// shows (a bind of ~/proj elsewhere) stays visible: the denied paths in
// it are hidden paths, whose second locations mirrors hides one by one.
// Nil unless the layout is active.
func homeMirrors(mounts []Mount, l *HomeLayout) []secondCopy {
	if !l.Active() {
		return nil
	}
	var out []secondCopy
	for _, c := range secondCopies(mounts, l.Home) {
		if c.shows == l.Home || l.Hides(c.shows) || slices.Contains(l.Dirs, c.shows) || holdsLayoutDir(l, c.shows) {
			out = append(out, c)
		}
	}
	return out
}

// holdsLayoutDir reports whether a directory the layout rebuilds lies
// strictly inside p (p is then partly left out).
func holdsLayoutDir(l *HomeLayout, p string) bool {
	for _, d := range l.Dirs {
		if d != p && Within(d, p) {
			return true
		}
	}
	return false
}

// insideHomeCopy reports whether loc lies in one of the home copies,
// each of which is hidden whole.
func insideHomeCopy(loc string, copies []secondCopy) bool {
	for _, c := range copies {
		if Within(loc, c.loc) {
			return true
		}
	}
	return false
}
