package sandboxtest

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// H7: what the contents check of the allowed entries used to show
// unread is read or hidden: a Python script in ~/.local/bin and a shell
// script in ~/.cargo/bin (a bin directory below an entry) holding a
// credential, a file with NUL bytes, a text too large to read (hidden
// unread), the files left when the check's budget runs out (200 in
// ~/.gradle/init.d: hidden unread, with their directory), and a
// multi-line here-document in ~/.bashrc feeding gh auth login
// --with-token. An ELF executable in ~/.cargo/bin still runs, and npm's
// content-addressed cache is still read. Control: the host reads every
// one, and with each in home.allow the sandbox reads it (those files
// hold a secret of their own; the marker stays in ~/.bashrc).
func testAllowedUnread(t *testing.T, f *fixture) {
	sec := "ur-" + f.tag + "-pw"
	f.write(f.expand("{home}/.bashrc"), f.expand("export PATH=$HOME/bin:$PATH\ngh auth login --with-token <<EOF\n\n{marker}\nEOF\n"))
	files := map[string]string{
		"{home}/.local/bin/deploy.py":      "#!/usr/bin/env python3\n# curl -u admin:SEC https://example.invalid\n",
		"{home}/.cargo/bin/push":           "#!/bin/sh\nexport DB_PASSWORD=SEC\n",
		"{home}/.gradle/blob":              "\x00\x01\x02export DB_PASSWORD=SEC\n",
		"{home}/.local/bin/big.sh":         strings.Repeat("echo filler line\n", 3000) + "# SEC\n",
		"{home}/.gradle/init.d/zz":         "SEC\n",
		"{home}/.npm/_cacache/index-v5/ix": "cache-{tag}\n",
		"{home}/.config/git/ignore":        "*.swp\n",
		"{home}/.cargo/env":                "export PATH=$HOME/.cargo/bin:$PATH # {tag}\n",
		"{home}/.gradle/init.d/zz.txt":     "SEC\n",
	}
	for i := 0; i < 200; i++ {
		files[fmt.Sprintf("{home}/.gradle/init.d/f%03d.gradle", i)] = "// init script\n"
	}
	for p, c := range files {
		f.write(f.expand(p), strings.ReplaceAll(f.expand(c), "SEC", sec))
	}
	elf, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	f.write(f.expand("{home}/.cargo/bin/rtrue"), string(elf))
	if err := os.Chmod(f.expand("{home}/.cargo/bin/rtrue"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `
val bashrc 'cat {home}/.bashrc'
val py 'cat {home}/.local/bin/deploy.py'
val push 'cat {home}/.cargo/bin/push'
val blob 'cat {home}/.gradle/blob | tr -d "\000\001\002"'
val big 'tail -n 1 {home}/.local/bin/big.sh'
val budget 'cat {home}/.gradle/init.d/zz'
val npmcache 'cat {home}/.npm/_cacache/index-v5/ix'
val ignore 'cat {home}/.config/git/ignore'
val cargoenv 'cat {home}/.cargo/env'
ok elf '{home}/.cargo/bin/rtrue'
`
	f.hostReadsSecrets(script, sec, "py", "push", "blob", "big", "budget")
	inv, stderr := f.compile("", call{})
	for _, w := range []string{"{home}/.bashrc line 2 holds a credential", "{home}/.local/bin/deploy.py line 2 holds a credential",
		"{home}/.cargo/bin/push line 2 holds a credential", "{home}/.gradle/blob line 1 holds a credential",
		"{home}/.local/bin/big.sh is hidden: the check of the allowed home entries' contents did not read it",
		"home.allow: [.local/bin/big.sh]", "did not read .gradle/init.d"} {
		if !strings.Contains(stderr, f.expand(w)) {
			t.Errorf("compile warnings lack %q:\n%s", f.expand(w), stderr)
		}
	}
	if strings.Contains(stderr, f.marker) || strings.Contains(stderr, sec) {
		t.Errorf("a compile warning shows the secret:\n%s", stderr)
	}
	shown := want{"npmcache": "cache-{tag}", "ignore": "*.swp", "cargoenv": "~{tag}", "elf": "yes"}
	hidden := want{"bashrc": "", "py": "", "push": "", "blob": "", "big": "", "budget": "!~" + sec}
	f.expect(f.bwrun(inv, script, call{}), hidden.with(shown))

	allow := "home: {allow: [.local/bin/deploy.py, .cargo/bin/push, .gradle/blob, .local/bin/big.sh, .gradle/init.d]}\n"
	control := want{"bashrc": "", "py": "~" + sec, "push": "~" + sec, "blob": "~" + sec, "big": "~" + sec, "budget": "~" + sec}
	f.expect(f.sandbox(allow, script, call{}), control.with(shown))
}
