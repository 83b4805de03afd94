package main

import (
	"bytes"
	"encoding/json"
	"errors"
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
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestDependencies: the per-command binary links the standard library
// and golang.org/x/sys only (besides the runtime, its sub-packages and
// the hazard knowledge packages, which TestDependencies in runtime holds
// to the same).
func TestDependencies(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not in PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, dep := range deps {
		switch {
		case dep == "github.com/bwpolicy/bwpolicy/cmd/bwrun", dep == "github.com/bwpolicy/bwpolicy/runtime",
			strings.HasPrefix(dep, "github.com/bwpolicy/bwpolicy/runtime/"), strings.HasPrefix(dep, "github.com/bwpolicy/bwpolicy/hazard/"):
			// Ours; -deps lists what they import in turn, so an outside
			// dependency of any of them is still caught below.
		case strings.HasPrefix(dep, "golang.org/x/sys/"):
		default:
			t.Errorf("bwrun depends on %s: only the standard library and golang.org/x/sys are allowed", dep)
		}
	}
	t.Logf("non-std deps: %v", deps)
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"inv.json"},
		{"inv.json", "--"},
		{"inv.json", "true"},
		{"inv.json", "-x", "true"},
		{"", "--", "true"},
		{"--timeout", "0", "inv.json", "--", "true"},
		{"--timeout", "x", "inv.json", "--", "true"},
		{"--timeout=-1", "inv.json", "--", "true"},
		{"--timeout", "1", "--timeout", "2", "inv.json", "--", "true"},
		{"--status-fd", "99", "inv.json", "--", "true"},
		{"--status-fd", "-3", "inv.json", "--", "true"},
		{"--status-fd", "1", "inv.json", "--", "true"},
		{"--status-fd", "2", "inv.json", "--", "true"},
		{"--chdir", "rel", "inv.json", "--", "true"},
		{"--chdir"},
	} {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		if code != bwruntime.ExitSetup || !strings.Contains(errb.String(), "usage: bwrun [OPTION...] INVOCATION.json -- CMD") || !strings.HasPrefix(errb.String(), "bwrun: ") {
			t.Errorf("%q: code %d, stderr %q", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--version"}, &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "bwrun ") || !strings.Contains(out.String(), invocation.Format) {
		t.Errorf("--version: %d %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage:") {
		t.Errorf("--help: %d %q", code, out.String())
	}
}

func TestBadInvocation(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "inv.json")
	os.WriteFile(p, []byte(`{"format": "bwpolicy.invocation/v9"}`), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{p, "--", "true"}, &out, &errb); code != 125 || !strings.Contains(errb.String(), "bwrun: invocation "+p) || !strings.Contains(errb.String(), "v9") {
		t.Fatalf("code %d, stderr %q", code, errb.String())
	}
}

// needBwrap: $BWPOLICY_BWRAP or bwrap in PATH; missing fails unless
// BWPOLICY_NO_SANDBOX=1.
func needBwrap(t *testing.T) string {
	t.Helper()
	p, err := hostprobe.FindBwrap()
	if err != nil {
		if os.Getenv("BWPOLICY_NO_SANDBOX") == "1" {
			t.Skipf("no bwrap (BWPOLICY_NO_SANDBOX=1): %v", err)
		}
		t.Fatalf("sandbox tests need bwrap (set BWPOLICY_NO_SANDBOX=1 to skip them): %v", err)
	}
	return p
}

// allowAll is a seccomp program that allows every system call.
var allowAll = []byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f}

