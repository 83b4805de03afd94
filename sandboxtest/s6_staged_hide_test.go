package sandboxtest

import "testing"

// S6 (issue 30 §5): a hide entry below a staged-data root that the
// sandbox binds back read-only (~/.hermes/cache/documents/secret.txt
// with a sandbox ID): it compiles, as with Hermes' backend, and the file
// reads as empty while the rest of the root stays readable: its mask is
// made after the root's bind. Control: the same invocation without that
// mask shows the marker, so the late mask (not the root's absence) hides it.
func testStagedHide(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/cache/documents/secret.txt"), f.marker+"\n")
	f.write(f.expand("{hermes}/cache/documents/report.txt"), "report\n")
	f.chown(f.base)
	script := `
val secret 'cat {hermes}/cache/documents/secret.txt | wc -c'
val report 'cat {hermes}/cache/documents/report.txt'
`
	inv, _ := f.compile("sandbox_id: d\nhide:\n  - ~/.hermes/cache/documents/secret.txt\n", call{})
	r := f.bwrun(inv, script, call{})
	f.expect(r, want{"secret": "0", "report": "report"})

	// rawArgs leaves out every --ro-bind-data (their descriptors are
	// bwrun's), the file's late mask among them.
	c := f.exec(call{argv: append(append([]string{bwrapPath}, rawArgs(t, inv)...), "--", "/bin/cat", f.expand("{hermes}/cache/documents/secret.txt"))})
	if c.stdout != f.marker+"\n" {
		t.Errorf("control: without the late mask the file was not readable: %v", c)
	}
}
