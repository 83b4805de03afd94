package scan

import (
	"path"
	"time"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/ledger"
	"golang.org/x/sys/unix"
)

// indexSlack: a directory whose ctime lies this close to the scan's
// start is listed but not kept in the index. The kernel stamps from a
// clock that may lag by a tick, so a later change could otherwise carry
// the same ctime as the listing kept (git's "racy" index entries).
const indexSlack = 100 * time.Millisecond

// listIndexed is the walk's listing with the environment's index
// (ledger.Index): a directory that is the one the index holds (device,
// inode) with the same ctime has the same entries, and its reduced
// listing is taken from there; another one is read (ListDir) and kept.
// Without an index, every directory is read.
func (s *gitScan) listIndexed(dir string, buf []byte, de *git.DirEntries) error {
	if s.index == nil {
		s.read++
		return ListDir(dir, buf, de)
	}
	var st unix.Stat_t
	statErr := s.siblings.lstat(dir, &st)
	if statErr == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if l := s.index.Get(dir); l != nil && l.Dev == st.Dev && l.Ino == st.Ino && l.Ctime == st.Ctim.Nano() {
			fromListing(l, de)
			return nil
		}
	}
	s.read++
	if err := ListDir(dir, buf, de); err != nil || statErr != nil {
		return err
	}
	if st.Ctim.Nano() >= s.start.Add(-indexSlack).UnixNano() {
		return nil // changed just now: not kept
	}
	s.index.Put(dir, reduced(de, &ledger.Listing{Dev: st.Dev, Ino: st.Ino, Ctime: st.Ctim.Nano()}))
	return nil
}

// fromListing fills de from a reduced listing.
func fromListing(l *ledger.Listing, de *git.DirEntries) {
	de.Reset()
	for i, n := range l.Names {
		de.Add(n, l.Kinds[i] == 'd')
		if l.Kinds[i] == 'l' {
			de.Links = append(de.Links, len(de.Names)-1)
		}
	}
	de.Unlisted = l.Count - len(l.Names)
}

// reduced fills l with de's reduced listing (ledger.Listing: the
// directories, the symlinks, the names git looks for) and returns it.
func reduced(de *git.DirEntries, l *ledger.Listing) *ledger.Listing {
	l.Count = de.Len()
	links := map[int]bool{}
	for _, i := range de.Links {
		links[i] = true
	}
	for i, n := range de.Names {
		kind := byte('f')
		switch {
		case links[i]:
			kind = 'l'
		case de.IsDir[i]:
			kind = 'd'
		case !git.Notable(n):
			continue
		}
		l.Names = append(l.Names, n)
		l.Kinds = append(l.Kinds, kind)
	}
	return l
}

// siblingStat is an lstat for the walk, which asks about a directory's
// subdirectories one after another: from the second of them on, the
// parent is held open (O_PATH) and each is looked up in it by name
// (fstatat), so the kernel resolves one component instead of the whole
// path (the lstat of each directory is half of a warm scan's CPU in a
// large tree). The answer is lstat's: the parent is resolved as lstat
// resolves it, symlinks on the way followed, the last component not.
// The sandbox is dead while the scan runs: nothing renames the parent
// between the lookups. The zero value holds nothing open.
type siblingStat struct {
	parent string // the parent of the last path asked about
	held   int    // the parent's descriptor + 1; 0: none
	repeat bool   // the parent was asked about before
}

func (x *siblingStat) lstat(p string, st *unix.Stat_t) error {
	parent, name := path.Split(p)
	if parent != x.parent {
		x.close()
		x.parent = parent
		return unix.Lstat(p, st)
	}
	if x.held == 0 && !x.repeat {
		x.repeat = true
		if fd, err := unix.Open(parent, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
			x.held = fd + 1
		}
	}
	if x.held == 0 || name == "" {
		return unix.Lstat(p, st)
	}
	return unix.Fstatat(x.held-1, name, st, unix.AT_SYMLINK_NOFOLLOW)
}

// close drops the parent held open.
func (x *siblingStat) close() {
	if x.held > 0 {
		unix.Close(x.held - 1)
	}
	*x = siblingStat{}
}
