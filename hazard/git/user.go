package git

import (
	"bufio"
	"bytes"
	"strings"
)

// UserPath expands a leading "~" of a path-valued git setting
// (core.hooksPath, include.path, includeIf.*.path) as git's
// interpolate_path (path.c) does: "~" and "~/REST" are home, "~NAME"
// and "~NAME/REST" the home directory lookup returns for NAME (git asks
// getpwnam). ok is false when git cannot expand it ("~" with no home,
// NAME unknown): git then dies on that core.hooksPath ("failed to
// expand user dir") and on a configuration that includes it ("could not
// expand include path"), so it runs nothing from there. A value without
// a leading "~" is returned as it is.
func UserPath(v, home string, lookup func(name string) (string, bool)) (string, bool) {
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

// PasswdFile is the password database PasswdHome reads.
var PasswdFile = "/etc/passwd"

// PasswdHome returns the home directory of the user name in
// /etc/passwd, as getpwnam finds it on a host without other name
// services (bwrun stays free of cgo, so it reads the file as os/user
// does without cgo). A user only a network service (LDAP, sssd) knows
// is not found here: the post-command scan then reports the path it could not
// resolve, the invocation stale.
func PasswdHome(name string) (string, bool) {
	b, err := ReadSmall(PasswdFile)
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
