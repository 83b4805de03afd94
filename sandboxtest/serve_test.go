package sandboxtest

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/serve"
)

// This file holds the real-sandbox tests of bwrun --serve (issue 25
// item 9): the environment's runtime, run as the fixture's identity for
// a ledgerEnv's invocation, asked by `sbxtool serve-call` (a client of
// the protocol, as the Hermes plugin is).

// serveProc is a running bwrun --serve.
type serveProc struct {
	cmd     *exec.Cmd
	parentW *os.File
	sock    string
	cancel  context.CancelFunc
}

// startServe starts bwrun --serve for e's invocation as the fixture's
// identity and waits for its "ready".
func startServe(t *testing.T, e *ledgerEnv) *serveProc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd, _, stderr := e.f.command(ctx, call{argv: []string{tool("bwrun"), "--serve", e.inv, "--ready-fd", "3", "--parent-fd", "4"}, dir: e.p})
	readyR, readyW, _ := os.Pipe()
	parentR, parentW, _ := os.Pipe()
	cmd.ExtraFiles = []*os.File{readyW, parentR}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	readyW.Close()
	parentR.Close()
	line, _ := bufio.NewReader(readyR).ReadString('\n')
	readyR.Close()
	s := &serveProc{cmd: cmd, parentW: parentW, sock: serve.SocketOf(e.inv), cancel: cancel}
	t.Cleanup(s.stop)
	if line != "ready\n" {
		s.stop()
		t.Fatalf("bwrun --serve: %q; stderr: %s", line, stderr)
	}
	return s
}

// stop closes the parent's pipe (the server exits) and reaps it.
func (s *serveProc) stop() {
	if s.parentW != nil {
		s.parentW.Close()
		s.parentW = nil
		done := make(chan struct{})
		go func() { s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			s.cancel() // kills it
			<-done
		}
	}
	s.cancel()
}

// serveArgv is the sbxtool serve-call argv that runs script (through
// the shell, gitEnvSetup first) in e through s; killAt, when set, is the
// file whose appearance makes the client send Kill.
func (s *serveProc) serveArgv(e *ledgerEnv, script, killAt string) []string {
	argv := []string{tool("sbxtool"), "serve-call", s.sock}
	if killAt != "" {
		argv = append(argv, "--kill-at", killAt)
	}
	return append(argv, "--", "--nonce", "sbx", e.inv, "--", "/bin/sh", "-c", gitEnvSetup+e.x(script))
}

