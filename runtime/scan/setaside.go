package scan

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"

	"github.com/bwpolicy/bwpolicy/hazard/startup"
	"golang.org/x/sys/unix"
)

// setAside renames p next to itself with a ".bwpolicy-set-aside-<time>"
// suffix (H9), never deleting it and never following a symlink: the
// parent is opened with RESOLVE_NO_SYMLINKS (or, past a symlink in the
// parent, at its resolved place with O_NOFOLLOW) as an O_PATH
// descriptor, and the entry is renamed within it with RENAME_NOREPLACE,
// so whatever is at that name now (the sandbox is dead; another one of
// the same invocation may still run) is moved, not what it points to. It
// returns the path set aside, "" when it could not (the invocation is
// then stale, with a warning).
func (s *gitScan) setAside(p, why string) string { return s.setAsideWarn(p, why, true) }

// setAsideWarn is setAside, with the warning left to the caller when
// warn is false (what the scan's bounds set aside in bulk is summed up
// in one: pastBound).
func (s *gitScan) setAsideWarn(p, why string, warn bool) string {
	if s.record {
		// Before the first command that can write it, what is there is
		// the user's: recorded, left in place.
		s.note(p)
		s.moved[p] = true
		return ""
	}
	t := p
	if !s.writableLexical(t) && !s.earlierWritable(t) {
		r, err := filepath.EvalSymlinks(p)
		if err != nil || !s.writableLexical(r) && !s.earlierWritable(r) {
			return ""
		}
		t = r
	}
	if s.moved[t] {
		return t
	}
	dir, name := path.Split(t)
	as, err := renameAside(dir, name, s.stamp)
	if err != nil {
		s.stale(t, fmt.Sprintf("could not set aside %s, %s that runs later without being asked (H9): %v; remove it before running git or the tool that reads it there", t, why, err))
		return ""
	}
	s.moved[t] = true
	full := path.Join(dir, as)
	s.rep.SetAside = append(s.rep.SetAside, SetAside{Path: t, As: full, Why: why})
	s.rep.StalePaths = append(s.rep.StalePaths, t)
	if !warn {
		return t
	}
	s.rep.Warnings = append(s.rep.Warnings, fmt.Sprintf("the command left %s at %s, which runs later without being asked (H9): set aside as %s; review it before you restore it", why, t, full))
	return t
}

// setAsideSuffix is what a set-aside name ends with, before its time.
const setAsideSuffix = startup.SetAsideSuffix

func renameAside(dir, name, stamp string) (string, error) {
	dir = path.Clean(dir)
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{
		Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	if err != nil {
		// Old kernels (no openat2), or a symlink among the parents:
		// open the resolved directory, not following its last component.
		r, rerr := filepath.EvalSymlinks(dir)
		if rerr != nil {
			return "", rerr
		}
		if fd, err = unix.Open(r, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
			return "", err
		}
	}
	defer unix.Close(fd)
	base := name + setAsideSuffix + stamp
	for i := 1; i <= 20; i++ {
		as := base
		if i > 1 {
			as = fmt.Sprintf("%s-%d", base, i)
		}
		err := unix.Renameat2(fd, name, fd, as, unix.RENAME_NOREPLACE)
		if err == nil {
			return as, nil
		}
		if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
			// A filesystem without RENAME_NOREPLACE: check, then rename.
			var st unix.Stat_t
			if unix.Fstatat(fd, as, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				continue
			}
			if err = unix.Renameat(fd, name, fd, as); err == nil {
				return as, nil
			}
		}
		if !errors.Is(err, unix.EEXIST) {
			return "", err
		}
	}
	return "", errors.New("too many set-aside copies of the same name")
}
