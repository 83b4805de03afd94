package runtime

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// GitUserPath expands a leading "~" of a path-valued git setting
// (core.hooksPath, include.path, includeIf.*.path) as git's
// interpolate_path (path.c) does: "~" and "~/REST" are home, "~NAME"
// and "~NAME/REST" the home directory lookup returns for NAME (git asks
// getpwnam). ok is false when git cannot expand it ("~" with no home,
// NAME unknown): git then dies on that core.hooksPath ("failed to
// expand user dir") and on a configuration that includes it ("could not
// expand include path"), so it runs nothing from there. A value without
// a leading "~" is returned as it is.
func GitUserPath(v, home string, lookup func(name string) (string, bool)) (string, bool) {
	if !strings.HasPrefix(v, "~") {
		return v, true
	}
	name, rest := v[1:], ""
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name, rest = name[:i], name[i:]
	}
	dir := home
	if name != "" {
		d, ok := lookup(name)
		if !ok {
			return "", false
		}
		dir = d
	}
	if dir == "" {
		return "", false
	}
	return dir + rest, true
}

// passwdFile is the password database PasswdHome reads.
var passwdFile = "/etc/passwd"

// PasswdHome returns the home directory of the user name in
// /etc/passwd, as getpwnam finds it on a host without other name
// services (bwrun stays free of cgo, so it reads the file as os/user
// does without cgo). A user only a network service (LDAP, sssd) knows
// is not found here: ScanGit then reports the path it could not
// resolve, the invocation stale.
func PasswdHome(name string) (string, bool) {
	b, err := readSmall(passwdFile)
	if err != nil || name == "" {
		return "", false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), len(b)+1)
	for sc.Scan() {
		f := strings.Split(sc.Text(), ":")
		if len(f) >= 7 && f[0] == name {
			return f[5], true
		}
	}
	return "", false
}

// userPath resolves a path-valued setting v of git's (what names it,
// at is the file or git directory it applies to) as git does: a leading
// "~" expanded (GitUserPath, NAME looked up in /etc/passwd), then
// relative to dir, physically. A "~NAME" the scan cannot resolve
// returns "" and leaves the invocation stale (at) with a warning: git dies on a name getpwnam does not know, but a network
// name service may know one /etc/passwd does not, and what it leads to
// is then unchecked.
func (s *gitScan) userPath(dir, v, what, at string) string {
	x, ok := GitUserPath(v, s.home, PasswdHome)
	if !ok {
		s.stale(at, fmt.Sprintf("the git scan could not resolve %q (%s; not in %s) (H9): git dies on a user it does not know, but if a name service knows this one, what it names was not checked; review before running git there", v, what, passwdFile))
		return ""
	}
	return joinPhysical(dir, x)
}
