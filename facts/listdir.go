package facts

import (
	"io/fs"
	"sync"
	"syscall"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// direntBufs holds the getdents buffers of OS.ListDir.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// ListDir implements FS with runtime.ListDir: one getdents listing, the
// entry types with the names, no stat.
func (OS) ListDir(p string, de *git.DirEntries) error {
	b := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(b)
	return runtime.ListDir(p, *b, de)
}

// ListDir implements FS. A path that is not a directory fails as the
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

// ListDir makes a gatherer an FS (listings are not recorded).
func (g *gatherer) ListDir(p string, de *git.DirEntries) error { return g.fs.ListDir(p, de) }
