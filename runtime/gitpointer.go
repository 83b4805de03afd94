package runtime

import (
	"os"
	"path"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// maxPointerHops bounds the symlinks procDependent follows (the
// kernel's own bound is 40).
const maxPointerHops = 40

// procDependent reports whether the absolute path p, resolved as the
// kernel does (symlinks as they come, ".." after them), passes through
// /proc or /dev/fd (/proc/self/cwd, /dev/fd/N, /dev/stdin): what such a
// path leads to depends on the process that resolves it, so bwrun's
// resolution says nothing of where a later host git, in another
// working directory, lands. The scan sets aside a git pointer (a .git
// file or symlink, a commondir) a command wrote that leads there.
func procDependent(p string) bool {
	rest := strings.Split(p, "/")
	cur, hops := "/", 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		if procPath(next) {
			return true
		}
		fi, err := os.Lstat(next)
		if err != nil {
			return false
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		t, err := os.Readlink(next)
		if hops++; err != nil || hops > maxPointerHops {
			return false
		}
		if path.IsAbs(t) {
			cur = "/"
		}
		rest = append(strings.Split(t, "/"), rest...)
	}
	return false
}

func procPath(p string) bool {
	return invocation.Within(p, "/proc") || invocation.Within(p, "/dev/fd") || strings.HasPrefix(p, "/dev/std")
}

// pointerThroughProc sets aside ptr, a git pointer a command could have
// written, when what it leads to (target, as git would resolve it) goes
// through /proc or /dev/fd (procDependent). It reports whether the
// pointer is such a one (set aside or not: the caller stops there).
func (s *gitScan) pointerThroughProc(ptr, target string) bool {
	if !procDependent(target) {
		return false
	}
	if s.writable(ptr) && s.changed(ptr) {
		s.setAside(ptr, "a git pointer through /proc or /dev/fd, which leads where the git that reads it runs")
	}
	return true
}
