package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	bwruntime "github.com/bwpolicy/bwpolicy/runtime"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/serve"
)

// setupWritable is setup with a directory the sandbox may write (its
// markers show what ran).
func setupWritable(t *testing.T) (bin, inv, dir string) {
	t.Helper()
	bin, inv = setup(t, invocation.Rlimits{})
	dir = filepath.Join(filepath.Dir(inv), "w")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	data, _ := os.ReadFile(inv)
	var v invocation.Invocation
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	i := slices.Index(v.Bwrap.Args, "--info-fd")
	v.Bwrap.Args = slices.Insert(v.Bwrap.Args, i, "--bind", dir, dir)
	v.Writable = []string{dir}
	data, _ = json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(inv, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, inv, dir
}

// pending is a request sent and not yet answered.
type pending struct {
	c      *serve.Conn
	reply  chan []byte
	stdout *bufio.Reader
}

// send sends argv (nonce) and collects the reply in the background.
func send(t *testing.T, sock, inv, nonce string, argv ...string) *pending {
	t.Helper()
	c, err := serve.Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	outR, outW, _ := os.Pipe()
	devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer devnull.Close()
	defer outW.Close()
	args := append([]string{"--nonce", nonce, inv, "--"}, argv...)
	if err := c.Send(serve.Request{Args: args, Env: []string{"PATH=/usr/bin:/bin"}}, devnull, outW, devnull); err != nil {
		t.Fatal(err)
	}
	p := &pending{c: c, reply: make(chan []byte, 1), stdout: bufio.NewReader(outR)}
	go func() { b, _ := c.Reply(); p.reply <- b }()
	return p
}

// sendRunning sends a command that prints "ready" and sleeps (the
// sleep's argument: arg) and waits until it has printed it.
func sendRunning(t *testing.T, sock, inv, nonce, arg string) *pending {
	t.Helper()
	p := send(t, sock, inv, nonce, "sh", "-c", "echo ready; exec sleep "+arg)
	if line, _ := p.stdout.ReadString('\n'); line != "ready\n" {
		t.Fatalf("command %s: %q", nonce, line)
	}
	return p
}

// status waits (bounded) for p's reply: nil when none came.
func (p *pending) status(t *testing.T) *bwruntime.Status {
	t.Helper()
	select {
	case b := <-p.reply:
		if len(b) == 0 {
			return nil
		}
		var st bwruntime.Status
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatalf("reply %q: %v", b, err)
		}
		return &st
	case <-time.After(60 * time.Second):
		t.Fatal("no reply within 60 s")
	}
	return nil
}

// TestServeQueuedRequestWaits: the server runs one command at a time; a
// second request sent while the first runs waits (its command has not
// started while the first runs), then runs and is answered.
func TestServeQueuedRequestWaits(t *testing.T) {
	bin, inv, dir := setupWritable(t)
	s := startServer(t, bin, inv)
	marker := filepath.Join(dir, "second-ran")
	a := sendRunning(t, s.sock, inv, "qa", "31360")
	b := send(t, s.sock, inv, "qb", "sh", "-c", "echo > "+marker)
	time.Sleep(time.Second)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the second command ran while the first one ran")
	}
	select {
	case r := <-b.reply:
		t.Fatalf("the second request was answered while the first ran: %q", r)
	default:
	}
	a.c.Kill()
	if st := a.status(t); st == nil || st.Nonce != "qa" || st.Outcome != bwruntime.OutcomeSignaled {
		t.Fatalf("first: %+v", st)
	}
	if st := b.status(t); st == nil || st.Nonce != "qb" || st.Outcome != bwruntime.OutcomeExited || st.ExitStatus != 0 {
		t.Fatalf("second: %+v", st)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the second command did not run after the first: %v", err)
	}
}

