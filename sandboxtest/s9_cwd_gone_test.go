package sandboxtest

import (
	"os"
	"strings"
	"testing"
)

// S9 (issue 30 §4): a working directory deleted after the compile. bwrun
// refuses the old invocation as stale (125: its bind's source is gone),
// and the recompile the plugin makes once then runs the command in the
// nearest existing parent, read-only, with one line saying so; when the
// directory comes back, that invocation goes stale in turn (the missing
// directory is one of its preconditions) and the recompile binds it
// again, writable. Nothing is created on the host meanwhile. Control:
// the parent is not writable in any of these runs (the write there
// fails), so only the rebind makes the returned directory writable.
func testCwdGoneAndBack(t *testing.T, f *fixture) {
	f.mkdirAll(f.expand("{proj}/work"))
	f.chown(f.proj)
	yaml := "cwd: {proj}/work\n"
	inv, _ := f.compile(yaml, call{})
	if err := os.RemoveAll(f.expand("{proj}/work")); err != nil {
		t.Fatal(err)
	}
	r := f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", "echo ran > {proj}/ran"}})
	f.wantCode(r, 125)
	f.wantStderr(r, "{proj}/work", "recompile")
	f.wantHostAbsent("{proj}/ran")

	inv2, warnings := f.compile(yaml, call{})
	if n := strings.Count(warnings, "does not exist"); n != 1 || !strings.Contains(warnings, f.expand("{proj}")) {
		t.Errorf("want one line naming the missing directory and where commands run, got %q", warnings)
	}
	r = f.bwrun(inv2, `
val pwd 'pwd'
ok write 'echo x > {proj}/gone.txt'
val read 'cat README'
`, call{})
	f.expect(r, want{"pwd": "{proj}", "write": "no", "read": "readme"})
	f.wantHostAbsent("{proj}/gone.txt")

	f.mkdirAll(f.expand("{proj}/work"))
	f.chown(f.proj)
	r = f.exec(call{argv: []string{tool("bwrun"), inv2, "--", "/bin/sh", "-c", "echo ran > {proj}/ran"}})
	f.wantCode(r, 125)
	f.wantStderr(r, "{proj}/work")
	r = f.sandbox(yaml, `
val pwd 'pwd'
ok write 'echo back > {proj}/work/back.txt'
`, call{})
	f.expect(r, want{"pwd": "{proj}/work", "write": "yes"})
	f.wantHostFile("{proj}/work/back.txt", "back\n")
}
