package runtime

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/internal/testnet"
	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/runtime/landlock"
	"golang.org/x/sys/unix"
)

// needBwrap returns the bwrap the sandbox tests use: $BWPOLICY_BWRAP, else
// bwrap from PATH. A missing bwrap fails the test unless
// BWPOLICY_NO_SANDBOX=1 is set (then it is skipped).
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

// baseArgs is a minimal S2/S3 sandbox.
var baseArgs = []string{"--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
	"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
	"--ro-bind", "/dev/null", "/proc/1/mem", "--ro-bind", "/dev/null", "/proc/1/task/1/mem"}

// allowAll is a seccomp program that allows every system call.
var allowAll = []byte{0x06, 0, 0, 0, 0, 0, 0xff, 0x7f}

// testInv hand-writes an invocation: baseArgs, extra, then the info,
// block and status fds at 3, 4 and 5, and an allow-all seccomp program
// at fd 20 unless extra has its own --seccomp.
func testInv(t *testing.T, extra ...string) *invocation.Invocation {
	t.Helper()
	args := append(append([]string(nil), baseArgs...), extra...)
	args = append(args, "--info-fd", "3", "--block-fd", "4", "--json-status-fd", "5")
	inv := &invocation.Invocation{
		Format:  invocation.Format,
		Profile: "test",
		Bwrap:   invocation.Bwrap{Path: needBwrap(t), Args: args},
		FDs:     []invocation.FD{{Num: 3, Kind: invocation.FDInfo}, {Num: 4, Kind: invocation.FDBlock}, {Num: 5, Kind: invocation.FDStatus}},
	}
	if !slices.Contains(extra, "--seccomp") {
		inv.Bwrap.Args = append(inv.Bwrap.Args, "--seccomp", "20")
		inv.FDs = append(inv.FDs, invocation.FD{Num: 20, Kind: invocation.FDSeccomp})
		inv.Seccomp = &invocation.Seccomp{Program: allowAll}
	}
	setIdentity(t, inv)
	return inv
}

// setIdentity records the identity of inv's bwrap, as the compiler does.
func setIdentity(t testing.TB, inv *invocation.Invocation) {
	t.Helper()
	id, err := hostprobe.StatIdentity(inv.Bwrap.Path)
	if err != nil {
		t.Fatal(err)
	}
	inv.Bwrap.Identity = id
}

type result struct {
	code           int
	err            error
	stdout, stderr string
	warnings       []string
}

// run runs argv in inv with stdout and stderr captured in files.
func run(t *testing.T, inv *invocation.Invocation, argv ...string) result {
	t.Helper()
	return runOpts(t, inv, Options{}, argv...)
}

// runOpts is run with Run's options.
func runOpts(t *testing.T, inv *invocation.Invocation, opts Options, argv ...string) result {
	t.Helper()
	if err := invocation.Validate(inv); err != nil {
		t.Fatalf("test invocation invalid: %v", err)
	}
	dir := t.TempDir()
	outF, _ := os.Create(filepath.Join(dir, "stdout"))
	errF, _ := os.Create(filepath.Join(dir, "stderr"))
	defer outF.Close()
	defer errF.Close()
	var mu sync.Mutex
	var warnings []string
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st, err := RunWith(ctx, inv, argv, Stdio{Stdout: outF, Stderr: errF, Warn: func(m string) {
		mu.Lock()
		warnings = append(warnings, m)
		mu.Unlock()
	}}, opts)
	code := st.ExitStatus
	o, _ := os.ReadFile(outF.Name())
	e, _ := os.ReadFile(errF.Name())
	if len(o)+len(e) < 4096 {
		t.Logf("%q -> %d, err=%v\nstdout: %s\nstderr: %s", argv, code, err, o, e)
	}
	return result{code, err, string(o), string(e), warnings}
}

func TestSandboxExitStatus(t *testing.T) {
	inv := testInv(t)
	if r := run(t, inv, "sh", "-c", "exit 7"); r.code != 7 || r.err != nil {
		t.Fatalf("exit 7: got %d, %v", r.code, r.err)
	}
	if r := run(t, inv, "true"); r.code != 0 || r.err != nil {
		t.Fatalf("true: got %d, %v", r.code, r.err)
	}
	r := run(t, inv, "sh", "-c", "echo out; echo err >&2; kill -9 $$")
	if r.code != 128+9 || r.err != nil || r.stdout != "out\n" || r.stderr != "err\n" {
		t.Fatalf("killed command: %+v", r)
	}
}

