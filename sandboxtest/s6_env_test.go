package sandboxtest

import (
	"os"
	"testing"
)

// S6 with a sandbox ID: each environment's own state directory is
// writable (in every profile, restricted too) and its private scratch
// follows the working directory: TMPDIR and writable under network,
// read-only under restricted (a write there fails; TMPDIR is the
// sandbox's /tmp, so nothing reaches the host's disk); another
// environment's state and scratch, the shared scratch's files and the
// other bwrap-* directories are invisible, the shared scratch is
// read-only. Control: bwrap with the shared scratch bound back (the old
// no-ID invocation) reads the other session's file.
func testSandboxEnvs(t *testing.T, f *fixture) {
	f.write(f.expand("{hermes}/sandboxes/bwrap-b/snapshot.sh"), f.expand("export B_SECRET={marker}\n"))
	f.write(f.expand("{scratch}/other-session.txt"), f.expand("shared-{tag}\n"))
	f.mkdirAll(f.expand("{hermes}/attachments/s1"))
	f.write(f.expand("{hermes}/attachments/s1/a.txt"), "attached\n")
	f.write(f.expand("{hermes}/cache/spillover/big.txt"), "spill\n")
	f.chown(f.base)

	scratch := f.expand("{scratch}")
	control := f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--tmpfs", f.hermes, "--bind", scratch, scratch,
		"--dev", "/dev", "--proc", "/proc", "--unshare-all", "/bin/sh", "-c", prelude + f.expand(`val shared 'cat {scratch}/other-session.txt'`)}})
	f.expect(control, want{"shared": "shared-{tag}"})

	script := `
ok state_write 'echo snap-$ID > {hermes}/sandboxes/bwrap-$ID/snap'
val sandboxes 'ls -A {hermes}/sandboxes'
ok other_state 'cat {hermes}/sandboxes/bwrap-b/snapshot.sh'
val shared_ls 'ls -A {scratch}'
ok shared_read 'cat {scratch}/other-session.txt'
ok shared_write 'echo x > {scratch}/mine-{tag}'
val tmpdir 'echo $TMPDIR $TMP $TEMP'
ok tmpdir_write 'echo t-$ID > "$TMPDIR/t"'
val other_tmp 'cat {scratch}/hermes-bwrap-b/t {scratch}/hermes-bwrap-a/t 2>/dev/null'
val attached 'cat {hermes}/attachments/s1/a.txt'
ok attach_write 'echo x > {hermes}/attachments/s1/b.txt'
ok spill 'cat {hermes}/cache/spillover/big.txt'
ok hermes_env 'cat {hermes}/.env'
val scratch_write 'echo x > {scratch}/hermes-bwrap-a/probe-$P'
`
	for _, profile := range []string{"network", "restricted"} {
		inv, _ := f.compile("profile: "+profile+"\nsandbox_id: a\n", call{})
		r := f.bwrun(inv, script, call{env: []string{"ID=a", "P=" + profile}})
		tmpdir, scratchWrite := "{scratch}/hermes-bwrap-a {scratch}/hermes-bwrap-a {scratch}/hermes-bwrap-a", ""
		if profile == "restricted" {
			tmpdir, scratchWrite = "/tmp /tmp /tmp", "~Read-only file system"
		}
		f.expect(r, want{"state_write": "yes", "sandboxes": "bwrap-a", "other_state": "no", "scratch_write": scratchWrite,
			// shared_write fails: the shared scratch is only a mount point
			// in the home layout's read-only tmpfs (the Hermes home is
			// left out); the host's shared scratch stays untouched.
			"shared_ls": "hermes-bwrap-a", "shared_read": "no", "shared_write": "no",
			"tmpdir": tmpdir, "tmpdir_write": "yes",
			"other_tmp": "t-a", "attached": "attached", "attach_write": "no", "spill": "no", "hermes_env": "no"})
		f.wantHostFile("{hermes}/sandboxes/bwrap-a/snap", "snap-a\n")
		f.wantHostFile("{scratch}/hermes-bwrap-a/t", "t-a\n") // written by the network run
		if profile == "restricted" {
			f.wantHostAbsent("{scratch}/hermes-bwrap-a/probe-restricted")
		}
		f.wantHostAbsent("{scratch}/mine-{tag}")
		f.wantHostAbsent("{hermes}/attachments/s1/b.txt")
	}
	// Environment b sees neither a's state nor a's scratch.
	invB, _ := f.compile("sandbox_id: b\n", call{})
	r := f.bwrun(invB, `
ok a_state 'cat {hermes}/sandboxes/bwrap-a/snap'
val own_state 'cat {hermes}/sandboxes/bwrap-b/snapshot.sh | cut -c1-8'
ok a_tmp 'cat {scratch}/hermes-bwrap-a/t'
val shared_ls 'ls -A {scratch}'
`, call{})
	f.expect(r, want{"a_state": "no", "own_state": "export B", "a_tmp": "no", "shared_ls": "hermes-bwrap-b"})
	if st, err := os.Stat(f.expand("{scratch}/hermes-bwrap-b")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("private scratch: %v, mode %v; want 0700", err, st)
	}

	// A prune of the private scratch: bwrun re-creates it, the command runs.
	if err := os.RemoveAll(f.expand("{scratch}/hermes-bwrap-b")); err != nil {
		t.Fatal(err)
	}
	r = f.bwrun(invB, `ok tmpdir_write 'echo again > "$TMPDIR/t"'`, call{})
	f.expect(r, want{"tmpdir_write": "yes"})
	f.wantHostFile("{scratch}/hermes-bwrap-b/t", "again\n")

	// A TMPDIR the operator set elsewhere is left alone.
	inv, _ := f.compile("sandbox_id: a\n", call{env: []string{"TMPDIR=/var/tmp"}})
	r = f.bwrun(inv, `val tmpdir 'echo $TMPDIR'`, call{env: []string{"TMPDIR=/var/tmp"}})
	f.expect(r, want{"tmpdir": "/var/tmp"})

	// A symlink planted where an environment's scratch goes: the compile
	// refuses instead of creating or binding the link's target.
	f.mkdirAll(f.expand("{base}/elsewhere"))
	if err := os.Symlink(f.expand("{base}/elsewhere"), f.expand("{scratch}/hermes-bwrap-c")); err != nil {
		t.Fatal(err)
	}
	f.chown(f.base)
	res := f.exec(call{argv: []string{tool("bwpolicy"), "compile", "--sandbox-id", "c", "-o", f.expand("{base}/inv-c.json")}})
	f.wantCode(res, 1)
	f.wantStderr(res, "hermes-bwrap-c is not a directory")
	f.wantHostAbsent("{base}/inv-c.json")
}
