package runtime

import (
	"time"

	"golang.org/x/sys/unix"
)

// GitScanSlack is how much earlier than Invocation.GitScanSince a file's
// status change must lie for the post-command scan to take it as one
// that existed at compile time: the kernel stamps files from a coarse
// clock that may lag the one the compiler read by a tick, and a command
// cannot run before its invocation is compiled.
const GitScanSlack = time.Second

// changed reports whether a command of this invocation could have
// written or put in place what is at p: true unless both p and, when p
// is a symlink, the file it leads to have a status-change time (ctime)
// older than the compile (Invocation.GitScanSince less GitScanSlack).
// Every write, chmod, rename, link or replacement sets an inode's ctime
// to the kernel's clock, which no unprivileged command can set back
// (utimensat sets mtime and atime, never ctime); a file copied or
// unpacked with its old times keeps only its old mtime. Without a
// compile time (an older invocation), when p cannot be looked at, or
// while the scan looks at what a pointer the command wrote leads to
// (gitScan.distrust), everything counts as changed.
func (s *gitScan) changed(p string) bool {
	if s.since <= 0 || s.distrust > 0 {
		return true
	}
	limit := s.since - int64(GitScanSlack)
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil || st.Ctim.Nano() >= limit {
		return true
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		return false
	}
	if err := unix.Stat(p, &st); err != nil || st.Ctim.Nano() >= limit {
		return true
	}
	return false
}

// created reports whether what is at p (not followed) was created since
// the compile: its birth time (statx) is not older than
// Invocation.GitScanSince less GitScanSlack, or, on a filesystem that
// keeps none, its ctime is not. A directory that existed when compiling
// keeps its birth time through every write below it and every rename,
// so a command can add none of those: their number is the compile's.
// Without a compile time, or when p cannot be looked at, everything
// counts as created.
func (s *gitScan) created(p string) bool {
	if s.since <= 0 {
		return true
	}
	limit := s.since - int64(GitScanSlack)
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME|unix.STATX_CTIME, &st); err != nil {
		return true
	}
	t := st.Ctime
	if st.Mask&unix.STATX_BTIME != 0 {
		t = st.Btime
	}
	return t.Sec*int64(time.Second)+int64(t.Nsec) >= limit
}

// distrustIf, when cond holds, makes changed report true until the
// returned function runs (gitScan.distrust): what a pointer the command
// wrote leads to, or a directory renamed into place holds, is judged as
// the command's whatever its files' own times. Use as
// defer s.distrustIf(cond)().
func (s *gitScan) distrustIf(cond bool) (undo func()) {
	if !cond {
		return func() {}
	}
	s.distrust++
	return func() { s.distrust-- }
}
