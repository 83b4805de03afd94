package invocation

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBoundWaitEndsAStalledRead: a read of a file the poller waits on
// (a pipe here, standing for /proc/kmsg, which only root may open and
// whose read consumes the kernel's log) that has nothing to read fails
// within ReadWait, and ReadError says so; the control, the same pipe
// without boundWait, is still waiting at twice ReadWait.
func TestBoundWaitEndsAStalledRead(t *testing.T) {
	read := func(bound bool) (time.Duration, error) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close(); w.Close() })
		if bound {
			r = boundWait(r)
		}
		done := make(chan error, 1)
		start := time.Now()
		go func() { _, err := io.ReadAll(r); done <- err }()
		select {
		case err := <-done:
			return time.Since(start), err
		case <-time.After(2 * ReadWait):
			return time.Since(start), nil
		}
	}
	took, err := read(true)
	var st *StalledError
	if err == nil || !errors.As(ReadError("p", err), &st) || took > ReadWait+time.Second {
		t.Fatalf("bounded read: %v after %v, want a *StalledError within %v", err, took, ReadWait)
	}
	if !strings.Contains(st.Error(), "p: gave nothing to read within 2s") {
		t.Errorf("message %q", st.Error())
	}
	if took, err := read(false); err != nil || took < 2*ReadWait {
		t.Fatalf("control: the unbounded read ended (%v) after %v", err, took)
	}
}

// TestOpenRegularRefusesWithoutBlocking: a named pipe, a directory and
// a device (each also behind a symbolic link) are refused by
// OpenRegular at once, naming what they are; a regular file opens and
// reads to its end.
func TestOpenRegularRefusesWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{dir, "is a directory, not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
	} {
		link := filepath.Join(dir, "link-"+filepath.Base(c.path))
		if err := os.Symlink(c.path, link); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{c.path, link} {
			start := time.Now()
			f, err := OpenRegular(p)
			if err == nil {
				f.Close()
			}
			if err == nil || ReadFailure(err) != c.want || time.Since(start) > time.Second {
				t.Errorf("%s: %v after %v, want %q at once", p, err, time.Since(start), c.want)
			}
		}
	}
	f, err := OpenRegular(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if b, err := io.ReadAll(f); err != nil || string(b) != "x" {
		t.Fatalf("read %q, %v", b, err)
	}
}