// TestServeEndingAnswersQueued: a server told to end (SIGTERM) while a
// command runs kills and scans that command and answers it; a request
// queued behind it is answered setup-failed (its nonce, "not run") and
// its command never runs. Before, the queued connection was closed
// unanswered (no status: a spurious 125 in the plugin); variants: the
// invocation changed on disk (the server ends the same way) and a
// request that comes while the server ends.
func TestServeEndingAnswersQueued(t *testing.T) {
	for _, end := range []string{"sigterm", "changed"} {
		t.Run(end, func(t *testing.T) {
			bin, inv, dir := setupWritable(t)
			s := startServer(t, bin, inv)
			marker := filepath.Join(dir, "queued-ran")
			a := sendRunning(t, s.sock, inv, "ea", "31361")
			b := send(t, s.sock, inv, "eb", "sh", "-c", "echo > "+marker)
			switch end {
			case "sigterm":
				s.cmd.Process.Signal(syscall.SIGTERM)
			case "changed":
				data, _ := os.ReadFile(inv)
				os.WriteFile(inv+".tmp", append(data, '\n'), 0o644)
				os.Rename(inv+".tmp", inv)
				time.Sleep(2 * serve.Poll) // the server sees it only between commands
				a.c.Kill()
			}
			if st := a.status(t); st == nil || st.Nonce != "ea" || st.Outcome != bwruntime.OutcomeSignaled {
				t.Fatalf("running command: %+v", st)
			}
			st := b.status(t)
			if st == nil || st.Nonce != "eb" || st.ExitStatus != bwruntime.ExitSetup ||
				(st.Outcome != bwruntime.OutcomeSetupFailed && st.Outcome != bwruntime.OutcomeStale) {
				t.Fatalf("queued request: %+v", st)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("a request queued behind the server's end ran its command")
			}
			s.waitExit(t, 20*time.Second, "told to end ("+end+")")
		})
	}
}

// TestServeRequestReadSurvivesSignals: a request that arrives in parts
// while the server gets signals it does not act on (a child's SIGCHLD;
// here SIGWINCH to each of its threads) is still read and answered.
// Before, a receive bounded by SO_RCVTIMEO returned EINTR (signal(7):
// such receives are not restarted) and the request was dropped
// unanswered.
func TestServeRequestReadSurvivesSignals(t *testing.T) {
	bin, inv := setup(t, invocation.Rlimits{})
	s := startServer(t, bin, inv)
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: s.sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body, _ := json.Marshal(serve.Request{Args: []string{"--nonce", "sig", inv, "--", "true"}, Env: []string{"PATH=/usr/bin:/bin"}})
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
	msg = append(msg, body...)
	devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	defer devnull.Close()
	fd := int(devnull.Fd())
	if _, _, err := conn.WriteMsgUnix(msg[:10], syscall.UnixRights(fd, fd, fd), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the server waits for the rest
	for i := 0; i < 5; i++ {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", s.cmd.Process.Pid))
		for _, task := range tasks {
			var tid int
			fmt.Sscan(task.Name(), &tid)
			syscall.Tgkill(s.cmd.Process.Pid, tid, syscall.SIGWINCH)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := conn.Write(msg[10:]); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	reply, _ := readAll(conn)
	var st bwruntime.Status
	if err := json.Unmarshal(reply, &st); err != nil || st.Nonce != "sig" || st.Outcome != bwruntime.OutcomeExited || st.ExitStatus != 0 {
		t.Fatalf("reply %q (%v)", reply, err)
	}
}

// TestServeLongRequest: a request long enough to arrive in several
// parts (a 400 kB environment) is read whole and runs; a Kill sent right
// after such a request is not taken for part of it: the request is
// answered (not run, or killed), never dropped. Before, the server read
// each later part over the first one's bytes (the length was lost: "request
// too long", no reply: every command with such an environment was a 125
// in the plugin), and its read of the last part took the Kill along
// ("bytes after the request").
func TestServeLongRequest(t *testing.T) {
	bin, inv := setup(t, invocation.Rlimits{})
	s := startServer(t, bin, inv)
	env := []string{"PATH=/usr/bin:/bin"}
	for i := 0; i < 400; i++ {
		env = append(env, fmt.Sprintf("V%d=%s", i, strings.Repeat("x", 1000)))
	}
	for i := 0; i < 6; i++ {
		c, err := serve.Dial(s.sock)
		if err != nil {
			t.Fatal(err)
		}
		devnull, _ := os.OpenFile(os.DevNull, os.O_RDWR, 0)
		nonce := fmt.Sprintf("long%d", i)
		argv := []string{"sleep", "31362"}
		if i == 0 {
			argv = []string{"sh", "-c", "test ${#V399} = 1000"}
		}
		if err := c.Send(serve.Request{Args: append([]string{"--nonce", nonce, inv, "--"}, argv...), Env: env}, devnull, devnull, devnull); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			c.Kill()
		}
		reply, _ := c.Reply()
		c.Close()
		devnull.Close()
		var st bwruntime.Status
		if err := json.Unmarshal(reply, &st); err != nil || st.Nonce != nonce {
			t.Fatalf("round %d: reply %q (%v)", i, reply, err)
		}
		if i == 0 && (st.Outcome != bwruntime.OutcomeExited || st.ExitStatus != 0) || i > 0 && st.ExitStatus != bwruntime.ExitSetup {
			t.Fatalf("round %d: %+v", i, st)
		}
	}
}
