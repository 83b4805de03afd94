package ledger

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// readOwn reads the file at p, at most limit bytes, without following a
// symlink at its last component: it must be a regular file of the
// caller's (or root's) with one link, writable by nobody else, as the
// invocation beside it (runtime.LoadTrusted checks that directory).
func readOwn(p string, limit int64) ([]byte, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: p, Err: err}
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if err := checkOwn(fd, p); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", p, limit)
	}
	return b, nil
}

// checkOwn checks the open file fd (named p): a regular file of the
// caller's or root's, one link, not writable by group or others.
func checkOwn(fd int, p string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	uid := uint32(os.Geteuid())
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%s is not a regular file", p)
	case st.Uid != uid && st.Uid != 0:
		return fmt.Errorf("%s is owned by uid %d, neither the caller (uid %d) nor root", p, st.Uid, uid)
	case st.Mode&0o022 != 0:
		return fmt.Errorf("%s is writable by group or others (mode %#o)", p, st.Mode&0o7777)
	case st.Nlink != 1:
		return fmt.Errorf("%s has %d hard links", p, st.Nlink)
	}
	return nil
}

// writeAtomic writes data to a new temporary file beside p and renames
// it onto p (mode 0600): a reader sees the old file or the new one.
func writeAtomic(p string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(name, p)
}
