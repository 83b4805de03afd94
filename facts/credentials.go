package facts

import (
	"path"
	"strings"
)

// CredentialStores are the home entries that hold credentials beyond the
// seed's list (H7): plaintext tokens of git, the GitHub and 1Password
// CLIs, password managers and databases, agent sockets that live in the
// home directory rather than /run/user. schema/sandbox.cue lists the same
// names in #Profile.hidden_home (a test keeps the two equal), so every
// profile hides them and none can drop one.
var CredentialStores = []string{
	".1password",                // 1Password's SSH agent socket
	".bitwarden-ssh-agent.sock", // Bitwarden's SSH agent socket
	".cargo/credentials", ".cargo/credentials.toml",
	".config/Bitwarden CLI",
	".config/doctl",
	".config/gh",
	".config/git/credentials",
	".config/hub",
	".config/op",
	".config/rclone",
	".gem/credentials",
	".git-credentials",
	".local/share/keyrings",
	".my.cnf",
	".password-store",
	".pgpass",
	".s3cfg",
	".terraform.d/credentials.tfrc.json",
	".vault-token",
}

// credentialStore tells whether a hidden_home name is one of
// CredentialStores.
func credentialStore(name string) bool {
	for _, c := range CredentialStores {
		if c == name {
			return true
		}
	}
	return false
}

// CredentialVar is an environment variable that names where credentials
// live (H7): an agent socket, a key file, a credential directory.
type CredentialVar struct {
	Name string
	// Paths extracts the paths named by a value.
	Paths func(value string) []string
}

// CredentialVars are the variables whose paths are hidden at compile
// time (H7), wherever they point. compiler.SecretPatterns lists the same
// names, so the variables themselves do not reach the command either.
var CredentialVars = []CredentialVar{
	{"SSH_AUTH_SOCK", onePath},
	{"GPG_AGENT_INFO", gpgAgentInfoPath},
	{"DBUS_SESSION_BUS_ADDRESS", dbusPaths},
	{"GNUPGHOME", onePath},
	{"PASSWORD_STORE_DIR", onePath},
	{"AWS_SHARED_CREDENTIALS_FILE", onePath},
	{"AWS_CONFIG_FILE", onePath},
	{"AWS_WEB_IDENTITY_TOKEN_FILE", onePath},
	{"AZURE_CONFIG_DIR", onePath},
	{"AZURE_FEDERATED_TOKEN_FILE", onePath},
	{"CLOUDSDK_CONFIG", onePath},
	{"GOOGLE_APPLICATION_CREDENTIALS", onePath},
	{"KUBECONFIG", pathList},
	{"DOCKER_CONFIG", onePath},
	{"GH_CONFIG_DIR", onePath},
	{"NETRC", onePath},
	{"NPM_CONFIG_USERCONFIG", onePath},
	{"npm_config_userconfig", onePath},
	{"TF_CLI_CONFIG_FILE", onePath},
	{"SOPS_AGE_KEY_FILE", onePath},
	{"KRB5CCNAME", krb5Path},
}

// CredentialVarNames returns the names of CredentialVars.
func CredentialVarNames() []string {
	out := make([]string, len(CredentialVars))
	for i, v := range CredentialVars {
		out[i] = v.Name
	}
	return out
}

func onePath(v string) []string { return []string{v} }

// pathList splits a colon-separated list (KUBECONFIG).
func pathList(v string) []string { return strings.Split(v, ":") }

// gpgAgentInfoPath: "PATH:PID:PROTOCOL".
func gpgAgentInfoPath(v string) []string {
	p, _, _ := strings.Cut(v, ":")
	return []string{p}
}

// krb5Path: "FILE:PATH", "DIR:PATH" or a bare path; KEYRING:, KCM: and
// the like are not paths (and keyctl is blocked by H2 anyway).
func krb5Path(v string) []string {
	if kind, p, ok := strings.Cut(v, ":"); ok {
		if kind == "FILE" || kind == "DIR" {
			return []string{p}
		}
		return nil
	}
	return []string{v}
}

