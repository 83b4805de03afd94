package runtime

import (
	"slices"
	"unsafe"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// What a listing says of a name of a names row.
const (
	nameUnseen = iota // not (yet) in the listing
	nameFile          // DT_REG
	nameDir           // DT_DIR
	nameLstat         // another type, or DT_UNKNOWN: lstat tells
)

// namesCheck checks the precondition rows with Names that share one
// directory (the entries the home layout binds back,
// invocation.Precondition.Names: the compiler writes a file row and a
// directory row next to each other) with one listing of that directory,
// its own or the one listedKinds makes of it anyway: each name must be
// there with its row's kind.
type namesCheck struct {
	rows []invocation.Precondition
	// seen[r][k]: what the listing says of rows[r].Names[k].
	seen [][]uint8
	// listed: a whole listing filled seen; absent: the directory is
	// absent or not a directory.
	listed, absent bool
}

// namesChecks returns a namesCheck per run of names rows of one
// directory in pre.
func namesChecks(pre []invocation.Precondition) []*namesCheck {
	var out []*namesCheck
	for i := 0; i < len(pre); i++ {
		n := 0
		for i+n < len(pre) && pre[i+n].Names != nil && pre[i+n].Path == pre[i].Path {
			n++
		}
		if n == 0 {
			continue
		}
		nc := &namesCheck{rows: pre[i : i+n], seen: make([][]uint8, n)}
		for r := range nc.rows {
			nc.seen[r] = make([]uint8, len(nc.rows[r].Names))
		}
		out = append(out, nc)
		i += n - 1
	}
	return out
}

// note records what a listing of the directory says of name.
func (nc *namesCheck) note(name string, typ uint8) {
	for r := range nc.rows {
		if k, found := slices.BinarySearch(nc.rows[r].Names, name); found {
			nc.seen[r][k] = direntCode(typ)
		}
	}
}

// list lists the directory, unless listedKinds did.
func (nc *namesCheck) list(buf []byte) {
	if nc.listed || nc.absent {
		return
	}
	fd, err := unix.Open(nc.rows[0].Path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	switch {
	case err == unix.ENOENT || err == unix.ENOTDIR:
		nc.absent = true
	case err == nil:
		err = filekind.EachDirent(fd, buf, func(nameBytes []byte, typ uint8) {
			// Compared, never kept: it may share buf's memory.
			nc.note(unsafe.String(unsafe.SliceData(nameBytes), len(nameBytes)), typ)
		})
		unix.Close(fd)
		nc.listed = err == nil
	}
}

// mismatches lists the names whose kind differs. A name whose type the
// listing does not tell (DT_UNKNOWN), every name when the directory
// could not be listed for another reason than being absent or not a
// directory, and every name that differs (for the message: a symlink's
// target) is lstat()ed as CheckPreconditions does one path.
func (nc *namesCheck) mismatches() []Mismatch {
	dir := nc.rows[0].Path
	var bad []Mismatch
	for r, p := range nc.rows {
		want := uint8(nameFile)
		if p.Kind == invocation.KindDir {
			want = nameDir
		}
		for k, name := range p.Names {
			got := nc.seen[r][k]
			if got == want {
				continue
			}
			one := invocation.Precondition{Path: invocation.NamePath(dir, name), Kind: p.Kind, Why: p.Why}
			if nc.absent || (nc.listed && got == nameUnseen) {
				bad = append(bad, Mismatch{Precondition: one, Kind: invocation.KindAbsent})
				continue
			}
			kind, target, _, err := lstatKind(one.Path)
			switch {
			case err != nil:
				bad = append(bad, Mismatch{Precondition: one, Err: err})
			case kind != p.Kind:
				bad = append(bad, Mismatch{Precondition: one, Kind: kind, Target: target})
			}
		}
	}
	return bad
}

// direntCode is what a d_type says of a names row's name.
func direntCode(typ uint8) uint8 {
	switch typ {
	case unix.DT_REG:
		return nameFile
	case unix.DT_DIR:
		return nameDir
	}
	return nameLstat
}

// namesOf returns the namesCheck of directory dir in ncs, or nil.
func namesOf(ncs []*namesCheck, dir string) *namesCheck {
	for _, nc := range ncs {
		if nc.rows[0].Path == dir {
			return nc
		}
	}
	return nil
}
