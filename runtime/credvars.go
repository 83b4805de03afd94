package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// CheckCredentialEnv refuses (with a *StaleError) an environment in which
// a credential variable (or an XDG base variable, see secrets.MovedDir) names a
// path that inv does not account for (H7):
// each path must be one the variable named when compiling (hidden, or
// left visible with a warning then), lie inside a path inv hides, lie in
// what the sandbox replaces (its own /proc and /dev; the fresh /tmp
// unless a bind takes its source from there), or not exist (one lstat). Without this, a new agent
// socket or GNUPGHOME in this environment would be reachable although the
// variable itself is removed. lookup is os.LookupEnv in the runtime.
func CheckCredentialEnv(inv *invocation.Invocation, lookup func(string) (string, bool)) error {
	var bad []Mismatch
	for _, cv := range secrets.CredentialVars {
		val, ok := lookup(cv.Name)
		if !ok || val == "" {
			continue
		}
		for _, p := range secrets.CredentialPaths(cv, val) {
			if !credentialPathCovered(inv, cv.Name, p) {
				bad = append(bad, Mismatch{EnvVar: cv.Name, EnvPath: p})
			}
		}
	}
	for _, x := range secrets.MovedDirs {
		val, ok := lookup(x.Name)
		if !ok || !path.IsAbs(val) { // a relative value is invalid: tools ignore it
			continue
		}
		p := path.Clean(val)
		if home, ok := lookup("HOME"); ok && p == path.Join(home, x.Default) {
			continue // the default place: the deny lists cover it
		}
		if !credentialPathCovered(inv, x.Name, p) {
			bad = append(bad, Mismatch{EnvVar: x.Name, EnvPath: p, Note: fmt.Sprintf(
				"$%s names %s, whose credential stores this invocation does not hide (H7: it was compiled with another directory there)", x.Name, p)})
		}
	}
	if len(bad) > 0 {
		return &StaleError{Mismatches: bad}
	}
	return nil
}

func credentialPathCovered(inv *invocation.Invocation, name, p string) bool {
	if slices.Contains(inv.Env.CredentialPaths[name], p) {
		return true
	}
	if !path.IsAbs(p) {
		return false
	}
	for _, h := range inv.Hidden {
		if invocation.Within(p, h) && !reexposed(inv, p, h) {
			return true
		}
	}
	if invocation.Within(p, "/proc") || invocation.Within(p, "/dev") || invocation.Within(p, "/tmp") && !bindsFrom(inv, "/tmp") {
		return true
	}
	// Nothing there now (a variable left over from an earlier session):
	// nothing to reach.
	_, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// reexposed tells whether a bind puts p back inside the masked path h
// (the S6 exceptions inside the Hermes home, a CA bundle): its
// destination lies inside h and holds p.
func reexposed(inv *invocation.Invocation, p, h string) bool {
	args := inv.Bwrap.Args
	for i := 0; i+2 < len(args); i++ {
		switch args[i] {
		case "--bind", "--ro-bind", "--bind-try", "--ro-bind-try", "--dev-bind", "--dev-bind-try":
			if dest := args[i+2]; dest != h && invocation.Within(dest, h) && invocation.Within(p, dest) {
				return true
			}
		}
	}
	return false
}

// bindsFrom tells whether a bind argument of inv takes its source from
// inside dir.
func bindsFrom(inv *invocation.Invocation, dir string) bool {
	args := inv.Bwrap.Args
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--bind", "--ro-bind", "--bind-try", "--ro-bind-try", "--dev-bind", "--dev-bind-try":
			if invocation.Within(args[i+1], dir) {
				return true
			}
		}
	}
	return false
}
