package secrets

// Rule is one way a credential shows in a value or a line of text: a row
// of Rules. The findings carry it, so a warning or --explain says which
// rule hid a file without printing what matched.
type Rule uint8

// The rules, in the order Rules documents them.
const (
	RuleNone Rule = iota
	// Rules on a value as a whole (valueRule).
	RuleURLPassword
	RuleWebhook
	RulePEM
	RulePEMBase64
	RuleNetrc
	RuleKeyValue
	RuleKeyColon
	RuleXMLElement
	RuleJWT
	RuleToken
	RuleBase64
	// Rules on the shell words of a line (findWords).
	RuleAssign
	RuleAttachedPassword
	RuleCommandPassword
	RulePasswordOption
	RuleUserPassword
	RuleConfigSet
	RuleSecretFile
	RuleCredentialStore
	RuleStdinPassword
	// Rules on a line of a file (findLine).
	RulePasswordLine
	RulePgpass
	// Bounds (Scan): text not examined whole.
	RuleUnexamined
)

// RuleRow documents one rule and holds its examples: each of Hits must
// be found by this rule (FindAll), each of Misses by no rule at all. A
// test runs every row; a row without a hit fails it.
type RuleRow struct {
	Rule Rule
	// What is the kind of credential, as warnings print it.
	What string
	// How says, for docs/protections.md and --explain, what the rule looks for.
	How    string
	Hits   []string
	Misses []string
}

