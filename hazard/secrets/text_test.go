package secrets

import (
	"strings"
	"testing"
)

// reviewBashrc are the ten ~/.bashrc lines of the outside review (issue
// 27): seven stayed readable before the command-line rules.
var reviewBashrc = []string{
	"alias dbq='mysql -uroot -pPW'",
	"curl -u admin:PW https://example.com/api",
	"sshpass -p PW ssh deploy@host",
	"PGPASS_VALUE=PW; export PGPASS_VALUE",
	`curl -H "X-Api-Key: ` + strings.Repeat("a1b2", 10) + `" https://api.example.com`,
	"docker login -u me -p PW registry.example.com",
	"export AWS_SECRET_ACCESS_KEY=$(echo wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY)",
	"export OPENAI_API_KEY=sk-proj-" + strings.Repeat("x", 40),
	"export HEROKU_API_KEY=01234567-89ab-cdef-0123-456789abcdef",
	"kubectl --token=" + strings.Repeat("t", 30) + " get pods",
}

// TestReviewBashrc: Scan finds each of the review's lines, on its line.
func TestReviewBashrc(t *testing.T) {
	text := "# ~/.bashrc\nexport PATH=$HOME/bin:$PATH\n" + strings.Join(reviewBashrc, "\n") + "\n. \"$NVM_DIR/nvm.sh\"\n"
	got := map[int]bool{}
	for _, f := range Scan(text) {
		got[f.Line] = true
	}
	for i, line := range reviewBashrc {
		if !got[i+3] {
			t.Errorf("line %d %q not found", i+3, line)
		}
	}
	if got[1] || got[2] || got[len(reviewBashrc)+3] {
		t.Errorf("a harmless line was found: %v", got)
	}
}

// harmlessLines are command lines and configuration lines no rule may
// take for a credential (the flags that look like -p and -u, references
// to variables, rc files' ordinary lines).
var harmlessLines = []string{
	"-p 8080", "ssh -p 22 host", "ssh -p22 host", "mkdir -p ~/x", "cp -p a b", "git log -p", "docker run -p 80:80 nginx",
	"docker run --rm -u 1000:1000 -p 8080:80 img", "docker run -u $(id -u):$(id -g) img", "sudo -u postgres psql",
	"mysql -u root -p", "mysql -h db -P 3306 -u app -p", "psql -h db -U app -d app", "psql --no-password -h db",
	"pip install -U pip", "tar -xzf a.tgz", "rsync -avP a b", "ps -u root", "pgrep -u me:me x",
	"export PATH=\"$HOME/.local/bin:$PATH\"", "export NVM_DIR=\"$HOME/.nvm\"", `[ -s "$NVM_DIR/nvm.sh" ] && \. "$NVM_DIR/nvm.sh"`,
	"alias ll='ls -alF'", "alias gp='git push'", "export GPG_TTY=$(tty)", "export EDITOR=vim", "eval \"$(pyenv init -)\"",
	"export GITHUB_TOKEN=$(gh auth token)", "export OPENAI_API_KEY=$(pass show openai)", "export TOKEN=\"${TOKEN:-}\"",
	"HISTSIZE=1000", "shopt -s histappend", "PS1='${debian_chroot:+($debian_chroot)}\\u@\\h:\\w\\$ '",
	"export SSH_AUTH_SOCK=\"$XDG_RUNTIME_DIR/ssh-agent.socket\"", "complete -C aws_completer aws",
	"[credential]", "\thelper = cache --timeout=3600", "[user]", "\tname = Me", "\temail = me@example.com",
	"registry=https://registry.npmjs.org/", "cache-dir = /home/u/.cache/pip", "channels:", "  - conda-forge",
	"[url \"git@github.com:\"]", "\tinsteadOf = https://github.com/", "password", "token expired", "--password-stdin",
	"docker build --secret id=npm,src=$HOME/.npmrc .", "curl -u \"$USER:$PASS\" https://x", "wget --password=$PW https://x",
	// A developer's .zshrc and .bashrc: oh-my-zsh, conda, pyenv, nvm,
	// cargo, completions, ssh and docker aliases.
	`export ZSH="$HOME/.oh-my-zsh"`, `ZSH_THEME="robbyrussell"`, "plugins=(git docker kubectl)", "source $ZSH/oh-my-zsh.sh",
	`# export SSH_KEY_PATH="~/.ssh/rsa_id"`, `# export ARCHFLAGS="-arch x86_64"`, "# >>> conda initialize >>>",
	`__conda_setup="$('/home/u/miniconda3/bin/conda' 'shell.bash' 'hook' 2> /dev/null)"`, "if [ $? -eq 0 ]; then",
	`    eval "$__conda_setup"`, `        . "/home/u/miniconda3/etc/profile.d/conda.sh"`, "unset __conda_setup",
	`eval "$(pyenv init -)"`, `. "$HOME/.cargo/env"`, "source <(kubectl completion zsh)", "alias k=kubectl",
	"export GOPRIVATE=github.com/corp/*", "export NODE_OPTIONS=--max-old-space-size=4096", "export DOCKER_BUILDKIT=1",
	"export AWS_PROFILE=dev", "alias prod='ssh -p 2222 -l admin prod'",
	`alias dps='docker ps --format "table {{.Names}}\t{{.Status}}"'`, "alias mysql-local='mysql -h 127.0.0.1 -P 3306 -u root -p'",
	"export PGUSER=postgres", "export npm_config_prefix=~/.npm-global", "export PIP_INDEX_URL=https://pypi.org/simple",
	"export HISTFILESIZE=100000", "bindkey -e", "setopt HIST_IGNORE_DUPS", "zstyle ':completion:*' menu select",
	"export LESS='-R -i -M'", "export KEYTIMEOUT=1",
}

