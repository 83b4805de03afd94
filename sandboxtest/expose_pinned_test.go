package sandboxtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime"
)

// S6, two sessions whose tool call ids collide (Hermes'
// test_two_sessions_with_the_same_tool_call_id_each_read_their_own_result,
// issue 30 S40): the first session's result is pinned when it is stored
// (a copy beside its invocation, as the Hermes plugin makes it), then the
// second session's result replaces the archive file on the host. `bwrun
// --expose-pinned` shows each environment its own copy at the archive
// path, read-only; the copies are not reachable at their own path; a
// missing copy, a symlink in its place, or a copy others can write fails
// the run (125) before anything runs, never falling back to the host
// file. Control: `--expose` of the same path shows the first environment
// the second session's result.
func testExposePinned(t *testing.T, f *fixture) {
	archive := f.expand("{hermes}/cache/spillover/functions.terminal:0.txt")
	f.write(archive, "SECOND-SESSION line 0\n")
	// Each invocation lives in a directory of its own, hidden from the
	// sandbox: HERMES_HOME/sandboxes/bwpolicy-<ID>, as the plugin keeps it.
	var invs []string
	for _, c := range []struct{ id, text string }{{"a", "FIRST-SESSION line 0\n"}, {"b", "SECOND-SESSION line 0\n"}} {
		compiled, _ := f.compile("sandbox_id: "+c.id+"\n", call{})
		inv := f.expand("{hermes}/sandboxes/bwpolicy-" + c.id + "/invocation.json")
		f.mkdirAll(filepath.Dir(inv))
		if err := os.Chmod(filepath.Dir(inv), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(compiled, inv); err != nil {
			t.Fatal(err)
		}
		f.write(filepath.Join(runtime.PinnedDirOf(inv), runtime.PinnedName(archive)), c.text)
		invs = append(invs, inv)
	}
	invA, invB := invs[0], invs[1]
	f.chown(f.base)
	script := f.expand(prelude + `
val read 'head -n 1 ` + archive + `'
ok write 'echo x >> ` + archive + `'
ok copies 'cat {hermes}/sandboxes/bwpolicy-a/exposed/*'
val sandboxes 'ls -A {hermes}/sandboxes'
`)
	run := func(opt, inv string) result {
		r := f.exec(call{argv: []string{tool("bwrun"), opt, archive, inv, "--", "/bin/sh", "-c", script}})
		f.noMarker(r)
		return r
	}
	f.expect(run("--expose-pinned", invA), want{"read": "FIRST-SESSION line 0", "write": "no", "copies": "no", "sandboxes": "bwrap-a"})
	f.expect(run("--expose-pinned", invB), want{"read": "SECOND-SESSION line 0", "write": "no", "copies": "no", "sandboxes": "bwrap-b"})
	f.expect(run("--expose", invA), want{"read": "SECOND-SESSION line 0"}) // control: the collision
	f.wantHostFile(archive, "SECOND-SESSION line 0\n")

	copyA := filepath.Join(runtime.PinnedDirOf(invA), runtime.PinnedName(archive))
	for _, c := range []struct {
		name  string
		setup func()
		msg   string
	}{
		{"missing", func() { os.Remove(copyA) }, "no copy was pinned"},
		{"symlink", func() { os.Symlink(archive, copyA) }, "--expose-pinned"},
		{"group-writable", func() { os.Remove(copyA); f.write(copyA, "x\n"); f.chown(copyA); os.Chmod(copyA, 0o664) }, "writable by group or others"},
	} {
		os.Remove(copyA)
		c.setup()
		r := f.exec(call{argv: []string{tool("bwrun"), "--expose-pinned", archive, invA, "--", "/bin/sh", "-c", "echo ran; cat " + archive}})
		f.wantCode(r, 125)
		f.wantStderr(r, c.msg)
		if r.stdout != "" {
			t.Errorf("%s copy: the command ran: %v", c.name, r)
		}
	}
}
