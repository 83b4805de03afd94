package facts

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// onDisk is a tree on the real file system, under a new temporary
// directory it returns: its directories (with their parents), empty
// files, symlinks (name to target) and listening unix sockets (closed
// when the test ends).
type onDisk struct {
	dirs, files, sockets []string
	links                map[string]string
}

func (d onDisk) make(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for _, p := range d.dirs {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range d.files {
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range d.links {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range d.sockets {
		ln, err := net.Listen("unix", filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
	}
	return root
}
