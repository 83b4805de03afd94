package verify

import (
	"slices"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// explained maps argument positions to the invocation's explain groups.
type explained struct {
	groups []invocation.Explain
	// of[i] is the group of argument i, or -1.
	of []int
}

// explainArgs matches each argument with the explain group that produced
// it. The compiler writes the groups in argument order, together exactly
// the arguments; when a (hand-edited) invocation breaks that, each
// option is matched with the first unused group holding it and its
// values.
func explainArgs(inv *invocation.Invocation) explained {
	inv = withGroupArgs(inv)
	args := inv.Bwrap.Args
	e := explained{groups: inv.Explain, of: make([]int, len(args))}
	for i := range e.of {
		e.of[i] = -1
	}
	off, aligned := 0, true
	for _, g := range inv.Explain {
		if off+len(g.Args) > len(args) || !equal(args[off:off+len(g.Args)], g.Args) {
			aligned = false
			break
		}
		off += len(g.Args)
	}
	if aligned && off == len(args) {
		off = 0
		for gi, g := range inv.Explain {
			for range g.Args {
				e.of[off] = gi
				off++
			}
		}
		return e
	}
	for i := range e.of {
		e.of[i] = -1
	}
	used := map[int]bool{}
	for i := 0; i < len(args); i++ {
		n, ok := optionArity[args[i]]
		if !ok || i+n >= len(args) {
			continue
		}
		want := args[i : i+n+1]
		gi := -1
		for k, g := range inv.Explain {
			if !used[k] && contains(g.Args, want) {
				gi = k
				break
			}
		}
		for k, g := range inv.Explain {
			if gi < 0 && contains(g.Args, want) {
				gi = k
			}
		}
		if gi >= 0 {
			used[gi] = true
			for k := i; k <= i+n; k++ {
				e.of[k] = gi
			}
		}
		i += n
	}
	return e
}

// withGroupArgs returns inv with each explain group's Args taken from
// its count (invocation.LinkExplain) where they are not set: a file
// holds counts only, and the checker reads invocations decoded without
// the runtime's decoder too.
func withGroupArgs(inv *invocation.Invocation) *invocation.Invocation {
	cp := *inv
	cp.Explain = slices.Clone(inv.Explain)
	invocation.LinkExplain(cp.Explain, inv.Bwrap.Args)
	return &cp
}

// group returns the explain group of argument i, or nil.
func (e explained) group(i int) *invocation.Explain {
	if i < 0 || i >= len(e.of) || e.of[i] < 0 {
		return nil
	}
	return &e.groups[e.of[i]]
}

// rule returns the rule of argument i's group, or "?".
func (e explained) rule(i int) invocation.Reason {
	if g := e.group(i); g != nil && g.Rule != "" {
		return g.Rule
	}
	return "?"
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// contains reports whether sub occurs in s as a contiguous run.
func contains(s, sub []string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if equal(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
