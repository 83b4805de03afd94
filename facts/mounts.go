package facts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime"
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
		out = append(out, Mount{Dev: f[2], Root: path.Clean(runtime.UnescapeMount(f[3])), Point: path.Clean(runtime.UnescapeMount(f[4]))})
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
	i := mountOf(mounts, p)
	if i < 0 {
		return nil
	}
	m0 := mounts[i]
	inFS := path.Join(m0.Root, strings.TrimPrefix(p, m0.Point))
	var out []string
	for j, m := range mounts {
		if j == i || m.Dev != m0.Dev {
			continue
		}
		var loc string
		switch {
		case Within(inFS, m.Root):
			loc = path.Join(m.Point, strings.TrimPrefix(inFS, m.Root))
		case Within(m.Root, inFS):
			loc = m.Point
		default:
			continue
		}
		if !Within(loc, p) {
			out = append(out, loc)
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
	for _, h := range f.Hidden {
		// A denied path is looked for too: another mount may show what
		// lies below the directory that denies search, where it does not.
		if h.Kind == runtime.KindAbsent || h.MirrorOf != "" {
			continue
		}
		for _, loc := range SecondLocations(mounts, h.Path) {
			if seen[loc] || alreadyUnreachable(loc, f) {
				continue
			}
			seen[loc] = true
			if len(out) == maxMirrors {
				notes = append(notes, fmt.Sprintf("more than %d second locations of hidden paths: %s (which shows %s) and the rest are not hidden", maxMirrors, loc, h.Path))
				return out, notes
			}
			x := g.hidden(loc, SourceMountMirror)
			x.Why = h.Why // ReasonInherited: hidden for the same reason
			if runtime.Missing(x.Kind) {
				continue // covered by another mount: nothing shows there
			}
			x.Var, x.HideIndex, x.MirrorOf = h.Var, h.HideIndex, h.Path
			out = append(out, x)
		}
	}
	return out, notes
}
