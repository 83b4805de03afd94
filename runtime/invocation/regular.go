package invocation

// Regular files: settings and invocations are read only from regular
// files, opened without ever blocking on a named pipe or a device.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// NotRegularError says the path names something other than a regular
// file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error names the path and what it is.
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: is %s, not a regular file", e.Path, FileKind(e.Mode))
}

// FileKind names a file mode's type in words ("a named pipe (FIFO)").
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "an irregular file"
}

// OpenRegular opens path (settings, an invocation) for reading when it is (or, through symbolic links,
// leads to) a regular file. It stats first so a device is never opened,
// then opens with O_NONBLOCK (a FIFO swapped in between the two does not
// block the open) and checks the opened file again, so what is read is
// what was checked. A read of the file that waits more than ReadWait for
// something to read fails (see ReadError).
func OpenRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	st, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	return boundWait(f), nil
}

// boundWait bounds the wait of each read of f to ReadWait. A regular
// file of a pseudo-filesystem can hold its reader forever (/proc/kmsg, a
// tracing pipe: a symbolic link to one among a pull request's settings
// files or rules held check until it was killed). Go waits on such a
// file through its poller, so a deadline bounds the wait; an ordinary
// file is never waited on, and refuses the deadline (os.ErrNoDeadline)
// at no cost.
func boundWait(f *os.File) *os.File {
	_ = f.SetReadDeadline(time.Now().Add(ReadWait))
	return f
}

// ReadWait bounds the wait of a read of a file OpenRegular opened.
const ReadWait = 2 * time.Second

// StalledError is a read of a regular file that gave nothing within
// ReadWait: a pseudo-file, not a file's contents.
type StalledError struct {
	Path string
}

// Error names the path and the wait.
func (e *StalledError) Error() string { return e.Path + ": " + ReadFailure(e) }

// ReadFailure is what OpenRegular's or a read's error says of the file,
// without its path (the caller places the path itself).
func ReadFailure(err error) string {
	var nr *NotRegularError
	var st *StalledError
	var pe *fs.PathError
	switch {
	case errors.As(err, &nr):
		return "is " + FileKind(nr.Mode) + ", not a regular file"
	case errors.As(err, &st):
		return fmt.Sprintf("gave nothing to read within %v: a pseudo-file (such as /proc/kmsg), not a file's contents", ReadWait)
	case errors.As(err, &pe):
		return pe.Err.Error()
	}
	return err.Error()
}

// ReadError is err, from reading path opened by OpenRegular, as a
// *StalledError when the read waited ReadWait for nothing.
func ReadError(path string, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &StalledError{Path: path}
	}
	return err
}
