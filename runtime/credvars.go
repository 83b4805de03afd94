package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
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
// and CheckCredentialEnv refuses an invocation when one names, at run
// time, a path the invocation does not hide.
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
// the compile hides them there too, and CheckCredentialEnv refuses a run
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

// CheckCredentialEnv refuses (with a *StaleError) an environment in which
// a credential variable (or an XDG base variable, see MovedDir) names a
// path that inv does not account for (H7):
// each path must be one the variable named when compiling (hidden, or
// left visible with a warning then), lie inside a path inv hides, lie in
// what the sandbox replaces (its own /proc and /dev; the fresh /tmp
// unless a bind takes its source from there), or not exist (one lstat). Without this, a new agent
// socket or GNUPGHOME in this environment would be reachable although the
// variable itself is removed. lookup is os.LookupEnv in the runtime.
func CheckCredentialEnv(inv *invocation.Invocation, lookup func(string) (string, bool)) error {
	var bad []Mismatch
	for _, cv := range CredentialVars {
		val, ok := lookup(cv.Name)
		if !ok || val == "" {
			continue
		}
		for _, p := range CredentialPaths(cv, val) {
			if !credentialPathCovered(inv, cv.Name, p) {
				bad = append(bad, Mismatch{EnvVar: cv.Name, EnvPath: p})
			}
		}
	}
	for _, x := range MovedDirs {
		val, ok := lookup(x.Name)
		if !ok || !path.IsAbs(val) { // a relative value is invalid: tools ignore it
			continue
		}
		p := path.Clean(val)
		if home, ok := lookup("HOME"); ok && p == path.Join(home, x.Default) {
			continue // the default place: the deny lists cover it
		}
		if !credentialPathCovered(inv, x.Name, p) {
			bad = append(bad, Mismatch{EnvVar: x.Name, EnvPath: p, Note: fmt.Sprintf(
				"$%s names %s, whose credential stores this invocation does not hide (H7: it was compiled with another directory there)", x.Name, p)})
		}
	}
	if len(bad) > 0 {
		return &StaleError{Mismatches: bad}
	}
	return nil
}

func credentialPathCovered(inv *invocation.Invocation, name, p string) bool {
	if slices.Contains(inv.Env.CredentialPaths[name], p) {
		return true
	}
	if !path.IsAbs(p) {
		return false
	}
	for _, h := range inv.Hidden {
		if invocation.Within(p, h) && !reexposed(inv, p, h) {
			return true
		}
	}
	if invocation.Within(p, "/proc") || invocation.Within(p, "/dev") || invocation.Within(p, "/tmp") && !bindsFrom(inv, "/tmp") {
		return true
	}
	// Nothing there now (a variable left over from an earlier session):
	// nothing to reach.
	_, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// reexposed tells whether a bind puts p back inside the masked path h
// (the S6 exceptions inside the Hermes home, a CA bundle): its
// destination lies inside h and holds p.
func reexposed(inv *invocation.Invocation, p, h string) bool {
	args := inv.Bwrap.Args
	for i := 0; i+2 < len(args); i++ {
		switch args[i] {
		case "--bind", "--ro-bind", "--bind-try", "--ro-bind-try", "--dev-bind", "--dev-bind-try":
			if dest := args[i+2]; dest != h && invocation.Within(dest, h) && invocation.Within(p, dest) {
				return true
			}
		}
	}
	return false
}

// bindsFrom tells whether a bind argument of inv takes its source from
// inside dir.
func bindsFrom(inv *invocation.Invocation, dir string) bool {
	args := inv.Bwrap.Args
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "--bind", "--ro-bind", "--bind-try", "--ro-bind-try", "--dev-bind", "--dev-bind-try":
			if invocation.Within(args[i+1], dir) {
				return true
			}
		}
	}
	return false
}
