package runtime

import (
	"path"
	"slices"
	"strings"

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
// qualifies.
func listedKinds(pre []invocation.Precondition) []string {
	groups := map[string][]int{}
	for i, p := range pre {
		if p.MTime != 0 || p.Kind == invocation.KindDenied || p.Path == "/" || !strings.HasPrefix(p.Path, "/") || path.Clean(p.Path) != p.Path {
			continue
		}
		dir := path.Dir(p.Path)
		groups[dir] = append(groups[dir], i)
	}
	var kinds []string
	var buf []byte
	for dir, idx := range groups {
		if len(idx) < minListed {
			continue
		}
		if kinds == nil {
			kinds = make([]string, len(pre))
			buf = make([]byte, direntBufSize)
		}
		listParent(dir, idx, pre, kinds, buf)
	}
	return kinds
}

// listParent fills kinds[i] for the preconditions idx, all entries of dir,
// from one listing of dir (see listedKinds).
func listParent(dir string, idx []int, pre []invocation.Precondition, kinds []string, buf []byte) {
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
		}
		return // anything else: each is lstat()ed and reported as it is
	}
	defer unix.Close(fd)
	seen := make([]bool, len(idx))
	err = eachDirent(fd, buf, func(name []byte, typ uint8) {
		k, found := slices.BinarySearchFunc(idx, name, func(i int, name []byte) int {
			return strings.Compare(base(i), string(name))
		})
		for ; found && k < len(idx) && base(idx[k]) == string(name); k++ {
			seen[k] = true // the same path may be recorded more than once
			kinds[idx[k]] = direntKind(typ)
		}
	})
	if err != nil {
		for _, i := range idx {
			kinds[i] = "" // a partial listing proves no absence
		}
		return
	}
	for k, i := range idx {
		if !seen[k] {
			kinds[i] = invocation.KindAbsent
		}
	}
}

// direntKind is the Kind constant of a d_type, "" where lstat must
// tell (a symbolic link's target is needed; DT_UNKNOWN says nothing).
func direntKind(typ byte) string {
	switch typ {
	case unix.DT_REG:
		return invocation.KindFile
	case unix.DT_DIR:
		return invocation.KindDir
	case unix.DT_SOCK:
		return invocation.KindSocket
	case unix.DT_FIFO, unix.DT_CHR, unix.DT_BLK:
		return invocation.KindOther
	default:
		return ""
	}
}