// dbusPaths takes the unix:path= entries of a D-Bus address list
// ("unix:path=/run/user/1000/bus,guid=…;unix:abstract=…"). Abstract
// sockets have no path: the network namespace (and Landlock's scoping
// under the network profile, H3) keep them out of reach.
func dbusPaths(v string) []string {
	var out []string
	for _, addr := range strings.Split(v, ";") {
		transport, params, ok := strings.Cut(addr, ":")
		if !ok || transport != "unix" {
			continue
		}
		for _, kv := range strings.Split(params, ",") {
			if k, val, ok := strings.Cut(kv, "="); ok && k == "path" {
				out = append(out, dbusUnescape(val))
			}
		}
	}
	return out
}

// dbusUnescape undoes the %XX escaping of D-Bus address values.
func dbusUnescape(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if h, ok := unhex(s[i+1]); ok {
				if l, ok := unhex(s[i+2]); ok {
					b.WriteByte(h<<4 | l)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// EnvSkip is a path a credential variable names that is not hidden (H7),
// and why.
type EnvSkip struct {
	Var    string `json:"var"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// envCredentials describes the paths the credential variables of h name
// (H7). Paths that are already unreachable (under /tmp, /proc, /dev or
// /run/user/<uid>, or inside another hidden path) are left out silently;
// relative paths, and paths that are the working directory, the home
// directory or above one of them (masking them would mask the writable
// set or every dotfile), are left out and listed in skips.
func (g *gatherer) envCredentials(h *Host, f *Facts) (out []Hidden, skips []EnvSkip) {
	seen := map[string]bool{}
	for _, cv := range CredentialVars {
		val, ok := h.Env[cv.Name]
		if !ok || val == "" {
			continue
		}
		for _, p := range cv.Paths(val) {
			if p == "" {
				continue
			}
			if !path.IsAbs(p) {
				skips = append(skips, EnvSkip{cv.Name, p, "is not an absolute path"})
				continue
			}
			p = path.Clean(p)
			if alreadyUnreachable(p, f) {
				continue // not even looked at: no precondition on a path the sandbox cannot see
			}
			x := g.hidden(p, "H7")
			x.Var = cv.Name
			if seen[x.Path] {
				continue
			}
			if x.Kind != "absent" {
				if alreadyUnreachable(x.Path, f) {
					continue
				}
				switch {
				case f.Cwd.Exists && Within(f.Cwd.Real, x.Path):
					skips = append(skips, EnvSkip{cv.Name, p, "is the working directory or above it"})
					continue
				case Within(f.Home, x.Path) || Within(f.HermesHome, x.Path):
					skips = append(skips, EnvSkip{cv.Name, p, "is the home directory or above it"})
					continue
				}
			}
			seen[x.Path] = true
			out = append(out, x)
		}
	}
	return out, skips
}

// alreadyUnreachable: p lies in what the sandbox replaces anyway (a fresh
// /tmp, its own /proc and /dev, the empty /run/user/<uid>) or inside a
// path hidden already.
func alreadyUnreachable(p string, f *Facts) bool {
	for _, sys := range []string{"/tmp", "/proc", "/dev", f.RunUser.Real} {
		if sys != "" && Within(p, sys) {
			return true
		}
	}
	for _, x := range f.Hidden {
		if x.Kind != "absent" && Within(p, x.Path) {
			return true
		}
	}
	return false
}

// privilegedSockets describes PrivilegedSockets (H8), present or not (a
// socket that appears after compiling makes the invocation stale), each
// once by its resolved path.
func (g *gatherer) privilegedSockets(f *Facts) []Hidden {
	var out []Hidden
	seen := map[string]bool{}
	for _, p := range PrivilegedSockets {
		x := g.hidden(p, "H8")
		if seen[x.Path] || (x.Kind != "absent" && alreadyUnreachable(x.Path, f)) {
			continue
		}
		seen[x.Path] = true
		out = append(out, x)
	}
	return out
}
