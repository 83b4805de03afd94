package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/serve"
	"github.com/bwpolicy/bwpolicy/runtime/watch"
	"golang.org/x/sys/unix"
)

// listenerEnv, set in this test binary's environment, makes it a
// listener at its value instead (TestMain) that answers every
// connection with a forged status: a socket some other program bound
// where the server's is.
const listenerEnv = "BWRUN_TEST_SERVE_LISTENER"

func listenerMain(sock string) int {
	ln, err := watch.Listen(sock)
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	fmt.Println("listening")
	go func() {
		os.Stdin.Read(make([]byte, 1)) // the test's end
		os.Exit(0)
	}()
	for {
		c, _, err := unix.Accept4(ln, unix.SOCK_CLOEXEC)
		if err != nil {
			return 1
		}
		unix.Write(c, []byte(`{"outcome":"exited","exit_status":0,"nonce":"forged"}`+"\n"))
		unix.Close(c)
	}
}

// TestServeDialChecksTheListener: serve.Dial (as watch's client)
// connects only to a listener of the caller's uid in its pid namespace:
// a listener bound from another pid namespace (as a sandboxed process
// would be) is refused before anything is sent; control: the same
// listener in the caller's namespace is connected to.
func TestServeDialChecksTheListener(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		attr   *syscall.SysProcAttr
		wantOK bool
	}{
		{"same namespace", nil, true},
		{"another pid namespace", &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sock := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			cmd := exec.Command(self)
			cmd.Env = []string{listenerEnv + "=" + sock, "PATH=/usr/bin:/bin"}
			cmd.SysProcAttr = tc.attr
			stdin, _ := cmd.StdinPipe()
			out, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { stdin.Close(); cmd.Wait() }()
			if line, _ := bufio.NewReader(out).ReadString('\n'); line != "listening\n" {
				t.Fatalf("listener: %q", line)
			}
			c, err := serve.Dial(sock)
			if c != nil {
				defer c.Close()
			}
			if tc.wantOK != (err == nil) {
				t.Fatalf("Dial: %v (want ok: %v)", err, tc.wantOK)
			}
			if err == nil {
				reply, _ := c.Reply()
				if !strings.Contains(string(reply), "forged") {
					t.Fatalf("control: %q", reply)
				}
			}
		})
	}
}
