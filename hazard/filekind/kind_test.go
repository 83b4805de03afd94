package filekind

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// TestKinds: each kind of file, made for real, is what Of says of its
// lstat and what OfDirent says of its getdents entry (OfDirent leaves a
// symlink to lstat: ""), and EachDirent lists every entry.
func TestKinds(t *testing.T) {
	dir := t.TempDir()
	want := map[string]string{"file": invocation.KindFile, "dir": invocation.KindDir,
		"link": invocation.KindSymlink, "sock": invocation.KindSocket, "fifo": invocation.KindOther}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("file", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for name, kind := range want {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(dir, name), &st); err != nil {
			t.Fatal(err)
		}
		if got := Of(st.Mode); got != kind {
			t.Errorf("Of(%s) = %q, want %q", name, got, kind)
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	seen := map[string]string{}
	err = EachDirent(fd, make([]byte, 64), func(name []byte, typ uint8) {
		if n := string(name); n != "." && n != ".." {
			seen[n] = OfDirent(typ)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(want) {
		t.Fatalf("EachDirent listed %v, want the %d entries of %v", seen, len(want), want)
	}
	for name, kind := range want {
		if kind == invocation.KindSymlink {
			kind = "" // lstat must tell
		}
		if seen[name] != kind {
			t.Errorf("OfDirent(%s) = %q, want %q", name, seen[name], kind)
		}
	}
}
