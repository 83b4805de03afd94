package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/serve"
)

// clientEnv, set in this test binary's environment, makes it a client of
// the server at its value instead (TestMain): it asks for `echo
// answered` and prints the reply, for the peer tests that need a client
// in another pid namespace or under another uid.
const clientEnv = "BWRUN_TEST_SERVE_CLIENT"

func TestMain(m *testing.M) {
	if sock := os.Getenv(clientEnv); sock != "" {
		os.Exit(clientMain(sock, os.Getenv(clientEnv+"_INV")))
	}
	if sock := os.Getenv(listenerEnv); sock != "" {
		os.Exit(listenerMain(sock))
	}
	os.Exit(m.Run())
}

func clientMain(sock, inv string) int {
	// Connected as any program can (serve.Dial would check the server
	// and, in another pid namespace, refuse it): the check under test
	// is the server's of its peer.
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	defer conn.Close()
	body, _ := json.Marshal(serve.Request{Args: []string{"--nonce", "peer", inv, "--", "/bin/echo", "answered"}, Env: []string{"PATH=/usr/bin:/bin"}})
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	if _, _, err := conn.WriteMsgUnix(append(msg, body...), syscall.UnixRights(0, 1, 2), nil); err != nil {
		fmt.Println("reply:") // refused before the request was read
		return 0
	}
	reply, _ := readAll(conn)
	fmt.Printf("reply:%s\n", reply)
	return 0
}

// server is a running bwrun --serve.
type server struct {
	cmd     *exec.Cmd
	parentW *os.File
	sock    string
}

// startServer starts bin --serve inv and waits for its "ready".
func startServer(t *testing.T, bin, inv string) *server {
	t.Helper()
	readyR, readyW, _ := os.Pipe()
	parentR, parentW, _ := os.Pipe()
	cmd := exec.Command(bin, "--serve", inv, "--ready-fd", "3", "--parent-fd", "4")
	cmd.ExtraFiles = []*os.File{readyW, parentR}
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	readyW.Close()
	parentR.Close()
	line, _ := bufio.NewReader(readyR).ReadString('\n')
	readyR.Close()
	if line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("bwrun --serve: %q", line)
	}
	s := &server{cmd: cmd, parentW: parentW, sock: serve.SocketOf(inv)}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop closes the parent's pipe and waits for the server to exit.
func (s *server) stop(t *testing.T) {
	if s.parentW == nil {
		return
	}
	s.parentW.Close()
	s.parentW = nil
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
		t.Errorf("the server did not exit when its parent's pipe closed")
	}
}

// waitExit waits up to within for the server to exit on its own (why:
// what should have ended it).
func (s *server) waitExit(t *testing.T, within time.Duration, why string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
		s.parentW.Close()
		s.parentW = nil
	case <-time.After(within):
		t.Fatalf("the server did not exit when %s", why)
	}
}

// call sends argv to the server with nonce and returns the command's
// stdout and stderr and the decoded reply (nil: none). kill, when set,
// is called once the command printed its first line.
func call(t *testing.T, sock, inv, nonce string, argv []string, kill func(*serve.Conn)) (string, string, *bwruntime.Status) {
	t.Helper()
	c, err := serve.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	devnull, _ := os.Open(os.DevNull)
	defer devnull.Close()
	args := append([]string{"--nonce", nonce, inv, "--"}, argv...)
	if err := c.Send(serve.Request{Args: args, Env: []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}}, devnull, outW, errW); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	errW.Close()
	errc := make(chan string, 1)
	go func() { b, _ := readAll(errR); errc <- string(b) }()
	var out []byte
	br := bufio.NewReader(outR)
	if kill != nil {
		line, _ := br.ReadString('\n')
		out = append(out, line...)
		kill(c)
	}
	rest, _ := readAll(br)
	out = append(out, rest...)
	reply, _ := c.Reply()
	if len(reply) == 0 {
		return string(out), <-errc, nil
	}
	var st bwruntime.Status
	if err := json.Unmarshal(reply, &st); err != nil {
		t.Fatalf("reply %q: %v", reply, err)
	}
	return string(out), <-errc, &st
}