func TestSandboxSetupFailure(t *testing.T) {
	inv := testInv(t, "--ro-bind", "/nonexistent-bwpolicy-source", "/mnt")
	r := run(t, inv, "touch", "/should-not-run")
	if r.code != ExitSetup {
		t.Fatalf("got %d, want %d", r.code, ExitSetup)
	}
	var se *SetupError
	if !errors.As(r.err, &se) || len(se.BwrapMessage) == 0 || !strings.Contains(r.err.Error(), "Can't find source path /nonexistent-bwpolicy-source") {
		t.Fatalf("error should carry bwrap's message: %v", r.err)
	}
	// bwrap's own line still reaches the caller's stderr.
	if !strings.Contains(r.stderr, "bwrap: Can't find source path") {
		t.Fatalf("stderr: %q", r.stderr)
	}
}

func TestSandboxMissingCommand(t *testing.T) {
	r := run(t, testInv(t), "bwpolicy-no-such-command", "arg")
	if r.code != ExitNotFound || r.err == nil || !strings.Contains(r.err.Error(), "command not found in the sandbox: bwpolicy-no-such-command") {
		t.Fatalf("got %d, %v", r.code, r.err)
	}
	r = run(t, testInv(t), "/etc/passwd")
	if r.code != ExitCannotExec || r.err == nil || !strings.Contains(r.err.Error(), "Permission denied") {
		t.Fatalf("non-executable: got %d, %v", r.code, r.err)
	}
}

