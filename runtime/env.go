package runtime

import (
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// filterEnvWarn is secrets.FilterEnv for Run: it says once, through warn, which
// variables were removed for their value (a proxy URL with a password,
// say, which a user behind that proxy needs to know about).
func filterEnvWarn(environ []string, e invocation.Env, warn func(string)) []string {
	out, byValue := secrets.FilterEnv(environ, envPolicy(e))
	if len(byValue) > 0 {
		parts := make([]string, len(byValue))
		for i, s := range byValue {
			parts[i] = s.Name + " (" + s.What + ")"
		}
		warn("removed from the command's environment because the value looks like a credential (H5): " +
			strings.Join(parts, ", ") + "; keep one with env.allow")
	}
	return out
}

// envPolicy is the invocation's environment section as the policy
// secrets.FilterEnv applies.
func envPolicy(e invocation.Env) secrets.EnvPolicy {
	return secrets.EnvPolicy{Unset: e.Unset, UnsetPatterns: e.UnsetPatterns, Allow: e.Allow, Set: e.Set}
}
