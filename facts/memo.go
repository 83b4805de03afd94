package facts

import (
	"path"
	"strings"
	"sync"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Memo is an FS that reads each path of the FS it wraps once and answers
// every later question about that path from memory. Gather reads through
// a fresh one per compile (one consistent view of the host, each path
// looked up once however many questions ask about it); `bwpolicy check`
// shares one across all its files, whose compiles produce no invocation
// to run, so an answer older than the compile does no harm there. Memo
// is safe for concurrent use.
type Memo struct {
	fs    FS
	mu    sync.Mutex
	stats map[string]Stat
	dirs  map[string]memoDir
	lists map[string]memoList
	files map[string][]memoFile
}

type memoDir struct {
	names []string
	err   error
}

type memoList struct {
	names []string
	isDir []bool
	links []int
	err   error
}

// memoFile is one read of a file: its bound, and what it returned.
type memoFile struct {
	max  int
	data []byte
	err  error
}

// covers reports whether r answers a read of the same file bounded by
// max: r read without error up to a bound at least max, or found the
// file's end before its bound (it holds the whole file).
func (r memoFile) covers(max int) bool {
	return r.err == nil && (r.max >= max || len(r.data) < r.max)
}

// NewMemo returns a Memo reading through fsys.
func NewMemo(fsys FS) *Memo {
	// A compile over a home of a few hundred entries asks about 500
	// paths: the table starts at that size rather than growing to it.
	return &Memo{fs: fsys, stats: make(map[string]Stat, 512), dirs: map[string]memoDir{},
		lists: map[string]memoList{}, files: map[string][]memoFile{}}
}

// Lstat implements FS. A path below one it found absent, or found to be
// a file or a socket, is absent without asking (belowNonDir).
func (m *Memo) Lstat(p string) Stat {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.stats[p]
	if !ok {
		if m.belowNonDir(p) {
			st = Stat{Kind: invocation.KindAbsent}
		} else {
			st = m.fs.Lstat(p)
		}
		m.stats[p] = st
	}
	return st
}

// belowNonDir reports whether a directory above p (absolute and clean:
// no ".." climbs back out of it) was found absent, or a file or a
// socket: the kernel resolves p through that very path (a symlink on the
// way to it followed as for p), and fails there (ENOENT, ENOTDIR), which
// Lstat answers as absent. It is the answer an lstat of p at the time of
// the other one would have had; a compile asks about dozens of paths
// below an absent directory (~/.var/app/…/.git when ~/.var is absent).
// A path denied or one that failed otherwise tells nothing: p is asked.
func (m *Memo) belowNonDir(p string) bool {
	if !path.IsAbs(p) || path.Clean(p) != p {
		return false
	}
	// The nearest directory above p it knows answers: one found there
	// had its own parents there too.
	for i := strings.LastIndexByte(p, '/'); i > 0; i = strings.LastIndexByte(p[:i], '/') {
		if st, ok := m.stats[p[:i]]; ok {
			switch st.Kind {
			case invocation.KindAbsent, invocation.KindFile, invocation.KindSocket:
				return true
			}
			return false
		}
	}
	return false
}

// ReadDir implements FS (a copy of the names each time).
func (m *Memo) ReadDir(p string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, ok := m.dirs[p]
	if !ok {
		d.names, d.err = m.fs.ReadDir(p)
		m.dirs[p] = d
	}
	return append([]string(nil), d.names...), d.err
}

// ReadFile implements FS. A file read before with the same bound, or
// read whole or to a larger bound without error, is answered from
// memory (its first max bytes): ~/.gitconfig is read with three bounds
// by three steps.
func (m *Memo) ReadFile(p string, max int) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	reads := m.files[p]
	for _, r := range reads {
		if r.max == max {
			return append([]byte(nil), r.data...), r.err
		}
	}
	for _, r := range reads {
		if r.covers(max) {
			return append([]byte(nil), r.data[:min(len(r.data), max)]...), nil
		}
	}
	r := memoFile{max: max}
	r.data, r.err = m.fs.ReadFile(p, max)
	m.files[p] = append(reads, r)
	return append([]byte(nil), r.data...), r.err
}

// ListDir implements FS: it replays the listing into de.
func (m *Memo) ListDir(p string, de *git.DirEntries) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.lists[p]
	if !ok {
		var fresh git.DirEntries
		l.err = m.fs.ListDir(p, &fresh)
		l.names, l.isDir, l.links = fresh.Names, fresh.IsDir, fresh.Links
		m.lists[p] = l
	}
	de.Reset()
	for i, n := range l.names {
		de.Add(n, l.isDir[i])
	}
	de.Links = append(de.Links, l.links...)
	return l.err
}

// Forget drops everything m remembers: the next question about any path
// reads the FS again. A caller that changed the file system calls it.
func (m *Memo) Forget() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.stats)
	clear(m.dirs)
	clear(m.lists)
	clear(m.files)
}

// IsOS reports whether fsys reads the real file system, directly or
// through a Memo.
func IsOS(fsys FS) bool {
	if m, ok := fsys.(*Memo); ok {
		fsys = m.fs
	}
	_, real := fsys.(OS)
	return real
}
