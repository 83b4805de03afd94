package sandboxtest

import (
	"os"
	"testing"
)

// S6, one tool result shown to one run: `bwrun --expose FILE` with an
// invocation compiled with a sandbox ID shows HERMES_HOME/cache/spillover/
// FILE read-only at its path, while its sibling and the rest of the
// Hermes home stay hidden; a symlink planted in spillover (to the SSH
// key) and a file outside spillover are refused (125) before anything
// runs. Control: the same command without --expose sees neither file,
// and the symlink does lead to the key on the host.
func testExpose(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/cache/spillover/big.txt"), "spill-big\n")
	f.write(f.expand("{hermes}/cache/spillover/other.txt"), "spill-other\n")
	if err := os.Symlink(f.expand("{home}/.ssh/id_rsa"), f.expand("{hermes}/cache/spillover/evil.txt")); err != nil {
		t.Fatal(err)
	}
	f.chown(f.base)
	if b, err := os.ReadFile(f.expand("{hermes}/cache/spillover/evil.txt")); err != nil || len(b) == 0 {
		t.Fatalf("control: the planted symlink does not lead to the key: %v", err)
	}
	inv, _ := f.compile("sandbox_id: x\n", call{})
	script := f.expand(prelude + `
val big 'cat {hermes}/cache/spillover/big.txt 2>/dev/null'
ok other 'cat {hermes}/cache/spillover/other.txt'
ok big_write 'echo x > {hermes}/cache/spillover/big.txt'
ok hermes_env 'cat {hermes}/.env'
`)
	control := f.exec(call{argv: []string{tool("bwrun"), inv, "--", "/bin/sh", "-c", script}})
	f.expect(control, want{"big": "", "other": "no", "big_write": "no", "hermes_env": "no"})
	r := f.exec(call{argv: []string{tool("bwrun"), "--expose", f.expand("{hermes}/cache/spillover/big.txt"), inv, "--", "/bin/sh", "-c", script}})
	f.noMarker(r)
	f.expect(r, want{"big": "spill-big", "other": "no", "big_write": "no", "hermes_env": "no"})
	f.wantHostFile("{hermes}/cache/spillover/big.txt", "spill-big\n")
	for _, c := range []struct{ file, msg string }{
		{"{hermes}/cache/spillover/evil.txt", "a symlink: refused"},
		{"{hermes}/.env", "not below the roots"},
		{"{home}/.ssh/id_rsa", "not below the roots"},
	} {
		r := f.exec(call{argv: []string{tool("bwrun"), "--expose", f.expand(c.file), inv, "--", "/bin/sh", "-c", "echo ran; cat " + f.expand(c.file)}})
		f.noMarker(r)
		f.wantCode(r, 125)
		f.wantStderr(r, c.msg)
	}
}
