package secrets

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestSecretNameStrips: the names the outside review found leaking, the
// families of SecretNameRules, and the names stripped before, whatever
// their case.
func TestSecretNameStrips(t *testing.T) {
	for _, n := range []string{
		// Found leaking by the review.
		"PGPASSWORD", "MYSQL_PWD", "REDIS_URL", "MONGODB_URI", "API_KEY", "SECRET_KEY", "GITHUB_PAT", "SSHPASS",
		"OPENAI_KEY", "SLACK_WEBHOOK_URL", "TF_VAR_db_password", "openai_api_key",
		// Stripped before (unchanged).
		"OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "MY_DB_PASSWORD", "DATABASE_URL",
		"AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "X_SECRET_Y", "GH_ENTERPRISE_TOKEN", "SENTRY_DSN",
		"AZURE_CLIENT_SECRET", "DOCKER_AUTH_CONFIG", "GOOGLE_APPLICATION_CREDENTIALS", "SESSION_COOKIE",
		"MY_CONNECTION_STRING", "APP_DATABASE_URL", "KUBECONFIG", "GNUPGHOME", "XDG_RUNTIME_DIR",
		// Families.
		"TOKEN", "token", "Secret", "PASSWORD", "DB_PASS", "SMTP_PASSWORD_FILE", "MAIL_PASSPHRASE",
		"NGROK_AUTHTOKEN", "npm_config__authToken", "npm_config__auth", "npm_config_//registry.npmjs.org/:_authToken",
		"OAUTH_CLIENTSECRET", "STRIPE_KEY", "APP_KEY", "RAILS_MASTER_KEY", "JWT_SIGNING_KEY", "ENCRYPTION_KEY",
		"GCP_SA_KEY_JSON", "PRIVATE_KEY_PEM", "MY_APIKEY", "GITLAB_PAT", "DB_PWD", "HTTP_BASIC_AUTH",
		"DISCORD_WEBHOOK", "TEAMS_WEBHOOK_URL", "CELERY_BROKER_URL", "AMQP_URL", "POSTGRES_URI", "PG_DSN",
		"SQLALCHEMY_DATABASE_URI", "MONGO_URL", "REDIS_TLS_URL", "OP_SESSION_my", "BW_SESSION", "TF_VAR_token",
		"TF_VAR_database_url", "tf_var_api_key", "PULUMI_CONFIG_PASSPHRASE", "VAULT_TOKEN", "CI_JOB_TOKEN",
		"AWS_CREDENTIALS", "HF_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "PROXY_AUTHORIZATION", "LDAP_BIND_PW",
		// Found by re-attacking (sixth session): digits after the word, a
		// word after KEY, KEY fused to its qualifier, missing words.
		"GITHUB_TOKEN2", "OPENAI_API_KEY2", "OPENAI_KEY_2", "DB_PASSWORD1", "API_KEY_PROD", "ACCESS_KEY_STAGING",
		"MINIO_SECRETKEY", "ETH_PRIVATEKEY", "S3_ACCESSKEY", "AWS_CRED", "API_BEARER", "SESSION_JWT", "GH_PAT2",
		// Found by the tenth session's review.
		"PRIVKEY", "ETH_PRIVKEY", "DEPLOY_PRIVKEY", "RSA_PRIVATE", "PRIVATE_PEM", "KUBECONFIG_DATA", "DOCKERCONFIGJSON",
		"JKS_STOREPASS", "KEYSTOREPASS", "STOREPASS", "PGPASS", "MASTERKEY", "LICENSEKEY", "PASSKEY", "PASSCODE",
		"TOTP_SEED", "MFA_SEED", "SEED_PHRASE", "MNEMONIC", "WALLET_SEED", "OAUTH_REFRESH", "ID_RSA", "KEY", "PASS",
		"API_KEYS", "APIKEYS", "X_APIKEYS", "APITOKENS", "PASSPHRASES", "MNEMONICS", "HMAC_KEYS", "AUTHORIZATION",
		"DSN", "SENTRY_DSN_PROD", "ENCRYPTKEY", "WEBHOOK", "PAT",
	} {
		if !SecretName(n) {
			t.Errorf("SecretName(%q) = false, want stripped", n)
		}
	}
}

