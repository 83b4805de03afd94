package scan

import "github.com/bwpolicy/bwpolicy/hazard/git"

// pointerThroughProc sets aside ptr, a git pointer a command could have
// written, when what it leads to (target, as git would resolve it) goes
// through /proc or /dev/fd (git.ProcDependent). It reports whether the
// pointer is such a one (set aside or not: the caller stops there).
func (s *gitScan) pointerThroughProc(ptr, target string) bool {
	if !git.ProcDependent(target) {
		return false
	}
	if s.writable(ptr) && s.changed(ptr) {
		s.setAside(ptr, "a git pointer through /proc or /dev/fd, which leads where the git that reads it runs")
	}
	return true
}
