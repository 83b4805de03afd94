package watch

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// nsChild marks the re-run of a test in a user (and mount) namespace
// of its own.
const nsChild = "BWPOLICY_WATCH_NS_CHILD"

// inUserNS reports whether the test runs in a user and mount namespace
// of its own (unshare -Urm), where it may lower its inotify limits and
// bind-mount; when not, it re-runs test there and reports false.
func inUserNS(t *testing.T, test string) bool {
	if os.Getenv(nsChild) != "" {
		return true
	}
	cmd := exec.Command("unshare", "-Urm", os.Args[0], "-test.run", "^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), nsChild+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("in a user namespace of its own: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	return false
}

// One directory under two names in the watched tree (a bind mount): the
// kernel reports its changes under one name only, so the watcher does
// not start. Control: the same tree without the bind mount.
func TestWatchAliasedDirectory(t *testing.T) {
	if !inUserNS(t, "TestWatchAliasedDirectory") {
		return
	}
	dir := t.TempDir()
	mkdirs(t, dir+"/w/a/sub", dir+"/w/b")
	for _, bind := range []bool{false, true} {
		if bind {
			if err := unix.Mount(dir+"/w/a", dir+"/w/b", "", unix.MS_BIND, ""); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = unix.Unmount(dir+"/w/b", unix.MNT_DETACH) })
		}
		tr, err := newTree(func(string) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		err = tr.addRoot(dir + "/w")
		closeFD(tr.fd)
		switch {
		case !bind && err != nil:
			t.Fatalf("control: %v", err)
		case bind && (err == nil || !strings.Contains(err.Error(), "same directory")):
			t.Fatalf("a directory bound at a second name: %v", err)
		}
	}
}

// The watch limit reached: the watcher does not start, and says why
// (ErrLimit: bwrun then scans the whole tree, with a note), never a
// watcher that answers for part of the tree. Run in a user namespace of
// its own (unshare -Ur), whose inotify watch limit
// (/proc/sys/user/max_inotify_watches) it lowers to 8 for a tree of 20
// directories. Control: with 100, the same watcher starts.
func TestWatchLimit(t *testing.T) {
	if !inUserNS(t, "TestWatchLimit") {
		return
	}
	dir := t.TempDir()
	for i := 0; i < 20; i++ {
		mkdirs(t, fmt.Sprintf("%s/w/d%d", dir, i))
	}
	for _, limit := range []int{100, 8} {
		if err := os.WriteFile("/proc/sys/user/max_inotify_watches", []byte(fmt.Sprint(limit)), 0); err != nil {
			t.Fatal(err)
		}
		r, w, _ := os.Pipe()
		done := make(chan error, 1)
		sock := fmt.Sprintf("%s/s%d", dir, limit)
		go func() {
			done <- Serve(Config{Roots: []string{dir + "/w"}, Enter: func(string) bool { return true }, Socket: sock, Lock: sock + ".lock",
				InvHash: "h", Alive: func() bool { return true }, Idle: time.Minute, Ready: w})
		}()
		line, _ := bufio.NewReader(r).ReadString('\n')
		switch {
		case limit == 100 && !strings.HasPrefix(line, "ready "):
			t.Fatalf("control: 21 watches under a limit of 100: %q", line)
		case limit == 8 && !strings.Contains(line, ErrLimit.Error()):
			t.Fatalf("21 watches under a limit of 8: %q, want %q", line, ErrLimit)
		}
		if limit == 100 {
			Since(sock, "", 0, "other") // ends it
		}
		<-done
	}
}