// harmlessEnv are variables a command needs that no rule may strip.
var harmlessEnv = []string{
	"PATH", "HOME", "TERM", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "SHELL", "USER", "LOGNAME",
	"PWD", "OLDPWD", "EDITOR", "VISUAL", "PAGER", "LESS", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
	"XDG_STATE_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS", "XDG_SESSION_ID", "XDG_SESSION_TYPE",
	"XDG_CURRENT_DESKTOP", "GOPATH", "GOROOT", "GOFLAGS", "KEYTIMEOUT", "SSH_TTY", "SSH_CONNECTION", "SSH_CLIENT",
	"DISPLAY", "WAYLAND_DISPLAY", "COLORTERM", "HOSTNAME", "SHLVL", "MAIL", "TZ", "LS_COLORS", "HISTFILE",
	"HISTSIZE", "HISTCONTROL", "PS1", "PS2", "MANPATH", "INFOPATH", "CARGO_HOME", "RUSTUP_HOME", "NVM_DIR",
	"PYENV_ROOT", "VIRTUAL_ENV", "CONDA_PREFIX", "JAVA_HOME", "AWS_REGION", "AWS_DEFAULT_REGION",
	"AWS_PROFILE", "AWS_CA_BUNDLE", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "TOKENIZERS_PARALLELISM", "GPG_TTY", "TERM_PROGRAM",
	"COMPOSE_PROJECT_NAME", "DEBIAN_FRONTEND", "PIP_INDEX_URL", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
	"GIT_EDITOR", "CI", "GITHUB_ACTIONS", "GITHUB_SHA", "GITHUB_REPOSITORY", "GITHUB_WORKSPACE", "HOSTTYPE",
	"OSTYPE", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "NODE_PATH", "NODE_OPTIONS", "JAVA_OPTS",
	"MAKEFLAGS", "HERMES_HOME", "TMPDIR", "MOTD_SHOWN", "DBUS_STARTER_BUS_TYPE", "KEYMAP", "XKB_DEFAULT_LAYOUT",
	"PASSENGER_APP_ENV", "SSH_ASKPASS", "GIT_ASKPASS", "SUDO_ASKPASS", "KEYBOARD_LAYOUT", "PYTHONDONTWRITEBYTECODE",
	"VSCODE_GIT_ASKPASS_MAIN", "TERMINFO", "COLUMNS", "LINES", "SSL_KEY_FILE_PATH",
	"RANDOM_SEED", "SEED", "PYTHONHASHSEED", "JEST_SEED", "HYPOTHESIS_SEED", "PRIVATE_NETWORK", "IS_PRIVATE_REPO",
	"TOX_TESTENV_PASSENV", "FTP_PASSIVE", "PULSE_PASSTHROUGH", "PYTEST_ADDOPTS", "TF_CLI_ARGS", "TF_VAR_region",
}

// TestHarmlessNamesSurvive: PATH-like essentials are kept.
func TestHarmlessNamesSurvive(t *testing.T) {
	for _, n := range harmlessEnv {
		if SecretName(n) {
			t.Errorf("SecretName(%q) = true: a harmless variable would be stripped", n)
		}
	}
}

// TestSecretValue: credentials recognised by their value, whatever the
// variable is called; the kind is named, never the value.
func TestSecretValue(t *testing.T) {
	for _, v := range []string{
		"redis://:pw@h", "mongodb://u:pw@h/db", "http://u:pw@proxy:3128", "https://user:p%40ss@example.com/x",
		"postgres://app:hunter2@db.internal:5432/app?sslmode=require",
		"http://proxy1:3128,http://u:pw@proxy2:3128", "a b amqp://guest:guest@rabbit//",
		"host=db user=app password=hunter2 dbname=x", "Server=x;Database=y;User Id=u;Pwd=secret1;",
		"https://api.example.com/v1?access_token=abcdef123", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zm9vYmFyYmF6;",
		"https://acct.blob.core.windows.net/c?sv=2022&sig=abcDEF%3D",
		"ghp_" + strings.Repeat("a1B2", 9), "gho_" + strings.Repeat("Z", 36), "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
		"glpat-" + strings.Repeat("x", 20), "xoxb-1234567890-abcdefghij", "xoxp-123-456-789-abcdef",
		"sk-" + strings.Repeat("A", 48), "sk-proj-" + strings.Repeat("b", 40), "sk-ant-api03-" + strings.Repeat("c", 80),
		"AKIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE", "AIza" + strings.Repeat("S", 35), "sk_live_" + strings.Repeat("4", 24),
		"npm_" + strings.Repeat("n", 36), "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
		"-----BEGIN RSA PRIVATE KEY-----", `{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----\nMIIE"}`,
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.",
		"hf_" + strings.Repeat("h", 34), "hvs." + strings.Repeat("v", 90), "AGE-SECRET-KEY-1" + strings.Repeat("Q", 58),
		"https://hooks.slack.com/x?token=abc12345", "token ghp_" + strings.Repeat("q", 36),
		"app:hunter2@tcp(db:3306)/app", "Authorization=Bearer abcdefghijklmnop0123456789", "Authorization: Basic dXNlcjpwYXNzd29yZA==",
		"x-api-key=abcdef0123",
		// Found by re-attacking (sixth session): a header or JSON pair, a
		// token as a URL's user name, netrc, a base64-encoded PEM key, a
		// webhook URL, a key whose last word names the secret.
		"Authorization: token " + strings.Repeat("0123456789abcdef", 2) + "01234567", `{"client_secret": "abcdEFGH1234"}`,
		`{"type": "authorized_user", "refresh_token": "1//0abcdefghij"}`, "https://" + strings.Repeat("a1b2c3d4", 5) + "@github.com/org/repo.git",
		"machine api.example.com login u password hunter2", base64.StdEncoding.EncodeToString([]byte("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n")),
		"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", "https://discord.com/api/webhooks/123/abcDEF",
		"https://gitlab.example.com/api/v4/projects?private_token=abcdef123456", "x-auth-token=abcdef123",
		// Found by the eleventh session's review: a value of several lines
		// (a file's content) whose line rules find one.
		"machine api.example.com\nlogin u\npassword hunter2\n", "line1\npassword hunter2", "db:5432:app:app:hunter2\nx",
	} {
		if what, ok := SecretValue(v); !ok {
			t.Errorf("SecretValue(%q) = false, want a credential", v)
		} else if strings.Contains(what, v) || what == "" {
			t.Errorf("SecretValue(%q) names %q", v, what)
		}
	}
}

