package sandboxtest

import (
	"os"
	"testing"
)

// S6: compiled without a sandbox ID (what `bwpolicy run` and a plain
// compile do), the shared HERMES_HOME/cache/scratch is not this
// invocation's: a socket another process left listening there does not
// accept a connection, another environment's hermes-dm-*/msg.txt is
// unreadable, a write there fails, and TMPDIR is the sandbox's private
// /tmp (a temporary file works and never reaches the host). Control:
// bwrap with the shared scratch bound back read-write, as before,
// connects to the socket, reads the message and writes the scratch.
func testScratchNotShared(t *testing.T, f *fixture) {
	sock := f.expand("{scratch}/agent.sock")
	greetingListener(t, sock, f.expand("listener-{tag}"))
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	f.write(f.expand("{scratch}/hermes-dm-other/msg.txt"), f.marker+"\n")
	f.chown(f.base)
	script := `
val sock 'python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(100).decode())" {scratch}/agent.sock'
ok msg 'cat {scratch}/hermes-dm-other/msg.txt'
ok scratch_write 'echo x > {scratch}/mine-{tag}'
val tmpdir 'echo $TMPDIR'
ok tmp_write 'echo t > "$TMPDIR/t-{tag}"'
`
	for _, cmd := range [][]string{nil, {tool("bwpolicy"), "run", "--"}} {
		var r result
		if cmd == nil {
			r = f.sandbox("", script, call{})
		} else {
			r = f.exec(call{dir: "{proj}", argv: append(cmd, "/bin/sh", "-c", prelude+f.expand(script))})
			f.noMarker(r)
		}
		f.expect(r, want{"sock": "~Error", "msg": "no", "scratch_write": "no", "tmpdir": "/tmp", "tmp_write": "yes"})
		if probes(r.stdout)["sock"] == f.expand("listener-{tag}") {
			t.Errorf("the socket in the shared scratch answered inside the sandbox: %v", r)
		}
		f.wantHostAbsent("{scratch}/mine-{tag}")
		f.wantHostAbsent("/tmp/t-{tag}")
	}

	scratch := f.expand("{scratch}")
	c := f.exec(call{argv: []string{bwrapPath, "--ro-bind", "/", "/", "--tmpfs", f.hermes, "--bind", scratch, scratch,
		"--dev", "/dev", "--proc", "/proc", "--unshare-all", "/bin/sh", "-c", prelude + f.expand(script)}})
	f.expect(c, want{"sock": "listener-{tag}", "msg": "yes", "scratch_write": "yes"})
}
