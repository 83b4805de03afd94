package sandboxtest

import (
	"strings"
	"testing"
)

// testStartupSecret: a secret the user's shell start-up files export
// (`export OPENAI_API_KEY=…` in ~/.profile, a token in a comment of
// ~/.zshenv) reached the command twice: in the environment of every
// `bash -lc` (H5 filters what bwrun is given, not what the rc files set
// afterwards) and in `cat ~/.profile` (an allowed entry). Those files
// are hidden (empty) with a warning naming file and line; .bashrc,
// which holds no secret, stays. The control reads both on the host.
func testStartupSecret(t *testing.T, f *fixture) {
	f.write(f.expand("{home}/.profile"), f.expand("PATH=$HOME/bin:$PATH\nexport OPENAI_API_KEY=sk-proj-{marker}\n"))
	f.write(f.expand("{home}/.zshenv"), f.expand("# old: export GH=ghp_0123456789abcdefghijABCDEFGHIJ{marker}\n"))
	script := `
val env 'bash -lc "echo \${OPENAI_API_KEY:-unset}"'
val profile 'cat {home}/.profile'
val zshenv 'cat {home}/.zshenv'
val bashrc 'cat {home}/.bashrc'
`
	r := f.exec(call{argv: []string{"/bin/sh", "-c", prelude + f.expand(strings.ReplaceAll(script, "bash -lc", "env HOME={home} bash -lc"))}})
	if !strings.Contains(r.stdout, "env=sk-proj-"+f.marker) || !strings.Contains(r.stdout, "zshenv=# old") {
		t.Fatalf("control: the host does not read the start-up files' secrets: %v", r)
	}
	inv, stderr := f.compile("", call{})
	for _, w := range []string{"{home}/.profile line 2 holds a credential", "{home}/.zshenv line 1 holds a credential (a known token format)"} {
		if w = f.expand(w); !strings.Contains(stderr, w) {
			t.Errorf("compile warnings lack %q:\n%s", w, stderr)
		}
	}
	if strings.Contains(stderr, f.marker) {
		t.Errorf("a compile warning shows the secret:\n%s", stderr)
	}
	r = f.bwrun(inv, script, call{})
	f.expect(r, want{"env": "unset", "profile": "", "zshenv": "", "bashrc": "# bashrc"})
}
