package runtime

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bwpolicy/bwpolicy/runtime/cgroup"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"golang.org/x/sys/unix"
)

// cgroupParentEnv names, for the unprivileged re-run of
// TestSandboxCgroupReal, the cgroup delegated to bwtest.
const cgroupParentEnv = "BWPOLICY_TEST_CGROUP_PARENT"

// privateCgroup2 mounts the cgroup2 hierarchy at a temporary directory
// (root only) and returns the mount point; it is detached afterwards.
func privateCgroup2(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("mounting a cgroup2 hierarchy needs root; the unprivileged run gets a cgroup delegated by the root run")
	}
	mnt := testBinDir(t) // traversable by bwtest
	if err := unix.Mount("none", mnt, "cgroup2", 0, ""); err != nil {
		t.Fatalf("mount -t cgroup2: %v", err)
	}
	// Private: its detach at the end must not propagate into the mount
	// namespace of a sandbox another package's test is setting up at
	// that moment (bwrap 0.12.0 then failed to remount it read-only,
	// EINVAL, seen once in CI's sandboxtest).
	if err := unix.Mount("", mnt, "", unix.MS_PRIVATE, ""); err != nil {
		t.Fatalf("make the cgroup2 mount private: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) }) // before testBinDir's removal
	return mnt
}

// useCgroupParent makes the runtime find parent delegated and create the
// sandbox's cgroup there without limits (memory.max cannot be written on
// a host whose memory controller is bound to cgroup v1: the limits are
// tested on a synthetic tree, TestNewCgroupFiles).
func useCgroupParent(t *testing.T, parent string, limits bool) {
	t.Helper()
	oldD, oldF := detectCgroup, cgroupFor
	t.Cleanup(func() { detectCgroup, cgroupFor = oldD, oldF })
	detectCgroup = func() cgroup.Support { return cgroup.Support{Available: true, Parent: parent} }
	if !limits {
		cgroupFor = func(s cgroup.Support, _ *invocation.Invocation) (*cgroup.Group, error) {
			return cgroup.Make(s.Parent, cgroup.Limits{})
		}
	}
}

// TestSandboxCgroupReal runs a real sandbox in a cgroup of its own in a
// real cgroup2 hierarchy: bwrap and the command are in it while the
// command runs (cloned into it, never moved: the command is found there
// on its first poll), and it is gone when Run returns. As root it
// mounts a private cgroup2 hierarchy, runs the test, then re-runs it as
// bwtest with a cgroup delegated the way systemd does (the directory and
// its cgroup.procs owned by the user, the user's process inside it).
// Control: without a delegated cgroup the command runs outside it.
func TestSandboxCgroupReal(t *testing.T) {
	parent := os.Getenv(cgroupParentEnv)
	if parent == "" {
		mnt := privateCgroup2(t)
		parent = filepath.Join(mnt, "bwpolicy-test-"+strconv.Itoa(os.Getpid()))
		if err := os.Mkdir(parent, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(parent) })
		defer t.Run("unprivileged", func(t *testing.T) { cgroupAsBwtest(t, parent) })
	}
	useCgroupParent(t, parent, false)
	inv := testInv(t)
	inv.Rlimits.MemoryMax = 64 << 20
	seen := make(chan []string, 1)
	go func() { seen <- watchCgroups(parent, time.Second) }()
	res := run(t, inv, "/bin/sh", "-c", "exec sleep 0.5")
	if res.code != 0 || res.err != nil {
		t.Fatalf("run: %d %v", res.code, res.err)
	}
	comms := <-seen
	// bwrap (its comm is the descriptor it was executed through), the
	// sandbox's init and the command.
	if !slices.ContainsFunc(comms, func(s string) bool { return strings.HasSuffix(s, " sleep") }) || len(comms) < 3 {
		t.Errorf("processes seen in the sandbox's cgroup: %q, want bwrap, its init and sleep", comms)
	}
	if left := childCgroups(parent); len(left) > 0 {
		t.Errorf("cgroups left after Run: %q", left)
	}

	// Control: no cgroup delegated: nothing runs under parent.
	detectCgroup = func() cgroup.Support { return cgroup.Support{Detail: "none here"} }
	go func() { seen <- watchCgroups(parent, 700*time.Millisecond) }()
	res = run(t, inv, "/bin/sh", "-c", "exec sleep 0.5")
	if comms := <-seen; res.code != 0 || len(comms) > 0 {
		t.Errorf("control: %d, processes %q under %s", res.code, comms, parent)
	}
	if len(res.warnings) != 0 {
		t.Errorf("control: warnings %q, want none (the fallback is silent per command; doctor says it)", res.warnings)
	}
}

