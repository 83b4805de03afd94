package facts

// This file finds credentials written into allowed configuration files
// (H10): an allowed ~/.gitconfig or pip.conf is readable in the sandbox,
// and a URL with a password or token in it (url.<base>.insteadOf,
// index-url, GOPROXY) hands that credential to every command; so does a
// registry token in an npm or pnpm configuration file
// (`//host/:_authToken=…`), a cargo registry token in .cargo/config.toml
// or git send-email's password in .gitconfig (`token = …`,
// `smtpPass = …`).

import (
	"path"
	"regexp"
	"strings"
)

// CredentialURL is a line of an allowed configuration file holding a
// URL with credentials; never the value.
type CredentialURL struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

// homeConfigFiles are the allowed configuration files read for URLs
// with credentials, relative to HOME.
var homeConfigFiles = []string{".gitconfig", ".config/git/config", ".config/pip/pip.conf", ".pip/pip.conf", ".config/uv/uv.toml", ".condarc",
	".config/npm/npmrc", ".config/pnpm/rc", ".config/go/env", ".cargo/config.toml", ".cargo/config"}

// maxConfigRead bounds what is read of one configuration file.
const maxConfigRead = 256 << 10

// credentialURL matches a URL whose userinfo holds a password
// (user:secret@) or a long token as the user name (token@).
var credentialURL = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://(?:[^/\s:@"']+:[^/\s@"']+|[^/\s:@"']{16,})@`)

// npmAuthKey matches an npm-style registry credential setting
// (_authToken, _auth, _password, with or without a //registry/: scope).
var npmAuthKey = regexp.MustCompile(`(?i)(^|:)_(authToken|auth|password)\s*=\s*\S`)

// secretKey matches a setting that holds a secret itself: cargo's
// registry `token`, git's `smtpPass` (send-email), an `oauthtoken` or a
// `password`.
var secretKey = regexp.MustCompile(`(?i)^(token|oauthtoken|smtppass|password)\s*=\s*\S`)

// homeCredentialURLs returns the lines of the allowed configuration
// files the layout binds back that hold a URL with credentials.
func (g *gatherer) homeCredentialURLs(l *HomeLayout) []CredentialURL {
	if !l.Active() {
		return nil
	}
	var out []CredentialURL
	for _, rel := range homeConfigFiles {
		p := path.Join(l.Home, rel)
		if l.Hides(p) {
			continue
		}
		pp := g.path(p)
		if pp.Kind != "file" || l.Hides(pp.Real) {
			continue
		}
		data, err := g.fs.ReadFile(pp.Real, maxConfigRead)
		if err != nil {
			continue
		}
		for i, line := range strings.Split(string(data), "\n") {
			if t := strings.TrimSpace(line); credentialURL.MatchString(line) || npmAuthKey.MatchString(t) || secretKey.MatchString(t) {
				out = append(out, CredentialURL{File: p, Line: i + 1})
			}
		}
	}
	return out
}
