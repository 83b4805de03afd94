package facts

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts/factstest"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestOSLstat: OS.Lstat (a bare lstat(2)) tells each kind of file apart,
// reads a symlink's target, records a directory's modification time and
// the owner as os.Lstat reports them, and calls a path that is not
// there, or whose parent is a file, absent.
func TestOSLstat(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, make func(p string) error) string {
		p := filepath.Join(dir, name)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := mk("file", func(p string) error { return os.WriteFile(p, []byte("x"), 0o600) })
	sub := mk("dir", func(p string) error { return os.Mkdir(p, 0o700) })
	link := mk("link", func(p string) error { return os.Symlink("dir/../file", p) })
	fifo := mk("fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) })
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct {
		p, kind, target string
	}{
		{file, invocation.KindFile, ""}, {sub, invocation.KindDir, ""}, {link, invocation.KindSymlink, "dir/../file"},
		{fifo, invocation.KindOther, ""}, {sock, invocation.KindSocket, ""},
		{filepath.Join(dir, "none"), invocation.KindAbsent, ""}, {filepath.Join(file, "x"), invocation.KindAbsent, ""},
	} {
		st := OS{}.Lstat(tc.p)
		if st.Kind != tc.kind || st.Target != tc.target || st.Err != nil {
			t.Errorf("%s: %+v, want kind %s target %q", filepath.Base(tc.p), st, tc.kind, tc.target)
		}
		fi, err := os.Lstat(tc.p)
		if err != nil {
			continue
		}
		if uid := int(fi.Sys().(*syscall.Stat_t).Uid); st.UID != uid {
			t.Errorf("%s: uid %d, want %d", filepath.Base(tc.p), st.UID, uid)
		}
		want := int64(0)
		if fi.IsDir() {
			want = fi.ModTime().UnixNano()
		}
		if st.MTime != want {
			t.Errorf("%s: mtime %d, want %d", filepath.Base(tc.p), st.MTime, want)
		}
	}
	names, err := OS{}.ReadDir(dir)
	if want := []string{"dir", "fifo", "file", "link", "sock"}; err != nil || !slices.Equal(names, want) {
		t.Errorf("ReadDir = %q, %v; want %q", names, err, want)
	}
	if _, err := (OS{}).ReadDir(file); err == nil {
		t.Error("ReadDir of a file: no error")
	}
}

// factstest's FS and Tree are facts.FS, and the real one is factstest's
// FS: factstest spells the method set again (it cannot import facts,
// whose own tests use it), and the build fails here when they part.
var (
	_ FS           = factstest.Tree{}
	_ FS           = &factstest.Guard{}
	_ factstest.FS = OS{}
)
