package sandboxtest

import (
	"strings"
	"testing"
)

// reviewBashrc are the outside review's ten ~/.bashrc spellings of a
// secret (issue 27), each holding the marker; seven stayed readable
// before the command-line rules of hazard/secrets.
var reviewBashrc = []string{
	"alias dbq='mysql -uroot -p{marker}'",
	"alias api='curl -u admin:{marker} https://example.invalid/api'",
	"alias deploy='sshpass -p {marker} ssh deploy@host.invalid'",
	"PGPASS_VALUE={marker}; export PGPASS_VALUE",
	`alias key='curl -H "X-Api-Key: {marker}" https://api.example.invalid'`,
	"alias reg='docker login -u me -p {marker} registry.example.invalid'",
	"export AWS_SECRET_ACCESS_KEY=$(echo {marker})",
	"export OPENAI_API_KEY=sk-proj-{marker}",
	"export HEROKU_API_KEY={marker}",
	"alias k='kubectl --token={marker} get pods'",
}

// H7: a ~/.bashrc with the review's ten lines is hidden whole (empty):
// `cat` shows nothing and an interactive bash defines none of its
// aliases or variables; the compile names the file and each line, never
// the value. A ~/.profile without a secret (PATH, nvm) stays as it is.
// Control: the host's own bash, on the same file, has the marker in
// both its aliases and its environment.
func testRcCommandLines(t *testing.T, f *fixture) {
	bashrc := f.expand("export NVM_DIR=\"$HOME/.nvm\"\n" + strings.Join(reviewBashrc, "\n") + "\n")
	f.write(f.expand("{home}/.bashrc"), bashrc)
	f.write(f.expand("{home}/.profile"), "export PATH=\"$HOME/bin:$PATH\"\nmkdir -p \"$HOME/bin\" 2>/dev/null\n")
	script := `
val cat 'cat {home}/.bashrc'
val aliases 'env HOME={home} bash -ic "alias; echo \$AWS_SECRET_ACCESS_KEY \$OPENAI_API_KEY \$PGPASS_VALUE" 2>/dev/null'
val profile 'cat {home}/.profile'
`
	r := f.exec(call{argv: []string{"/bin/sh", "-c", prelude + f.expand(script)}})
	got := probes(r.stdout)
	if strings.Count(got["cat"], f.marker) != len(reviewBashrc) || strings.Count(got["aliases"], f.marker) < 8 {
		t.Fatalf("control: the host's bash does not read the secrets: %v", r)
	}
	inv, stderr := f.compile("", call{})
	if !strings.Contains(stderr, f.expand("{home}/.bashrc lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 hold credentials")) {
		t.Errorf("the compile does not name the file and its ten lines:\n%s", stderr)
	}
	if strings.Contains(stderr, f.marker) {
		t.Errorf("a compile warning shows the secret:\n%s", stderr)
	}
	r = f.bwrun(inv, script, call{})
	f.expect(r, want{"cat": "", "profile": "export PATH=\"$HOME/bin:$PATH\" mkdir -p \"$HOME/bin\" 2>/dev/null"})
}

// allowedSecretFiles are files inside allowed home entries (or left
// out of them) that hold a secret, each with the tag, as the review
// found them readable.
var allowedSecretFiles = map[string]string{
	"{home}/.gradle/init.gradle":                                         "credentials {\n  username 'deploy'\n  password 'repo-{tag}'\n}\n",
	"{home}/.cache/gh/hosts.yml":                                         "github.com:\n    oauth_token: gho_{tag}\n",
	"{home}/.cache/claude-cli-nodejs/-home-u-proj/mcp-logs-github/1.txt": "{\"debug\": \"Authorization: Bearer mcp-{tag}\"}\n",
	"{home}/.npm/_logs/2026-01-01T00_00_00_000Z-debug-0.log":             "0 verbose cli npm publish --//registry.npmjs.org/:_authToken=npm-{tag}\n",
	"{home}/.config/git/token-store":                                     "https://u:store-{tag}@github.com\n",
}