// TestSandboxCgroupRefused: where a cgroup is found delegated but the
// sandbox's cannot be made (here: memory.max does not exist, the memory
// controller being elsewhere), the command does not run (exit 125).
func TestSandboxCgroupRefused(t *testing.T) {
	parent := os.Getenv(cgroupParentEnv)
	if parent == "" {
		mnt := privateCgroup2(t)
		parent = filepath.Join(mnt, "bwpolicy-test-refused")
		if err := os.Mkdir(parent, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(parent) })
	}
	useCgroupParent(t, parent, true)
	inv := testInv(t)
	inv.Rlimits.MemoryMax = 64 << 20
	res := run(t, inv, "/bin/sh", "-c", "echo ran")
	if res.code != ExitSetup || res.err == nil || !strings.Contains(res.err.Error(), "memory.max") || strings.Contains(res.stdout, "ran") {
		t.Errorf("got %d %v stdout %q: want 125 naming memory.max and no command run", res.code, res.err, res.stdout)
	}
	if left := childCgroups(parent); len(left) > 0 {
		t.Errorf("cgroups left: %q", left)
	}
}

// cgroupAsBwtest delegates a cgroup under parent to bwtest and re-runs
// the cgroup tests as bwtest, started inside it.
func cgroupAsBwtest(t *testing.T, parent string) {
	bw := needBwrap(t)
	u := ensureTestUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	deleg := filepath.Join(parent, "deleg")
	leaf := filepath.Join(deleg, "leaf")
	for _, d := range []string{deleg, leaf} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{d, d + "/cgroup.procs"} {
			if err := os.Chown(f, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer os.Remove(deleg)
	defer os.Remove(leaf)
	lf, err := os.Open(leaf)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	dir := testBinDir(t)
	exe, _ := os.Executable()
	bin := filepath.Join(dir, "runtime.test")
	copyFile(t, exe, bin, 0o755)
	cmd := exec.Command(bin, "-test.run", "^TestSandboxCgroup(Real|Refused)$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + u.HomeDir, "USER=" + u.Username,
		"BWPOLICY_BWRAP=" + bw, "TMPDIR=/tmp", cgroupParentEnv + "=" + deleg}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)},
		UseCgroupFD: true, CgroupFD: int(lf.Fd())}
	out, err := cmd.CombinedOutput()
	t.Logf("as %s:\n%s", u.Username, out)
	if err != nil || strings.Count(string(out), "--- PASS") != 2 {
		t.Fatalf("cgroup tests as %s: %v", u.Username, err)
	}
}

// watchCgroups polls the cgroups below parent for d and returns
// "pid comm" of every process seen in them.
func watchCgroups(parent string, d time.Duration) []string {
	seen := map[string]bool{}
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		for _, c := range childCgroups(parent) {
			b, _ := os.ReadFile(filepath.Join(c, "cgroup.procs"))
			for _, pid := range strings.Fields(string(b)) {
				comm, _ := os.ReadFile("/proc/" + pid + "/comm")
				seen[pid+" "+strings.TrimSpace(string(comm))] = true
			}
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	return out
}

// childCgroups lists the sandbox cgroups (bwpolicy-*) directly under
// parent.
func childCgroups(parent string) []string {
	m, _ := filepath.Glob(filepath.Join(parent, "bwpolicy-*")) // testglob:may-be-empty: none may be left
	return m
}
