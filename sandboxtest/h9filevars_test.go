package sandboxtest

import (
	"strings"
	"testing"
)

// H9: files the environment makes host programs run stay read-only in
// the writable directory: BASH_ENV (every non-interactive bash on the
// host sources it) and a PATH directory reached through a symlink
// outside the writable set ({base}/pl -> {proj}); and a working
// directory that is itself on PATH is refused (protect.allow: [PATH]
// accepts it, warned). Control: compiled without the variables, the
// command rewrites both on the host.
func testStartupFileVars(t *testing.T, f *fixture) {
	f.write(f.expand("{proj}/bashenv"), "# bashenv\n")
	f.mkdirAll(f.expand("{proj}/bin2"))
	f.symlink(f.expand("{proj}"), f.expand("{base}/pl"))
	env := []string{"BASH_ENV=" + f.expand("{proj}/bashenv"), "PATH=" + f.expand("{base}/pl/bin2") + ":/usr/local/bin:/usr/bin:/bin"}
	script := `
ok bashenv 'echo "echo EVIL" >> bashenv'
ok pathdir 'printf "#!/bin/sh\necho EVIL\n" > bin2/ls && chmod +x bin2/ls'
`
	for _, control := range []bool{false, true} {
		e := env
		if control {
			e = nil
		}
		inv, _ := f.compile("", call{env: e})
		r := f.bwrun(inv, script, call{env: e})
		if control {
			f.expect(r, want{"bashenv": "yes", "pathdir": "yes"})
			continue
		}
		f.expect(r, want{"bashenv": "no", "pathdir": "no"})
		f.wantHostFile("{proj}/bashenv", "# bashenv\n")
		f.wantHostAbsent("{proj}/bin2/ls")
	}
	// The working directory on PATH.
	onPath := []string{"PATH=" + f.expand("{proj}/bin2") + ":/usr/bin:/bin"}
	r := f.exec(call{argv: []string{tool("bwpolicy"), "compile", "-o", f.expand("{base}/onpath.json"), "--config", f.settings("cwd: {proj}/bin2\n")}, dir: "{proj}/bin2", env: onPath})
	if r.code == 0 || !strings.Contains(r.stderr, "PATH") {
		t.Errorf("a working directory on PATH compiled: %v", r)
	}
	inv, warnings := f.compile("cwd: {proj}/bin2\nprotect:\n  allow: [PATH]\n", call{dir: "{proj}/bin2", env: onPath})
	if !strings.Contains(warnings, "PATH") {
		t.Errorf("protect.allow: [PATH] was not warned: %s", warnings)
	}
	r = f.bwrun(inv, `ok plant 'echo x > tool && chmod +x tool'`, call{dir: "{proj}/bin2", env: onPath})
	f.expect(r, want{"plant": "yes"})
}