func readAll(r interface{ Read([]byte) (int, error) }) ([]byte, error) {
	var out []byte
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return out, nil
		}
	}
}

// TestServeProtocol: a command through the server gets its streams and
// a status with the caller's nonce; a request bwrun's CLI would refuse,
// or one with a status descriptor, or for another invocation, is
// answered setup-failed (with the nonce) and runs nothing; Kill and a
// caller's disconnecting kill the sandbox, and the server answers the
// next request.
func TestServeProtocol(t *testing.T) {
	bin, inv, dir := setupWritable(t)
	s := startServer(t, bin, inv)
	out, errs, st := call(t, s.sock, inv, "n1", []string{"sh", "-c", "echo hi; echo err >&2; exit 7"}, nil)
	if st == nil || st.Nonce != "n1" || st.Outcome != bwruntime.OutcomeExited || st.ExitStatus != 7 || out != "hi\n" || errs != "err\n" {
		t.Fatalf("status %+v, stdout %q, stderr %q", st, out, errs)
	}
	c := func(args []string) *bwruntime.Status {
		conn, err := serve.Dial(s.sock)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		defer devnull.Close()
		if err := conn.Send(serve.Request{Args: args, Env: []string{"PATH=/usr/bin:/bin"}}, devnull, devnull, devnull); err != nil {
			t.Fatal(err)
		}
		reply, _ := conn.Reply()
		var st bwruntime.Status
		if err := json.Unmarshal(reply, &st); err != nil {
			t.Fatalf("%q: reply %q", args, reply)
		}
		return &st
	}
	// The markers are in a directory the sandbox may write: a refused
	// request that ran would leave one (the control below does).
	marker := filepath.Join(dir, "ran")
	other := filepath.Join(filepath.Dir(inv), "other.json")
	for _, args := range [][]string{
		{"--nonce", "n3", "--status-fd", "1", inv, "--", "touch", marker},
		{"--nonce", "n3", "--status-file", filepath.Join(filepath.Dir(inv), "st.json"), inv, "--", "touch", marker},
		{"--nonce", "n3", other, "--", "touch", marker},
		{"--nonce", "n3", inv, "touch", marker},
		{"--nonce", "n3", "--bogus", inv, "--", "touch", marker},
	} {
		st := c(args)
		if st.Nonce != "n3" || st.Outcome != bwruntime.OutcomeSetupFailed || st.ExitStatus != bwruntime.ExitSetup {
			t.Errorf("%q: %+v", args, st)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a refused request ran its command")
	}
	if _, _, st := call(t, s.sock, inv, "n3", []string{"touch", marker}, nil); st == nil || st.ExitStatus != 0 {
		t.Fatalf("control: %+v", st)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("control: the accepted request's command left no marker: %v", err)
	}
	// Kill: the sandbox dies, the reply comes (signaled, 125).
	start := time.Now()
	_, _, st = call(t, s.sock, inv, "n4", []string{"sh", "-c", "echo ready; exec sleep 31350"}, func(c *serve.Conn) { c.Kill() })
	if st == nil || st.Nonce != "n4" || st.Outcome != bwruntime.OutcomeSignaled || st.ExitStatus != bwruntime.ExitSetup || time.Since(start) > 10*time.Second {
		t.Fatalf("killed: %+v after %v", st, time.Since(start))
	}
	if p := sleepers("31350"); len(p) > 0 {
		t.Fatalf("the killed command's sleep survived: %v", p)
	}
	// Disconnect: the same.
	_, _, st = call(t, s.sock, inv, "n5", []string{"sh", "-c", "echo ready; exec sleep 31351"}, func(c *serve.Conn) { c.Close() })
	if st != nil {
		t.Fatalf("a reply on a closed connection: %+v", st)
	}
	for i := 0; i < 250 && len(sleepers("31351")) > 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if p := sleepers("31351"); len(p) > 0 {
		t.Fatalf("the disconnected command's sleep survived: %v", p)
	}
	out, _, st = call(t, s.sock, inv, "n6", []string{"echo", "again"}, nil)
	if st == nil || st.ExitStatus != 0 || out != "again\n" {
		t.Fatalf("after a disconnect: %+v %q", st, out)
	}
}

// TestServeStaleAndParent: the server answers "stale" and exits when the
// invocation on disk is no longer the one it holds; a server whose
// parent's pipe closes exits.
func TestServeStaleAndParent(t *testing.T) {
	bin, inv, dir := setupWritable(t)
	s := startServer(t, bin, inv)
	data, _ := os.ReadFile(inv)
	var v map[string]any
	json.Unmarshal(data, &v)
	v["profile"] = "changed"
	data, _ = json.Marshal(v)
	tmp := inv + ".tmp"
	os.WriteFile(tmp, data, 0o644)
	os.Rename(tmp, inv)
	_, _, st := call(t, s.sock, inv, "s1", []string{"touch", dir + "/ran"}, nil)
	if st != nil && (st.Outcome != bwruntime.OutcomeStale || st.Nonce != "s1") {
		t.Fatalf("changed invocation: %+v", st)
	}
	if _, err := os.Stat(dir + "/ran"); err == nil {
		t.Fatal("the command ran with a changed invocation")
	}
	s.waitExit(t, 5*time.Second, "the invocation changed")
	// The parent: a second server (the invocation as it is now) ends
	// when the pipe closes (stop fails the test otherwise).
	s2 := startServer(t, bin, inv)
	s2.stop(t)
}

// TestServePeer: the server answers only a peer of its uid in its pid
// namespace (watch.CheckPeer): a client in a pid namespace of its own
// (as every sandboxed process is), or under another uid (the socket's
// directory opened to it for the test), gets no reply and runs nothing;
// control: the same client as the same user in the same namespace is
// answered.
func TestServePeer(t *testing.T) {
	bin, inv := setup(t, invocation.Rlimits{})
	s := startServer(t, bin, inv)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	client := func(attr *syscall.SysProcAttr) string {
		cmd := exec.Command(self)
		cmd.Env = []string{clientEnv + "=" + s.sock, clientEnv + "_INV=" + inv, "PATH=/usr/bin:/bin"}
		cmd.SysProcAttr = attr
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("client: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := client(nil); !strings.Contains(out, "answered\n") || !strings.Contains(out, `"nonce":"peer"`) {
		t.Fatalf("control: the same user in the same namespace was not answered: %q", out)
	}
	uid, gid := os.Getuid(), os.Getgid()
	out := client(&syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}})
	if strings.Contains(out, "answered") || strings.TrimSpace(out) != "reply:" {
		t.Fatalf("a client in another pid namespace was answered: %q", out)
	}
	if uid != 0 {
		return // a client of another uid needs root to start
	}
	u, err := user.Lookup("bwtest")
	if err != nil {
		t.Fatalf("the other-uid client runs as bwtest: %v", err)
	}
	ouid, _ := strconv.Atoi(u.Uid)
	ogid, _ := strconv.Atoi(u.Gid)
	// Open the way (test only): the directory and the socket would
	// otherwise stop bwtest before the peer check does.
	os.Chmod(filepath.Dir(s.sock), 0o755)
	os.Chmod(s.sock, 0o777)
	// The test binary, where bwtest can run it (go's build cache is
	// root's own).
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	self = filepath.Join(filepath.Dir(inv), "serve-client")
	if err := os.WriteFile(self, data, 0o755); err != nil {
		t.Fatal(err)
	}
	out = client(&syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(ouid), Gid: uint32(ogid)}})
	if strings.Contains(out, "answered") || strings.TrimSpace(out) != "reply:" {
		t.Fatalf("a client of another uid was answered: %q", out)
	}
}
