package facts

import (
	"path"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/hazard/secrets"
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
	// X11 cookies: with the X server's abstract socket reachable (the
	// network profile on a kernel without Landlock scoping) a cookie
	// means keystrokes and screenshots.
	".Xauthority", ".ICEauthority",
	".config/containers/auth.json", // podman/buildah registry logins
	".config/hcloud",
	".oci",
	".yarnrc.yml", // npmAuthToken
	// Hugging Face: huggingface_hub keeps the active token in token and
	// every named one (hf auth login --token … --add-to-git-credential,
	// hf auth switch) in stored_tokens.
	".cache/huggingface/token", ".cache/huggingface/stored_tokens",
	".huggingface/token", ".huggingface/stored_tokens",
	// Other AI agents' own logins.
	".claude/.credentials.json", ".codex/auth.json", ".gemini/oauth_creds.json",
	".claude.json",           // Claude Code's settings, with its API key
	".config/github-copilot", // Copilot's OAuth token (hosts.json, apps.json)
	// Shell and REPL histories: passwords typed on command lines,
	// `export TOKEN=…`, connection strings.
	".bash_history", ".zsh_history", ".zhistory", ".histfile", ".sh_history",
	".local/share/fish/fish_history", ".python_history", ".psql_history",
	".mysql_history", ".sqlite_history", ".rediscli_history", ".node_repl_history",
	".lesshst", ".irb_history", ".dbshell", ".mongodb/mongosh",
	// Cloud, infrastructure and data tools.
	".pulumi/credentials.json",
	".terraformrc", ".terraform.d", // the whole directory: credentials.tfrc.json and plugin caches
	".config/sops/age/keys.txt",
	".databrickscfg",
	".boto", ".s3cmd", // Google Cloud Storage (boto) and s3cmd keys
	".kaggle/kaggle.json",
	".mc/config.json", // MinIO client keys
	".config/glab-cli",
	".config/keybase",
	".fly",           // fly.io token (config.yml)
	".config/stripe", // Stripe CLI keys
	// Build tools and package registries.
	".m2/settings.xml", ".gradle/gradle.properties", ".yarnrc", ".config/configstore",
	".m2/settings-security.xml",                      // Maven's master password: it decrypts the passwords of a settings.xml
	".curlrc",                                        // `user = name:password`, headers
	".git-credential-cache", ".cache/git/credential", // git credential-cache daemon's socket
	// Mail and remote desktops.
	".config/msmtp", ".msmtprc", ".fetchmailrc", ".authinfo", ".authinfo.gpg",
	".config/filezilla", ".config/remmina", ".local/share/remmina",
	// Password managers and keyrings.
	".config/1Password", ".config/Bitwarden", ".config/keepassxc",
	".local/share/kwalletd", ".local/share/plasma-vault", ".local/share/pki",
	".pki", ".cert", ".vaults",
	// Browser profiles: saved passwords, cookies, session tokens; the
	// snap and flatpak installations keep theirs elsewhere.
	".mozilla/firefox", ".thunderbird",
	".config/google-chrome", ".config/google-chrome-beta", ".config/google-chrome-unstable",
	".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge",
	".config/microsoft-edge-beta", ".config/microsoft-edge-dev", ".config/vivaldi", ".config/opera",
	"snap/firefox/common/.mozilla", "snap/chromium/common/chromium", "snap/brave/current/.config/BraveSoftware",
	".var/app/org.mozilla.firefox/.mozilla", ".var/app/com.google.Chrome/config/google-chrome",
	".var/app/org.chromium.Chromium/config/chromium", ".var/app/com.brave.Browser/config/BraveSoftware",
	".var/app/com.microsoft.Edge/config/microsoft-edge", ".var/app/com.vivaldi.Vivaldi/config/vivaldi",
	// Browser and mail caches: the pages and API answers of signed-in
	// sessions (webmail, consoles), Evolution's copies of whole messages
	// (password-reset links, one-time codes). ~/.cache is allowed
	// (H10), so these would be bound back with it.
	".cache/mozilla", ".cache/thunderbird", ".cache/evolution",
	".cache/google-chrome", ".cache/chromium", ".cache/BraveSoftware",
	".cache/microsoft-edge", ".cache/vivaldi", ".cache/opera",
}

// credentialStore tells whether a hidden_home name is one of
// CredentialStores.
func credentialStore(name string) bool { return slices.Contains(CredentialStores, name) }

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
	for _, cv := range secrets.CredentialVars {
		val, ok := h.Env[cv.Name]
		if !ok || val == "" {
			continue
		}
		named := secrets.CredentialPaths(cv, val)
		if len(named) > 0 {
			if f.CredentialPaths == nil {
				f.CredentialPaths = map[string][]string{}
			}
			f.CredentialPaths[cv.Name] = named
		}
		for _, p := range named {
			if !path.IsAbs(p) {
				skips = append(skips, EnvSkip{cv.Name, p, "is not an absolute path"})
				continue
			}
			if alreadyUnreachable(p, f) {
				continue // not even looked at: no precondition on a path the sandbox cannot see
			}
			x := g.hidden(p, SourceCredentialVar)
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

// movedStores hides the denied entries of the XDG base directories
// where a variable moves them (H7): with XDG_CONFIG_HOME=/data/cfg,
// /data/cfg/gh is hidden like ~/.config/gh. Each variable's directory
// is recorded in f.CredentialPaths, so that bwrun refuses a run in which
// the variable names another one (but the default place, whose entries
// the deny lists hide anyway).
func (g *gatherer) movedStores(h *Host, f *Facts) (out []Hidden) {
	for _, x := range secrets.MovedDirs {
		val := h.Env[x.Name]
		if !path.IsAbs(val) {
			continue // unset, or relative (invalid: tools ignore it)
		}
		def, base := path.Join(h.Home, x.Default), path.Clean(val)
		if f.CredentialPaths == nil {
			f.CredentialPaths = map[string][]string{}
		}
		f.CredentialPaths[x.Name] = []string{base}
		if base == def {
			continue
		}
		for _, d := range f.Hidden {
			rest, ok := strings.CutPrefix(d.Entry, def+"/")
			if !ok || (d.Source != SourceHomeEntry && d.Source != SourceCredentialStore) {
				continue
			}
			p := path.Join(base, rest)
			if alreadyUnreachable(p, f) {
				continue
			}
			y := g.hidden(p, SourceMovedDir)
			y.Var = x.Name
			out = append(out, y)
		}
	}
	return out
}

// alreadyUnreachable: p lies in what the sandbox replaces anyway (a fresh
// /tmp, its own /proc and /dev, the empty /run/user/<uid>) or inside a
// path hidden already.
func alreadyUnreachable(p string, f *Facts) bool {
	for _, sys := range []string{"/tmp", "/proc", "/dev", f.RunUser.Real} {
		if sys != "" && Within(p, sys) && !boundFrom(f, sys) {
			return true
		}
	}
	if inException(p, f) {
		return false // bound back into the sandbox (S6, S8)
	}
	return masked(f.Masks, p)
}

// boundFrom tells whether a bind of the settings takes its source from
// inside dir (a host /tmp/x bound elsewhere is not replaced by the
// sandbox's fresh /tmp).
func boundFrom(f *Facts, dir string) bool {
	for _, b := range f.Binds {
		if Within(b.SrcReal, dir) {
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
		x := g.hidden(p, SourceHostSocket)
		if seen[x.Path] || (x.Kind != "absent" && alreadyUnreachable(x.Path, f)) {
			continue
		}
		seen[x.Path] = true
		out = append(out, x)
	}
	return out
}
