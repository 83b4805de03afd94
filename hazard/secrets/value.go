package secrets

import (
	"encoding/base64"
	"strings"
)

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
// prefix (case matters); docs/protections.md's H5 lists them.
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
	"cookie": true, "set-cookie": true, "private-token": true, "job-token": true, "deploy-token": true,
	"x-goog-api-key": true, "ocp-apim-subscription-key": true, "x-functions-key": true, "x-vault-token": true,
	"oauthtoken": true, "smtppass": true, "_auth": true, "_authtoken": true, "_password": true,
}

// webhookURLs mark URLs whose path is the credential (anyone who has
// one can post as its owner).
var webhookURLs = []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/",
	"discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "webhook.office.com/webhookb2/",
	"outlook.office.com/webhook/"}

// SecretValue tells whether an environment variable's value looks like a
// credential whatever the variable is called, and which kind (never the
// value): the first finding of the value and word rules of Rules, and
// for a value of several lines (a file's content: a netrc, a pgpass, an
// rc file) of Scan, its lines read as a file's.
func SecretValue(v string) (what string, ok bool) {
	var first Finding
	found := false
	findValue(v, 0, func(f Finding) bool {
		if !f.Redacts() {
			return true // names a file: the value itself is no credential
		}
		first, found = f, true
		return false
	})
	if !found && strings.Contains(v, "\n") {
		for _, f := range Scan(v) {
			if f.Redacts() {
				return f.What, true
			}
		}
	}
	return first.What, found
}

// findValue applies the rules that look at a value as a whole (a URL, a
// PEM block, key=value pairs, token formats: RuleURLPassword to
// RuleToken; the first that matches) to v, and then, when v has a blank,
// the word rules to its shell words. depth counts nested values (an
// alias's command, a variable's value), bounded by maxDepth. It returns
// false when emit asked to stop.
func findValue(v string, depth int, emit func(Finding) bool) bool {
	if r, what := valueRule(v); r != RuleNone {
		if !emit(Finding{Rule: r, What: what}) {
			return false
		}
	}
	if depth < maxDepth && base64Secret(v, depth) && !emit(Finding{Rule: RuleBase64, What: RuleBase64.String()}) {
		return false
	}
	if depth <= maxDepth && v != "" && (strings.ContainsAny(v, " \t") || v[0] == '-' || envAssignment(v)) {
		return findWords(v, depth, emit)
	}
	return true
}

// envAssignment: v is one word NAME=value whose NAME is written as an
// environment variable (upper case, digits and '_': a .env file, a
// properties line): the word rules judge it as an assignment.
func envAssignment(v string) bool {
	name, _, ok := strings.Cut(v, "=")
	name = strings.TrimSuffix(name, "+")
	if !ok || name == "" || !isName(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'a' && c <= 'z' {
			return false
		}
	}
	return true
}

