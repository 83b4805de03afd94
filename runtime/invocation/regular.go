package invocation

// Regular files: settings and invocations are read only from regular
// files, opened without ever blocking on a named pipe or a device.

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
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
// what was checked.
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
	return f, nil
}