// bwrun --serve: a command through the server runs in the sandbox (a
// hidden credential cannot be read; control: the host reads it); a
// command killed through the protocol still has its post-command scan
// finished before the reply (the hook it planted is set aside, no scan
// is left pending, host git runs nothing; control: the same plant by
// bwrap alone runs under host git); a server killed mid-command gives
// no reply (the client's 125, no status), its journal entry stays, and
// the next bwrun finishes the scan before anything runs.
func testServeRuntime(t *testing.T, f *fixture) {
	e := newLedgerEnv(t, f, "serve")
	s := startServe(t, e)
	r := f.exec(call{argv: s.serveArgv(e, "echo in; true", ""), dir: e.p})
	f.wantCode(r, 0)
	f.wantStderr(r, "serve-reply: {", `"outcome":"exited"`, `"nonce":"sbx"`)

	// Sandboxed: the credential is not there.
	secret := f.hostRead("{home}/.ssh/id_rsa")
	if !strings.Contains(secret, "SECRET") {
		t.Fatalf("the fixture's key: %q", secret)
	}
	r = f.exec(call{argv: s.serveArgv(e, "cat "+f.expand("{home}/.ssh/id_rsa"), ""), dir: e.p})
	if r.code == 0 || strings.Contains(r.stdout+r.stderr, "SECRET") {
		t.Errorf("a command through the server read ~/.ssh/id_rsa: %v", r)
	}
	f.wantStderr(r, `"outcome":"exited"`)
	if h := f.exec(call{argv: []string{"cat", f.expand("{home}/.ssh/id_rsa")}, dir: e.p}); h.code != 0 || !strings.Contains(h.stdout, "SECRET") {
		t.Fatalf("control: the host does not read the key: %v", h)
	}

	// A command inside the sandbox that reaches the server's socket (here
	// the fixture keeps the invocation where the sandbox can read, so
	// connect works) gets nothing run: its request waits behind the
	// command that sent it (one at a time), and when the server takes it
	// the peer is gone, or in another pid namespace: refused. The host's
	// next request is answered, so the queued one was handled by then;
	// what it asked for never ran. Control: the same request from the
	// host runs. (A Go client cannot start inside under the profile's
	// memory limit: python speaks the protocol.)
	innerAt := e.p + "/.inner-ran"
	inner := `python3 -c 'import json, os, socket, struct, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(2)
b = json.dumps(dict(args=["--nonce", "inner", sys.argv[2], "--", "/usr/bin/touch", sys.argv[3]], env=["%s=%s" % kv for kv in os.environ.items()])).encode()
n = os.open("/dev/null", os.O_RDWR)
socket.send_fds(s, [struct.pack(">I", len(b)) + b], [n, n, n])
try:
    print("reply=%r" % s.recv(4096))
except OSError as e:
    print("no reply: %s" % e)' ` + s.sock + " " + e.inv + " " + innerAt
	r = f.exec(call{argv: s.serveArgv(e, inner, ""), dir: e.p})
	f.wantStderr(r, `"outcome":"exited"`, `"nonce":"sbx"`)
	if !strings.Contains(r.stdout, "no reply") && !strings.Contains(r.stdout, "reply=b''") {
		t.Errorf("a request from inside the sandbox was answered: stdout %q stderr %q", r.stdout, r.stderr)
	}
	f.wantCode(f.exec(call{argv: s.serveArgv(e, "true", ""), dir: e.p}), 0)
	if f.hostExists(innerAt) {
		t.Errorf("the server ran a request sent from inside the sandbox")
	}
	if h := f.exec(call{argv: []string{"/bin/sh", "-c", inner}, dir: e.p}); !strings.Contains(h.stdout, "inner") || !f.hostExists(innerAt) {
		t.Fatalf("control: the same request from the host is not run: stdout %q stderr %q", h.stdout, h.stderr)
	}

	// Killed: the scan still runs to its end before the reply.
	r = f.exec(call{argv: s.serveArgv(e, plantHook+` && touch {p}/.planted && exec sleep 30`, e.p+"/.planted"), dir: e.p})
	f.wantCode(r, 125)
	f.wantStderr(r, `"outcome":"signaled"`, "set aside as")
	if p := e.pending(); len(p) > 0 {
		t.Errorf("the killed command's scan was left pending: %v", p)
	}
	if e.hostGitRan("/k") {
		t.Errorf("host git ran the hook a killed command planted through the server")
	}
	c := newLedgerEnv(t, f, "serve-control")
	f.wantCode(c.bwrap(plantHook), 0)
	if !c.hostGitRan("/k") {
		t.Errorf("control: host git did not run the hook planted by bwrap alone")
	}

	// What the scan set aside made the invocation stale: recompiled (as
	// the plugin does), the server holding the old one says so and
	// exits; a new one serves the new one.
	r = f.exec(call{argv: s.serveArgv(e, "true", ""), dir: e.p})
	f.wantStderr(r, `"outcome":"stale"`)
	e.compile()
	r = f.exec(call{argv: s.serveArgv(e, "touch {p}/.stale-ran", ""), dir: e.p})
	f.wantCode(r, 125)
	if f.hostExists(e.p + "/.stale-ran") {
		t.Errorf("a server holding the invocation before the recompile ran a command")
	}
	s.stop()
	s = startServe(t, e)

	// The server killed mid-command: no status; the journal keeps the
	// scan pending and the next bwrun finishes it first.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, stdout, stderr := f.command(ctx, call{argv: s.serveArgv(e, `git init -q k2 && printf '#!/bin/sh\ntouch {m}\n' > k2/.git/hooks/post-checkout && chmod +x k2/.git/hooks/post-checkout && touch {p}/.planted2 && echo planted && exec sleep 30`, ""), dir: e.p})
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(60*time.Second, func() bool { return f.hostExists(e.p + "/.planted2") }) {
		t.Fatalf("the command did not start: %s", stderr)
	}
	if len(e.pending()) == 0 {
		t.Errorf("no journal entry while a command of the server runs")
	}
	s.cmd.Process.Kill()
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != 125 || !strings.Contains(stderr.String(), "serve-reply: none") {
		t.Errorf("a server killed mid-command: exit %d, stderr %q (want 125 and no status)", code, stderr)
	}
	t.Logf("the command's output before the server died (a client withholds it: no status): %q", stdout)
	if len(e.pending()) == 0 {
		t.Errorf("the killed server left no journal entry")
	}
	r = e.bwrun("touch {p}.after-ran")
	f.wantCode(r, 125)
	f.wantStderr(r, "did not finish its scan")
	if e.hostGitRan("/k2") {
		t.Errorf("host git ran the hook planted while the server was killed")
	}
}
