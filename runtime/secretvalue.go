package runtime

import "strings"

// This file recognises secrets by their value, whatever the variable is
// called (H5): one pass over the value's bytes, plus strings.Index for
// the two markers ("://", "-----BEGIN"); no regular expressions.

// tokenFormat is one well-known credential format: a literal prefix at
// the start of a word, followed by at least min characters of its
// alphabet (and, for exact formats, nothing more of it).
type tokenFormat struct {
	prefix string
	min    int
	exact  bool   // exactly min characters, then the end of the word
	alpha  string // "b64u": [A-Za-z0-9_-], "an": [A-Za-z0-9], "AN": [A-Z0-9], "b64u.": also '.', "b64": [A-Za-z0-9+/=]
	what   string
	// mixed: the characters after the prefix must mix at least two of
	// lower case, upper case, digits and symbols ("Bearer responsibilities"
	// is prose), and for "b64" come in groups of four.
	mixed bool
}

// TokenFormats are the credential formats SecretValue recognises, by
// prefix (case matters); README's H5 lists them.
var TokenFormats = []tokenFormat{
	{"ghp_", 30, false, "an", "a GitHub token", false},
	{"gho_", 30, false, "an", "a GitHub token", false},
	{"ghu_", 30, false, "an", "a GitHub token", false},
	{"ghs_", 30, false, "an", "a GitHub token", false},
	{"ghr_", 30, false, "an", "a GitHub token", false},
	{"github_pat_", 22, false, "b64u", "a GitHub token", false},
	{"glpat-", 20, false, "b64u", "a GitLab token", false},
	{"gloas-", 20, false, "b64u", "a GitLab token", false},
	{"gldt-", 20, false, "b64u", "a GitLab token", false},
	{"glrt-", 20, false, "b64u", "a GitLab token", false},
	{"glptt-", 20, false, "b64u", "a GitLab token", false},
	{"glcbt-", 20, false, "b64u", "a GitLab token", false},
	{"xoxa-", 10, false, "b64u", "a Slack token", false},
	{"xoxb-", 10, false, "b64u", "a Slack token", false},
	{"xoxp-", 10, false, "b64u", "a Slack token", false},
	{"xoxo-", 10, false, "b64u", "a Slack token", false},
	{"xoxs-", 10, false, "b64u", "a Slack token", false},
	{"xoxr-", 10, false, "b64u", "a Slack token", false},
	{"xoxe-", 10, false, "b64u", "a Slack token", false},
	{"xapp-", 10, false, "b64u", "a Slack token", false},
	{"sk-", 20, false, "b64u", "an API key (sk-: OpenAI, Anthropic, …)", false},
	{"sk_live_", 16, false, "an", "a Stripe key", false},
	{"sk_test_", 16, false, "an", "a Stripe key", false},
	{"rk_live_", 16, false, "an", "a Stripe key", false},
	{"rk_test_", 16, false, "an", "a Stripe key", false},
	{"whsec_", 16, false, "an", "a Stripe webhook secret", false},
	{"AKIA", 16, true, "AN", "an AWS access key ID", false},
	{"ASIA", 16, true, "AN", "an AWS access key ID", false},
	{"AIza", 35, true, "b64u", "a Google API key", false},
	{"ya29.", 20, false, "b64u.", "a Google OAuth token", false},
	{"GOCSPX-", 20, false, "b64u", "a Google OAuth client secret", false},
	{"npm_", 36, false, "an", "an npm token", false},
	{"pypi-Ag", 50, false, "b64u", "a PyPI token", false},
	{"hf_", 30, false, "an", "a Hugging Face token", false},
	{"dckr_pat_", 20, false, "b64u", "a Docker Hub token", false},
	{"dop_v1_", 64, false, "an", "a DigitalOcean token", false},
	{"doo_v1_", 64, false, "an", "a DigitalOcean token", false},
	{"shpat_", 32, false, "an", "a Shopify token", false},
	{"shpss_", 32, false, "an", "a Shopify token", false},
	{"hvs.", 24, false, "b64u", "a HashiCorp Vault token", false},
	{"hvb.", 24, false, "b64u", "a HashiCorp Vault token", false},
	{"pul-", 40, false, "an", "a Pulumi token", false},
	{"glsa_", 32, false, "b64u", "a Grafana token", false},
	{"SG.", 60, false, "b64u.", "a SendGrid key", false},
	{"AGE-SECRET-KEY-1", 50, false, "AN", "an age secret key", false},
	{"dapi", 32, true, "an", "a Databricks token", false},
	{"tskey-", 20, false, "b64u", "a Tailscale key", false},
	{"lin_api_", 32, false, "an", "a Linear key", false},
	{"sntrys_", 40, false, "b64u", "a Sentry token", false},
	{"Bearer ", 16, false, "b64u.", "a bearer token", true},
	{"bearer ", 16, false, "b64u.", "a bearer token", true},
	{"Basic ", 8, false, "b64", "HTTP basic credentials", true},
	{"basic ", 8, false, "b64", "HTTP basic credentials", true},
}

// tokensByFirst indexes TokenFormats by their first byte.
var tokensByFirst = func() [256][]tokenFormat {
	var t [256][]tokenFormat
	for _, f := range TokenFormats {
		t[f.prefix[0]] = append(t[f.prefix[0]], f)
	}
	return t
}()

// secretKeys are the keys of key=value pairs whose value is a secret:
// libpq and ODBC connection strings, URL query parameters, Azure
// connection strings and signed URLs. Compared in lower case.
var secretKeys = map[string]bool{
	"password": true, "passwd": true, "pwd": true, "pass": true, "secret": true, "client_secret": true,
	"token": true, "access_token": true, "auth_token": true, "refresh_token": true, "id_token": true,
	"api_key": true, "apikey": true, "api-key": true, "accountkey": true, "sharedaccesskey": true,
	"sig": true, "x-amz-signature": true, "x-amz-security-token": true, "x-goog-signature": true,
	"authorization": true, "x-api-key": true, "private_key": true, "privatekey": true,
}

