package runtime

import (
	"slices"
	"unsafe"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// checkNames checks a precondition row with Names (the entries the home
// layout binds back, invocation.Precondition.Names) with one listing of
// its directory: each name must be there with the row's kind. A name
// whose type the listing does not tell (DT_UNKNOWN), every name when the
// directory cannot be listed for another reason than being absent or
// not a directory, and every name that differs (for the message: a
// symlink's target) is lstat()ed as CheckPreconditions does one path.
// buf is the getdents buffer, reused.
func checkNames(p invocation.Precondition, buf []byte) []Mismatch {
	// kinds[k]: what the listing says of p.Names[k]; "" until seen.
	kinds := make([]string, len(p.Names))
	listed := false
	fd, err := unix.Open(p.Path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	switch {
	case err == unix.ENOENT || err == unix.ENOTDIR:
		for k := range kinds {
			kinds[k] = invocation.KindAbsent
		}
	case err == nil:
		err = eachDirent(fd, buf, func(nameBytes []byte, typ uint8) {
			// Compared, never kept: it may share buf's memory.
			name := unsafe.String(unsafe.SliceData(nameBytes), len(nameBytes))
			if k, found := slices.BinarySearch(p.Names, name); found {
				kinds[k] = direntKind(typ)
				if kinds[k] == "" {
					kinds[k] = "?" // lstat tells
				}
			}
		})
		unix.Close(fd)
		listed = err == nil
	}
	var bad []Mismatch
	for k, name := range p.Names {
		kind := kinds[k]
		switch {
		case kind == "" && listed:
			kind = invocation.KindAbsent
		case kind == p.Kind:
			continue
		}
		one := invocation.Precondition{Path: invocation.NamePath(p.Path, name), Kind: p.Kind, Why: p.Why}
		got, target, _, err := lstatKind(one.Path)
		switch {
		case err != nil:
			bad = append(bad, Mismatch{Precondition: one, Err: err})
		case got != p.Kind:
			bad = append(bad, Mismatch{Precondition: one, Kind: got, Target: target})
		}
	}
	return bad
}

// namesRow reports whether p is a row with Names (checked by checkNames,
// not by listedKinds or its own lstat).
func namesRow(p invocation.Precondition) bool { return p.Names != nil }
