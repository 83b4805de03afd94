package seccomp

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The real-sandbox tests run bwrap with a compiled program on fd 3 and the
// sysprobe helper (internal/sysprobe) inside, and check what the kernel
// answers. bwrap comes from $BWPOLICY_BWRAP or PATH; a missing bwrap
// fails the test unless BWPOLICY_NO_SANDBOX=1.

// killed is the want of a probe the filter kills: bwrap reports a child
// killed by signal N as exit status 128+N.
const killed = "SIGSYS"

// marker replaces every group's errno in the marked program, so that a
// probe answered with it was answered by the filter, not by the kernel's
// own permission checks (which often say EPERM too inside bwrap).
const (
	marker     = syscall.Errno(131)
	markerName = "ENOTRECOVERABLE"
)

type probeCase struct {
	probe string // sysprobe argument
	group string // group that denies it; "" for calls that must work
	want  string // errno name under the real program, or killed
}

var probeCases = []probeCase{
	{"getpid", "", "0"},
	{"read", "", "0"},
	{"tcgets", "", "0"},
	{"personality-query", "", "0"},
	{"personality-linux32", "", "0"},
	{"tiocsti", "tty-inject", "EPERM"},
	{"tiocsti-high", "tty-inject", "EPERM"},
	{"tioclinux", "tty-inject", "EPERM"},
	{"tioclinux-high", "tty-inject", "EPERM"},
	{"keyctl", "keyring", "EPERM"},
	{"add_key", "keyring", "EPERM"},
	{"request_key", "keyring", "EPERM"},
	{"ptrace", "ptrace", "EPERM"},
	{"process_vm_readv", "ptrace", "EPERM"},
	{"process_vm_writev", "ptrace", "EPERM"},
	{"pidfd_getfd", "ptrace", "EPERM"},
	{"perf_event_open", "perf", "EPERM"},
	{"vsock", "vsock", "EAFNOSUPPORT"},
	{"bpf", "bpf", "EPERM"},
	{"userfaultfd", "userfaultfd", "EPERM"},
	{"io_uring_setup", "io_uring", "ENOSYS"},
	{"io_uring_enter", "io_uring", "ENOSYS"},
	{"io_uring_register", "io_uring", "ENOSYS"},
	{"mount", "mount", "EPERM"},
	{"umount2", "mount", "EPERM"},
	{"pivot_root", "mount", "EPERM"},
	{"open_tree", "new-mount-api", "ENOSYS"},
	{"move_mount", "new-mount-api", "ENOSYS"},
	{"fsopen", "new-mount-api", "ENOSYS"},
	{"fsconfig", "new-mount-api", "ENOSYS"},
	{"fsmount", "new-mount-api", "ENOSYS"},
	{"fspick", "new-mount-api", "ENOSYS"},
	{"mount_setattr", "new-mount-api", "ENOSYS"},
	{"open_tree_attr", "new-mount-api", "ENOSYS"},
	{"clone3", "clone3", "ENOSYS"},
	{"unshare", "namespaces", "EPERM"},
	{"unshare-user", "namespaces", "EPERM"},
	{"setns", "namespaces", "EPERM"},
	{"clone-newuser", "namespaces", "EPERM"},
	{"kexec_load", "kexec", "EPERM"},
	{"kexec_file_load", "kexec", "EPERM"},
	{"init_module", "modules", "EPERM"},
	{"finit_module", "modules", "EPERM"},
	{"delete_module", "modules", "EPERM"},
	{"personality-noaslr", "personality", "EPERM"},
}

// noIA32 is the want of the int80 probe on a kernel built or booted
// without the i386 entry point (CONFIG_IA32_EMULATION=n,
// ia32_emulation=0): `int $0x80` faults before any filter sees it, inside
// the sandbox as outside, so there is no i386 ABI to kill.
const noIA32 = "no-ia32"

// archProbeCases are the other-ABI probes sysprobe has on this GOARCH.
// int80's want depends on the host kernel, asked outside any sandbox.
func archProbeCases(t *testing.T, probe string) []probeCase {
	if runtime.GOARCH != "amd64" {
		return nil
	}
	int80 := killed
	if hostProbe(t, probe, "int80") == noIA32 {
		t.Log("this kernel has no i386 entry point (int $0x80 faults outside the sandbox too): the int80 probe expects the same fault inside")
		int80 = noIA32
	}
	return []probeCase{{"x32", "", killed}, {"int80", "", int80}} // names also listed in buildSysprobe
}

// hostProbe runs a sysprobe probe on the host, unsandboxed and unfiltered,
// and returns what it said (errno name or noIA32).
func hostProbe(t *testing.T, probe, name string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(probe, name)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("host sysprobe %s: %v", name, err)
	}
	if got, ok := probeOutcome(r); ok {
		return got
	}
	t.Fatalf("host sysprobe %s: %v", name, r)
	return ""
}