// valueRule is the one pass over a value's bytes of the value rules
// (plus strings.Index for the markers "://" and "-----BEGIN"; no
// regular expressions). It returns RuleNone when none matches.
func valueRule(v string) (Rule, string) {
	if len(v) < 8 {
		return RuleNone, ""
	}
	if urlWithPassword(v) || goDSNWithPassword(v) || urlPathToken(v) {
		return RuleURLPassword, RuleURLPassword.String()
	}
	if strings.Contains(v, "hook") { // every webhookURLs entry has it
		for _, w := range webhookURLs {
			if strings.Contains(v, w) {
				return RuleWebhook, RuleWebhook.String()
			}
		}
	}
	if i := strings.Index(v, "-----BEGIN "); i >= 0 {
		head := v[i:min(len(v), i+64)]
		if strings.Contains(head, "PRIVATE KEY") {
			return RulePEM, RulePEM.String()
		}
	}
	if base64PEM(v) || base64Key(v) {
		return RulePEMBase64, RulePEMBase64.String()
	}
	if netrcPassword(v) {
		return RuleNetrc, RuleNetrc.String()
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '=' && i > 0 && secretKeyBefore(v, i) {
			return RuleKeyValue, RuleKeyValue.String()
		}
		if c == ':' && i > 0 && secretKeyBeforeColon(v, i) {
			return RuleKeyColon, RuleKeyColon.String()
		}
		if c == '<' && xmlSecret(v[i:]) {
			return RuleXMLElement, RuleXMLElement.String()
		}
		if i > 0 && isAlnum(v[i-1]) {
			continue // not the start of a word
		}
		if c == 'e' && isJWT(v[i:]) {
			return RuleJWT, RuleJWT.String()
		}
		for _, f := range tokensByFirst[c] {
			if matchToken(v[i:], f) {
				return RuleToken, f.what
			}
		}
	}
	return RuleNone, ""
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
				if user := v[start:j]; colon < 0 && len(user) >= 32 && runOf(user, "b64u") == len(user) {
					return true // a token as the user name: https://<token>@github.com
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
	val := eq + 1
	for val < len(v) && (v[val] == ' ' || v[val] == '\t') {
		val++
	}
	if val >= len(v) || strings.IndexByte(" \t;&,\n", v[val]) >= 0 || reference(strings.TrimLeft(v[val:], `"'`)) ||
		val > eq+1 && v[val] == '"' && val+1 < len(v) && v[val+1] == '"' {
		return false // no value, a variable's value ($X, ${X}), or (in "key = value" form) ""
	}
	end := eq
	for end > 0 && eq-end < 8 && (v[end-1] == ' ' || v[end-1] == '\t') {
		end-- // "password = x" (ini, TOML, Groovy)
	}
	k, ok := keyStart(v, end)
	if !ok || k > 0 && strings.IndexByte(" \t;&?,\n\"':=._-", v[k-1]) < 0 {
		return false
	}
	return secretKey(v[k:end])
}

// keyStart finds the key that ends at v[end] (excluded): a run of 1 to
// 23 letters, digits, '_' and '-' whose last byte can end a secret key
// (secretKeyEnd, checked first: the separators of LS_COLORS, PATH and
// the like are passed over without looking back). It returns where the
// key starts.
func keyStart(v string, end int) (int, bool) {
	if end == 0 || !secretKeyEnd(v[end-1]) {
		return 0, false
	}
	k := end
	for k > 0 && end-k < 128 && (isAlnum(v[k-1]) || v[k-1] == '_' || v[k-1] == '-') {
		k--
	}
	if end-k >= 24 { // a long key (ORG_GRADLE_PROJECT_signingKey): its last words
		i := strings.LastIndexAny(v[end-23:end], "_-")
		if i < 0 {
			return 0, false
		}
		k = end - 23 + i + 1
	}
	return k, k < end
}

// secretKeyEnd: c can end a key secretKey accepts (the last letters of
// secretKeys and of its secret words), so that the separators of
// LS_COLORS, PATH and the like are passed over without looking back.
func secretKeyEnd(c byte) bool {
	switch c | 0x20 { // lower case
	case 'd', 's', 't', 'n', 'y', 'g', 'e', 'h':
		return true
	}
	return false
}

// secretKey reports whether key (at most 24 bytes) names a secret: one of
// secretKeys, or a key whose last word (after '_' or '-') is a secret
// word of SecretNameRules or ends in one (private_token, x-auth-token,
// db_password, proxyPassword), compared in lower case.
func secretKey(key string) bool {
	var buf [24]byte
	lower := buf[:len(key)]
	last := 0
	for i := range lower {
		c := key[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
		if c == '_' || c == '-' {
			last = i + 1
		}
	}
	if secretKeys[string(lower)] {
		return true
	}
	w := string(lower[last:])
	switch w {
	case "token", "secret", "password", "passwd", "passphrase", "apikey", "pwd", "authorization", "authtoken":
		return true
	}
	// A last word ending in one (proxyPassword, clientSecret, authToken,
	// secretAccessKey, signingKey).
	for _, suffix := range []string{"password", "passwd", "secret", "token", "passphrase", "apikey", "authident",
		"secretkey", "secretaccesskey", "privatekey", "signingkey", "masterkey", "encryptionkey", "authkey"} {
		if len(w) >= len(suffix) && strings.HasSuffix(w, suffix) {
			return true
		}
	}
	// KEY after a word that makes it a secret (x-auth-key, secret_key).
	if w == "key" && last > 1 {
		prev := lower[:last-1]
		if i := strings.LastIndexAny(string(prev), "_-"); i >= 0 {
			prev = prev[i+1:]
		}
		switch string(prev) {
		case "api", "auth", "secret", "private", "signing", "master", "encryption", "access", "account", "subscription", "license":
			return true
		}
	}
	return false
}

// secretKeyBeforeColon: v[colon] is ':' after a key that names a secret
// (secretKey), bare after the start of v or a separator (a header:
// "Authorization: token …") or quoted (JSON: "client_secret": "…"), and
// followed (after spaces and an opening quote) by a value of at least
// four characters.
func secretKeyBeforeColon(v string, colon int) bool {
	end := colon
	quoted := v[end-1] == '"'
	if quoted {
		end--
	}
	k, ok := keyStart(v, end)
	if !ok {
		return false
	}
	switch {
	case quoted:
		if k == 0 || v[k-1] != '"' {
			return false
		}
	case k > 0 && strings.IndexByte(" \t\n;&?,{\"'_-", v[k-1]) < 0:
		return false
	}
	j := colon + 1
	for j < len(v) && (v[j] == ' ' || v[j] == '\t') {
		j++
	}
	if j < len(v) && v[j] == '"' {
		j++
	}
	n := 0
	for j+n < len(v) && strings.IndexByte(" \t\n\",}", v[j+n]) < 0 {
		n++
	}
	if j+n+1 < len(v) && v[j+n] == ' ' && authScheme(v[j:j+n]) { // Authorization: Bearer VALUE
		j += n + 1
		for n = 0; j+n < len(v) && strings.IndexByte(" \t\n\",}", v[j+n]) < 0; n++ {
		}
	}
	switch val := v[j : j+n]; {
	case n < 4, val == "null", val == "true", val == "false", reference(val):
		return false
	case quoted && strings.EqualFold(v[k:end], "auth"):
		return basicCredentials(val) // Docker's config.json: "auth": base64(user:password)
	}
	if strings.EqualFold(v[k:end], "passwd") {
		return false // nsswitch.conf's "passwd: files"; YAML and headers say password
	}
	return secretKey(v[k:end])
}

// xmlSecret: s starts an XML element <NAME>VALUE</ whose NAME (without
// its namespace prefix) names a secret (secretKey, or Maven's master)
// and whose VALUE is a literal (not a ${…} property, not a path), or
// NuGet's <add key="NAME" value="VALUE"> with such a NAME.
func xmlSecret(s string) bool {
	end := strings.IndexByte(s, '>')
	if end < 2 || end > 64 {
		return false
	}
	tag := s[1:end]
	if k, ok := strings.CutPrefix(tag, "add key=\""); ok {
		name, rest, _ := strings.Cut(k, "\"")
		val, ok := strings.CutPrefix(strings.TrimSpace(rest), "value=\"")
		return ok && len(name) <= 24 && secretKey(name) && !strings.HasPrefix(val, "\"") && !reference(val) && !strings.HasPrefix(val, "%")
	}
	if i := strings.LastIndexByte(tag, ':'); i >= 0 {
		tag = tag[i+1:]
	}
	if len(tag) > 24 || !isName(strings.ReplaceAll(tag, "-", "_")) || !strings.EqualFold(tag, "master") && !secretKey(tag) {
		return false
	}
	val, _, ok := strings.Cut(s[end+1:], "</")
	val = strings.TrimSpace(val)
	return ok && val != "" && !reference(val) && !filePath(val)
}

// authScheme: w is an HTTP authentication scheme, which an
// Authorization header's credential follows.
func authScheme(w string) bool {
	switch strings.ToLower(w) {
	case "bearer", "basic", "token", "bot", "digest", "negotiate", "apikey", "sso-key":
		return true
	}
	return false
}

// basicCredentials: val is base64 of "user:password" (HTTP basic
// credentials, Docker's and npm's "auth"), both parts non-empty.
func basicCredentials(val string) bool {
	if len(val) > 1024 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(val)
	if err != nil {
		return false
	}
	u, p, ok := strings.Cut(string(b), ":")
	return ok && u != "" && p != "" && printable(b)
}

// printable: b is text (printable ASCII, tabs and newlines).
func printable(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// urlPathToken finds a token in a URL's path as conda's channels take
// one (https://conda.anaconda.org/t/<token>/channel): a path segment
// "t" followed by a segment of at least 8 letters, digits, '-' and '_'
// that mixes letters and digits.
func urlPathToken(v string) bool {
	for off := 0; ; {
		i := strings.Index(v[off:], "/t/")
		if i < 0 {
			return false
		}
		at := off + i
		off = at + 3
		if !strings.Contains(v[:at], "://") {
			continue
		}
		tok := v[off:]
		n := runOf(tok, "b64u")
		if n >= 8 && n < len(tok) && tok[n] == '/' && hasLetterAndDigit(tok[:n]) {
			return true
		}
	}
}

func hasLetterAndDigit(s string) bool {
	var letter, digit bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter = letter || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit = digit || c >= '0' && c <= '9'
	}
	return letter && digit
}

// base64Key finds a private key's body in base64 without its PEM
// armour: OpenSSH's ("b3BlbnNzaC1rZXktdjE", openssh-key-v1), or DER
// whose first bytes are a SEQUENCE and a version INTEGER 0 or 1 followed
// by an INTEGER, a SEQUENCE or an OCTET STRING (PKCS#1, PKCS#8, SEC 1
// private keys; certificates and public keys start otherwise), in a word
// of at least 64 base64 characters.
func base64Key(v string) bool {
	if strings.Contains(v, "b3BlbnNzaC1rZXktdjE") {
		return true
	}
	for i := 0; i+64 <= len(v); i++ {
		if v[i] != 'M' || i > 0 && runOf(v[i-1:i], "b64") == 1 {
			continue
		}
		n := runOf(v[i:], "b64")
		if n < 64 {
			i += n
			continue
		}
		var buf [12]byte
		if m, _ := base64.StdEncoding.Decode(buf[:], []byte(v[i:i+16])); m == 12 && derPrivateKey(buf[:]) {
			return true
		}
		i += n
	}
	return false
}

// derPrivateKey: b starts a DER private key (base64Key).
func derPrivateKey(b []byte) bool {
	if b[0] != 0x30 {
		return false
	}
	j := 2
	switch {
	case b[1] == 0x81:
		j = 3
	case b[1] == 0x82:
		j = 4
	case b[1] >= 0x80:
		return false
	}
	return b[j] == 0x02 && b[j+1] == 0x01 && b[j+2] <= 1 && (b[j+3] == 0x02 || b[j+3] == 0x30 || b[j+3] == 0x04)
}

// base64Secret finds a credential encoded in base64 once: a word of at
// least 16 base64 characters (standard or URL alphabet) whose decoding
// (its first maxBase64 bytes) is text in which another rule finds a
// credential.
func base64Secret(v string, depth int) bool {
	for i := 0; i < len(v); i++ {
		if i > 0 && (isAlnum(v[i-1]) || v[i-1] == '+' || v[i-1] == '/') {
			continue // not the start of a word
		}
		n := b64Word(v[i:])
		if n >= 16 {
			w := strings.TrimRight(v[i:i+min(n, maxBase64)], "=")
			w = w[:len(w)/4*4]
			if b, err := base64.RawStdEncoding.DecodeString(w); err == nil && printable(b) && len(b) >= 8 {
				found := false
				findValue(string(b), depth+1, func(f Finding) bool {
					found = f.Redacts()
					return !found
				})
				if found {
					return true
				}
			}
		}
		if n > 0 {
			i += n - 1
		}
	}
	return false
}

// b64Word counts the leading base64 characters of s: letters, digits,
// '+' and '/', then the '=' of padding.
func b64Word(s string) int {
	n := 0
	for n < len(s) && (isAlnum(s[n]) || s[n] == '+' || s[n] == '/') {
		n++
	}
	for p := 0; p < 2 && n < len(s) && s[n] == '='; p++ {
		n++
	}
	return n
}

// maxBase64 bounds the base64 characters base64Secret decodes in a word.
const maxBase64 = 4096

// netrcPassword finds netrc's form ("machine h login u password p") in a
// value: a word "password" (or "passwd") followed by one, in a value
// that also has the words "login" and "machine" or "default" (prose
// such as "login retries if password is bad" has neither).
func netrcPassword(v string) bool {
	if !strings.Contains(v, "login ") || !strings.Contains(v, "machine ") && !strings.Contains(v, "default ") {
		return false
	}
	for _, w := range []string{"password ", "passwd "} {
		if i := strings.Index(v, w); i >= 0 && (i == 0 || v[i-1] == ' ' || v[i-1] == '\t' || v[i-1] == '\n') {
			rest := v[i+len(w):]
			return rest != "" && rest[0] != ' ' && rest[0] != '\n'
		}
	}
	return false
}

// base64PEM finds a PEM private key encoded in base64 once
// ("LS0tLS1CRUdJTi" is "-----BEGIN " encoded from its first byte): the
// first 64 encoded characters from there are decoded and looked at.
func base64PEM(v string) bool {
	i := strings.Index(v, "LS0tLS1CRUdJTi")
	if i < 0 {
		return false
	}
	chunk := v[i:min(len(v), i+64)]
	chunk = chunk[:len(chunk)/4*4]
	var buf [48]byte
	n, _ := base64.StdEncoding.Decode(buf[:], []byte(chunk))
	return strings.Contains(string(buf[:n]), "PRIVATE KEY")
}
