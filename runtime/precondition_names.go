package runtime

import (
	"slices"
	"unsafe"

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

// checkNames checks precondition rows with Names that share one
// directory (the entries the home layout binds back,
// invocation.Precondition.Names: the compiler writes a file row and a
// directory row next to each other) with one listing of that directory:
// each name must be there with its row's kind. A name whose type the
// listing does not tell (DT_UNKNOWN), every name when the directory
// cannot be listed for another reason than being absent or not a
// directory, and every name that differs (for the message: a symlink's
// target) is lstat()ed as CheckPreconditions does one path. buf is the
// getdents buffer, reused.
func checkNames(rows []invocation.Precondition, buf []byte) []Mismatch {
	dir := rows[0].Path
	// seen[r][k]: what the listing says of rows[r].Names[k].
	seen := make([][]uint8, len(rows))
	for r := range rows {
		seen[r] = make([]uint8, len(rows[r].Names))
	}
	listed, absent := false, false
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	switch {
	case err == unix.ENOENT || err == unix.ENOTDIR:
		absent = true
	case err == nil:
		err = eachDirent(fd, buf, func(nameBytes []byte, typ uint8) {
			// Compared, never kept: it may share buf's memory.
			name := unsafe.String(unsafe.SliceData(nameBytes), len(nameBytes))
			for r := range rows {
				if k, found := slices.BinarySearch(rows[r].Names, name); found {
					seen[r][k] = direntCode(typ)
				}
			}
		})
		unix.Close(fd)
		listed = err == nil
	}
	var bad []Mismatch
	for r, p := range rows {
		want := uint8(nameFile)
		if p.Kind == invocation.KindDir {
			want = nameDir
		}
		for k, name := range p.Names {
			got := seen[r][k]
			if got == want {
				continue
			}
			one := invocation.Precondition{Path: invocation.NamePath(dir, name), Kind: p.Kind, Why: p.Why}
			if absent || (listed && got == nameUnseen) {
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

// namesRun returns how many rows from pre[0] on are names rows of one
// directory (0 when pre[0] is not a names row): checkNames lists the
// directory once for all of them.
func namesRun(pre []invocation.Precondition) int {
	n := 0
	for n < len(pre) && pre[n].Names != nil && pre[n].Path == pre[0].Path {
		n++
	}
	return n
}
