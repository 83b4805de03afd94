package compiler

import (
	"sort"

	"github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/settings"
)

// SecretPatterns are the names (path.Match patterns) of environment
// variables stripped by default (H5): API keys, tokens, secrets,
// passwords and cloud credentials. They match by suffix rather than by
// vendor prefix, so AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN go while
// AWS_CA_BUNDLE and AWS_REGION stay. `env.allow` keeps a variable anyway;
// `env.strip` adds patterns.
var SecretPatterns = []string{
	"*_API_KEY", "*_APIKEY", "*_ACCESS_KEY", "*_ACCESS_KEY_ID", "*_SECRET", "*_SECRET_*", "*_SECRET_KEY",
	"*_TOKEN", "*_TOKEN_*", "*_PASSWORD", "*_PASSWD", "*_PASS", "*_PRIVATE_KEY", "*_CREDENTIALS",
	"*_COOKIE", "*_DSN", "*_CONNECTION_STRING", "*_DATABASE_URL", "DATABASE_URL",
	"GOOGLE_APPLICATION_CREDENTIALS", "KUBECONFIG", "DOCKER_AUTH_CONFIG", "GH_ENTERPRISE_TOKEN",
	// H7: the variables that say where credentials live (the paths
	// they name are hidden too; runtime.CredentialVars).
	"GNUPGHOME", "PASSWORD_STORE_DIR", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
	"AWS_WEB_IDENTITY_TOKEN_FILE", "AZURE_CONFIG_DIR", "AZURE_FEDERATED_TOKEN_FILE", "CLOUDSDK_CONFIG",
	"DOCKER_CONFIG", "GH_CONFIG_DIR", "NETRC", "NPM_CONFIG_USERCONFIG", "npm_config_userconfig",
	"TF_CLI_CONFIG_FILE", "SOPS_AGE_KEY_FILE", "KRB5CCNAME", "XDG_RUNTIME_DIR", "XAUTHORITY", "REGISTRY_AUTH_FILE",
}

// envPolicy returns the patterns and allow list of the settings.
func envPolicy(s *settings.Settings) (patterns, allow []string) {
	patterns = append(patterns, SecretPatterns...)
	if s.Env != nil {
		patterns = append(patterns, s.Env.Strip...)
		allow = append(allow, s.Env.Allow...)
	}
	return sortedUnique(patterns), sortedUnique(allow)
}

// strippedNames returns the names of names that env removes, sorted:
// the names only, never a value.
func strippedNames(env runtime.Env, names []string) []string {
	var out []string
	for _, n := range names {
		if envRemoves(env, n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// envRemoves tells whether the runtime (runtime.BuildEnv) removes name.
func envRemoves(env runtime.Env, name string) bool {
	kept := runtime.BuildEnv([]string{name + "="}, runtime.Env{Unset: env.Unset, UnsetPatterns: env.UnsetPatterns, Allow: env.Allow})
	return len(kept) == 0
}
