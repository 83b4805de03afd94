package secrets

import (
	"path"
	"sort"
	"strings"
)

// EnvPolicy is the environment policy FilterEnv applies: the names
// removed, the name patterns removed, the names kept although a rule
// matches them, and the variables set (the invocation's env section).
type EnvPolicy struct {
	Unset, UnsetPatterns, Allow []string
	Set                         map[string]string
}

// BuildEnv applies the environment policy e to environ (NAME=value
// entries, as from os.Environ); see FilterEnv.
func BuildEnv(environ []string, e EnvPolicy) []string {
	out, _ := FilterEnv(environ, e)
	return out
}

// Stripped is a variable FilterEnv removed because of its value (H5):
// its name and the kind of credential the value looked like, never the
// value.
type Stripped struct {
	Name string
	What string
}

// FilterEnv applies the environment policy e to environ: it drops every
// variable named in e.Unset; then, unless the name is in e.Allow
// (compared without regard to case), every variable whose name looks
// like a secret (SecretName), matches one of e.UnsetPatterns (path.Match
// syntax, without regard to case) or whose value looks like a credential
// (SecretValue); then sets e.Set (replacing earlier values; added in
// name order). The relative order of the surviving variables is kept.
// byValue lists the variables removed for their value alone, in the
// order of environ.
func FilterEnv(environ []string, e EnvPolicy) (out []string, byValue []Stripped) {
	unset := make(map[string]bool, len(e.Unset)+len(e.Set))
	for _, n := range e.Unset {
		unset[n] = true
	}
	for n := range e.Set {
		unset[n] = true // replaced below
	}
	allow := make(map[string]bool, len(e.Allow))
	for _, n := range e.Allow {
		allow[UpperName(n)] = true
	}
	patterns := make([]string, len(e.UnsetPatterns))
	for i, p := range e.UnsetPatterns {
		patterns[i] = UpperName(p)
	}
	out = make([]string, 0, len(environ)+len(e.Set))
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if unset[name] {
			continue
		}
		if upper := UpperName(name); !allow[upper] {
			if SecretName(name) || matchesAny(patterns, upper) {
				continue
			}
			if what, ok := SecretValue(value); ok {
				byValue = append(byValue, Stripped{name, what})
				continue
			}
		}
		out = append(out, kv)
	}
	names := make([]string, 0, len(e.Set))
	for n := range e.Set {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		out = append(out, n+"="+e.Set[n])
	}
	return out, byValue
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if matchName(p, name) {
			return true
		}
	}
	return false
}

// matchName is path.Match for one environment variable name. A pattern
// whose only wildcard is "*" (all of the secret patterns) is matched by
// prefix, suffix and in-order pieces, without path.Match's backtracking,
// which cost ~0.5 ms per command for a typical environment.
func matchName(pattern, name string) bool {
	if strings.ContainsAny(pattern, "?[\\") || strings.Contains(name, "/") {
		ok, err := path.Match(pattern, name)
		return err == nil && ok
	}
	pieces := strings.Split(pattern, "*")
	if len(pieces) == 1 {
		return pattern == name
	}
	first, last := pieces[0], pieces[len(pieces)-1]
	if len(name) < len(first)+len(last) || !strings.HasPrefix(name, first) || !strings.HasSuffix(name, last) {
		return false
	}
	mid := name[len(first) : len(name)-len(last)]
	for _, piece := range pieces[1 : len(pieces)-1] {
		i := strings.Index(mid, piece)
		if i < 0 {
			return false
		}
		mid = mid[i+len(piece):]
	}
	return true
}
