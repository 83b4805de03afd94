package sandboxtest

import (
	"encoding/base64"
	"strings"
	"testing"
)

// variantBashrc are spellings of a secret in ~/.bashrc that the review of
// issue 27 did not list, one per class the detector gained (a password
// fed on standard input, a line continued with a backslash, $'…'
// quoting, +=, Oracle's user/password, vault login TOKEN, curl's
// cookie, htpasswd -b, an rc line encoded in base64, a one-line
// here-document); each stayed readable before.
var variantBashrc = []string{
	"alias reg='docker login -u me --password-stdin <<< {marker}'",
	"alias ghl='echo {marker} | gh auth login --with-token'",
	"alias api='curl -u \\\n  admin:{marker} https://example.invalid'",
	"export DB_PASSWORD=$'{marker}'",
	"DB_TOKEN+={marker}",
	"alias ora='sqlplus scott/{marker}@orcl'",
	"alias v='vault login s.{marker}'",
	"alias c=\"curl -b 'session={marker}' https://example.invalid\"",
	"alias h='htpasswd -b f u {marker}'",
	"export ENCODED=B64",
	"podman login -u me --password-stdin <<EOF\n{marker}\nEOF",
}

// H7: a ~/.bashrc holding only the variant spellings is hidden whole;
// the files the start-up files name as keys or credential stores (ssh
// -i in GIT_SSH_COMMAND, PGPASSFILE, a git store --file with a blank in
// its quoted name) are hidden wherever they are, though their content
// matches no rule; files of allowed entries in formats the review did
// not try (JSON secretAccessKey, a .pgpass line, a Docker auth) are
// hidden. ~/.profile, which names files but holds no secret, stays.
// Control: the host reads every one, and the sandbox reads each file
// (not the rc file) once it is in home.allow; those files hold a secret
// of their own (the harness fails any run that prints the marker).
func testRcVariants(t *testing.T, f *fixture) {
	enc := base64.StdEncoding.EncodeToString([]byte("export DB_PASSWORD=" + f.marker + "\n"))
	bashrc := strings.ReplaceAll(f.expand(strings.Join(variantBashrc, "\n")+"\n"), "B64", enc)
	f.write(f.expand("{home}/.bashrc"), bashrc)
	profile := "export GIT_SSH_COMMAND='ssh -i ~/.config/git/deploy_key'\nexport PGPASSFILE=$HOME/.gradle/pg-{tag}\n"
	f.write(f.expand("{home}/.profile"), f.expand(profile))
	sec := "vt-" + f.tag + "-pw"
	files := map[string]string{
		"{home}/.config/git/deploy_key":        "key-SEC",
		"{home}/.gradle/pg-{tag}":              "plain-SEC",
		"{home}/.config/git/token store":       "plain-SEC",
		"{home}/.gradle/aws.json":              `{"secretAccessKey": "SEC"}`,
		"{home}/.config/git/pgpass":            "db.example.invalid:5432:app:app:SEC",
		"{home}/.config/npm/docker.json":       `{"auths": {"r": {"auth": "AUTH"}}}`,
		"{home}/.config/git/config":            "[user]\n\tname = U\n[credential]\n\thelper = store --file \"~/.config/git/token store\"\n",
		"{home}/.gradle/init.d/plain.gradle":   "// {tag}\n",
		"{home}/.config/git/ignore":            "*.swp\n",
		"{home}/.config/npm/npmrc-{tag}.plain": "color=false\n",
	}
	auth := base64.StdEncoding.EncodeToString([]byte("me:" + sec))
	for p, c := range files {
		f.write(f.expand(p), strings.NewReplacer("AUTH", auth, "SEC", sec).Replace(f.expand(c)))
	}
	script := `
val bashrc 'cat {home}/.bashrc'
val profile 'cat {home}/.profile'
val key 'cat {home}/.config/git/deploy_key'
val pg 'cat {home}/.gradle/pg-{tag}'
val store 'cat "{home}/.config/git/token store"'
val aws 'cat {home}/.gradle/aws.json'
val pgpass 'cat {home}/.config/git/pgpass'
val docker 'cat {home}/.config/npm/docker.json'
val gitname 'HOME={home} git config --global user.name'
val ignore 'cat {home}/.config/git/ignore'
`
	f.hostReadsSecrets(script, sec, "key", "pg", "store", "aws", "pgpass")
	inv, stderr := f.compile("", call{})
	if !strings.Contains(stderr, f.expand("{home}/.bashrc lines 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12 hold credentials")) {
		t.Errorf("the compile does not name the file and each variant's line:\n%s", stderr)
	}
	if strings.Contains(stderr, f.marker) || strings.Contains(stderr, enc) || strings.Contains(stderr, sec) {
		t.Errorf("a compile warning shows the secret:\n%s", stderr)
	}
	hidden := want{"bashrc": "", "profile": f.expand(strings.ReplaceAll(strings.TrimSpace(profile), "\n", " ")),
		"key": "", "pg": "", "store": "", "aws": "", "pgpass": "", "docker": "", "gitname": "U", "ignore": "*.swp"}
	f.expect(f.bwrun(inv, script, call{}), hidden)

	allow := "home: {allow: [.config/git/deploy_key, .gradle/pg-{tag}, '.config/git/token store', .gradle/aws.json, .config/git/pgpass, .config/npm/docker.json]}\n"
	r := f.sandbox(f.expand(allow), script, call{})
	f.expect(r, want{"bashrc": "", "key": "~" + sec, "pg": "~" + sec, "store": "~" + sec,
		"aws": "~" + sec, "pgpass": "~" + sec, "docker": "~" + auth, "gitname": "U", "ignore": "*.swp"})
}

// hostReadsSecrets is the control of a secrets scenario: script run on
// the host, without the sandbox, reads ~/.bashrc (its "bashrc" probe
// shows the fixture's marker) and every probe of keys shows sec.
func (f *fixture) hostReadsSecrets(script, sec string, keys ...string) {
	f.t.Helper()
	r := f.exec(call{argv: []string{"/bin/sh", "-c", prelude + f.expand(script)}})
	got := probes(r.stdout)
	if !strings.Contains(got["bashrc"], f.marker) {
		f.t.Fatalf("control: the host does not read ~/.bashrc: %v", r)
	}
	for _, k := range keys {
		if !strings.Contains(got[k], sec) {
			f.t.Fatalf("control: the host does not read %s: %v", k, r)
		}
	}
}
