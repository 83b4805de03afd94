package sandboxtest

import (
	"os"
	"strings"
	"testing"
)

// S9 (issue 30 §4): a working directory deleted after the compile. bwrun
// alone (no recompile) runs the next command in the nearest existing
// parent, read-only, with one line saying so: `pwd` is the parent, a
// write there, in ./ and a mkdir of the deleted directory fail, and the
// project's files read. The tracked directory the plugin passes with
// --chdir (inside the deleted one) lands there too. When the directory
// comes back, the same invocation runs there again, writable (control:
// the same write that failed in the parent now lands on the host). The
// plugin path (a recompile while the directory is missing) records it
// missing, so its return makes that invocation stale (125) and the
// recompile binds it again.
func testCwdGoneAndBack(t *testing.T, f *fixture) {
	f.mkdirAll(f.expand("{proj}/work/sub"))
	f.chown(f.proj)
	yaml := "cwd: {proj}/work\n"
	inv, _ := f.compile(yaml, call{})
	if err := os.RemoveAll(f.expand("{proj}/work")); err != nil {
		t.Fatal(err)
	}
	script := `
val pwd 'pwd'
ok write 'echo x > {proj}/gone.txt'
ok here 'echo x > ./here.txt'
ok mk 'mkdir {proj}/work'
val read 'cat README'
`
	for _, c := range []call{{}, {argv: []string{"--chdir", f.expand("{proj}/work/sub")}}} {
		c.argv = append(append([]string{tool("bwrun")}, c.argv...), inv, "--", "/bin/sh", "-c", prelude+f.expand(script))
		r := f.exec(c)
		f.expect(r, want{"pwd": "{proj}", "write": "no", "here": "no", "mk": "no", "read": "readme"})
		f.wantStderr(r, "{proj}/work no longer exists", "runs in {proj} (read-only)")
		if n := strings.Count(r.stderr, "no longer exists"); n != 1 {
			t.Errorf("want one line saying where the command runs, got %d: %v", n, r)
		}
	}
	for _, p := range []string{"{proj}/gone.txt", "{proj}/here.txt", "{proj}/work"} {
		f.wantHostAbsent(p)
	}

	f.mkdirAll(f.expand("{proj}/work"))
	f.chown(f.proj)
	r := f.bwrun(inv, `
val pwd 'pwd'
ok write 'echo back > {proj}/work/back.txt'
ok parent 'echo x > {proj}/gone.txt'
`, call{})
	f.expect(r, want{"pwd": "{proj}/work", "write": "yes", "parent": "no"})
	if strings.Contains(r.stderr, "no longer exists") {
		t.Errorf("the directory is back, yet bwrun says it is gone: %v", r)
	}
	f.wantHostFile("{proj}/work/back.txt", "back\n")

	// The plugin's recompile while the directory is missing.
	if err := os.RemoveAll(f.expand("{proj}/work")); err != nil {
		t.Fatal(err)
	}
	inv2, warnings := f.compile(yaml, call{})
	if n := strings.Count(warnings, "does not exist"); n != 1 || !strings.Contains(warnings, f.expand("{proj}")) {
		t.Errorf("want one line naming the missing directory and where commands run, got %q", warnings)
	}
	r = f.bwrun(inv2, `
val pwd 'pwd'
ok write 'echo x > {proj}/gone.txt'
`, call{})
	f.expect(r, want{"pwd": "{proj}", "write": "no"})
	f.mkdirAll(f.expand("{proj}/work"))
	f.chown(f.proj)
	r = f.exec(call{argv: []string{tool("bwrun"), inv2, "--", "/bin/sh", "-c", "echo ran > {proj}/ran"}})
	f.wantCode(r, 125)
	f.wantStderr(r, "{proj}/work")
	f.wantHostAbsent("{proj}/ran")
	r = f.sandbox(yaml, `
val pwd 'pwd'
ok write 'echo back > {proj}/work/back.txt'
`, call{})
	f.expect(r, want{"pwd": "{proj}/work", "write": "yes"})
	f.wantHostFile("{proj}/work/back.txt", "back\n")
	f.wantHostAbsent("{proj}/gone.txt")
}
