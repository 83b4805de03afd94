package scan

import (
	"fmt"

	"github.com/bwpolicy/bwpolicy/hazard/git"
)

// userPath resolves a path-valued setting v of git's (what names it,
// at is the file or git directory it applies to) as git does: a leading
// "~" expanded (git.UserPath, NAME looked up in /etc/passwd), then
// relative to dir, physically. A "~NAME" the scan cannot resolve
// returns "" and leaves the invocation stale (at) with a warning: git dies on a name getpwnam does not know, but a network
// name service may know one /etc/passwd does not, and what it leads to
// is then unchecked.
func (s *gitScan) userPath(dir, v, what, at string) string {
	x, ok := git.UserPath(v, s.home, git.PasswdHome)
	if !ok {
		s.stale(at, fmt.Sprintf("the git scan could not resolve %q (%s; not in %s) (H9): git dies on a user it does not know, but if a name service knows this one, what it names was not checked; review before running git there", v, what, git.PasswdFile))
		return ""
	}
	return joinPhysical(dir, x)
}
