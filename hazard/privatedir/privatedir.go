// Package privatedir creates the private directories of a sandbox (its
// state and scratch directories below HERMES_HOME) without following a
// symlink a command or another user planted on the way (Make), and opens
// one component at a time so (OpenNoFollow). The compile (facts) makes
// them; bwrun re-creates a pruned scratch directory with OpenNoFollow.
// Standard library and golang.org/x/sys only.
package privatedir

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// Make creates dir and the missing directories between base
// and it (mode 0700), never through a symlink: base is opened as given
// (the operator's HERMES_HOME may be a link), every component below it
// with O_NOFOLLOW, so a link planted in a shared directory (the scratch
// root) fails instead of redirecting the directory elsewhere. dir itself
// ends with mode 0700 and must belong to this user.
func Make(base, dir string) error {
	rel, ok := strings.CutPrefix(path.Clean(dir), path.Clean(base)+"/")
	if !ok || rel == "" {
		return fmt.Errorf("%s does not lie below %s", dir, base)
	}
	fd, err := unix.Open(base, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", base, err)
	}
	names := strings.Split(rel, "/")
	for _, n := range names {
		if n == "." || n == ".." {
			unix.Close(fd)
			return fmt.Errorf("%s: bad path component %q", dir, n)
		}
		next, err := OpenNoFollow(fd, n, true)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		fd = next
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if int(st.Uid) != unix.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to this user (%d)", dir, st.Uid, unix.Getuid())
	}
	if st.Mode&0o777 != 0o700 {
		if err := unix.Fchmod(fd, 0o700); err != nil {
			return fmt.Errorf("chmod %s: %w", dir, err)
		}
	}
	return nil
}

// OpenNoFollow opens directory name in dirfd without following a
// symlink, creating it (0700) first when create is set and it is absent.
func OpenNoFollow(dirfd int, name string, create bool) (int, error) {
	if create {
		if err := unix.Mkdirat(dirfd, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, fmt.Errorf("mkdir %s: %w", name, err)
		}
	}
	fd, err := unix.Openat(dirfd, name, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		return -1, fmt.Errorf("%s is not a directory (a symlink or a file): refusing to use it", name)
	}
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", name, err)
	}
	return fd, nil
}
