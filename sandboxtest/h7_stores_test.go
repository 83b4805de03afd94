package sandboxtest

import (
	"strings"
	"testing"
)

// H7: what the re-review of issue 27 found shown in the allowed entries:
// a file in a directory named as a package store elsewhere than its
// tool keeps one (~/.cache/torch/registry), a file at the top of a real
// store (~/.cargo/registry), a text that starts as a bzip2 archive
// would, and plain files an rc file feeds to a credential-reading
// command (gh auth login --with-token < FILE) or to a password option
// (mysql -p"$(cat FILE)"), a server password in a Maven settings file
// other than the denied settings.xml (an XML element), and a token split over
// two lines with a backslash in a script of ~/.local/bin, and a script
// there that git tracks (a user's scripts kept in a repository: the
// files a checkout lists were shown unread). What lies in a store's directories, and a
// real gzip file, stay shown. Control: the host reads every one, and
// with each in home.allow the sandbox reads it (they hold a secret of
// their own; the marker stays in ~/.bashrc).
func testAllowedStores(t *testing.T, f *fixture) {
	sec := "st-" + f.tag + "-pw"
	bashrc := "gh auth login --with-token < ~/.cargo/ghtok\nalias db='mysql -uroot -p\"$(cat ~/.gradle/dbpw)\"'\nexport OLD_PASSWORD={marker}\n"
	f.write(f.expand("{home}/.bashrc"), f.expand(bashrc))
	files := map[string]string{
		"{home}/.cache/torch/registry/auth.json": `{"token": "SEC"}`,
		"{home}/.cargo/registry/creds.toml":      "token = \"SEC\"\n",
		"{home}/.gradle/notes.txt":               "BZh9\npassword=SEC\n",
		"{home}/.cargo/ghtok":                    "SEC\n",
		"{home}/.gradle/dbpw":                    "SEC\n",
		"{home}/.cargo/registry/cache/x/pkg":     "cache-{tag}\n",
		"{home}/.gradle/real.gz":                 "\x1f\x8b\x08\x00gz-{tag}\n",
		"{home}/.m2/settings-ci.xml":             "<settings><servers>\n  <server><id>corp</id><password>SEC</password></server>\n</servers></settings>\n",
		"{home}/.local/bin/deploy":               "#!/bin/sh\ncurl -u admin:SEC https://example.invalid\n",
		"{home}/.local/bin/tok.sh":               "#!/bin/sh\nexport X=ghp_0123456789abcdef\\\nghijABCDEFGHIJ0123 # SEC\n",
	}
	for p, c := range files {
		f.write(f.expand(p), strings.ReplaceAll(f.expand(c), "SEC", sec))
	}
	git := f.exec(call{argv: []string{"/bin/sh", "-c", f.expand("cd {home}/.local/bin && git init -q && git add deploy && git -c user.name=u -c user.email=u@x.invalid commit -qm scripts")}})
	if git.code != 0 {
		t.Fatalf("git commit of ~/.local/bin: %v", git)
	}
	script := `
val bashrc 'cat {home}/.bashrc'
val torch 'cat {home}/.cache/torch/registry/auth.json'
val creds 'cat {home}/.cargo/registry/creds.toml'
val bzh 'cat {home}/.gradle/notes.txt'
val ghtok 'cat {home}/.cargo/ghtok'
val dbpw 'cat {home}/.gradle/dbpw'
val pkg 'cat {home}/.cargo/registry/cache/x/pkg'
val m2 'cat {home}/.m2/settings-ci.xml'
val tok 'cat {home}/.local/bin/tok.sh'
val deploy 'cat {home}/.local/bin/deploy'
val gz 'tr -d "\037\213\010\000" < {home}/.gradle/real.gz'
`
	f.hostReadsSecrets(script, sec, "torch", "creds", "bzh", "ghtok", "dbpw", "m2", "tok", "deploy")
	inv, stderr := f.compile("", call{})
	for _, w := range []string{"{home}/.cache/torch/registry/auth.json line 1 holds a credential", "{home}/.cargo/registry/creds.toml line 1 holds a credential",
		"{home}/.gradle/notes.txt line 2 holds a credential", "{home}/.cargo/ghtok is hidden wherever it is: {home}/.bashrc line 1 names it",
		"{home}/.gradle/dbpw is hidden wherever it is: {home}/.bashrc line 2 names it", "{home}/.bashrc line 3 holds a credential",
		"{home}/.m2/settings-ci.xml line 2 holds a credential (a password or key in an XML element)", "{home}/.local/bin/tok.sh line 2 holds a credential",
		"{home}/.local/bin/deploy line 2 holds a credential"} {
		if !strings.Contains(stderr, f.expand(w)) {
			t.Errorf("compile warnings lack %q:\n%s", f.expand(w), stderr)
		}
	}
	if strings.Contains(stderr, f.marker) || strings.Contains(stderr, sec) {
		t.Errorf("a compile warning shows the secret:\n%s", stderr)
	}
	shown := want{"pkg": "cache-{tag}", "gz": "gz-{tag}"}
	hidden := want{"bashrc": "", "torch": "", "creds": "", "bzh": "", "ghtok": "", "dbpw": "", "m2": "", "tok": "", "deploy": ""}
	f.expect(f.bwrun(inv, script, call{}), hidden.with(shown))

	allow := "home: {allow: [.cache/torch, .cargo/registry/creds.toml, .gradle/notes.txt, .cargo/ghtok, .gradle/dbpw, .m2/settings-ci.xml, .local/bin/tok.sh, .local/bin/deploy]}\n"
	control := want{"bashrc": "", "torch": "~" + sec, "creds": "~" + sec, "bzh": "~" + sec, "ghtok": "~" + sec, "dbpw": "~" + sec, "m2": "~" + sec, "tok": "~" + sec, "deploy": "~" + sec}
	f.expect(f.sandbox(allow, script, call{}), control.with(shown))
}

// with returns w with the probes of more added (more wins).
func (w want) with(more want) want {
	for k, v := range more {
		w[k] = v
	}
	return w
}
