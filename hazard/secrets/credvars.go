package secrets

import (
	"path"
	"slices"
	"strings"
)

// CredentialVar is an environment variable that names where credentials
// live (H7): an agent socket, a key file, a credential directory.
type CredentialVar struct {
	Name string
	// Paths extracts the paths named by a value.
	Paths func(value string) []string
}

// CredentialVars are the variables whose paths are hidden at compile
// time (H7), wherever they point. SecretName strips the same
// names (H5), so the variables themselves do not reach the command either,
// and the launcher's re-check (runtime.CheckCredentialEnv) refuses an
// invocation when one names, at run time, a path the invocation does not
// hide.
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
	// The user's runtime directory when it is not /run/user/<uid> (masked
	// by S4 already): the agent, bus, Wayland and audio sockets live there.
	{"XDG_RUNTIME_DIR", onePath},
	{"XAUTHORITY", onePath},
	{"REGISTRY_AUTH_FILE", onePath},
	{"PGPASSFILE", onePath},             // PostgreSQL passwords
	{"BOTO_CONFIG", onePath},            // boto/gsutil keys
	{"HF_TOKEN_PATH", onePath},          // the Hugging Face token
	{"DATABRICKS_CONFIG_FILE", onePath}, // Databricks tokens
	{"RCLONE_CONFIG", onePath},          // rclone remotes' tokens
	{"HELM_REGISTRY_CONFIG", onePath},   // Helm's registry logins
	{"DOCKER_CERT_PATH", onePath},       // Docker's TLS client key
	{"MYSQL_TEST_LOGIN_FILE", onePath},  // MySQL's .mylogin.cnf
	{"PGSERVICEFILE", onePath},          // PostgreSQL services, passwords included
	{"OCI_CLI_CONFIG_FILE", onePath},    // Oracle Cloud keys
	{"S3CMD_CONFIG", onePath},           // s3cmd keys
}

// MovedDir is a variable that moves a directory of HOME elsewhere (an
// XDG base directory, a tool's home such as CARGO_HOME), and the place,
// relative to HOME, it defaults to. Where the variable moves the
// directory, the credential stores the deny lists name under that place
// move with it ($XDG_CONFIG_HOME/gh instead of ~/.config/gh,
// $CARGO_HOME/credentials.toml instead of ~/.cargo/credentials.toml):
// the compile hides them there too, and the launcher's re-check refuses a run
// in which the variable names a directory the compile did not look into.
// Unlike CredentialVars, the variables reach the command (its tools need
// them).
type MovedDir struct {
	Name, Default string
}

// MovedDirs are the variables that move a directory holding credential
// stores.
var MovedDirs = []MovedDir{
	{"XDG_CONFIG_HOME", ".config"},
	{"XDG_DATA_HOME", ".local/share"},
	{"XDG_STATE_HOME", ".local/state"},
	{"XDG_CACHE_HOME", ".cache"},
	{"CARGO_HOME", ".cargo"},          // credentials.toml
	{"GRADLE_USER_HOME", ".gradle"},   // gradle.properties
	{"HF_HOME", ".cache/huggingface"}, // token
	{"CLAUDE_CONFIG_DIR", ".claude"},  // .credentials.json
	{"CODEX_HOME", ".codex"},          // auth.json
	{"PULUMI_HOME", ".pulumi"},        // credentials.json
	{"KAGGLE_CONFIG_DIR", ".kaggle"},  // kaggle.json
	{"MC_CONFIG_DIR", ".mc"},          // MinIO client keys (config.json)
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

// CredentialPaths returns the paths value names for cv, cleaned (absolute
// ones) and without empty entries, in order, each once.
func CredentialPaths(cv CredentialVar, value string) []string {
	var out []string
	for _, p := range cv.Paths(value) {
		if p == "" {
			continue
		}
		if path.IsAbs(p) {
			p = path.Clean(p)
		}
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
