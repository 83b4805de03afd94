package runtime

import (
	"path"
	"slices"
	"strings"
	"unsafe"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// minListed is how many preconditions must share a parent directory
// before CheckPreconditions reads that directory once instead of
// lstat()ing each of them: a home directory rebuilt by the allowlist
// layout (H10) has one precondition per entry bound back, often a
// hundred or more, and a listing is a few system calls where the lstats
// are one each.
const minListed = 8

// direntBufSize is the buffer getdents(2) fills: 8 KiB holds about 200
// entries of a typical home directory per call.
const direntBufSize = 8 << 10

// listedKinds returns, for each precondition whose kind a listing of its
// parent directory tells (see minListed), that kind (one of the Kind
// constants), and "" for the others, which CheckPreconditions lstat()s:
// symbolic links (their target is read), paths recorded as denied (only
// lstat tells whether they still are), directories whose modification
// time is recorded, entries whose type the file system does not report
// (DT_UNKNOWN), and every precondition of a directory that could not be
// listed for another reason than being absent or not a directory. A name
// missing from the listing is KindAbsent, as is every precondition of a
// parent that is absent or not a directory (lstat says ENOENT or
// ENOTDIR for them). The listing follows symbolic links in the parent's
// path exactly as lstat of the full path does. Nil when no directory
// qualifies. *buf is the getdents buffer, allocated here when nil. A
// listing of a directory that has names rows (names) fills those in too.
func listedKinds(pre []invocation.Precondition, buf *[]byte, names []*namesCheck) []string {
	// The preconditions are grouped by parent directory by sorting their
	// indices (a map of slices would allocate a slice per directory:
	// memory a fresh process pays for in page faults).
	idx := make([]int, 0, len(pre))
	for i, p := range pre {
		if p.Names != nil || p.MTime != 0 || p.Kind == invocation.KindDenied || p.Path == "/" || !strings.HasPrefix(p.Path, "/") || path.Clean(p.Path) != p.Path {
			continue
		}
		idx = append(idx, i)
	}
	dirOf := func(i int) string { return parentOf(pre[i].Path) }
	slices.SortStableFunc(idx, func(a, b int) int { return strings.Compare(dirOf(a), dirOf(b)) })
	var kinds []string
	for start := 0; start < len(idx); {
		dir, end := dirOf(idx[start]), start+1
		for end < len(idx) && dirOf(idx[end]) == dir {
			end++
		}
		if end-start >= minListed {
			if kinds == nil {
				kinds = make([]string, len(pre))
			}
			if *buf == nil {
				*buf = make([]byte, direntBufSize)
			}
			listParent(dir, idx[start:end], pre, kinds, *buf, namesOf(names, dir))
		}
		start = end
	}
	return kinds
}

// parentOf is path.Dir of a clean absolute path other than "/", without
// path.Dir's cleaning.
func parentOf(p string) string {
	if j := strings.LastIndexByte(p, '/'); j > 0 {
		return p[:j]
	}
	return "/"
}

// listParent fills kinds[i] for the preconditions idx, all entries of dir,
// from one listing of dir (see listedKinds).
func listParent(dir string, idx []int, pre []invocation.Precondition, kinds []string, buf []byte, nc *namesCheck) {
	base := func(i int) string { return pre[i].Path[len(dir)+len("/"):] }
	if dir == "/" {
		base = func(i int) string { return pre[i].Path[1:] }
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(base(a), base(b)) })
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		if err == unix.ENOENT || err == unix.ENOTDIR {
			for _, i := range idx {
				kinds[i] = invocation.KindAbsent
			}
			if nc != nil {
				nc.absent = true
			}
		}
		return // anything else: each is lstat()ed and reported as it is
	}
	defer unix.Close(fd)
	seen := make([]bool, len(idx))
	err = filekind.EachDirent(fd, buf, func(nameBytes []byte, typ uint8) {
		// name is only compared, never kept: buf is read again by the
		// next getdents, so it may share buf's memory (a copy per entry
		// would allocate for every name longer than 32 bytes).
		name := unsafe.String(unsafe.SliceData(nameBytes), len(nameBytes))
		if nc != nil {
			nc.note(name, typ)
		}
		k, found := slices.BinarySearchFunc(idx, name, func(i int, name string) int {
			return strings.Compare(base(i), name)
		})
		for ; found && k < len(idx) && base(idx[k]) == name; k++ {
			seen[k] = true // the same path may be recorded more than once
			kinds[idx[k]] = filekind.OfDirent(typ)
		}
	})
	if err != nil {
		for _, i := range idx {
			kinds[i] = "" // a partial listing proves no absence
		}
		return
	}
	if nc != nil {
		nc.listed = true
	}
	for k, i := range idx {
		if !seen[k] {
			kinds[i] = invocation.KindAbsent
		}
	}
}
