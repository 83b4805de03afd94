package secrets

// This file decides, from its name alone, whether an environment variable
// holds a secret (H5). The rules work on the name's words, so they need
// neither regular expressions nor backtracking: a name is cut into runs of
// ASCII letters and digits ("npm_config__authToken" → NPM CONFIG
// AUTHTOKEN), compared without regard to case.

// SecretNameRules documents the name families SecretName strips, in the
// order it tries them; docs/protections.md's H5 and --explain quote them. Each is
// matched without regard to case, on the name's words (runs of letters
// and digits).
var SecretNameRules = []string{
	"a name in SecretNames (PGPASSWORD, MYSQL_PWD, SSHPASS, API_KEY, SECRET_KEY, TOKEN, DATABASE_URL, REDIS_URL, MONGODB_URI, BW_SESSION, the H7 credential variables, …)",
	"a word TOKEN(S), SECRET(S), CREDENTIAL(S), CRED(S), COOKIE(S), PASSWORD(S), PASSWD, PASSPHRASE, BEARER or JWT, alone or ending a longer word (AUTHTOKEN, CLIENTSECRET, PGPASSWORD), and a longer word ending in SECRETKEY, PRIVATEKEY, ACCESSKEY, AUTHKEY, SIGNINGKEY or ENCRYPTIONKEY (MINIO_SECRETKEY)",
	"a word after the first that starts with PASS (*_PASS*: DB_PASS, SMTP_PASSWORD_FILE), except PASSENV, PASSTHROUGH, PASSTHRU, PASSIVE, PASSENGER, PASSED, PASSES, PASSING",
	"a last word KEY (*_KEY: OPENAI_KEY, STRIPE_KEY, APP_KEY) or APIKEY, and a word KEY anywhere when the name also has API, SECRET, PRIVATE, ACCESS, AUTH, SIGNING or ENCRYPTION (API_KEY_PROD)",
	"a word KEY followed by DATA, PEM, JSON, BASE64, B64 or CONTENT(S) (GCP_SA_KEY_JSON), or by ID when the name also has API, SECRET, PRIVATE, ACCESS, AUTH, SIGNING or ENCRYPTION (AWS_ACCESS_KEY_ID)",
	"a last word PAT, PWD, PW, PASS, DSN, AUTH, AUTHORIZATION or SK after another word (GITHUB_PAT, MYSQL_PWD, LDAP_BIND_PW, SENTRY_DSN, NPM_CONFIG__AUTH, STRIPE_SK)",
	"a word ending in PASS (PGPASS_VALUE, SMTPPASS), except ASKPASS (a program that asks), BYPASS, COMPASS, SURPASS, TRESPASS, OVERPASS, UNDERPASS",
	"a last word PEM after another word (GITHUB_APP_PEM), unless the name has CERT, CA, CHAIN, BUNDLE, PUBLIC or PUB",
	"a word HEADER(S) in a name with AUTH, AUTHORIZATION, BEARER, COOKIE or API (AUTH_HEADER)",
	"*_WEBHOOK and *_WEBHOOK_URL (SLACK_WEBHOOK_URL)",
	"*_URL, *_URI, *_DSN and *_CONNECTION_STRING of a database or broker (a word DATABASE, DB, REDIS, MONGO, MONGODB, POSTGRES, POSTGRESQL, PG, MYSQL, MARIADB, SQL, AMQP, RABBITMQ, BROKER, CELERY, SQLALCHEMY)",
	"OP_SESSION_* (1Password CLI sessions)",
	"TF_VAR_*, NPM_CONFIG_* and PULUMI_CONFIG_* whose rest matches one of the above",
	"a word PRIVKEY, PASSKEY, PASSCODE, MNEMONIC, SEEDPHRASE, MASTERKEY, LICENSEKEY, STOREPASS or KEYPASS (or ending in PRIVKEY, STOREPASS, MASTERKEY, PASSCODE: ETH_PRIVKEY, KEYSTOREPASS); PRIVATE as the last word or before DATA, PEM, JSON, … (RSA_PRIVATE, PRIVATE_PEM); SEED before PHRASE or with TOTP, HOTP, OTP, MFA, 2FA, WALLET (TOTP_SEED); REFRESH with OAUTH",
	"each rule also with digits after the word (GITHUB_TOKEN2, OPENAI_API_KEY_2, DB_PASSWORD1)",
}

// SecretNames are the names stripped as a whole (compared without regard
// to case) that the word rules of SecretNameRules do not already catch.
// CredentialVars are stripped too.
var SecretNames = []string{
	"PGPASSWORD", "MYSQL_PWD", "SSHPASS", "API_KEY", "APIKEY", "SECRET_KEY", "SECRET", "TOKEN",
	"PASSWORD", "PASSWD", "PASSPHRASE", "DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MONGO_URL", "MONGO_URI",
	"GOOGLE_APPLICATION_CREDENTIALS", "DOCKER_AUTH_CONFIG", "BW_SESSION", "PGPASSFILE",
	"ANSIBLE_VAULT_PASSWORD_FILE", "VAULT_TOKEN", "KUBECONFIG",
	"KEY", "KEYS", "PASS", "PGPASS", "AUTHORIZATION", "DSN", "WEBHOOK", "ID_RSA", "ID_ED25519", "ID_ECDSA", "ID_DSA", "DOCKERCONFIGJSON", "KUBECONFIG_DATA",
	"KUBECONFIG_CONTENT", "DOCKER_CONFIG_JSON", "PW", "AUTH", "PAT",
}