// harmlessValues are ordinary values no rule may take for a credential.
var harmlessValues = []string{
	"/usr/local/bin:/usr/bin:/bin:/usr/games", "xterm-256color", "en_US.UTF-8", "/home/u", "http://proxy:3128",
	"https://registry.npmjs.org/", "ssh://git@github.com/org/repo.git", "git@github.com:org/repo.git",
	"localhost,127.0.0.1,.internal", "redis://localhost:6379/0", "postgres://app@db/app",
	`${debian_chroot:+($debian_chroot)}\u@\h:\w\$ `, "\\[\\e]0;\\u@\\h: \\w\\a\\]\\u@\\h:\\w\\$ ",
	"rs=0:di=01;34:ln=01;36:mh=00:pi=40;33:so=01;35:do=01;35:bd=40;33;01:cd=40;33;01:or=40;31;01:mi=00:su=37;41:sg=30;43:ca=00:tw=30;42:ow=34;42:st=37;44:ex=01;32:*.tar=01;31",
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "desk-top-task-runner-with-many-words",
	"--max-old-space-size=4096", "-R -F -X", "/run/user/1000", "unix:path=/run/user/1000/bus", "AKIAshort",
	"skills-and-such-long-value", "mask-" + strings.Repeat("x", 40), "password_store=basic", "--password-file=/x",
	`{"token": null, "name": "value"}`, "Content-Type: application/json", "login shell: /bin/bash", "https://user@host/path",
	`{"token_type": "bearer", "expires_in": 3600}`, "password_file=/run/secrets/db", "x-request-id: abcdef012345",
	base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIIB\n")),
	"eyJust kidding.not a jwt", "app@tcp(db:3306)/app", "Basic auth is off", "bearer of news", "Basic authentication", "bearer responsibilities apply", "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b", "/home/u/.config/gh/hosts.yml",
}

// TestHarmlessValuesSurvive: paths, URLs without a password, prompts,
// LS_COLORS and hashes are kept.
func TestHarmlessValuesSurvive(t *testing.T) {
	for _, v := range harmlessValues {
		if what, ok := SecretValue(v); ok {
			t.Errorf("SecretValue(%q) = %q: a harmless value would be stripped", v, what)
		}
	}
}

// FuzzSecretEnv: the name and value rules never panic, and a value
// matched stays matched inside a longer list.
func FuzzSecretEnv(f *testing.F) {
	f.Add("HTTPS_PROXY", "http://u:pw@proxy")
	f.Add("x", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.")
	f.Add("npm_config_//r/:_authToken", "app:pw@tcp(")
	f.Fuzz(func(t *testing.T, name, value string) {
		SecretName(name)
		SecretValue(value)
		Scan(value)
		if r, _ := valueRule(value); r != RuleNone {
			if r2, _ := valueRule("a, " + value); r2 == RuleNone && !strings.HasPrefix(value, "=") {
				t.Fatalf("%q matched alone but not after \"a, \"", value)
			}
		}
	})
}