// Rules is the one table of what Find recognises; docs/protections.md's H5/H7 and
// --explain quote it, and nothing else in bwpolicy matches secrets in
// text (SecretName judges names; its rules are SecretNameRules).
var Rules = []RuleRow{
	{RuleURLPassword, "a URL with a password",
		"scheme://user:password@ anywhere in the value (also in a list), a long token as the user name (https://<token>@host), Go's user:password@tcp(host), a token as a path segment after /t/ (conda's channels)",
		[]string{"redis://:pw@h", "https://user:p%40ss@example.com/x", "psql postgresql://app:hunter2@db/app",
			"git clone https://" + "ghp0123456789abcdef0123456789abcdef@github.com/o/r", "app:hunter2@tcp(db:3306)/app",
			"http://proxy1:3128,http://u:pw@proxy2:3128", "  - https://conda.anaconda.org/t/ab12-cd34-ef56/my-channel"},
		[]string{"postgres://app@db/app", "ssh://git@github.com/org/repo.git", "https://user@host/path", "git@github.com:org/repo.git",
			"https://conda.anaconda.org/t/conda-forge/x", "https://example.com/t/2024/"}},
	{RuleWebhook, "a webhook URL", "a Slack, Discord or Teams webhook URL (the path is the credential)",
		[]string{"https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXX", "https://discord.com/api/webhooks/123/abcDEF"},
		[]string{"https://api.slack.com/docs"}},
	{RulePEM, "a private key (PEM)", "-----BEGIN … PRIVATE KEY-----",
		[]string{"-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----"},
		[]string{"-----BEGIN CERTIFICATE-----", "-----BEGIN PUBLIC KEY-----"}},
	{RulePEMBase64, "a private key (PEM, base64)", "a PEM private key encoded in base64 once, or a key's base64 body without its armour: OpenSSH's (openssh-key-v1) or DER starting as PKCS#1, PKCS#8 or SEC 1 private keys do (a SEQUENCE, then version 0 or 1)",
		[]string{"LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0K", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
			"MIIEpAIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0",
			"key: MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKjMzEfYyjiWA4R",
			"MHcCAQEEIIDNzbdz3ZC7xfL6tCu3vLrNbKFmNA7TOTbkxEBJ6sSsoAoGCCqGSM49AwEHoUQDQgAE"},
		[]string{"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUIK",
			"MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJRTESMBAGA1UEChMJQmFs",
			"MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6"}},
	{RuleNetrc, "a netrc password", "netrc's machine … login … password … on one line",
		[]string{"machine api.example.com login u password hunter2", "default login u password p"},
		[]string{"machine api.example.com login u", "login shell: /bin/bash", "# Max number of login retries if password is bad."}},
	{RuleKeyValue, "a password or key in a key=value pair",
		"key=value (or key = value) whose key names a secret: password, passwd, pwd, secret, token, api_key, _authToken, client_secret, AccountKey, sig, … or a last word token, secret, password, apikey, or one ending in them (proxyPassword, db.password)",
		[]string{"host=db user=app password=hunter2 dbname=x", "Server=x;Database=y;Pwd=secret1;", "password = 'repo-pw'",
			"//registry.npmjs.org/:_authToken=npm_abc123", "token = \"cargo-registry-token\"", "x-auth-token=abcdef123",
			"https://gitlab.example.com/api/v4/projects?private_token=abcdef123456", "smtpPass = hunter2",
			`export JAVA_OPTS="-Xmx2g -Dhttp.proxyPassword=hunter2"`, "spring.datasource.password=hunter2",
			"ORG_GRADLE_PROJECT_signingKey=abc", "aws_secret_access_key = wJalrXUtnFEMI", "[client]\npassword=hunter2"},
		[]string{"password_store=basic", "password_file=/run/secrets/db", "password = ", "token=$TOKEN",
			"--max-old-space-size=4096", "primary_key = id", "keyid=ABCDEF01"}},
	{RuleKeyColon, "a password or key in a key: value pair",
		"a header or YAML/JSON pair whose key names a secret: Authorization:, Proxy-Authorization:, X-Api-Key:, Cookie:, PRIVATE-TOKEN:, X-Auth-Token:, \"client_secret\":, oauth_token:, …",
		[]string{`curl -H "X-Api-Key: 0123456789abcdef0123456789abcdef01234567" https://api`, "-H 'Authorization: Bearer abcdef0123456789'",
			"curl -H 'Cookie: session=abcdef0123' https://x", "curl -H 'PRIVATE-TOKEN: glpat-abc' https://gitlab",
			`{"client_secret": "abcdEFGH1234"}`, "    oauth_token: gho_abc123456", "Authorization: token 0123456789abcdef",
			`"secretAccessKey": "abcdEFGH1234"`, "curl -H 'X-Auth-Key: abcdef0123456789' https://x", "token: hunter2abc", "  password: hunter2", "npmAuthIdent: \"me:hunter2\"",
			`{"auths":{"r":{"auth":"dXNlcjpwdw=="}}}`},
		[]string{"Content-Type: application/json", `{"token": null, "name": "value"}`, "x-request-id: abcdef012345",
			`{"token_type": "bearer", "expires_in": 3600}`, "passwd:         files systemd", "npmAuthIdentity: x", `"accessKeyId": "AKIAEXAMPLEKEY"`,
			`"auth": "required"`, "sort-key: name", `alias curla='curl -H "Authorization: Bearer $TOKEN"'`,
			`curl -H "Authorization: token ${GH_TOKEN}" https://x`, `curl -H "X-Api-Key: $API_KEY" https://x`}},
	{RuleXMLElement, "a password or key in an XML element",
		"an XML element whose name names a secret (<password>, <passphrase>, <token>, <apiKey>, Maven's <master>) with a literal value, and NuGet's <add key=\"ClearTextPassword\" value=\"…\"/> (a key attribute that names a secret, then a value)",
		[]string{"<password>hunter2</password>", "      <passphrase>hunter2</passphrase>", "<master>{jSMOWnoPFgsHVpMvz5VrIt5kRbzGpI8u+9EF1iFQyJQ=}</master>",
			"<server><id>x</id><username>u</username><password>pw12</password></server>", "<apiKey>abcdef0123</apiKey>",
			`<add key="ClearTextPassword" value="hunter2" />`, "<ns:token>abcd1234</ns:token>"},
		[]string{"<password>${env.REPO_PASSWORD}</password>", "<privateKey>${user.home}/.ssh/id_dsa</privateKey>", "<password></password>",
			"<passwordPolicy>strict</passwordPolicy>", `<add key="Username" value="me" />`, "<id>password</id>", "<tokenizer>std</tokenizer>",
			"<privateKey>/home/u/.ssh/id_rsa</privateKey>"}},
	{RuleJWT, "a JSON Web Token", "eyJ… with three base64url parts",
		[]string{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz"},
		[]string{"eyJust kidding.not a jwt"}},
	{RuleToken, "a known token format", "a prefix of TokenFormats at the start of a word (ghp_, github_pat_, glpat-, xoxb-, sk-, sk_live_, AKIA, AIza, npm_, hf_, Bearer, Basic, …)",
		[]string{"echo ghp_0123456789abcdef\\\nghijABCDEFGHIJ0123", "echo \"sk-proj-abcdefghij\\\nklmnopqrstuvwxyz0123\"", "echo sk-proj-" + "abcdefghijklmnopqrstuvwxyz0123", "AKIAIOSFODNN7EXAMPLE",
			"gh_token ghp_" + "0123456789abcdef0123456789abcdef0123"},
		[]string{"AKIAshort", "skills-and-such-long-value", "bearer of news", "Basic authentication"}},
	{RuleBase64, "a credential in base64", "a word of 16 or more base64 characters whose decoding is text in which another rule finds a credential (an encoded line of an rc file)",
		[]string{"export B=ZXhwb3J0IERCX1BBU1NXT1JEPWh1bnRlcjIK", "data: cGFzc3dvcmQ9aHVudGVyMg==", "echo Y3VybCAtdSBhZG1pbjpwdyBodHRwczovL3g= | base64 -d | sh"},
		[]string{"integrity sha512-ZXhhbXBsZSB0ZXh0IHdpdGhvdXQgc2VjcmV0cw==", "ZXhhbXBsZSB0ZXh0IHdpdGhvdXQgc2VjcmV0cw==",
			"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "/usr/local/lib/node_modules/foo/bar"}},
	{RuleAssign, "a value for a variable named like a secret",
		"NAME=value where SecretName(NAME) and the value is a literal (not a switch or a count of at most three digits: SECRET_SCANNING=enabled, PASSWORD_LENGTH=20), also assembled with $(echo …) or $(printf …): after export, declare -x, typeset, readonly, local, env, fish's set -x, csh's setenv, docker -e; an alias's or a variable's value is read as a command line in turn",
		[]string{"export HEROKU_API_KEY=0123-abcd", "PGPASS_VALUE=PW; export PGPASS_VALUE", "export AWS_SECRET_ACCESS_KEY=$(echo wJalrXUtnFEMI)",
			"PGPASSWORD=hunter2 psql -h db", "set -gx GITHUB_TOKEN abc123", "setenv DB_PASSWORD hunter2", "docker run -e API_TOKEN=abc ubuntu",
			"export STRIPE_SK=abc123", "export GITHUB_APP_PEM=abcdef", "export AUTH_HEADER=abcdef", "env DB_PASS=x make",
			"export PW=hunter2", "PW=hunter2 ./deploy.sh", "export AUTH=user:hunter2", "export DB_PASSWORD=$'hunter2'", "DB_PASSWORD+=hunter2",
			"printf -v DB_PASSWORD hunter2", "export AWS_SECRET_ACCESS_KEY=$(base64 -d <<< d0phbHJYVXRuRkVNSQ==)",
			"export AWS_SECRET_ACCESS_KEY=$(echo d0phbHJYVXRuRkVNSQ== | base64 -d)",
			"alias db 'PGPASSWORD=hunter2 psql'"},
		[]string{"export PATH=$HOME/bin:$PATH", "export GITHUB_TOKEN=$(pass show gh)", "export TOKEN=\"$TOKEN\"",
			"export SSH_AUTH_SOCK=/run/user/1000/ssh", "HISTCONTROL=ignoreboth", "export NVM_DIR=\"$HOME/.nvm\"", "export PASSWORD=",
			"export X=\"$(pass show y)\"", "export TOKEN=$(op read op://vault/x/pw)", "export PWD_BACKUP=$PWD", "EDITOR=vim", "alias gs 'git status'",
			"export SECRET_SCANNING=enabled", "export PASSWORD_LENGTH=20", "export TOKEN_REFRESH=false", "set -gx GIT_CREDENTIAL_CACHE off"}},
	{RuleAttachedPassword, "a password after -p", "-p<password> of mysql, mariadb and their tools, and 7z",
		[]string{"alias dbq='mysql -uroot -pPW'", "mysqldump -u app -phunter2 db", `export MYSQL_CMD="mysql -pPW"`, "mysql -pPW", "7z x -psecret a.7z",
			"mysql -u root \\\n  -phunter2 db", `alias db="mysql -uroot -p'hunter2'"`, "abbr -a db 'mysql -uroot -phunter2'"},
		[]string{"mysql -u root -p", "mysql -p$DB_PW", "mkdir -p /tmp/x", "cp -p a b", "ssh -p22 host", "-p 8080", "git log -p"}},
	{RuleCommandPassword, "a password in a command's option",
		"the password option of a command: sshpass -p, docker/podman/helm/nerdctl/buildah/skopeo/oras … login -p, redis-cli -a, mongosh -p, ldapsearch -w, sqlcmd -P, zip -P, twine -p, openssl -passin pass: and enc -k, keytool -storepass, az login -p; a password as an argument: Oracle's user/password@db (sqlplus, expdp, …), htpasswd -b's, vault login TOKEN, curl's cookie (-b name=value) and proxy user:password@host (-x), lftp -u user,password",
		[]string{"sshpass -p PW ssh host", "sshpass -pPW ssh host", "docker login -u me -p PW registry.example.com",
			"helm registry login -u me -p PW r", "redis-cli -a hunter2 ping", "ldapsearch -x -w hunter2 -b dc=x",
			"openssl pkcs12 -in a.p12 -passin pass:hunter2", "keytool -list -storepass changeit2 -keystore k", "mongosh -u admin -p hunter2",
			"sqlplus scott/tiger@orcl", "sqlplus -s user/hunter2@//host:1521/svc", "htpasswd -b file user hunter2", "htpasswd -Bbc f u pw",
			"vault login s.abcdefghijkl", "curl -b 'session=abcdef0123' https://x", "curl --cookie 'sid=abc' https://x",
			"curl -x u:pw@proxy:3128 https://x", "lftp -u user,hunter2 host", "openssl enc -aes256 -k hunter2 -in a",
			"twine upload -u __token__ -p pypi-Agabc dist/*", "az login --service-principal -u app -p hunter2 --tenant t"},
		[]string{"ssh -p 22 host", "docker run -p 80:80 nginx", "docker login -u me --password-stdin",
			"openssl pkcs12 -in a.p12 -passin file:/run/pw", "zip -r a.zip dir", "sqlplus / as sysdba", "sqlplus -L /nolog",
			"htpasswd -c file user", "vault login -method=oidc", "vault login -", "curl -b ~/.cookies.txt https://x", "curl -x proxy:3128 https://x"}},
	{RulePasswordOption, "a value of a password or token option",
		"--password, --passwd, --pass, --token, --api-key, --apikey, --secret, --client-secret, --access-token, --auth-token, --oauth2-bearer, --bearer, --private-token, --secret-key, --storepass, … as --opt=value or --opt value (not a $reference, not another option)",
		[]string{"mysql --password=hunter2", "wget --password hunter2 https://x", "kubectl --token=abc123 get pods",
			"curl --oauth2-bearer abcdef0123 https://x", "vault login --token abc", "az login --password hunter2",
			"gh api --client-secret=s3cr3t"},
		[]string{"mysql --password", "docker login --password-stdin", "kubectl --token=$TOKEN get pods", "psql --no-password -h db",
			"gh auth login --with-token", "tool --password --host db"}},
	{RuleUserPassword, "user:password on a command line", "-u, --user, -U, --proxy-user (curl, wget, httpie -a) with user:password or smbclient's user%password; not uid:gid (docker -u 1000:1000, sudo, chown)",
		[]string{"curl -u admin:PW https://x", `export CURL_OPTS="-u admin:pw"`, "-u admin:pw", "curl --user=admin:pw https://x", "curl --user admin:pw https://x",
			"http -a admin:pw example.org", "smbclient //h/s -U user%pw", "curl -uadmin:pw https://x", "curl -u \\\n  admin:hunter2 https://api"},
		[]string{"docker run -u 1000:1000 img", "curl -u admin: https://x", "docker exec -u root:root c sh", "mysql -u root",
			"sudo -u root:root x", "curl -u \"$USER:$PW\" https://x"}},
	{RuleConfigSet, "a secret set by a configuration command",
		"… config(ure) set KEY VALUE and git config KEY VALUE where KEY (its last part after '.' or ':') names a secret (aws configure set aws_secret_access_key, npm/yarn/pnpm config set …authToken, git config github.token), poetry config http-basic.REPO USER PASSWORD and pypi-token.REPO TOKEN",
		[]string{"aws configure set aws_secret_access_key wJalrXUtnFEMI", "npm config set //registry.npmjs.org/:_authToken npm_abc",
			"aws configure set profile.prod.aws_secret_access_key wJalrXUtnFEMI", "poetry config http-basic.corp me hunter2",
			"poetry config pypi-token.pypi pypi-abc",
			"yarn config set npmAuthToken abc", "yarn config set npmAuthIdent \"me:pw\"", "git config --global github.token abc123"},
		[]string{"git config --global credential.helper 'cache --timeout=3600'", "git config --global credential.https://h.helper store", "aws configure set region eu-west-1", "git config --global user.name Me", "npm config set registry https://r",
			"poetry config virtualenvs.in-project true"}},
	{RuleSecretFile, "a file that holds a password or token",
		"NAME=$(cat FILE), NAME=$(< FILE) or NAME=FILE (a path) where SecretName(NAME), a credential variable (CredentialVars but sockets and runtime places) set to a path, GIT_ASKPASS, SSH_ASKPASS and SUDO_ASKPASS naming a program under the home directory, and the options that name one (--password-file, --token-file, --secret-file, --passphrase-file, --netrc-file, --passfile, mysql's --defaults-extra-file, sshpass -f, ssh/scp/sftp/rsync -i KEY and -o IdentityFile=KEY), a command that reads a credential from its standard input (RuleStdinPassword) given < FILE or cat FILE |, and a password option given $(cat FILE) or $(< FILE) where a literal would be the password (mysql -p\"$(cat F)\", sshpass -p, --password=): the file is hidden wherever it is",
		[]string{"export GITHUB_TOKEN=$(cat ~/.secrets/gh)", "export OPENAI_API_KEY=\"$(< /home/u/.openai)\"", "export VAULT_TOKEN_FILE=~/.vault-tok",
			"sshpass -f ~/.pw ssh h", "tool --token-file ~/.tok", "curl --netrc-file ~/.netrc-work https://x", "vault --password-file=/x",
			"alias db='mysql --defaults-extra-file=~/.my-prod.cnf'", "gcloud auth activate-service-account --key-file ~/.cargo/sa.json", "tool --keyfile=~/.k", "ssh -i ~/.cache/keys/id_deploy host",
			"GIT_SSH_COMMAND='ssh -i ~/.config/git/deploy' git pull", "scp -o IdentityFile=~/.cargo/k f h:", "export GIT_ASKPASS=~/.local/bin/askpass",
			"export PGPASSFILE=~/.cache/pgpass", "export AWS_SHARED_CREDENTIALS_FILE=$HOME/.gradle/aws",
			"docker login -u me --password-stdin < ~/.cargo/pw", "gh auth login --with-token <~/.gh-token", "cat ~/.tok | gh auth login --with-token",
			"echo done; gh auth login --with-token < f", `mysql -h db -u root -p"$(cat ~/.dbpw)"`, `sshpass -p "$(< ~/.pw)" ssh h`,
			"docker login -u me -p $(cat ~/.config/git/regpw) r", "tool --password=$(cat ~/.pw)", "wget --password \"$(cat ~/.pw)\" https://x",
			"export DB_PASS=`cat ~/.secret`", `docker login -u me --password-stdin < "$HOME/.pw"`,
			"cat ${HOME}/.tok 2>/dev/null | gh auth login --with-token", "gh auth login --with-token 0< ~/.tok",
			"cat -- ~/.tok | docker login -u me --password-stdin", "export GH_TOKEN=$(head -1 ~/.tok)",
			`export GH_TOKEN=$(tr -d '\n' < ~/.tok)`, "export NPM_TOKEN=$(jq -r .token ~/.config/npm.json)"},
		[]string{"export EDITOR=$(which vim)", `mysql -p"$(pass show db)"`, "cat ~/.pw | wc -l", "export NOTES=$(head -1 ~/notes)",
			"head -1 ~/x | sort", "cat notes | grep x", "sort < ~/list", "mkdir -p $(cat ~/dirs)", "export NOTES=$(cat ~/notes)", "tool --config-file ~/.x", "tool --token-file=$F",
			"ssh -i $KEY host", "export SSH_ASKPASS=/usr/lib/ssh/x11-ssh-askpass", "grep -i foo bar",
			"export SSH_AUTH_SOCK=~/.ssh/agent.sock", "export KUBECONFIG=$KUBECONFIG:x"}},
	{RuleCredentialStore, "git's credential store file",
		"credential.helper = store --file FILE (a git configuration line or a git config command): the file is hidden wherever it is",
		[]string{"\thelper = store --file ~/.config/git/token-store", "git config --global credential.helper 'store --file=/home/u/.tok'",
			"[credential]\n\thelper = \"store --file /x/y\"", "\thelper = store --file \"~/.config/git/token store\""},
		[]string{"\thelper = store", "\thelper = cache --timeout=3600", "\thelper = osxkeychain"}},
	{RuleStdinPassword, "a password fed to a command's standard input",
		"a literal given with <<< WORD, a here-document (its first literal line), or echo/printf WORD or cat <<EOF | to a command that reads a credential from its standard input: --password-stdin, --pass-stdin, --token-stdin, --with-token (docker/podman/helm … login, gh auth login), sudo -S, passwd --stdin, chpasswd, vault login -, read NAME where SecretName(NAME)",
		[]string{"docker login --password-stdin <<< hunter2", "echo hunter2 | docker login -u me --password-stdin",
			"gh auth login --with-token <<< ghp_short123", "echo hunter2xyz | gh auth login --with-token", "echo \"hunter2\" | sudo -S apt update",
			"sudo -S <<< hunter2 apt update", "op signin --raw <<< hunter2", "chpasswd <<< 'u:pw'", "read -s PW <<< hunter2",
			"docker login -u me --password-stdin <<EOF\nhunter2\nEOF", "gh auth login --with-token <<EOF\n\nghp_short123\n\nEOF",
			"cat <<EOF | docker login -u me --password-stdin\nhunter2\nEOF", "chpasswd <<-EOF\n\tu1:pw1\n\tu2:pw2\n\tEOF",
			"podman login -u me --password-stdin <<'END' && echo ok\n  hunter2\n\nEND"},
		[]string{"docker login -u me --password-stdin < \"$PW_FILE\"", "echo \"$PW\" | docker login --password-stdin", "echo done; gh auth login --with-token < $F",
			"cat \"$TOK\" | gh auth login --with-token", "echo x | sudo tee /etc/x", "echo hi | grep -S x", "sudo -u root ls <<< x",
			"docker login -u me --password-stdin <<EOF\n$PW\nEOF", "docker login -u me --password-stdin <<EOF\n$PW\n\n${X}\nEOF",
			"cat <<EOF > notes.txt\nline one\nline two\nEOF"}},
	{RulePasswordLine, "a password line", "a line of two words, password or passwd and a value (a netrc split over lines), or a secret key followed by a quoted value (Gradle's password 'x')",
		[]string{"  password hunter2", "password 'repo-pw'", "        password \"repo-pw\"", "token 'abc'",
			"maven { credentials { username 'u'; password 'pw' } }"},
		[]string{"password", "password required for login", "# password", "token expired"}},
	{RulePgpass, "a password file line (libpq)", "host:port:database:user:password, five fields without blanks, the port digits or *, as in ~/.pgpass and the files PGPASSFILE names",
		[]string{"db.example.com:5432:app:app:hunter2", "*:*:*:postgres:hunter2", "localhost:5432:*:u:pw"},
		[]string{"root:x:0:0:root:/root:/bin/bash", "a:b:c:d:e", "12:34:56:78:90 x", "staff:x:50:"}},
	{RuleUnexamined, "text too large to examine", "a text beyond MaxTextBytes, MaxLines or MaxLineBytes is not examined whole: the caller hides it",
		nil, nil},
}

// String returns the rule's What.
func (r Rule) String() string {
	for _, row := range Rules {
		if row.Rule == r {
			return row.What
		}
	}
	return "no secret"
}

// Finding is one credential found in a text: the rule, the kind (never
// the value), the line (1-based; 0 in a value), and for RuleSecretFile
// and RuleCredentialStore the file the text names as holding a
// credential, as written (~/ not expanded).
type Finding struct {
	Rule Rule
	What string
	Line int
	Path string
}

// Redacts reports whether the finding is in the text itself (its line
// shows a credential), rather than naming a file that holds one.
func (f Finding) Redacts() bool {
	return f.Rule != RuleSecretFile && f.Rule != RuleCredentialStore
}
