package compiler

import (
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// The secret names and values stripped by default (H5) are built into
// the runtime (secrets.SecretName, secrets.SecretValue), so every
// invocation gets them whatever its profile; the invocation carries only
// the settings' additions: env.strip patterns and env.allow names.

// envPolicy returns the env.strip patterns and env.allow names of the
// settings.
func envPolicy(s *settings.Settings) (patterns, allow []string) {
	if s.Env != nil {
		patterns = append(patterns, s.Env.Strip...)
		allow = append(allow, s.Env.Allow...)
	}
	return sortedUnique(patterns), sortedUnique(allow)
}

// strippedNames returns what env removes of the compiling environment,
// sorted: each name, with "(value: KIND)" when the value alone made it go
// (valueKinds: the kind of credential each value looked like,
// secrets.SecretValue). Names and kinds only, never a value.
func strippedNames(env invocation.Env, names []string, valueKinds map[string]string) []string {
	var out []string
	for _, n := range names {
		switch {
		case envRemoves(env, n):
			out = append(out, n)
		case valueKinds[n] != "" && !allowed(env, n):
			out = append(out, n+" (value: "+valueKinds[n]+")")
		}
	}
	sort.Strings(out)
	return out
}

// envRemoves tells whether the runtime (secrets.BuildEnv) removes name
// whatever its value.
func envRemoves(env invocation.Env, name string) bool {
	kept := secrets.BuildEnv([]string{name + "="}, secrets.EnvPolicy{Unset: env.Unset, UnsetPatterns: env.UnsetPatterns, Allow: env.Allow})
	return len(kept) == 0
}

// allowed: env.allow names name (without regard to case, as the runtime
// compares).
func allowed(env invocation.Env, name string) bool {
	for _, a := range env.Allow {
		if strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}
