package compiler

import (
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// TestCredentialVarsAreStripped: every variable whose path H7 hides is
// also removed from the command's environment by default (H5), so the
// command is not told where the hidden credential was.
func TestCredentialVarsAreStripped(t *testing.T) {
	patterns, allow := envPolicy(&settings.Settings{})
	// The S4 names are removed by name (the profile's unset_env).
	s4 := []string{"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS"}
	env := invocation.Env{Unset: s4, UnsetPatterns: patterns, Allow: allow}
	for _, cv := range secrets.CredentialVars {
		if !envRemoves(env, cv.Name) {
			t.Errorf("%s names a credential location (H7) but is not stripped (secrets.SecretName)", cv.Name)
		}
	}
	for _, kept := range []string{"PATH", "HOME", "SSL_CERT_FILE", "AWS_REGION", "LANG"} {
		if envRemoves(env, kept) {
			t.Errorf("%s is stripped", kept)
		}
	}
}
