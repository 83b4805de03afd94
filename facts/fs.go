// Package facts is the host-facts stage of bwpolicy's pipeline: it reads
// the host once (uid, HOME, HERMES_HOME, the working directory, which
// candidate hidden paths exist and where their symlinks lead, CA bundles,
// sockets, bwrap and its options, inherited limits) through the FS and
// Host abstractions, so tests run the compiler against a synthetic tree.
package facts

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Stat is what bwpolicy needs to know of one path (filekind.Stat: the
// leaf both the facts stage and the test-only trees of facts/factstest
// share).
type Stat = filekind.Stat

// FS is the part of the file system the compiler reads.
type FS interface {
	// Lstat describes p without following a final symlink. A path that
	// does not exist is Kind invocation.KindAbsent, one out of this
	// user's reach for good invocation.KindDenied, not an error; any
	// other failure is KindOther with Err set.
	Lstat(p string) Stat
	// ReadDir lists the names in directory p, sorted.
	ReadDir(p string) ([]string, error)
	// ReadFile returns the first max bytes of the regular file p.
	ReadFile(p string, max int) ([]byte, error)
	// ListDir lists directory p into de with each entry's type (a
	// symlink is not a directory), without following a symlink at p's
	// last component (ELOOP, ENOTDIR); see git.RepoWalk.
	ListDir(p string, de *git.DirEntries) error
}

// OS is the real file system.
type OS struct{}

// Lstat implements FS. It asks the kernel directly (syscall.Lstat into
// a Stat_t of its own): a compile looks at hundreds of paths, and
// os.Lstat's FileInfo for each is garbage the answer does not need.
func (OS) Lstat(p string) Stat {
	var sys syscall.Stat_t
	err := syscall.Lstat(p, &sys)
	for err == syscall.EINTR {
		err = syscall.Lstat(p, &sys)
	}
	if err != nil {
		if err == syscall.ENOENT || err == syscall.ENOTDIR {
			return Stat{Kind: invocation.KindAbsent}
		}
		if filekind.Unreachable(p, err) {
			return Stat{Kind: invocation.KindDenied}
		}
		return Stat{Kind: invocation.KindOther, Err: &fs.PathError{Op: "lstat", Path: p, Err: err}}
	}
	st := Stat{Kind: filekind.Of(sys.Mode), UID: int(sys.Uid)}
	switch sys.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		st.Target, _ = os.Readlink(p)
	case syscall.S_IFDIR:
		st.MTime = time.Unix(sys.Mtim.Unix()).UnixNano()
	}
	return st
}

// maxLinks bounds symlink resolution, as the kernel does (ELOOP).
const maxLinks = 40

// Resolve returns p with every symlink resolved, like filepath.EvalSymlinks
// but through fsys and tolerant of a missing tail: the part of p that does
// not exist is appended unresolved. hasLink reports whether any component
// was a symlink. p must be absolute and clean.
func Resolve(fsys FS, p string) (real string, hasLink bool, err error) {
	if !path.IsAbs(p) || path.Clean(p) != p {
		return resolveLinks(fsys, p)
	}
	// Until a symlink turns up, the path to examine is a prefix of p:
	// no component needs splitting or joining.
	for i := 1; i < len(p); {
		end := len(p)
		if j := strings.IndexByte(p[i:], '/'); j >= 0 {
			end = i + j
		}
		switch st := fsys.Lstat(p[:end]); st.Kind {
		case invocation.KindAbsent:
			return p, false, nil
		case invocation.KindSymlink:
			return resolveLinks(fsys, p)
		default:
			if end < len(p) && st.Kind != invocation.KindDir {
				return p, false, nil // a file in the middle: the rest cannot exist
			}
		}
		i = end + 1
	}
	return p, false, nil
}

// resolveLinks is Resolve for a path with a symlink on the way (or one
// that is not clean): component by component, following each link.
func resolveLinks(fsys FS, p string) (real string, hasLink bool, err error) {
	real, _, hasLink, err = walkChain(fsys.Lstat, p, nil)
	return real, hasLink, err
}

// walkChain resolves p component by component, as the kernel does,
// looking at each path with lstat, and calls link (when not nil) for
// each symlink it passes (followed: a link was followed before it). It
// returns where the chain ends (the part past an absent component, or
// past a file in the middle, appended unresolved), whether it ends at
// an absent path, and whether any link was followed.
func walkChain(lstat func(string) Stat, p string, link func(at string, followed bool)) (end string, missing, followed bool, err error) {
	links := 0
	rest := strings.Split(strings.TrimPrefix(p, "/"), "/")
	cur := "/"
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, name)
		st := lstat(next)
		switch st.Kind {
		case invocation.KindAbsent:
			return path.Join(append([]string{next}, rest...)...), true, followed, nil
		case invocation.KindSymlink:
			if link != nil {
				link(next, followed)
			}
			followed = true
			links++
			if links > maxLinks {
				return "", false, true, errors.New("too many levels of symbolic links")
			}
			t := st.Target
			if !path.IsAbs(t) {
				t = path.Join(cur, t)
			}
			rest = append(strings.Split(strings.TrimPrefix(path.Clean(t), "/"), "/"), rest...)
			cur = "/"
		default:
			if len(rest) > 0 && st.Kind != invocation.KindDir {
				// A file in the middle of the path: the rest cannot exist.
				return path.Join(append([]string{next}, rest...)...), false, followed, nil
			}
			cur = next
		}
	}
	return cur, false, followed, nil
}

// KindAt returns the kind of p after resolving every symlink.
func KindAt(fsys FS, p string) (string, string) {
	real, _, err := Resolve(fsys, p)
	if err != nil {
		return invocation.KindOther, p
	}
	return fsys.Lstat(real).Kind, real
}