func TestSandboxUnknownOption(t *testing.T) {
	info, err := hostprobe.ProbeBwrap(needBwrap(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{{"--level-prefix"}, {"--argv0", "x"}, {"--assert-userns-disabled"}} {
		if info.Has(c[0]) {
			continue
		}
		inv := testInv(t, c...)
		inv.Bwrap.Requires = []string{c[0]}
		r := run(t, inv, "true")
		want := fmt.Sprintf("bwrap at %s lacks option %s required by this invocation; recompile or upgrade bubblewrap", inv.Bwrap.Path, c[0])
		if r.code != ExitSetup || r.err == nil || r.err.Error() != want {
			t.Fatalf("got %d, %v; want 125, %s", r.code, r.err, want)
		}
		return
	}
	t.Skipf("bwrap %s has every option this test can use", info.Version)
}

func TestSandboxBwrapMissing(t *testing.T) {
	inv := testInv(t)
	inv.Bwrap.Path = "/nonexistent/bwrap"
	r := run(t, inv, "true")
	if r.code != ExitSetup || r.err == nil || !strings.Contains(r.err.Error(), "apt install bubblewrap") {
		t.Fatalf("got %d, %v", r.code, r.err)
	}
}

func TestSandboxStale(t *testing.T) {
	dir := t.TempDir()
	hidden := filepath.Join(dir, ".aws")
	marker := filepath.Join(dir, "ran")
	inv := testInv(t, "--bind", dir, dir)
	inv.Writable = []string{dir}
	inv.Preconditions = []invocation.Precondition{{Path: hidden, Kind: invocation.KindAbsent, Why: "S5"}}
	if r := run(t, inv, "touch", marker); r.code != 0 {
		t.Fatalf("fresh: %d %v", r.code, r.err)
	}
	os.Remove(marker)
	os.Mkdir(hidden, 0o700)
	r := run(t, inv, "touch", marker)
	var stale *StaleError
	if r.code != ExitSetup || !errors.As(r.err, &stale) || !strings.Contains(r.err.Error(), hidden) {
		t.Fatalf("stale: got %d, %v", r.code, r.err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran despite the stale invocation")
	}
}

func getrlimits(t *testing.T) map[string]unix.Rlimit {
	m := map[string]unix.Rlimit{}
	for name, res := range map[string]int{"as": unix.RLIMIT_AS, "cpu": unix.RLIMIT_CPU, "nproc": unix.RLIMIT_NPROC} {
		var l unix.Rlimit
		if err := unix.Getrlimit(res, &l); err != nil {
			t.Fatal(err)
		}
		m[name] = l
	}
	return m
}

func TestSandboxRlimits(t *testing.T) {
	before := getrlimits(t)
	inv := testInv(t)
	inv.Rlimits = invocation.Rlimits{AsBytes: 256 << 20, CPUSeconds: 30, NProc: 50}
	r := run(t, inv, "sh", "-c", "ulimit -v; ulimit -t; grep 'Max processes' /proc/self/limits")
	if r.code != 0 {
		t.Fatalf("got %d, %v", r.code, r.err)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || lines[0] != "262144" || lines[1] != "30" {
		t.Fatalf("ulimit -v/-t inside: %q", r.stdout)
	}
	wantNProc := "50"
	if os.Getuid() == 0 {
		// Root is exempt from RLIMIT_NPROC: skipped with one warning.
		var l unix.Rlimit
		unix.Getrlimit(unix.RLIMIT_NPROC, &l)
		wantNProc = strconv.FormatUint(l.Max, 10)
		if l.Max == unix.RLIM_INFINITY {
			wantNProc = "unlimited"
		}
		if len(r.warnings) != 1 || !strings.Contains(r.warnings[0], "exempts root") {
			t.Fatalf("as root: warnings %q", r.warnings)
		}
	} else if len(r.warnings) != 0 {
		t.Fatalf("warnings %q", r.warnings)
	}
	if f := strings.Fields(lines[2]); len(f) < 4 || f[3] != wantNProc {
		t.Fatalf("RLIMIT_NPROC inside: %q, want %s", lines[2], wantNProc)
	}
	if after := getrlimits(t); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("the runtime's own limits changed: %v -> %v", before, after)
	}
}

func TestSandboxRlimitClampedToHard(t *testing.T) {
	// A child process with a lower hard RLIMIT_CPU runs the sandbox: the
	// value asked for (1000) is clamped to the inherited hard limit (7).
	if os.Getenv("BWPOLICY_TEST_CLAMP") == "1" {
		if err := unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: 7, Max: 7}); err != nil {
			t.Fatal(err)
		}
		inv := testInv(t)
		inv.Rlimits.CPUSeconds = 1000
		if r := run(t, inv, "sh", "-c", "ulimit -t"); r.code != 0 || r.stdout != "7\n" {
			t.Fatalf("got %d %q", r.code, r.stdout)
		}
		return
	}
	needBwrap(t)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSandboxRlimitClampedToHard$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BWPOLICY_TEST_CLAMP=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestSandboxForkLimit checks S1's RLIMIT_NPROC: inside, forks fail near
// the limit; outside, the same user is unaffected. Root is exempt from
// RLIMIT_NPROC, so as root this runs in TestSandboxUnprivileged.
func TestSandboxForkLimit(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root ignores RLIMIT_NPROC; covered by TestSandboxUnprivileged as an ordinary user")
	}
	if ok, _ := hostprobe.NProcPerUserNS(); !ok {
		t.Skip("kernel < 5.14: RLIMIT_NPROC is not per user namespace")
	}
	dash, err := exec.LookPath("dash") // fails a fork once; bash retries
	if err != nil {
		t.Skip("needs dash")
	}
	const limit = 20
	before := getrlimits(t)
	inv := testInv(t)
	inv.Rlimits.NProc = limit
	// Processes inside: bwrap's init, the outer dash, the subshell, tail,
	// and the sleeps. The subshell's loop stops at its first failed fork;
	// then the outer dash becomes `sleep 3` (exec, no fork), holding the
	// sandbox at its limit while the test forks outside.
	script := `(i=0; while [ $i -lt 60 ]; do sleep 30 >/dev/null & i=$((i+1)); echo $i; done) | tail -n 1; exec sleep 3`
	done := make(chan result, 1)
	go func() { done <- run(t, inv, dash, "-c", script) }()
	time.Sleep(1500 * time.Millisecond)
	var outside []*exec.Cmd
	for i := 0; i < 2*limit; i++ {
		c := exec.Command("sleep", "5")
		if err := c.Start(); err != nil {
			t.Errorf("outside the sandbox, fork %d failed: %v", i, err)
			break
		}
		outside = append(outside, c)
	}
	for _, c := range outside {
		c.Process.Kill()
		c.Wait()
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("got %d, %v", r.code, r.err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(r.stdout))
	if err != nil {
		t.Fatalf("stdout %q", r.stdout)
	}
	if n < limit-6 || n > limit-3 {
		t.Fatalf("%d sleeps started inside, want about %d (limit %d)", n, limit-4, limit)
	}
	if !strings.Contains(r.stderr, "fork") {
		t.Fatalf("no fork failure reported: %q", r.stderr)
	}
	if after := getrlimits(t); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("the runtime's own limits changed: %v -> %v", before, after)
	}
	t.Logf("limit %d: %d background sleeps started inside; %d processes forked outside meanwhile", limit, n, len(outside))
}

func TestSandboxNProcUnsupportedWarnsOnce(t *testing.T) {
	saved := nprocPerUserNS
	nprocPerUserNS = func() (bool, error) { return false, nil } // a kernel before 5.14
	defer func() { nprocPerUserNS = saved }()
	inv := testInv(t)
	inv.Rlimits = invocation.Rlimits{NProc: 20, CPUSeconds: 9}
	r := run(t, inv, "sh", "-c", "ulimit -t; grep 'Max processes' /proc/self/limits")
	if r.code != 0 || len(r.warnings) != 1 || !strings.Contains(r.warnings[0], "RLIMIT_NPROC not set") {
		t.Fatalf("got %d, warnings %q", r.code, r.warnings)
	}
	if !strings.HasPrefix(r.stdout, "9\n") || strings.Contains(r.stdout, " 20 ") {
		t.Fatalf("limits inside: %q", r.stdout)
	}
}

func TestSandboxEnv(t *testing.T) {
	t.Setenv("BWP_SECRET", "s")
	t.Setenv("BWP_GH_TOKEN", "t1")
	t.Setenv("BWP_NPM_TOKEN", "t2")
	t.Setenv("BWP_KEEP_TOKEN", "t3")
	t.Setenv("BWP_PLAIN", "p")
	t.Setenv("BWP_OVERRIDE", "old")
	inv := testInv(t)
	inv.Env = invocation.Env{
		Unset:         []string{"BWP_SECRET"},
		UnsetPatterns: []string{"*_TOKEN"},
		Allow:         []string{"BWP_KEEP_TOKEN"},
		Set:           map[string]string{"BWP_OVERRIDE": "new", "BWP_ADDED": "a b"},
	}
	r := run(t, inv, "sh", "-c", "env | grep ^BWP_ | sort")
	want := "BWP_ADDED=a b\nBWP_KEEP_TOKEN=t3\nBWP_OVERRIDE=new\nBWP_PLAIN=p\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("env inside:\n%s\nwant:\n%s", r.stdout, want)
	}
}