// TestProbeCasesCoverGroups makes adding a syscall to a group without a
// real-sandbox probe for it fail (no bwrap needed).
func TestProbeCasesCoverGroups(t *testing.T) {
	probed := map[string]string{}
	groupsProbed := map[string]bool{}
	for _, c := range probeCases {
		probed[c.probe] = c.group
		groupsProbed[c.group] = true
	}
	for _, g := range groups {
		for _, s := range g.Syscalls {
			if probed[s] != g.Name {
				t.Errorf("group %s: no sandbox probe %q", g.Name, s)
			}
		}
		if !groupsProbed[g.Name] {
			t.Errorf("group %s: no sandbox probe", g.Name)
		}
	}
}

// sandbox runs commands in bwrap as one identity.
type sandbox struct {
	bwrap  string
	probe  string // host path of sysprobe, bound to /tmp/sysprobe
	cred   *syscall.Credential
	goPath string // host directory holding the go command, or ""
	// goBuild: run a whole go build under the filter (a compile of the
	// runtime from an empty cache, ~20 s): once a run, as the last
	// identity (the unprivileged one when the tests run as root), since
	// the filter is the same for every identity.
	goBuild bool
}

type result struct {
	stdout, stderr string
	exit           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d, stdout %q, stderr %q", r.exit, r.stdout, r.stderr)
}

// run runs argv in the sandbox, with prog (if not nil) on fd 3 for
// --seccomp 3.
func (s *sandbox) run(t *testing.T, prog []byte, argv ...string) result {
	t.Helper()
	args := []string{"--unshare-all", "--die-with-parent", "--new-session",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
		"--ro-bind", s.probe, "/tmp/sysprobe", "--chdir", "/tmp"}
	cmd := exec.Command(s.bwrap)
	if prog != nil {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		// A program is a few hundred bytes: it fits in the pipe buffer.
		if _, err := w.Write(prog); err != nil {
			t.Fatal(err)
		}
		w.Close()
		cmd.ExtraFiles = []*os.File{r}
		args = append(args, "--seccomp", "3")
	}
	cmd.Args = append(append(append([]string{s.bwrap}, args...), "--"), argv...)
	path := "/usr/local/bin:/usr/bin:/bin"
	if s.goPath != "" {
		path = s.goPath + ":" + path
	}
	cmd.Env = []string{"PATH=" + path, "HOME=/tmp", "LANG=C", "GOTOOLCHAIN=local",
		"GOCACHE=/tmp/gocache", "GOPATH=/tmp/gopath", "GOFLAGS=", "CGO_ENABLED=0"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		res.exit = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running bwrap: %v", err)
	}
	return res
}

// probeSays runs a probe and returns the errno name it printed, or killed.
func (s *sandbox) probeSays(t *testing.T, prog []byte, probe string) string {
	t.Helper()
	r := s.run(t, prog, "/tmp/sysprobe", probe)
	if got, ok := probeOutcome(r); ok {
		return got
	}
	t.Fatalf("sysprobe %s: %v", probe, r)
	return ""
}

// probeOutcome reads a sysprobe run: the errno it printed, killed (by the
// filter's SIGSYS), or noIA32 (the Go runtime's fault report from the
// int80 probe on a kernel without the i386 entry point).
func probeOutcome(r result) (string, bool) {
	switch {
	case r.exit == 0 && strings.HasPrefix(r.stdout, "errno=") && strings.Count(r.stdout, "\n") == 1:
		return strings.TrimSuffix(strings.TrimPrefix(r.stdout, "errno="), "\n"), true
	case r.exit == 128+int(syscall.SIGSYS) && r.stdout == "":
		return killed, true
	case r.exit == 2 && r.stdout == "" && strings.Contains(r.stderr, "signal SIGSEGV") && strings.Contains(r.stderr, "main.int80("):
		return noIA32, true
	}
	return "", false
}

func TestSandbox(t *testing.T) {
	bwrap := os.Getenv("BWPOLICY_BWRAP")
	if bwrap == "" {
		var err error
		if bwrap, err = exec.LookPath("bwrap"); err != nil {
			if os.Getenv("BWPOLICY_NO_SANDBOX") == "1" {
				t.Skip("bwrap not found and BWPOLICY_NO_SANDBOX=1")
			}
			t.Fatalf("bwrap not found (%v): install bubblewrap, set BWPOLICY_BWRAP, or set BWPOLICY_NO_SANDBOX=1 to skip", err)
		}
	}
	arch, err := NativeArch()
	if err != nil {
		t.Fatal(err)
	}
	probe := buildSysprobe(t)
	var goPath string
	if p, err := exec.LookPath("go"); err == nil {
		goPath = filepath.Dir(p)
	}

	ids := []struct {
		name string
		cred *syscall.Credential
	}{{"self", nil}}
	if os.Geteuid() == 0 {
		// Root hides mistakes (its own EPERMs differ); check unprivileged too.
		ids = append(ids, struct {
			name string
			cred *syscall.Credential
		}{"bwtest", unprivileged(t)})
	}
	for i, id := range ids {
		t.Run(id.name, func(t *testing.T) {
			s := &sandbox{bwrap: bwrap, probe: probe, cred: id.cred, goPath: goPath, goBuild: i == len(ids)-1}
			if r := s.run(t, nil, "/tmp/sysprobe", "getpid"); r.exit != 0 || r.stdout != "errno=0\n" {
				t.Fatalf("sandbox without a filter does not work: %v", r)
			}
			t.Run("probes", func(t *testing.T) { testProbes(t, s, arch) })
			t.Run("marked", func(t *testing.T) { testMarked(t, s, arch) })
			t.Run("relax", func(t *testing.T) { testRelaxed(t, s, arch) })
			t.Run("tools", func(t *testing.T) { testTools(t, s, arch) })
		})
	}
}

