package runtime

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestStatFlagsThreads(t *testing.T) {
	// A command name may hold spaces and parentheses: fields count from
	// its last ')'.
	line := "42 (a) b (c) R 1 42 42 0 -1 4194564 0 0 0 0 0 0 0 0 20 0 3 0 100 0 0\n"
	flags, threads, ok := statFlagsThreads([]byte(line))
	if !ok || flags != 4194564 || threads != 3 {
		t.Errorf("got %d %d %v", flags, threads, ok)
	}
	if _, _, ok := statFlagsThreads([]byte("42 (x R 1")); ok {
		t.Error("a truncated line parsed")
	}
	if _, _, ok := statFlagsThreads(nil); ok {
		t.Error("nothing parsed")
	}
}

// TestInitAloneStates: a running process is never "alone" (it has not
// begun to exit: initAlone gives up after its few tries); one that has
// exited is.
func TestInitAloneStates(t *testing.T) {
	cmd := exec.Command("/bin/sleep", "100")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		t.Skipf("no pidfd: %v", err)
	}
	defer unix.Close(pidfd)
	if initAlone(pidfd, pid) {
		t.Error("a running process was found alone and exiting")
	}
	unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
	cmd.Wait()
	if !initAlone(pidfd, pid) {
		t.Error("an exited process was not")
	}
}

// TestSandboxNothingOutlivesRun: when the command returns at once but
// leaves processes behind (in a session of their own, ignoring
// SIGTERM and SIGHUP, writing to a host file), none of them exists the
// moment Run returns and the file stops growing: the early return of
// contain (initAlone) must not be taken while the init has children.
// The control is the same run's own evidence: the writer wrote before
// Run returned.
func TestSandboxNothingOutlivesRun(t *testing.T) {
	dir := testBinDir(t)
	if os.Getuid() == 0 {
		os.Chmod(dir, 0o777)
	}
	beat := filepath.Join(dir, "beat")
	ns := filepath.Join(dir, "pidns")
	inv := testInv(t, "--bind", dir, dir)
	inv.Writable = []string{dir}
	for range 5 {
		os.Remove(beat)
		res := run(t, inv, "/bin/sh", "-c", `readlink /proc/self/ns/pid > `+ns+`
setsid sh -c 'trap "" TERM HUP; while :; do echo x >> `+beat+`; sleep 0.01; done' </dev/null >/dev/null 2>&1 &
(trap "" TERM HUP; while :; do echo y >> `+beat+`; sleep 0.01; done) </dev/null >/dev/null 2>&1 &
while [ ! -s `+beat+` ]; do sleep 0.01; done`)
		if res.code != 0 {
			t.Fatalf("run: %d %v", res.code, res.err)
		}
		b, _ := os.ReadFile(ns)
		left := pidsInNS(strings.TrimSpace(string(b)))
		var states []string
		for _, p := range left {
			st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
			states = append(states, strings.TrimSpace(string(st)))
			syscall.Kill(p, syscall.SIGKILL)
		}
		if len(left) > 0 {
			t.Fatalf("processes %v of the sandbox's pid namespace %s exist after Run returned:\n%s", left, b, strings.Join(states, "\n"))
		}
		s1 := fileSize(beat)
		time.Sleep(100 * time.Millisecond)
		if s2 := fileSize(beat); s1 == 0 || s2 != s1 {
			t.Fatalf("the writers wrote %d bytes before Run returned, %d later (want > 0, unchanged)", s1, s2)
		}
	}
}

func fileSize(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

// pidsInNS lists the host's processes whose pid namespace is ns
// ("pid:[N]"), zombies left out, and the namespace's init too while it
// is exiting (PF_EXITING: it runs only the kernel's exit path, never
// user code again). contain does not wait for the init to finish its
// exit when it has no child left (initAlone: what remains is the
// teardown of the sandbox's mounts), so on a slow machine the init can
// still be there when Run returns; any other process of the namespace
// found here, exiting or not, means initAlone answered wrongly.
func pidsInNS(ns string) []int {
	if !strings.HasPrefix(ns, "pid:[") {
		return nil
	}
	return hostPIDs(func(dir string) bool {
		l, _ := os.Readlink(dir + "/ns/pid")
		st, _ := os.ReadFile(dir + "/stat")
		if l != ns || strings.Contains(string(st), ") Z ") {
			return false
		}
		flags, _, ok := statFlagsThreads(st)
		return !(ok && flags&pfExiting != 0 && isNamespaceInit(dir))
	})
}

// isNamespaceInit reports whether the process of /proc directory dir is
// pid 1 of its own pid namespace (the last pid of its NSpid line).
func isNamespaceInit(dir string) bool {
	status, _ := os.ReadFile(dir + "/status")
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			f := strings.Fields(rest)
			return len(f) > 1 && f[len(f)-1] == "1"
		}
	}
	return false
}