func TestSandboxMergedOutputOrder(t *testing.T) {
	// 2>&1 into one file: stdout and stderr go through one pipe, in order.
	inv := testInv(t)
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := 0; i < 20; i++ {
		f.Truncate(0)
		f.Seek(0, 0)
		code, err := Run(context.Background(), inv, []string{"sh", "-c", "echo 1; echo 2 >&2; echo 3; echo 4 >&2; echo 5"}, Stdio{Stdout: f, Stderr: f})
		if code != 0 || err != nil {
			t.Fatal(code, err)
		}
		got, _ := os.ReadFile(f.Name())
		if string(got) != "1\n2\n3\n4\n5\n" {
			t.Fatalf("run %d: order %q", i, got)
		}
	}
}

func TestSandboxLargeOutput(t *testing.T) {
	// Everything written before the command exits arrives, also through
	// the interposed stderr pipe (much larger than a pipe buffer).
	inv := testInv(t)
	for i := 0; i < 5; i++ {
		r := run(t, inv, "sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' e >&2; head -c 1000000 /dev/zero | tr '\\0' o")
		if r.code != 0 || len(r.stderr) != 3000000 || len(r.stdout) != 1000000 {
			t.Fatalf("code %d, %d bytes on stderr, %d on stdout", r.code, len(r.stderr), len(r.stdout))
		}
	}
}

func TestSandboxStdin(t *testing.T) {
	inv := testInv(t)
	in, _ := os.Create(filepath.Join(t.TempDir(), "in"))
	in.WriteString("from stdin\n")
	in.Seek(0, 0)
	defer in.Close()
	out, _ := os.Create(filepath.Join(t.TempDir(), "out"))
	defer out.Close()
	if code, err := Run(context.Background(), inv, []string{"cat"}, Stdio{Stdin: in, Stdout: out}); code != 0 || err != nil {
		t.Fatal(code, err)
	}
	if got, _ := os.ReadFile(out.Name()); string(got) != "from stdin\n" {
		t.Fatalf("got %q", got)
	}
}

