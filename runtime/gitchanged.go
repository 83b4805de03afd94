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
// compile time (an older invocation), or when p cannot be looked at,
// everything counts as changed.
func (s *gitScan) changed(p string) bool {
	if s.since <= 0 {
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