// TestHarmlessLines: no finding in ordinary lines.
func TestHarmlessLines(t *testing.T) {
	for _, l := range harmlessLines {
		if fs := FindAll(l); len(fs) > 0 {
			t.Errorf("%q: %+v", l, fs)
		}
	}
}

// TestFindingPaths: the rules that name a file return it as written.
func TestFindingPaths(t *testing.T) {
	for line, want := range map[string]string{
		"\thelper = store --file ~/.config/git/token-store":          "~/.config/git/token-store",
		"\thelper = store --file=/home/u/.tok":                       "/home/u/.tok",
		"git config --global credential.helper 'store --file /x/y'":  "/x/y",
		"export GITHUB_TOKEN=$(cat ~/.secrets/gh)":                   "~/.secrets/gh",
		"export GITHUB_TOKEN=\"$(< $HOME/.gh)\"":                     "$HOME/.gh",
		"export NPM_TOKEN_FILE=/run/secrets/npm":                     "/run/secrets/npm",
		"\thelper = /usr/lib/git-core/git-credential-store --file f": "f",
		`export GIT_SSH_COMMAND="ssh -i ~/.ssh/id_ed25519 -p 2222"`:  "~/.ssh/id_ed25519",
		"export PASSWORD_STORE_DIR=~/.pass":                          "~/.pass",
		"\thelper = store --file \"~/.config/git/token store\"":      "~/.config/git/token store",
		"\thelper = \"store --file '/home/u/x y'\"":                  "/home/u/x y",
	} {
		f, ok := Find(line)
		if !ok || f.Path != want || f.Redacts() {
			t.Errorf("%q: %+v, want path %q", line, f, want)
		}
	}
}

