package facts

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOSReadFile: OS.ReadFile (bare open/fstat/read) returns what
// os.ReadFile does up to its bound, through a symlink, for an empty file
// and one larger than the bound, refuses a directory and a FIFO (at
// once: a FIFO with no writer does not block the compile) and answers an
// absent file with os.Open's error.
func TestOSReadFile(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 5000)
	for name, data := range map[string][]byte{"empty": nil, "small": []byte("x=1\n"), "big": big} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("small", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		limit int
		want  []byte
	}{
		{"empty", 100, nil}, {"small", 100, []byte("x=1\n")}, {"small", 2, []byte("x=")}, {"link", 100, []byte("x=1\n")},
		{"big", 1 << 20, big}, {"big", 4096, big[:4096]}, {"big", len(big), big},
	} {
		got, err := OS{}.ReadFile(filepath.Join(dir, tc.name), tc.limit)
		if err != nil || !bytes.Equal(got, tc.want) {
			t.Errorf("ReadFile(%s, %d) = %d bytes, %v; want %d bytes", tc.name, tc.limit, len(got), err, len(tc.want))
		}
	}
	// A file the kernel writes as it is read says size 0: read whole all
	// the same (past the first 4 KiB block when it is larger), or up to
	// the bound. mountinfo can change between two reads: a few tries.
	for _, limit := range []int{1 << 22, 100, 4096, 5000} {
		for try := 0; ; try++ {
			got, err := OS{}.ReadFile("/proc/self/mountinfo", limit)
			want, werr := os.ReadFile("/proc/self/mountinfo")
			if err != nil || werr != nil {
				t.Fatal(err, werr)
			}
			want = want[:min(len(want), limit)]
			if bytes.Equal(got, want) {
				break
			}
			if try == 3 {
				t.Fatalf("ReadFile(/proc/self/mountinfo, %d) = %d bytes, want %d", limit, len(got), len(want))
			}
		}
	}
	kallsyms, err := os.ReadFile("/proc/kallsyms") // megabytes, unchanging, size 0
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{10000, 300000} {
		if got, err := (OS{}).ReadFile("/proc/kallsyms", limit); err != nil || !bytes.Equal(got, kallsyms[:limit]) {
			t.Errorf("ReadFile(/proc/kallsyms, %d) = %d bytes, %v; want the first %d", limit, len(got), err, limit)
		}
	}
	done := make(chan error, 1)
	go func() { _, err := OS{}.ReadFile(filepath.Join(dir, "fifo"), 100); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadFile of a FIFO: %v, want not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadFile of a FIFO with no writer blocked")
	}
	if _, err := (OS{}).ReadFile(dir, 100); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadFile of a directory: %v, want not a regular file", err)
	}
	_, err = OS{}.ReadFile(filepath.Join(dir, "none"), 100)
	_, osErr := os.Open(filepath.Join(dir, "none"))
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != osErr.Error() {
		t.Errorf("ReadFile of an absent file: %v, want %v", err, osErr)
	}
}

// TestOSReadDirMany: OS.ReadDir lists a directory larger than one
// getdents buffer whole, sorted, as os.ReadDir does, through a symlink
// to it, and answers an absent one with os.Open's error.
func TestOSReadDirMany(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for i := 0; i < 3000; i++ {
		n := strings.Repeat("n", i%40) + "-" + string(rune('a'+i%26)) + filepath.Base(t.Name()) + "-" + string(rune('A'+i/26%26)) + string(rune('0'+i/676))
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		want = append(want, n)
	}
	slices.Sort(want)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, link} {
		got, err := OS{}.ReadDir(p)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ReadDir(%s): %d names, %v; want %d", p, len(got), err, len(want))
		}
	}
	_, err := OS{}.ReadDir(filepath.Join(dir, "none"))
	_, osErr := os.Open(filepath.Join(dir, "none"))
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != osErr.Error() {
		t.Errorf("ReadDir of an absent directory: %v, want %v", err, osErr)
	}
}
