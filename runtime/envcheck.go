package runtime

// This file re-checks, before each command, the host variables the
// compile read.

import (
	"fmt"
	"sort"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// CheckCheckedEnv refuses (with a *StaleError) an environment in which a
// variable of inv.Env.Checked has another value than when compiling
// (invocation.EnvDigest): the compile found the paths to hide and to
// protect through these variables (a credential file, a moved
// configuration directory, a start-up file), so with another value the
// invocation protects the wrong places. Every variable the invocation
// lists is checked, whichever protection read it.
func CheckCheckedEnv(inv *invocation.Invocation, lookup func(string) (string, bool)) error {
	names := make([]string, 0, len(inv.Env.Checked))
	for name := range inv.Env.Checked {
		names = append(names, name)
	}
	sort.Strings(names)
	var bad []Mismatch
	for _, name := range names {
		val, _ := lookup(name)
		if invocation.EnvDigest(val) == inv.Env.Checked[name] {
			continue
		}
		now := "set to another value"
		switch {
		case val == "":
			now = "unset now"
		case inv.Env.Checked[name] == "":
			now = "set now, unset when compiling"
		}
		bad = append(bad, Mismatch{EnvVar: name, Note: fmt.Sprintf(
			"$%s is %s: the compile found what to hide and protect through it (recompile in this environment)", name, now)})
	}
	if len(bad) > 0 {
		return &StaleError{Mismatches: bad}
	}
	return nil
}
