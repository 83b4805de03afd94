package git

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxFile bounds a configuration, gitdir, commondir or to-do file read
// (git's own bound for a .git file is 1 MiB).
const MaxFile = 1 << 20

// ErrTooLarge is ReadSmall's error for a file larger than MaxFile.
var ErrTooLarge = fmt.Errorf("larger than %d bytes", MaxFile)

// ErrNotRegular is ReadSmall's error for a path that leads to something
// other than a regular file (a FIFO, a device, a directory).
var ErrNotRegular = errors.New("not a regular file")

// ReadSmall reads the regular file at p (following symlinks, as git
// does), at most MaxFile bytes: it stats first so a device is never
// opened, opens with O_NONBLOCK (a FIFO swapped in between does not
// block) and checks the opened file again.
func ReadSmall(p string) ([]byte, error) {
	if st, err := os.Stat(p); err != nil {
		return nil, err
	} else if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: ErrNotRegular}
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: ErrNotRegular}
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFile {
		return nil, ErrTooLarge
	}
	return b, nil
}