func TestSandboxEmptyAndSeccompFDs(t *testing.T) {
	if goruntime.GOARCH != "amd64" {
		t.Skip("the test's seccomp program uses x86-64 syscall numbers")
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("do not read"), 0o644)
	// Deny mkdir (83) and mkdirat (258) with EPERM, allow the rest.
	const (
		ldW  = 0x20 // BPF_LD|BPF_W|BPF_ABS
		jeqK = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
		retK = 0x06 // BPF_RET|BPF_K
	)
	prog := filterProg([][4]uint32{
		{ldW, 0, 0, 0},   // A = seccomp_data.nr
		{jeqK, 2, 0, 83}, // mkdir -> deny
		{jeqK, 1, 0, 258},
		{retK, 0, 0, 0x7fff0000},               // SECCOMP_RET_ALLOW
		{retK, 0, 0, 0x00050000 | 1 /*EPERM*/}, // SECCOMP_RET_ERRNO
	})
	inv := testInv(t, "--tmpfs", "/tmp", "--ro-bind-data", "6", secret, "--seccomp", "7")
	inv.FDs = append(inv.FDs, invocation.FD{Num: 6, Kind: invocation.FDEmpty}, invocation.FD{Num: 7, Kind: invocation.FDSeccomp})
	inv.Seccomp = &invocation.Seccomp{Arch: "x86_64", Program: prog}
	r := run(t, inv, "sh", "-c", "wc -c < "+secret+"; mkdir /tmp/d && echo created")
	if r.code == 0 || strings.Contains(r.stdout, "created") || !strings.HasPrefix(r.stdout, "0\n") || !strings.Contains(r.stderr, "Operation not permitted") {
		t.Fatalf("got %+v", r)
	}
	inv.Seccomp.Arch = "riscv128"
	if r := run(t, inv, "true"); r.code != ExitSetup || r.err == nil || !strings.Contains(r.err.Error(), "riscv128") {
		t.Fatalf("wrong arch: %d %v", r.code, r.err)
	}
}

func filterProg(ins [][4]uint32) []byte {
	var b bytes.Buffer
	for _, i := range ins {
		binary.Write(&b, binary.NativeEndian, uint16(i[0]))
		b.WriteByte(byte(i[1]))
		b.WriteByte(byte(i[2]))
		binary.Write(&b, binary.NativeEndian, i[3])
	}
	return b.Bytes()
}

func TestSandboxLandlock(t *testing.T) {
	abi, _ := hostprobe.LandlockABI()
	if abi < landlock.ABINet {
		t.Skipf("Landlock ABI %d < %d", abi, landlock.ABINet)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash for /dev/tcp")
	}
	l := testnet.ListenAndClose(t, "tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	connect := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port)
	inv := testInv(t, "--share-net")
	inv.Profile = "network"
	inv.Landlock = &invocation.Landlock{MinABI: 4, TCPConnect: []uint16{uint16(port)}}
	if r := run(t, inv, bash, "-c", connect); r.code != 0 || r.stdout != "connected\n" {
		t.Fatalf("allowed port: %+v", r)
	}
	inv.Landlock.TCPConnect = []uint16{1}
	if r := run(t, inv, bash, "-c", connect); r.code == 0 || !strings.Contains(r.stderr, "Permission denied") {
		t.Fatalf("denied port: %+v", r)
	}
	// The domain stayed on the (ended) thread that started bwrap: this
	// process can still connect.
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatalf("the test process itself got restricted: %v", err)
	}
	c.Close()
}

// waitForFile polls until path has content.
func waitForFile(t *testing.T, path string) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if b, _ := os.ReadFile(path); len(b) > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s stayed empty", path)
}

// processesWithArgs reports the pids whose command line is exactly argv
// (tests may walk /proc; the runtime does not).
func processesWithArgs(argv ...string) []int {
	want := strings.Join(argv, "\x00") + "\x00"
	return hostPIDs(func(dir string) bool {
		b, _ := os.ReadFile(dir + "/cmdline")
		return string(b) == want
	})
}

