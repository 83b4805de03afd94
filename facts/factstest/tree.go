package factstest

import (
	"io/fs"
	"path"
	"sort"
	"strings"
	"syscall"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Tree is a synthetic file system for tests: a map from absolute path to
// its Stat (a file's content in Stat.Content). Parent directories are
// implied. Everything below a path of kind invocation.KindDenied is
// denied too, as it is for lstat.
type Tree map[string]filekind.Stat

// Lstat implements facts.FS.
func (t Tree) Lstat(p string) filekind.Stat {
	p = path.Clean(p)
	if p == "/" {
		return filekind.Stat{Kind: invocation.KindDir}
	}
	for d := path.Dir(p); d != "/"; d = path.Dir(d) {
		if t[d].Kind == invocation.KindDenied {
			return filekind.Stat{Kind: invocation.KindDenied}
		}
	}
	if st, ok := t[p]; ok {
		return st
	}
	prefix := p + "/"
	for k := range t {
		if strings.HasPrefix(k, prefix) {
			return filekind.Stat{Kind: invocation.KindDir}
		}
	}
	return filekind.Stat{Kind: invocation.KindAbsent}
}

// ReadFile implements facts.FS.
func (t Tree) ReadFile(p string, max int) ([]byte, error) {
	st, ok := t[path.Clean(p)]
	if !ok || st.Kind != invocation.KindFile {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fs.ErrNotExist}
	}
	b := []byte(st.Content)
	return b[:min(len(b), max)], nil
}

// ReadDir implements facts.FS.
func (t Tree) ReadDir(p string) ([]string, error) {
	if t.Lstat(p).Kind != invocation.KindDir {
		return nil, &fs.PathError{Op: "readdir", Path: p, Err: fs.ErrNotExist}
	}
	prefix := strings.TrimSuffix(p, "/") + "/"
	seen := map[string]bool{}
	for k := range t {
		if strings.HasPrefix(k, prefix) {
			name := strings.SplitN(k[len(prefix):], "/", 2)[0]
			seen[name] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// ListDir implements facts.FS. A path that is not a directory fails as the
// system call does (ENOENT, ENOTDIR for a file or a symlink).
func (t Tree) ListDir(p string, de *git.DirEntries) error {
	switch t.Lstat(p).Kind {
	case invocation.KindDir:
	case invocation.KindAbsent:
		return &fs.PathError{Op: "open", Path: p, Err: syscall.ENOENT}
	default:
		return &fs.PathError{Op: "open", Path: p, Err: syscall.ENOTDIR}
	}
	names, err := t.ReadDir(p)
	if err != nil {
		return err
	}
	de.Reset()
	for _, n := range names {
		de.Add(n, t.Lstat(p+"/"+n).Kind == invocation.KindDir)
	}
	return nil
}
