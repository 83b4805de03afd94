package watch

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// limitChild marks the re-run of TestWatchLimit in its own user
// namespace.
const limitChild = "BWPOLICY_WATCH_LIMIT_CHILD"

// The watch limit reached: the watcher does not start, and says why
// (ErrLimit: bwrun then scans the whole tree, with a note), never a
// watcher that answers for part of the tree. Run in a user namespace of
// its own (unshare -Ur), whose inotify watch limit
// (/proc/sys/user/max_inotify_watches) it lowers to 8 for a tree of 20
// directories. Control: with 100, the same watcher starts.
func TestWatchLimit(t *testing.T) {
	if os.Getenv(limitChild) == "" {
		cmd := exec.Command("unshare", "-Ur", os.Args[0], "-test.run", "^TestWatchLimit$", "-test.v")
		cmd.Env = append(os.Environ(), limitChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestWatchLimit") {
			t.Fatalf("in a user namespace of its own: %v\n%s", err, out)
		}
		t.Logf("%s", out)
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
