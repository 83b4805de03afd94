package sandboxtest

import (
	"strings"
	"testing"
)

// H9: with the home directory as the working directory, a directory on
// PATH inside it (here ~/tools/bin, ahead of the system's) stays
// read-only: the command cannot plant a `git` there for the user's next
// host shell, while the rest of ~/tools stays writable. Control: with
// protect.allow: [PATH] (warned) the same command plants it on the host.
func testPathDirsProtected(t *testing.T, f *fixture) {
	f.mkdirAll(f.expand("{home}/tools/bin"))
	env := []string{"PATH=" + f.expand("{home}/tools/bin") + ":/usr/local/bin:/usr/bin:/bin"}
	plant := `
ok plant 'printf "#!/bin/sh\necho planted\n" > tools/bin/git && chmod +x tools/bin/git'
ok sibling 'echo x > tools/notes'
`
	for _, control := range []bool{false, true} {
		yaml := "cwd: {home}\n"
		if control {
			yaml += "protect:\n  allow: [PATH]\n"
		}
		inv, warnings := f.compile(yaml, call{dir: "{home}", env: env})
		r := f.bwrun(inv, plant, call{dir: "{home}", env: env})
		if !control {
			f.expect(r, want{"plant": "no", "sibling": "yes"})
			f.wantHostAbsent("{home}/tools/bin/git")
			continue
		}
		if !strings.Contains(warnings, "PATH") {
			t.Errorf("control: protect.allow: [PATH] was not warned: %s", warnings)
		}
		f.expect(r, want{"plant": "yes", "sibling": "yes"})
		if !f.hostExists("{home}/tools/bin/git") {
			t.Errorf("control: the planted git is not on the host")
		}
	}
}