// SecretValue tells whether an environment variable's value looks like a
// credential whatever the variable is called, and which kind (never the
// value): a URL with a password in its user information (any scheme, also
// inside a list), a key=value pair of secretKeys with a value (connection
// strings, signed URLs), a private key in PEM form, a JSON Web Token, or
// one of TokenFormats at the start of a word.
func SecretValue(v string) (what string, ok bool) {
	if len(v) < 8 {
		return "", false
	}
	if urlWithPassword(v) || goDSNWithPassword(v) {
		return "a URL with a password", true
	}
	if i := strings.Index(v, "-----BEGIN "); i >= 0 {
		head := v[i:min(len(v), i+64)]
		if strings.Contains(head, "PRIVATE KEY") {
			return "a private key (PEM)", true
		}
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '=' && i > 0 && secretKeyBefore(v, i) {
			return "a password or key in a key=value pair", true
		}
		if i > 0 && isAlnum(v[i-1]) {
			continue // not the start of a word
		}
		if c == 'e' && isJWT(v[i:]) {
			return "a JSON Web Token", true
		}
		for _, f := range tokensByFirst[c] {
			if matchToken(v[i:], f) {
				return f.what, true
			}
		}
	}
	return "", false
}

// urlWithPassword finds "scheme://user:password@" anywhere in v: the user
// information ends at the first '@' before any '/', '?', '#', space,
// comma, semicolon or quote, and its password (after the first ':') is
// not empty.
func urlWithPassword(v string) bool {
	for off := 0; ; {
		i := strings.Index(v[off:], "://")
		if i < 0 {
			return false
		}
		start := off + i + 3
		colon := -1
		for j := start; j < len(v); j++ {
			switch c := v[j]; c {
			case '@':
				if colon >= 0 && colon+1 < j {
					return true
				}
				j = len(v)
			case ':':
				if colon < 0 {
					colon = j
				}
			case '/', '?', '#', ' ', '\t', '\n', ',', ';', '"', '\'':
				j = len(v)
			}
		}
		off = start
	}
}

// goDSNWithPassword finds Go's MySQL form "user:password@tcp(host)/db"
// (also "@unix(" and "@udp("): a ':' before the '@' in the same word,
// with a password after it.
func goDSNWithPassword(v string) bool {
	for _, proto := range []string{"@tcp(", "@unix(", "@udp("} {
		at := strings.Index(v, proto)
		if at <= 0 {
			continue
		}
		start := strings.LastIndexAny(v[:at], " \t,;\"'") + 1
		if colon := strings.IndexByte(v[start:at], ':'); colon >= 0 && start+colon+1 < at {
			return true
		}
	}
	return false
}

// isJWT: "eyJ" + base64url, '.', base64url (the payload), '.', and an
// optional base64url signature: three base64url parts.
func isJWT(s string) bool {
	if len(s) < 20 || s[:3] != "eyJ" {
		return false
	}
	a := runOf(s, "b64u")
	if a < 10 || a >= len(s) || s[a] != '.' {
		return false
	}
	b := runOf(s[a+1:], "b64u")
	return b >= 4 && a+1+b < len(s) && s[a+1+b] == '.'
}

func matchToken(s string, f tokenFormat) bool {
	if len(s) < len(f.prefix)+f.min || s[:len(f.prefix)] != f.prefix {
		return false
	}
	rest := s[len(f.prefix):]
	n := runOf(rest, f.alpha)
	switch {
	case f.exact:
		return n == f.min
	case f.mixed:
		return n >= f.min && mixedClasses(rest[:n]) && (f.alpha != "b64" || n%4 == 0)
	}
	return n >= f.min
}

// mixedClasses: s has characters of at least two classes among lower
// case, upper case, digits and others.
func mixedClasses(s string) bool {
	var lower, upper, digit, other int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower = 1
		case c >= 'A' && c <= 'Z':
			upper = 1
		case c >= '0' && c <= '9':
			digit = 1
		default:
			other = 1
		}
	}
	return lower+upper+digit+other >= 2
}

// runOf counts the leading bytes of s in the alphabet.
func runOf(s, alpha string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := false
		switch alpha {
		case "AN":
			ok = c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		case "an":
			ok = isAlnum(c)
		case "b64u":
			ok = isAlnum(c) || c == '_' || c == '-'
		case "b64u.":
			ok = isAlnum(c) || c == '_' || c == '-' || c == '.'
		case "b64":
			ok = isAlnum(c) || c == '+' || c == '/' || c == '='
		}
		if !ok {
			return i
		}
	}
	return len(s)
}

// secretKeyBefore: v[eq] is '=', preceded by one of secretKeys (a word of
// letters, digits, '_' and '-' that starts v or follows a separator) and
// followed by a non-empty value.
func secretKeyBefore(v string, eq int) bool {
	if eq+1 >= len(v) || strings.IndexByte(" \t;&,", v[eq+1]) >= 0 {
		return false
	}
	k := eq
	for k > 0 && eq-k < 24 && (isAlnum(v[k-1]) || v[k-1] == '_' || v[k-1] == '-') {
		k--
	}
	if k == eq || eq-k >= 24 {
		return false
	}
	if k > 0 && strings.IndexByte(" \t;&?,", v[k-1]) < 0 {
		return false
	}
	var buf [24]byte
	key := buf[:eq-k]
	for i := range key {
		c := v[k+i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		key[i] = c
	}
	return secretKeys[string(key)]
}
