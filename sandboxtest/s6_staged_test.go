package sandboxtest

import "testing"

// S6 staged: session (issue #12): environment a sees its own staged
// files (HERMES_HOME/attachments/a, cache/documents/a), read-only;
// another session's (attachments/b) and the files at the top of the
// roots are invisible, and nothing of them is listed. Control: the
// default (staged: all, Hermes' behaviour) shows the other session's
// attachment with the same settings otherwise.
func testStagedSession(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/attachments/a/mine.txt"), "mine\n")
	f.write(f.expand("{hermes}/attachments/b/theirs.txt"), f.expand("theirs-{tag}\n"))
	f.write(f.expand("{hermes}/attachments/flat.txt"), f.expand("flat-{tag}\n"))
	f.write(f.expand("{hermes}/cache/documents/a/doc.txt"), "doc\n")
	f.write(f.expand("{hermes}/cache/documents/b/doc.txt"), f.expand("their-doc-{tag}\n"))
	f.chown(f.base)
	script := `
val mine 'cat {hermes}/attachments/a/mine.txt'
val doc 'cat {hermes}/cache/documents/a/doc.txt'
val theirs 'cat {hermes}/attachments/b/theirs.txt'
val their_doc 'cat {hermes}/cache/documents/b/doc.txt'
val flat 'cat {hermes}/attachments/flat.txt'
val listed 'ls -A {hermes}/attachments'
ok mine_write 'echo x > {hermes}/attachments/a/new.txt'
`
	inv, _ := f.compile("profile: workspace\nsandbox_id: a\nstaged: session\n", call{})
	r := f.bwrun(inv, script, call{})
	f.expect(r, want{"mine": "mine", "doc": "doc", "listed": "a", "mine_write": "no",
		"theirs": "!~theirs-{tag}", "their_doc": "!~their-doc-{tag}", "flat": "!~flat-{tag}"})
	f.wantHostAbsent("{hermes}/attachments/a/new.txt")

	// Control: the default shows every session's staged files.
	inv, _ = f.compile("profile: workspace\nsandbox_id: a\n", call{})
	r = f.bwrun(inv, script, call{})
	f.expect(r, want{"mine": "mine", "theirs": "theirs-{tag}", "their_doc": "their-doc-{tag}", "flat": "flat-{tag}", "mine_write": "no"})
}
