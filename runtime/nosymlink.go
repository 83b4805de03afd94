package runtime

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrSymlinkInPath is OpenNoSymlinks' error for a path with a symbolic
// link (or "..") in any component.
var ErrSymlinkInPath = errors.New("a symbolic link or \"..\" in its path: name the file by its real path")

// OpenNoSymlinks opens p (flags and mode as open(2)) without following
// a symbolic link in any component: with openat2's RESOLVE_NO_SYMLINKS,
// or, on kernels without openat2, one component at a time with
// O_NOFOLLOW. A ".." component is refused too, so the path named is the
// path opened: a check of the directories above the file (checkLocation)
// then covers every component a caller wrote. bwrun opens what its
// caller names (the invocation, --status-file) so: a command that can
// write a directory on the way cannot re-point it (issue 26).
func OpenNoSymlinks(p string, flags int, mode uint32) (int, error) {
	if p == "" {
		return -1, unix.ENOENT
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return -1, ErrSymlinkInPath
		}
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode),
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, unix.ELOOP):
		return -1, ErrSymlinkInPath
	case !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM):
		return -1, err
	}
	return openComponentwise(p, flags, mode)
}

// openComponentwise is OpenNoSymlinks without openat2.
func openComponentwise(p string, flags int, mode uint32) (int, error) {
	start := "."
	if strings.HasPrefix(p, "/") {
		start = "/"
	}
	dfd, err := unix.Open(start, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var parts []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		unix.Close(dfd)
		return -1, fmt.Errorf("%s: not a file", p)
	}
	for _, c := range parts[:len(parts)-1] {
		next, err := unix.Openat(dfd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			// O_PATH|O_DIRECTORY|O_NOFOLLOW fails with ENOTDIR on a link.
			var st unix.Stat_t
			link := unix.Fstatat(dfd, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
			unix.Close(dfd)
			if link || errors.Is(err, unix.ELOOP) {
				return -1, ErrSymlinkInPath
			}
			return -1, err
		}
		unix.Close(dfd)
		dfd = next
	}
	fd, err := unix.Openat(dfd, parts[len(parts)-1], flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	unix.Close(dfd)
	if errors.Is(err, unix.ELOOP) {
		return -1, ErrSymlinkInPath
	}
	return fd, err
}
