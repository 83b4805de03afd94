package facts

import (
	"sync"

	"github.com/bwpolicy/bwpolicy/hazard/git"
	"github.com/bwpolicy/bwpolicy/runtime"
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

// ListDir makes a gatherer an FS (listings are not recorded).
func (g *gatherer) ListDir(p string, de *git.DirEntries) error { return g.fs.ListDir(p, de) }
