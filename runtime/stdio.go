package runtime

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// openStdio opens the command's streams (/dev/null for a nil one), the
// interposed stderr pipe, and the warning sink.
func (r *runner) openStdio(s Stdio) error {
	open := func(f *os.File, flag int) (*os.File, error) {
		if f != nil {
			return f, nil
		}
		n, err := os.OpenFile(os.DevNull, flag, 0)
		if err != nil {
			return nil, err
		}
		r.own = append(r.own, n)
		return n, nil
	}
	var err error
	if r.stdin, err = open(s.Stdin, os.O_RDONLY); err != nil {
		return err
	}
	if r.stdout, err = open(s.Stdout, os.O_WRONLY); err != nil {
		return err
	}
	if r.stderr, err = open(s.Stderr, os.O_WRONLY); err != nil {
		return err
	}
	warn := s.Warn
	if warn == nil {
		errOut := r.stderr
		warn = func(msg string) { fmt.Fprintf(errOut, "bwrun: warning: %s\n", msg) }
	}
	r.warn = func(msg string) {
		r.warnings = append(r.warnings, msg)
		warn(msg)
	}
	if r.errR, r.errW, err = os.Pipe(); err != nil {
		return err
	}
	r.merged = sameFile(r.stdout, r.stderr) && !isTerminal(r.stderr)
	if err := r.interposeStdin(); err != nil {
		return err
	}
	return r.interposeStdout()
}

// copyStderr copies the interposed pipe to the caller's stream, keeping
// the tail for bwrap's messages. Write errors (the caller closed its
// stream) do not stop the draining: the command must not block. When
// drain sets a past read deadline, it takes what is still in the pipe
// without waiting and returns.
func (r *runner) copyStderr(toStdout bool) {
	defer close(r.copyDone)
	dst := r.stderr
	if toStdout {
		dst = r.stdout
	}
	buf := make([]byte, 32<<10)
	emit := func(p []byte) {
		r.tail.Write(p)
		if dst != nil {
			if _, err := dst.Write(p); err != nil {
				dst = nil
			}
		}
	}
	pump(r.errR, buf, emit)
}

// pump reads src into buf and hands each read to emit until EOF or an
// error; after a past read deadline (drain), it takes what is still
// buffered without waiting, and returns.
func pump(src *os.File, buf []byte, emit func([]byte)) {
	for {
		n, err := src.Read(buf)
		if n > 0 {
			emit(buf[:n])
		}
		if err == nil {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Final non-blocking pass over what is already buffered.
			src.SetReadDeadline(time.Time{})
			if rc, err := src.SyscallConn(); err == nil {
				_ = rc.Read(func(fd uintptr) bool {
					for {
						n, err := unix.Read(int(fd), buf)
						if n <= 0 || err != nil {
							return true
						}
						emit(buf[:n])
					}
				})
			}
		}
		return
	}
}

// tailBuffer keeps the last tailSize bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailSize = 8 << 10

// Write appends p, keeping only the last tailSize bytes.
func (t *tailBuffer) Write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= tailSize {
		t.buf = append(t.buf[:0], p[len(p)-tailSize:]...)
		return
	}
	if len(t.buf)+len(p) > 2*tailSize {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize+len(p):]...)
	}
	t.buf = append(t.buf, p...)
}

// Bytes returns a copy of the kept bytes.
func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) > tailSize {
		return append([]byte(nil), t.buf[len(t.buf)-tailSize:]...)
	}
	return append([]byte(nil), t.buf...)
}

func fstat(f *os.File) (unix.Stat_t, bool) {
	var st unix.Stat_t
	rc, err := f.SyscallConn()
	if err != nil {
		return st, false
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return st, false
	}
	return st, true
}

func sameFile(a, b *os.File) bool {
	if a == b {
		return true
	}
	sa, ok1 := fstat(a)
	sb, ok2 := fstat(b)
	return ok1 && ok2 && sa.Dev == sb.Dev && sa.Ino == sb.Ino
}

func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	_ = rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		tty = err == nil
	})
	return tty
}

func machine() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Machine[:])
}
