package verify

import (
	"path"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// maxLinks bounds symlink resolution, as the kernel does (ELOOP).
const maxLinks = 40

// recorded is the host state an invocation was compiled under: its
// preconditions, by path. It is the verifier's only view of the host.
type recorded map[string]invocation.Precondition

// onePerPath returns inv with its preconditions one row per path
// (names rows expanded, invocation.Expanded): the checks read them by
// path.
func onePerPath(inv *invocation.Invocation) *invocation.Invocation {
	if ex := invocation.Expanded(inv.Preconditions); len(ex) != len(inv.Preconditions) {
		cp := *inv
		cp.Preconditions = ex
		return &cp
	}
	return inv
}

func newRecorded(inv *invocation.Invocation) recorded {
	r := make(recorded, len(inv.Preconditions))
	for _, p := range inv.Preconditions {
		r[p.Path] = p
	}
	return r
}

// resolve follows the recorded symlinks of p, component by component, as
// the kernel would. It returns the resolved path and the recorded kind
// there: runtime.KindAbsent when a component is recorded absent (or
// denied: nothing can be reached through it), "" when
// the host state there was not recorded. ok is false on a symlink loop.
func (r recorded) resolve(p string) (real, kind string, ok bool) {
	links := 0
	rest := splitPath(p)
	cur := "/"
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, name)
		pc, known := r[next]
		switch {
		case known && pc.Kind == invocation.KindSymlink:
			links++
			if links > maxLinks {
				return p, "", false
			}
			t := pc.Target
			if !path.IsAbs(t) {
				t = path.Join(cur, t)
			}
			rest = append(splitPath(path.Clean(t)), rest...)
			cur = "/"
		case known && invocation.Missing(pc.Kind):
			return path.Join(append([]string{next}, rest...)...), invocation.KindAbsent, true
		default:
			cur = next
		}
	}
	if pc, known := r[cur]; known {
		return cur, pc.Kind, true
	}
	return cur, "", true
}

func splitPath(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

// secret is one host path that must not be visible in the sandbox.
type secret struct {
	// Host is the path on the host, every recorded symlink resolved.
	Host string
	// Entry is how it was named (the precondition or the hidden list).
	Entry string
	// Why is the property that hides it.
	Why string
}

func (s secret) describe() string {
	if s.Entry != s.Host {
		return s.Entry + " (" + s.Why + ", resolved to " + s.Host + ")"
	}
	return s.Host + " (" + s.Why + ")"
}

// secrets returns the host paths the invocation must keep out of sight:
// every recorded candidate hidden path that existed (a symlink counts at
// its resolved target; a dangling one hides nothing), and every path of
// the invocation's own hidden list.
func (r recorded) secrets(inv *invocation.Invocation) []secret {
	at := map[string]int{}
	var out []secret
	add := func(s secret) {
		i, seen := at[s.Host]
		switch {
		case !seen:
			at[s.Host] = len(out)
			out = append(out, s)
		case out[i].Entry == out[i].Host && s.Entry != s.Host:
			// Name the secret by the entry that led to it (a symlink).
			out[i] = s
		}
	}
	for _, p := range inv.Preconditions {
		if !p.Hides() || invocation.Missing(p.Kind) {
			continue
		}
		real, kind, ok := r.resolve(p.Path)
		if !ok {
			// A symlink loop: nothing can be reached through it, but the
			// entry itself is still expected to be masked.
			real = p.Path
		} else if kind == invocation.KindAbsent {
			continue
		}
		add(secret{Host: real, Entry: p.Path, Why: p.WhyString()})
	}
	for _, h := range inv.Hidden {
		add(secret{Host: h, Entry: h, Why: "hidden"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}