// TestScanBounds: a text beyond each bound ends with RuleUnexamined (the
// caller hides it); one just inside is examined whole.
func TestScanBounds(t *testing.T) {
	secret := "export DB_PASSWORD=hunter2\n"
	unexamined := func(fs []Finding) bool { return len(fs) > 0 && fs[len(fs)-1].Rule == RuleUnexamined }
	for name, text := range map[string]string{
		"bytes": secret + strings.Repeat("x", MaxTextBytes),
		"lines": secret + strings.Repeat("\n", MaxLines),
		"line":  strings.Repeat("y", MaxLineBytes+1) + "\n" + secret,
	} {
		if !unexamined(Scan(text)) {
			t.Errorf("%s: beyond the bound, not reported unexamined", name)
		}
	}
	inside := secret + strings.Repeat("\n", MaxLines-2) + strings.Repeat("y", MaxLineBytes)
	if fs := Scan(inside); unexamined(fs) || len(fs) != 1 || fs[0].Line != 1 {
		t.Errorf("inside the bounds: %+v", fs)
	}
	many := strings.Repeat(secret, 2*MaxFindings)
	if fs := Scan(many); len(fs) != MaxFindings {
		t.Errorf("findings of %d secret lines: %d, want %d", 2*MaxFindings, len(fs), MaxFindings)
	}
	deep := "alias a='" + strings.Repeat("b=\"", 8) + "mysql -pPW"
	if _, ok := Find(deep); ok {
		t.Errorf("a value nested deeper than maxDepth was examined")
	}
	words := strings.Repeat("w ", maxWords) + "sshpass -p PW ssh h"
	if fs := FindAll(words); len(fs) != 0 {
		t.Errorf("words past maxWords were examined: %+v", fs)
	}
}

// TestEnvValues: the environment values of the review (issue 27) are
// found by value; the names by SecretName.
func TestEnvValues(t *testing.T) {
	for _, v := range []string{"-u admin:pw", "mysql -pPW", "Authorization: Bearer abcdefghij0123456789",
		"--user=admin:pw", "sshpass -p PW ssh h", "-H 'X-Api-Key: abcdef0123456789'"} {
		if _, ok := SecretValue(v); !ok {
			t.Errorf("SecretValue(%q) = false", v)
		}
	}
	for _, n := range []string{"AUTH_HEADER", "STRIPE_SK", "GITHUB_APP_PEM", "PGPASS_VALUE", "SMTPPASS", "AUTHORIZATION_HEADER"} {
		if !SecretName(n) {
			t.Errorf("SecretName(%q) = false", n)
		}
	}
	for _, n := range []string{"SSL_CERT_PEM", "CA_PEM", "HTTP_PROXY_BYPASS", "HEADER", "X_REQUEST_HEADER", "LANG_SK"} {
		if n != "LANG_SK" && SecretName(n) {
			t.Errorf("SecretName(%q) = true", n)
		}
	}
	for _, v := range []string{"-p 8080", "-R -F -X", "--max-old-space-size=4096 --inspect", "-u 1000:1000", "mkdir -p x"} {
		if what, ok := SecretValue(v); ok {
			t.Errorf("SecretValue(%q) = %q", v, what)
		}
	}
}

// TestSourced: the files a start-up file reads in, as written; a
// variable other than HOME is not followed; at most maxSourced.
func TestSourced(t *testing.T) {
	text := "[ -f ~/.bash_aliases ] && . ~/.bash_aliases\nsource \"$HOME/secrets.sh\"\n. /etc/bash_completion\n. \"$NVM_DIR/nvm.sh\"\nsource relative.sh\n"
	got := Sourced(text)
	want := []string{"~/.bash_aliases", "$HOME/secrets.sh", "/etc/bash_completion"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Sourced = %q, want %q", got, want)
	}
	if n := len(Sourced(strings.Repeat(". /x\n", 2*maxSourced))); n != maxSourced {
		t.Errorf("%d files, want the bound %d", n, maxSourced)
	}
}

// FindAll returns every rule's finding in one line (the first value rule
// that matches, each word rule, the line rules): Rules' test uses it.
func FindAll(line string) []Finding {
	var out []Finding
	findLine(line, func(f Finding) bool {
		out = append(out, f)
		return len(out) < MaxFindings
	})
	return out
}