// hostPIDs lists the pids whose /proc directory keep accepts.
func hostPIDs(keep func(dir string) bool) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil && keep("/proc/"+e.Name()) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestSandboxSignal(t *testing.T) {
	inv := testInv(t)
	dir := t.TempDir()
	out, _ := os.Create(filepath.Join(dir, "out"))
	defer out.Close()
	done := make(chan [2]any, 1)
	go func() {
		code, err := Run(context.Background(), inv, []string{"sh", "-c", "echo ready; exec sleep 31337"}, Stdio{Stdout: out})
		done <- [2]any{code, err}
	}()
	waitForFile(t, out.Name())
	// "ready" is printed just before the shell execs sleep: wait for it.
	for i := 0; len(processesWithArgs("sleep", "31337")) == 0; i++ {
		if i == 500 {
			t.Fatal("sleep not running")
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	syscall.Kill(os.Getpid(), syscall.SIGTERM) // Run relays it
	select {
	case res := <-done:
		if res[0] != 128+int(syscall.SIGTERM) || res[1] != nil {
			t.Fatalf("got %v", res)
		}
		t.Logf("exited %v after SIGTERM", time.Since(start))
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after SIGTERM")
	}
	if p := processesWithArgs("sleep", "31337"); len(p) > 0 {
		t.Fatalf("sandboxed sleep survived: %v", p)
	}
}

func TestSandboxSecondSignalKills(t *testing.T) {
	inv := testInv(t)
	out, _ := os.Create(filepath.Join(t.TempDir(), "out"))
	defer out.Close()
	done := make(chan int, 1)
	go func() {
		code, _ := Run(context.Background(), inv, []string{"sh", "-c", "trap '' TERM; echo ready; sleep 31338; sleep 31338"}, Stdio{Stdout: out})
		done <- code
	}()
	waitForFile(t, out.Name())
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		t.Fatalf("returned %d after one ignored SIGTERM", code)
	case <-time.After(300 * time.Millisecond):
	}
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		if code != 128+int(syscall.SIGTERM) {
			t.Fatalf("got %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("second SIGTERM did not end the sandbox")
	}
	time.Sleep(100 * time.Millisecond)
	if p := processesWithArgs("sleep", "31338"); len(p) > 0 {
		t.Fatalf("sandboxed sleep survived: %v", p)
	}
}

func TestSandboxContextCancel(t *testing.T) {
	inv := testInv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	code, err := Run(ctx, inv, []string{"sleep", "31339"}, Stdio{})
	if code != ExitSetup || !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("got %d, %v after %v", code, err, time.Since(start))
	}
	time.Sleep(100 * time.Millisecond)
	if p := processesWithArgs("sleep", "31339"); len(p) > 0 {
		t.Fatalf("sandboxed sleep survived: %v", p)
	}
}

// TestSandboxCancelledBeforeStartRunsNothing: a context already done
// when RunWith is called (bwrun --serve: a SIGTERM or the caller's Kill
// that arrived with the request) starts no sandbox: setup-failed, the
// error wrapping the context's, the command never run. Before, bwrap
// started and was killed during its set-up ("signaled"), and the
// command could be released when bwrap's report won the race.
func TestSandboxCancelledBeforeStartRunsNothing(t *testing.T) {
	dir := t.TempDir()
	inv := testInv(t, "--bind", dir, dir)
	inv.Writable = []string{dir}
	marker := filepath.Join(dir, "ran")
	for i := 0; i < 5; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		st, err := RunWith(ctx, inv, []string{"touch", marker}, Stdio{}, Options{})
		if st.Outcome != OutcomeSetupFailed || st.ExitStatus != ExitSetup || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled before the start: %+v, %v", st, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a run cancelled before it started ran its command")
	}
}

func TestSandboxNoStatusFD(t *testing.T) {
	// Without --json-status-fd the runtime passes bwrap's status through
	// and still recognises a trailing bwrap failure. (--info-fd stays:
	// without it the runtime refuses, TestRefusesWithoutInfoFD.)
	inv := &invocation.Invocation{Format: invocation.Format, Bwrap: invocation.Bwrap{Path: needBwrap(t),
		Args: append(append([]string(nil), baseArgs...), "--seccomp", "3", "--info-fd", "4", "--block-fd", "5")},
		FDs: []invocation.FD{{Num: 3, Kind: invocation.FDSeccomp}, {Num: 4, Kind: invocation.FDInfo}, {Num: 5, Kind: invocation.FDBlock}}, Seccomp: &invocation.Seccomp{Program: allowAll}}
	setIdentity(t, inv)
	if r := run(t, inv, "sh", "-c", "exit 3"); r.code != 3 || r.err != nil {
		t.Fatalf("got %d %v", r.code, r.err)
	}
	if r := run(t, inv, "bwpolicy-no-such-command"); r.code != ExitNotFound {
		t.Fatalf("got %d %v", r.code, r.err)
	}
}