// H7, H10: allowed entries are allowed by their contents. Hidden or
// absent in the sandbox: ~/.gradle/init.gradle (a repository password),
// ~/.cache/gh/hosts.yml and an MCP client's logs (~/.cache entries that
// are not build caches), ~/.npm/_logs, and the store ~/.config/git's
// config names (credential.helper = store --file). Still shown: the
// rest of those entries (~/.gradle's other files, ~/.config/git's config
// and ignore file, ~/.cache/ms-playwright, ~/.npm's cache). Control: the
// same sandbox with each of them in home.allow reads every secret, so
// the probes can see one.
func testAllowedContents(t *testing.T, f *fixture) {
	for p, content := range allowedSecretFiles {
		f.write(f.expand(p), f.expand(content))
	}
	f.write(f.expand("{home}/.config/git/config"), "[user]\n\tname = U\n[credential]\n\thelper = store --file ~/.config/git/token-store\n")
	f.write(f.expand("{home}/.config/git/ignore"), "*.swp\n")
	f.write(f.expand("{home}/.gradle/gradle.kts"), f.expand("plugins-{tag}\n"))
	f.write(f.expand("{home}/.cache/ms-playwright/chromium/INSTALLATION_COMPLETE"), f.expand("ok-{tag}\n"))
	f.write(f.expand("{home}/.npm/_cacache/index-v5/ab"), f.expand("cache-{tag}\n"))
	script := `
val gradle 'cat {home}/.gradle/init.gradle'
val gh 'cat {home}/.cache/gh/hosts.yml'
val mcp 'cat {home}/.cache/claude-cli-nodejs/-home-u-proj/mcp-logs-github/1.txt'
val npmlog 'cat {home}/.npm/_logs/*.log'
val store 'cat {home}/.config/git/token-store'
val gitname 'HOME={home} git config --global user.name'
val ignore 'cat {home}/.config/git/ignore'
val kts 'cat {home}/.gradle/gradle.kts'
val playwright 'cat {home}/.cache/ms-playwright/chromium/INSTALLATION_COMPLETE'
val npmcache 'cat {home}/.npm/_cacache/index-v5/ab'
`
	inv, stderr := f.compile("", call{})
	for _, w := range []string{"{home}/.gradle/init.gradle line 3 holds a credential (a password line)", "{home}/.npm/_logs is hidden",
		"{home}/.config/git/token-store is hidden wherever it is: {home}/.config/git/config line 4 names it"} {
		if !strings.Contains(stderr, f.expand(w)) {
			t.Errorf("compile warnings lack %q:\n%s", f.expand(w), stderr)
		}
	}
	if strings.Contains(stderr, "repo-"+f.tag) || strings.Contains(stderr, "store-"+f.tag) {
		t.Errorf("a compile warning shows a secret:\n%s", stderr)
	}
	shown := want{"gitname": "U", "ignore": "*.swp", "kts": "plugins-{tag}", "playwright": "ok-{tag}", "npmcache": "cache-{tag}"}
	r := f.bwrun(inv, script, call{})
	hidden := want{"gradle": "", "gh": absent, "mcp": absent, "npmlog": "~No such file", "store": ""}
	for k, v := range shown {
		hidden[k] = v
	}
	f.expect(r, hidden)

	r = f.sandbox("home: {allow: [.gradle/init.gradle, .cache/gh, .cache/claude-cli-nodejs, .npm/_logs, .config/git/token-store]}\n", script, call{})
	control := want{"gradle": "~repo-{tag}", "gh": "~gho_{tag}", "mcp": "~mcp-{tag}", "npmlog": "~npm-{tag}", "store": "~store-{tag}"}
	for k, v := range shown {
		control[k] = v
	}
	f.expect(r, control)
}
