package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/hostprobe"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// cgroupTree builds a synthetic cgroup2 mount under a temp dir: files
// maps a path below the mount to its content (directories are implied).
func cgroupTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, v := range files {
		full := filepath.Join(root, "sys/fs/cgroup", p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const (
	mountinfoV2     = "30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw\n"
	mountinfoHybrid = "30 25 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n" +
		"31 25 0:27 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
	procCgroupsV1 = "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t1\t1\t1\nmemory\t4\t83\t1\n"
	procCgroupsV2 = "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t0\t1\t1\nmemory\t0\t83\t1\n"
	userScope     = "/user.slice/user-1000.slice/user@1000.service/app.slice/agent.scope"
)

// delegated is systemd's user delegation: memory enabled for the
// children of user@1000.service, not below it.
func delegated() map[string]string {
	return map[string]string{
		"cgroup.controllers":                                                              "cpuset cpu io memory pids",
		"cgroup.subtree_control":                                                          "cpu io memory pids",
		"user.slice/cgroup.subtree_control":                                               "cpu io memory pids",
		"user.slice/user-1000.slice/cgroup.subtree_control":                               "cpu io memory pids",
		"user.slice/user-1000.slice/user@1000.service/cgroup.subtree_control":             "memory pids",
		"user.slice/user-1000.slice/user@1000.service/cgroup.procs":                       "",
		"user.slice/user-1000.slice/user@1000.service/app.slice/cgroup.subtree_control":   "",
		"user.slice/user-1000.slice/user@1000.service/app.slice/agent.scope/cgroup.procs": "42\n",
	}
}

func TestDetectCgroup(t *testing.T) {
	me := os.Getuid()
	for _, tc := range []struct {
		name       string
		files      map[string]string
		mountinfo  string
		self       string
		uid        int
		wantParent string // "" = not available
		wantDetail string
		// procCgroups is /proc/cgroups ("": not read)
		procCgroups string
	}{
		{"v1 only", map[string]string{}, mountinfoHybrid, "4:memory:/x\n1:cpu:/\n", me, "", "no cgroup v2", ""},
		{"memory bound to v1 (this machine's shape)", map[string]string{"cgroup.controllers": "hugetlb\n"},
			strings.ReplaceAll(mountinfoHybrid, "/sys/fs/cgroup/unified", "/sys/fs/cgroup"), "4:memory:/x\n0::/\n", me, "", "bound to a cgroup v1 hierarchy (see /proc/cgroups)", ""},
		{"no cgroup2 mount", map[string]string{}, "30 25 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n", "0::/x\n", me, "", "no cgroup2 file system", ""},
		{"delegated to the caller", delegated(), mountinfoV2, "0::" + userScope + "\n", me,
			"/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service", "memory.max = 4 × memory_mb", ""},
		{"delegated, /proc/cgroups agrees", delegated(), mountinfoV2, "0::" + userScope + "\n", me,
			"/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service", "", procCgroupsV2},
		// /proc/cgroups alone answers: mountinfo and the tree are not read.
		{"memory bound to v1 hierarchy 4 (/proc/cgroups)", delegated(), "", "0::/\n", me, "", "bound to cgroup v1 hierarchy 4", procCgroupsV1},
		{"delegated to someone else", delegated(), mountinfoV2, "0::" + userScope + "\n", me + 1, "", "writable by uid", ""},
		{"memory not enabled for children", func() map[string]string {
			f := delegated()
			for k := range f {
				if strings.HasSuffix(k, "subtree_control") && k != "cgroup.subtree_control" {
					f[k] = "pids"
				}
			}
			return f
		}(), mountinfoV2, "0::" + userScope + "\n", me, "", "enables memory for its children", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := cgroupTree(t, tc.files)
			got := Host{MountInfo: []byte(tc.mountinfo), SelfCgroup: []byte(tc.self), ProcCgroups: []byte(tc.procCgroups), Root: root, UID: tc.uid}.Detect()
			want := ""
			if tc.wantParent != "" {
				want = root + tc.wantParent
			}
			if got.Available != (want != "") || got.Parent != want || !strings.Contains(got.Detail, tc.wantDetail) {
				t.Errorf("got %+v, want parent %q and a detail containing %q", got, want, tc.wantDetail)
			}
		})
	}
}

func TestUnescapeMount(t *testing.T) {
	if got := hostprobe.UnescapeMount(`/a\040b\134c`); got != `/a b\c` {
		t.Errorf("got %q", got)
	}
	mnt, root, ok := cgroup2Mount([]byte(`1 2 0:3 /ns /mnt/cg\040x rw - cgroup2 none rw`+"\n"), "/ns/sub")
	if !ok || mnt != "/mnt/cg x" || root != "/ns" {
		t.Errorf("got %q %q %v", mnt, root, ok)
	}
	if _, _, ok := cgroup2Mount([]byte("1 2 0:3 /ns /mnt rw - cgroup2 none rw\n"), "/nsother"); ok {
		t.Error("a cgroup outside the mount's root matched")
	}
}

// TestNewCgroupFiles: on a synthetic tree, New creates the child
// and writes memory.max (and memory.swap.max only where the kernel has
// it); an empty memory.max is refused.
func TestNewCgroupFiles(t *testing.T) {
	parent := t.TempDir()
	cg, err := New(parent, Limits{MemoryMax: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	defer cg.dir.Close()
	if b, _ := os.ReadFile(filepath.Join(cg.Path, "memory.max")); string(b) != "1073741824" {
		t.Errorf("memory.max = %q", b)
	}
	if _, err := os.Stat(filepath.Join(cg.Path, "memory.swap.max")); err == nil {
		t.Error("memory.swap.max created where the kernel has none")
	}
	if filepath.Dir(cg.Path) != parent || cg.FD() < 0 {
		t.Errorf("path %s fd %d", cg.Path, cg.FD())
	}
	if _, err := New(parent, Limits{PidsMax: 10}); err == nil {
		t.Error("memory.max 0 accepted")
	}
	cg2, err := New(parent, Limits{MemoryMax: 1 << 20, PidsMax: 12})
	if err != nil {
		t.Fatal(err)
	}
	defer cg2.dir.Close()
	if b, _ := os.ReadFile(filepath.Join(cg2.Path, "pids.max")); string(b) != "12" {
		t.Errorf("pids.max = %q", b)
	}
}

// TestCgroupReal runs a process in a real sandbox cgroup where this host
// delegates one; otherwise it says why not (these test machines bind the
// memory controller to cgroup v1).
func TestCgroupReal(t *testing.T) {
	s := Detect()
	if !s.Available {
		t.Skipf("no delegated cgroup v2 memory controller on this host: %s", s.Detail)
	}
	cg, err := New(s.Parent, Limits{MemoryMax: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/cat", "/proc/self/cgroup")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: cg.FD()}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), filepath.Base(cg.Path)) {
		t.Errorf("process not in %s: %s", cg.Path, out)
	}
	if err := cg.Close(); err != nil {
		t.Error(err)
	}
}

func TestForInvocation(t *testing.T) {
	inv := &invocation.Invocation{Rlimits: invocation.Rlimits{MemoryMax: 1 << 30}}
	if cg, err := (Support{}).ForInvocation(inv); cg != nil || err != nil {
		t.Errorf("unavailable: %v %v", cg, err)
	}
	parent := t.TempDir()
	if cg, err := (Support{Available: true, Parent: parent}).ForInvocation(&invocation.Invocation{}); cg != nil || err != nil {
		t.Errorf("memory.max 0: %v %v", cg, err)
	}
	cg, err := (Support{Available: true, Parent: parent}).ForInvocation(inv)
	if err != nil || cg == nil {
		t.Fatalf("available: %v %v", cg, err)
	}
	cg.dir.Close()
	if _, err := os.Stat(filepath.Join(cg.Path, "pids.max")); err == nil {
		t.Error("pids.max written where the pids controller is not delegated")
	}
	inv.Rlimits.NProc = 34
	cg, err = (Support{Available: true, Parent: parent, Pids: true}).ForInvocation(inv)
	if err != nil {
		t.Fatal(err)
	}
	cg.dir.Close()
	if b, _ := os.ReadFile(filepath.Join(cg.Path, "pids.max")); string(b) != "35" {
		t.Errorf("pids.max = %q, want max_procs' RLIMIT_NPROC + 1 for bwrap", b)
	}
	if _, err := (Support{Available: true, Parent: filepath.Join(parent, "gone")}).ForInvocation(inv); err == nil {
		t.Error("a parent that cannot hold the cgroup gave no error")
	}
}

// BenchmarkDetectCgroup is the per-command cost the run-time call site
// would add (two /proc reads and a few small files).
func BenchmarkDetectCgroup(b *testing.B) {
	for b.Loop() {
		Detect()
	}
}