// setup builds bwrun and writes an invocation into a directory every
// user can read, outside /tmp.
func setup(t *testing.T, rl invocation.Rlimits) (bin, inv string) {
	t.Helper()
	bw := needBwrap(t)
	base := os.Getenv("BWPOLICY_TEST_DIR")
	if base == "" {
		base = "/var/tmp"
	}
	dir, err := os.MkdirTemp(base, "bwrun-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin = filepath.Join(dir, "bwrun")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	v := invocation.Invocation{
		Format:  invocation.Format,
		Profile: "test",
		Bwrap: invocation.Bwrap{Path: bw, Args: []string{"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
			"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
			"--ro-bind", "/dev/null", "/proc/1/mem", "--ro-bind", "/dev/null", "/proc/1/task/1/mem",
			"--info-fd", "3", "--block-fd", "4", "--json-status-fd", "5", "--seccomp", "6"}},
		FDs: []invocation.FD{{Num: 3, Kind: invocation.FDInfo}, {Num: 4, Kind: invocation.FDBlock}, {Num: 5, Kind: invocation.FDStatus},
			{Num: 6, Kind: invocation.FDSeccomp}},
		Rlimits: rl,
		Seccomp: &invocation.Seccomp{Program: allowAll},
	}
	id, err := hostprobe.StatIdentity(bw)
	if err != nil {
		t.Fatal(err)
	}
	v.Bwrap.Identity = id
	data, _ := json.MarshalIndent(v, "", "  ")
	inv = filepath.Join(dir, "inv.json")
	if err := os.WriteFile(inv, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return bin, inv
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

func TestRunBinary(t *testing.T) {
	bin, inv := setup(t, invocation.Rlimits{AsBytes: 512 << 20, CPUSeconds: 60})
	cmd := exec.Command(bin, inv, "--", "sh", "-c", "ulimit -v; ulimit -t; echo err >&2; exit 7")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if code := exitCode(t, cmd.Run()); code != 7 || out.String() != "524288\n60\n" || errb.String() != "err\n" {
		t.Fatalf("code %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	cmd = exec.Command(bin, inv, "--", "bwpolicy-no-such-command")
	errb.Reset()
	cmd.Stderr = &errb
	if code := exitCode(t, cmd.Run()); code != 127 || !strings.Contains(errb.String(), "bwrun: command not found in the sandbox: bwpolicy-no-such-command") {
		t.Fatalf("missing command: %d %q", code, errb.String())
	}
}

func TestSignal(t *testing.T) {
	bin, inv := setup(t, invocation.Rlimits{})
	cmd := exec.Command(bin, inv, "--", "sh", "-c", "echo ready; exec sleep 31340")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := stdout.Read(buf); err != nil || string(buf) != "ready\n" {
		t.Fatalf("read %q, %v", buf, err)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if code := exitCode(t, err); code != 143 {
			t.Fatalf("exit %d, want 143", code)
		}
		t.Logf("bwrun exited %v after SIGTERM", time.Since(start))
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatal("bwrun did not exit after SIGTERM")
	}
	if pids := sleepers("31340"); len(pids) > 0 {
		t.Fatalf("sandboxed sleep survived: %v", pids)
	}
}

// TestKilledRuntime: SIGKILL to bwrun (no chance to relay) still takes
// the sandbox down (--die-with-parent).
func TestKilledRuntime(t *testing.T) {
	bin, inv := setup(t, invocation.Rlimits{})
	cmd := exec.Command(bin, inv, "--", "sh", "-c", "echo ready; exec sleep 31341")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	stdout.Read(buf)
	// bwrap arms --die-with-parent in the sandbox's init only after it
	// has forked the command: give it that moment (see the report).
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()
	for i := 0; i < 100 && len(sleepers("31341")) > 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := sleepers("31341"); len(pids) > 0 {
		t.Fatalf("sandboxed sleep survived bwrun's death: %v", pids)
	}
}

// TestUnprivileged runs bwrun as the ordinary user bwtest when the tests
// run as root: the limits, including RLIMIT_NPROC, must hold.
func TestUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root")
	}
	u, err := user.Lookup("bwtest")
	if err != nil {
		if out, err := exec.Command("useradd", "-m", "bwtest").CombinedOutput(); err != nil {
			t.Fatalf("useradd bwtest: %v\n%s", err, out)
		}
		if u, err = user.Lookup("bwtest"); err != nil {
			t.Fatal(err)
		}
	}
	bin, inv := setup(t, invocation.Rlimits{AsBytes: 256 << 20, CPUSeconds: 30, NProc: 12})
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd := exec.Command(bin, inv, "--", "sh", "-c", `ulimit -v; ulimit -t; grep "Max processes" /proc/self/limits; id -u; exit 3`)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + u.HomeDir}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code := exitCode(t, cmd.Run())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if code != 3 || len(lines) != 4 || lines[0] != "262144" || lines[1] != "30" || strings.Fields(lines[2])[2] != "12" || lines[3] != u.Uid {
		t.Fatalf("as bwtest: code %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

func sleepers(arg string) []string {
	want := "sleep\x00" + arg + "\x00"
	ents, _ := os.ReadDir("/proc")
	var pids []string
	for _, e := range ents {
		if b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); string(b) == want {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestInheritedFDsDoNotReachTheSandbox: a descriptor the caller leaves
// open (here a secret file on fd 7) is not readable inside the sandbox.
func TestInheritedFDsDoNotReachTheSandbox(t *testing.T) {
	bin, inv := setup(t, invocation.Rlimits{})
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET-MARKER\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The shell opens fd 7 on the secret and execs bwrun with it open.
	cmd := exec.Command("/bin/sh", "-c", `exec 7<"$1"; exec "$2" "$3" -- /bin/sh -c 'cat <&7; ls /proc/self/fd'`, "sh", secret, bin, inv)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	exitCode(t, cmd.Run())
	if strings.Contains(out.String(), "TOP-SECRET-MARKER") || strings.Contains(out.String(), "7\n") {
		t.Fatalf("the inherited descriptor reached the sandbox: %q", out.String())
	}
	if !strings.Contains(errb.String(), "Bad file descriptor") {
		t.Fatalf("reading fd 7 inside should fail (stdout %q, stderr %q)", out.String(), errb.String())
	}
}