// testProbes: under the real program every blocked call gets its group's
// errno, other ABIs are killed, and ordinary calls work.
func testProbes(t *testing.T, s *sandbox, arch string) {
	p, err := Build(arch, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(slices.Clone(probeCases), archProbeCases(t, s.probe)...) {
		if got := s.probeSays(t, p.Bytes, c.probe); got != c.want {
			t.Errorf("sysprobe %s: errno=%s, want %s (group %q)", c.probe, got, c.want, c.group)
		}
	}
}

// testMarked: with every group's errno replaced by the marker, each
// blocked probe returns the marker (so the filter answered it) and each
// allowed probe does not.
func testMarked(t *testing.T, s *sandbox, arch string) {
	p, err := build(arch, nil, Network{}, func(Group) syscall.Errno { return marker })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range probeCases {
		got := s.probeSays(t, p.Bytes, c.probe)
		if blocked := c.group != ""; blocked != (got == markerName) {
			t.Errorf("sysprobe %s: errno=%s under the marked program (group %q)", c.probe, got, c.group)
		}
	}
}

// testRelaxed: a relaxed group reaches the kernel again; the rest stays.
func testRelaxed(t *testing.T, s *sandbox, arch string) {
	p, err := build(arch, []string{"ptrace", "personality"}, Network{}, func(Group) syscall.Errno { return marker })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range probeCases {
		relaxed := c.group == "ptrace" || c.group == "personality"
		got := s.probeSays(t, p.Bytes, c.probe)
		if blocked := c.group != "" && !relaxed; blocked != (got == markerName) {
			t.Errorf("relaxed ptrace: sysprobe %s: errno=%s (group %q)", c.probe, got, c.group)
		}
	}
	if got := s.probeSays(t, p.Bytes, "process_vm_readv"); got != "0" {
		t.Errorf("relaxed ptrace: process_vm_readv on itself: errno=%s, want 0", got)
	}
}

// testTools: everyday tools work under the real program, including
// glibc's pthread_create (clone3 → ENOSYS → clone fallback).
func testTools(t *testing.T, s *sandbox, arch string) {
	p, err := Build(arch, nil)
	if err != nil {
		t.Fatal(err)
	}
	checks := [][]string{
		{"/bin/bash", "-c", "true"},
		{"git", "--version"},
		{"/bin/bash", "-ec", `git init -q r && cd r && echo hi >f && git add f &&
			git -c user.name=t -c user.email=t@example.com commit -qm m && git log --oneline | grep -q ' m$'`},
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		checks = append(checks, []string{"/usr/bin/python3", "-c",
			"import threading; t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()"})
	}
	if s.goPath != "" {
		checks = append(checks, []string{"go", "version"})
		if s.goBuild {
			checks = append(checks, []string{"/bin/bash", "-ec", `printf 'package main\nfunc main() { println("built") }\n' >h.go &&
				go build -o h h.go && ./h`})
		}
	}
	for _, argv := range checks {
		if r := s.run(t, p.Bytes, argv...); r.exit != 0 {
			t.Errorf("%q under the filter: %v", argv, r)
		}
	}
}

// buildSysprobe builds internal/sysprobe into a directory every user can
// read; the sandbox sees it through --ro-bind (its /tmp is a fresh tmpfs).
func buildSysprobe(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sysprobe-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "sysprobe")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/bwpolicy/bwpolicy/internal/sysprobe")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building sysprobe: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-list").Output()
	if err != nil {
		t.Fatalf("sysprobe -list: %v", err)
	}
	have := strings.Fields(string(out))
	names := []string{}
	for _, c := range probeCases {
		names = append(names, c.probe)
	}
	if runtime.GOARCH == "amd64" {
		names = append(names, "x32", "int80")
	}
	for _, n := range names {
		if !slices.Contains(have, n) {
			t.Errorf("sysprobe has no probe %q", n)
		}
	}
	return bin
}

// unprivileged returns the credentials of user bwtest, creating it first
// if it does not exist.
func unprivileged(t *testing.T) *syscall.Credential {
	t.Helper()
	u, err := user.Lookup("bwtest")
	if err != nil {
		if out, err := exec.Command("useradd", "-m", "bwtest").CombinedOutput(); err != nil {
			t.Fatalf("useradd -m bwtest: %v\n%s", err, out)
		}
		if u, err = user.Lookup("bwtest"); err != nil {
			t.Fatal(err)
		}
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		t.Fatalf("bwtest: uid %q gid %q", u.Uid, u.Gid)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
}