// maxNameWords bounds the words SecretName looks at; a longer name is
// judged on its first maxNameWords words and its last word.
const maxNameWords = 16

// splitName cuts name into words (runs of ASCII letters and digits),
// upper-cased. The words are returned as strings backed by one
// upper-cased copy of the name.
func splitName(name string, words *[maxNameWords]string) (n int, upper string) {
	upper = UpperName(name)
	last := ""
	for i := 0; i < len(upper); {
		for i < len(upper) && !isAlnum(upper[i]) {
			i++
		}
		j := i
		for j < len(upper) && isAlnum(upper[j]) {
			j++
		}
		if j > i {
			last = upper[i:j]
			if n < maxNameWords {
				words[n] = last
				n++
			}
		}
		i = j
	}
	if n == maxNameWords && last != "" {
		words[n-1] = last
	}
	return n, upper
}

// UpperName upper-cases the ASCII letters of an environment variable
// name, as SecretName compares it; a name already in upper case is
// returned as it is, without allocating.
func UpperName(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'a' && c <= 'z' {
					b[j] = c - 'a' + 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func isAlnum(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

var secretNameSet = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range SecretNames {
		m[UpperName(n)] = true
	}
	for _, cv := range CredentialVars {
		m[UpperName(cv.Name)] = true
	}
	return m
}()

// SecretName reports whether the environment variable name looks like
// it holds a secret (SecretNameRules), whatever its case.
func SecretName(name string) bool {
	var words [maxNameWords]string
	n, upper := splitName(name, &words)
	if secretNameSet[upper] {
		return true
	}
	w := words[:n]
	if secretWords(w) {
		return true
	}
	// Prefixes whose rest names a variable of its own (Terraform input
	// variables, npm and Pulumi configuration).
	for _, p := range [][2]string{{"TF", "VAR"}, {"NPM", "CONFIG"}, {"PULUMI", "CONFIG"}} {
		if len(w) > 2 && w[0] == p[0] && w[1] == p[1] && secretNameSet[joinWords(w[2:])] {
			return true
		}
	}
	return false
}

// joinWords joins words with "_" (only on the rare prefixed names).
func joinWords(w []string) string {
	s := w[0]
	for _, x := range w[1:] {
		s += "_" + x
	}
	return s
}

// The word sets of SecretNameRules, as switch statements (the compiler
// turns them into a binary search, cheaper than a map lookup per word).

func secretWord(x string) bool {
	switch x {
	case "TOKEN", "TOKENS", "SECRET", "SECRETS", "CREDENTIAL", "CREDENTIALS", "CRED", "CREDS", "COOKIE", "COOKIES",
		"PASSWORD", "PASSWORDS", "PASSWD", "PASSPHRASE", "APIKEY", "BEARER", "JWT",
		"PRIVKEY", "PASSKEY", "PASSCODE", "MNEMONIC", "SEEDPHRASE", "MASTERKEY", "LICENSEKEY", "STOREPASS", "KEYPASS":
		return true
	}
	return false
}

var secretWordSuffixes = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY",
	"SECRETKEY", "PRIVATEKEY", "ACCESSKEY", "AUTHKEY", "SIGNINGKEY", "ENCRYPTIONKEY",
	"PRIVKEY", "STOREPASS", "MASTERKEY", "PASSCODE", "ENCRYPTKEY", "CRYPTKEY"}

// singular drops a plural's S (API_KEYS, APITOKENS, PASSPHRASES): the
// rules compare the word's singular too.
func singular(x string) string {
	if len(x) > 3 && x[len(x)-1] == 'S' && x[len(x)-2] != 'S' {
		return x[:len(x)-1]
	}
	return x
}

// trimDigits drops the digits that end a word of letters (TOKEN2 → TOKEN,
// KEY01 → KEY); a word of digits alone, or with none, is returned as it is.
func trimDigits(x string) string {
	i := len(x)
	for i > 0 && x[i-1] >= '0' && x[i-1] <= '9' {
		i--
	}
	if i == 0 {
		return x
	}
	return x[:i]
}

func secretLastWord(x string) bool {
	switch x {
	case "KEY", "PAT", "PWD", "PW", "PASS", "DSN", "AUTH", "AUTHORIZATION", "WEBHOOK", "SK":
		return true
	}
	return false
}

// notPassword: the words starting with PASS that name no password
// (TOX_TESTENV_PASSENV, FTP_PASSIVE, PULSE_PASSTHROUGH).
func notPassword(x string) bool {
	switch x {
	case "PASSENV", "PASSTHROUGH", "PASSTHRU", "PASSIVE", "PASSENGER", "PASSED", "PASSES", "PASSING":
		return true
	}
	return false
}

func keyQualifier(x string) bool {
	switch x {
	case "API", "SECRET", "PRIVATE", "ACCESS", "AUTH", "SIGNING", "ENCRYPTION":
		return true
	}
	return false
}

func keyMaterial(x string) bool {
	switch x {
	case "DATA", "PEM", "JSON", "BASE64", "B64", "CONTENT", "CONTENTS":
		return true
	}
	return false
}

func databaseWord(x string) bool {
	switch x {
	case "DATABASE", "DB", "REDIS", "MONGO", "MONGODB", "POSTGRES", "POSTGRESQL", "PG", "MYSQL", "MARIADB",
		"SQL", "AMQP", "RABBITMQ", "BROKER", "CELERY", "SQLALCHEMY":
		return true
	}
	return false
}

// isDigits reports whether x is all ASCII digits.
func isDigits(x string) bool {
	for i := 0; i < len(x); i++ {
		if x[i] < '0' || x[i] > '9' {
			return false
		}
	}
	return x != ""
}

// secretWords applies the word rules of SecretNameRules to a name's
// upper-cased words.
func secretWords(w []string) bool {
	n := len(w)
	if n == 0 {
		return false
	}
	qualified, database, key := false, false, false
	for i, raw := range w {
		x := trimDigits(raw)
		if secretWord(x) || secretWord(singular(x)) {
			return true
		}
		if i > 0 && x == "DSN" { // SENTRY_DSN_PROD
			return true
		}
		for _, s := range secretWordSuffixes {
			if y := singular(x); len(y) >= len(s) && y[len(y)-len(s):] == s || len(x) >= len(s) && x[len(x)-len(s):] == s {
				return true
			}
		}
		if i > 0 && len(x) >= 4 && x[:4] == "PASS" && !notPassword(x) {
			return true // *_PASS*
		}
		if len(x) > 4 && x[len(x)-4:] == "PASS" && !notPassSuffix(x) {
			return true // PGPASS_VALUE
		}
		qualified = qualified || keyQualifier(x)
		database = database || databaseWord(x)
		key = key || x == "KEY" || x == "KEYS"
	}
	if n == 1 {
		return false
	}
	if key && qualified {
		return true // API_KEY_PROD, ACCESS_KEY_ID, PRIVATE_KEY_PATH
	}
	last := singular(trimDigits(w[n-1]))
	if last == w[n-1] && n > 2 && isDigits(last) {
		last = trimDigits(w[n-2]) // OPENAI_KEY_2: the word before a number
	}
	switch {
	case secretLastWord(last):
		return true
	case (last == "URL" || last == "URI") && (w[n-2] == "WEBHOOK" || database):
		return true
	case last == "STRING" && w[n-2] == "CONNECTION" && n > 2:
		return true
	case w[0] == "OP" && w[1] == "SESSION":
		return true
	}
	for i := 0; i+1 < n; i++ {
		if w[i] == "KEY" && (keyMaterial(w[i+1]) || qualified && w[i+1] == "ID") {
			return true
		}
		if w[i] == "PRIVATE" && keyMaterial(w[i+1]) { // PRIVATE_PEM
			return true
		}
	}
	if last == "PRIVATE" { // RSA_PRIVATE, SSH_PRIVATE
		return true
	}
	if last == "PEM" && !anyWord(w, "CERT", "CERTS", "CERTIFICATE", "CA", "CHAIN", "BUNDLE", "PUBLIC", "PUB") {
		return true // GITHUB_APP_PEM
	}
	if anyWord(w, "HEADER", "HEADERS") && anyWord(w, "AUTH", "AUTHORIZATION", "BEARER", "COOKIE", "API") {
		return true // AUTH_HEADER
	}
	for i, x := range w {
		if x == "SEED" && (i+1 < n && w[i+1] == "PHRASE" || seedQualified(w)) { // TOTP_SEED, SEED_PHRASE
			return true
		}
		if x == "REFRESH" && slicesContainsWord(w, "OAUTH") { // OAUTH_REFRESH
			return true
		}
	}
	return false
}

// notPassSuffix: the words ending in PASS that name no password.
func notPassSuffix(x string) bool {
	switch x {
	case "BYPASS", "COMPASS", "SURPASS", "TRESPASS", "OVERPASS", "UNDERPASS", "ASKPASS":
		return true
	}
	return false
}

// anyWord reports whether w holds one of xs.
func anyWord(w []string, xs ...string) bool {
	for _, x := range xs {
		if slicesContainsWord(w, x) {
			return true
		}
	}
	return false
}

// seedQualified reports whether a name with a word SEED names a secret
// seed (a one-time-password or wallet seed), not a random seed.
func seedQualified(w []string) bool {
	for _, x := range w {
		switch x {
		case "TOTP", "HOTP", "OTP", "MFA", "2FA", "WALLET", "MNEMONIC", "BIP39":
			return true
		}
	}
	return false
}

// slicesContainsWord reports whether w holds x.
func slicesContainsWord(w []string, x string) bool {
	for _, y := range w {
		if y == x {
			return true
		}
	}
	return false
}