// TestSandboxUnprivileged re-runs the sandbox tests as the unprivileged
// user bwtest when the tests run as root (root is exempt from
// RLIMIT_NPROC and bypasses permission checks). The test binary is copied
// into a directory bwtest can read that is not under /tmp (a sandbox
// with --tmpfs /tmp would not see it): $BWPOLICY_TEST_DIR or /var/tmp.
func TestSandboxUnprivileged(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("not root: the other tests already run unprivileged")
	}
	bw := needBwrap(t)
	u := ensureTestUser(t)
	dir := testBinDir(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "runtime.test")
	copyFile(t, exe, bin, 0o755)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	cmd := exec.Command(bin, "-test.run", "^TestSandbox", "-test.skip", "^TestSandboxUnprivileged$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + u.HomeDir, "USER=" + u.Username, "BWPOLICY_BWRAP=" + bw, "TMPDIR=/tmp"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	t.Logf("as %s:\n%s", u.Username, out)
	if err != nil {
		t.Fatalf("sandbox tests as %s failed: %v", u.Username, err)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestSandboxForkLimit")) {
		t.Fatalf("TestSandboxForkLimit did not pass as %s", u.Username)
	}
}

func ensureTestUser(t *testing.T) *user.User {
	t.Helper()
	u, err := user.Lookup("bwtest")
	if err != nil {
		if out, err := exec.Command("useradd", "-m", "bwtest").CombinedOutput(); err != nil {
			t.Fatalf("user bwtest missing and useradd failed: %v\n%s", err, out)
		}
		if u, err = user.Lookup("bwtest"); err != nil {
			t.Fatal(err)
		}
	}
	return u
}

func testBinDir(t *testing.T) string {
	t.Helper()
	base := os.Getenv("BWPOLICY_TEST_DIR")
	if base == "" {
		base = "/var/tmp"
	}
	dir, err := os.MkdirTemp(base, "bwpolicy-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBlockFDNeverEOF: if the runtime dies before releasing bwrap (so its
// write end closes without a byte), bwrap must not go on to run the
// command without its limits: its --block-fd end is also a writer.
func TestBlockFDNeverEOF(t *testing.T) {
	child, release, err := blockPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer child.Close()
	release.Close()
	child.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if _, err := child.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read on bwrap's end after the runtime's end closed: %v, want a timeout (no EOF)", err)
	}

	// The same with bwrap.
	bw := needBwrap(t)
	child2, release2, _ := blockPipe()
	infoR, infoW, _ := os.Pipe()
	marker := filepath.Join(t.TempDir(), "ran")
	cmd := exec.Command(bw, append(append([]string(nil), baseArgs...), "--bind", filepath.Dir(marker), filepath.Dir(marker),
		"--info-fd", "3", "--block-fd", "4", "--", "touch", marker)...)
	cmd.ExtraFiles = []*os.File{infoW, child2}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	infoW.Close()
	child2.Close()
	infoc := make(chan infoResult, 1)
	go readInfo(infoR, infoc)
	info := <-infoc
	if info.err != nil {
		t.Fatal(info.err)
	}
	release2.Close() // the runtime "dies" here
	cmd.Process.Kill()
	cmd.Wait()
	time.Sleep(300 * time.Millisecond)
	_, statErr := os.Stat(marker)
	alive := syscall.Kill(info.pid, 0) == nil
	syscall.Kill(info.pid, syscall.SIGKILL)
	if statErr == nil {
		t.Fatal("the command ran after the runtime's block fd closed")
	}
	if !alive {
		t.Log("the sandbox's first process is gone (it never reached --block-fd)")
	}
}

// TestSandboxCancelDuringSetup cancels at every stage of start-up: no
// bwrap process and no command may be left behind.
func TestSandboxCancelDuringSetup(t *testing.T) {
	inv := testInv(t)
	inv.Rlimits.CPUSeconds = 10
	for i := 0; i < 30; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i)*200*time.Microsecond)
		code, err := Run(ctx, inv, []string{"sleep", "31343"}, Stdio{})
		cancel()
		if code != ExitSetup || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("timeout %d: got %d, %v", i, code, err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if left := processesMentioning("31343"); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// processesMentioning lists the command lines that contain s.
func processesMentioning(s string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); strings.Contains(string(b), s) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
