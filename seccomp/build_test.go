package seccomp

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
)

const (
	tcgets           = 0x5401
	sigchld          = 17
	addrNoRandomize  = 0x0040000
	readImpliesExec  = 0x0400000
	threadCloneFlags = 0x3d0f00 // glibc's pthread_create flags
)

func errnoAction(e syscall.Errno) uint32 { return retErrno | uint32(e) }

func mustBuild(t *testing.T, arch string, relax ...string) *Program {
	t.Helper()
	p, err := Build(arch, relax)
	if err != nil {
		t.Fatalf("Build(%q, %q): %v", arch, relax, err)
	}
	return p
}

// call runs p over a native-arch call of the named syscall.
func call(t *testing.T, p *Program, name string, args ...uint64) uint32 {
	t.Helper()
	a := archs[p.Arch]
	nr, ok := a.nr[name]
	if !ok {
		t.Fatalf("%s: no number for %s", p.Arch, name)
	}
	return callNr(t, p, a.audit, nr, args...)
}

func callNr(t *testing.T, p *Program, audit, nr uint32, args ...uint64) uint32 {
	t.Helper()
	d := seccompData{nr: int32(nr), arch: audit}
	copy(d.args[:], args)
	got, err := run(p.Bytes, d)
	if err != nil {
		t.Fatalf("run(nr=%d arch=%#x): %v", nr, audit, err)
	}
	return got
}

func expect(t *testing.T, what string, got, want uint32) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %s, want %s", what, actionName(got), actionName(want))
	}
}

func TestGroupTable(t *testing.T) {
	want := []string{"tty-inject", "keyring", "ptrace", "perf", "bpf", "userfaultfd", "io_uring", "mount",
		"new-mount-api", "clone3", "namespaces", "kexec", "modules", "personality"}
	if got := groupNames(); !slices.Equal(got, want) {
		t.Fatalf("group order %q, want %q", got, want)
	}
	seen := map[string]string{}
	for _, g := range Groups() {
		if g.Description == "" || (g.Errno != EPERM && g.Errno != ENOSYS) {
			t.Errorf("%s: description %q errno %d", g.Name, g.Description, g.Errno)
		}
		names := slices.Clone(g.Syscalls)
		for _, r := range g.Args {
			names = append(names, r.Syscall)
			if len(r.Values) == 0 || len(r.Names) != len(r.Values) || r.Arg < 0 || r.Arg > 5 {
				t.Errorf("%s: bad rule %v", g.Name, r)
			}
		}
		for _, s := range names {
			if other, dup := seen[s]; dup {
				t.Errorf("%s is in %s and %s: each syscall may be in one group only", s, other, g.Name)
			}
			seen[s] = g.Name
			for _, arch := range Arches() {
				if _, ok := archs[arch].nr[s]; !ok {
					t.Errorf("%s: no syscall number for %s", arch, s)
				}
			}
		}
		for _, o := range g.RelaxWith {
			if !slices.Contains(want, o) {
				t.Errorf("%s: RelaxWith names unknown group %q", g.Name, o)
			}
		}
	}
	// Groups returns a copy.
	gs := Groups()
	gs[1].Syscalls[0] = "read"
	gs[0].Args[0].Values[0] = tcgets
	if groups[1].Syscalls[0] != "keyctl" || groups[0].Args[0].Values[0] != tiocsti {
		t.Error("Groups() shares memory with the table")
	}
}

func TestEveryBlockedSyscall(t *testing.T) {
	for _, arch := range Arches() {
		p := mustBuild(t, arch)
		if !slices.Equal(p.Blocked, append(groupNames(), groupVsock)) || p.Arch != arch {
			t.Errorf("%s: Blocked %q Arch %q", arch, p.Blocked, p.Arch)
		}
		t.Logf("%s: %d instructions, %d bytes", arch, p.Len(), len(p.Bytes))
		for _, g := range groups {
			for _, s := range g.Syscalls {
				expect(t, fmt.Sprintf("%s %s", arch, s), call(t, p, s), errnoAction(g.Errno))
				// Arguments do not matter.
				expect(t, fmt.Sprintf("%s %s(args)", arch, s), call(t, p, s, 1<<63, 1, 2, 3, 4, 5), errnoAction(g.Errno))
			}
		}
	}
}

// TestEverythingElseAllowed sweeps syscall numbers 0..1023 on the native
// architecture: every one not in a group is allowed, whatever its args.
func TestEverythingElseAllowed(t *testing.T) {
	for _, arch := range Arches() {
		p := mustBuild(t, arch)
		a := archs[arch]
		denied := map[uint32]bool{}
		for _, g := range groups {
			for _, s := range g.Syscalls {
				denied[a.nr[s]] = true
			}
			for _, r := range g.Args {
				denied[a.nr[r.Syscall]] = true // checked by the argument tests
			}
		}
		for nr := uint32(0); nr < 1024; nr++ {
			if denied[nr] {
				continue
			}
			expect(t, fmt.Sprintf("%s nr %d", arch, nr), callNr(t, p, a.audit, nr, ^uint64(0), ^uint64(0)), retAllow)
		}
	}
}

func TestNonNativeArchKilled(t *testing.T) {
	foreign := map[string][]uint32{
		"x86_64":  {auditArchI386, auditArchAARCH64, auditArchARM, 0},
		"aarch64": {auditArchARM, auditArchX86_64, auditArchI386, 0},
	}
	for _, arch := range Arches() {
		// Relaxing every group must not relax the architecture check.
		for _, relax := range [][]string{nil, groupNames()} {
			p := mustBuild(t, arch, relax...)
			for _, audit := range foreign[arch] {
				for _, nr := range []uint32{0, 1, 3, 20, 26, 172, 0xffffffff} {
					expect(t, fmt.Sprintf("%s: arch %#x nr %d", arch, audit, nr), callNr(t, p, audit, nr), retKillProcess)
				}
			}
		}
	}
}

func TestX32Killed(t *testing.T) {
	p := mustBuild(t, "x86_64", groupNames()...)
	for _, nr := range []uint32{
		x32SyscallBit,       // x32 read (0)
		x32SyscallBit | 39,  // x32 getpid
		x32SyscallBit | 521, // x32 ptrace
		x32SyscallBit | 16,  // x32 ioctl: not the native ioctl rule
		0x80000000, 0xfffffffe,
	} {
		expect(t, fmt.Sprintf("x86_64 nr %#x", nr), callNr(t, p, auditArchX86_64, nr), retKillProcess)
	}
	// -1 is what a tracer sets to skip a call; the kernel answers ENOSYS.
	expect(t, "x86_64 nr -1", callNr(t, p, auditArchX86_64, 0xffffffff), retAllow)
	// aarch64 has no second ABI under its audit arch: nothing to kill.
	a := mustBuild(t, "aarch64")
	expect(t, "aarch64 nr 0x40000000|172", callNr(t, a, auditArchAARCH64, x32SyscallBit|172), retAllow)
}

func TestTTYInject(t *testing.T) {
	for _, arch := range Arches() {
		p := mustBuild(t, arch)
		eperm := errnoAction(EPERM)
		expect(t, "TIOCSTI", call(t, p, "ioctl", 0, tiocsti, 0), eperm)
		expect(t, "TIOCLINUX", call(t, p, "ioctl", 0, tioclinux, 0), eperm)
		// The kernel reads the request as 32 bits: the high half is noise.
		expect(t, "TIOCSTI|1<<32", call(t, p, "ioctl", 0, tiocsti|1<<32, 0), eperm)
		expect(t, "TIOCLINUX|0xffffffff<<32", call(t, p, "ioctl", 0, tioclinux|0xffffffff<<32, 0), eperm)
		expect(t, "TCGETS", call(t, p, "ioctl", 1, tcgets, 0), retAllow)
		expect(t, "TCGETS|1<<32", call(t, p, "ioctl", 1, tcgets|1<<32, 0), retAllow)
		// The fd or the third argument holding the constant is not a match.
		expect(t, "fd=TIOCSTI", call(t, p, "ioctl", tiocsti, tcgets, tiocsti), retAllow)
		expect(t, "read", call(t, p, "ioctl", 0, 0x541b /* FIONREAD */, 0), retAllow)
	}
}

func TestCloneNamespaces(t *testing.T) {
	for _, arch := range Arches() {
		p := mustBuild(t, arch)
		eperm := errnoAction(EPERM)
		expect(t, "fork", call(t, p, "clone", sigchld), retAllow)
		expect(t, "thread", call(t, p, "clone", threadCloneFlags), retAllow)
		expect(t, "vfork", call(t, p, "clone", 0x4100|sigchld), retAllow)
		expect(t, "high bits", call(t, p, "clone", 1<<32|sigchld), retAllow)
		expect(t, "CLONE_NEWTIME (0x80) is CSIGNAL for clone", call(t, p, "clone", 0x80), retAllow)
		for _, f := range []uint64{cloneNewNS, cloneNewCgroup, cloneNewUTS, cloneNewIPC, cloneNewUser, cloneNewPID, cloneNewNet} {
			expect(t, fmt.Sprintf("clone(%#x)", f), call(t, p, "clone", f|sigchld), eperm)
			expect(t, fmt.Sprintf("clone(%#x|1<<32)", f), call(t, p, "clone", f|1<<32), eperm)
		}
		expect(t, "clone3", call(t, p, "clone3", 0, 88), errnoAction(ENOSYS))
	}
}

func TestPersonality(t *testing.T) {
	for _, arch := range Arches() {
		p := mustBuild(t, arch)
		for _, v := range []uint64{0, 8, 0x20000, 0x20008, 0xffffffff, 1 << 32, 0xffffffff | 1<<32} {
			expect(t, fmt.Sprintf("personality(%#x)", v), call(t, p, "personality", v), retAllow)
		}
		for _, v := range []uint64{addrNoRandomize, readImpliesExec, addrNoRandomize | 8, 1, 0x0100000 /* MMAP_PAGE_ZERO */} {
			expect(t, fmt.Sprintf("personality(%#x)", v), call(t, p, "personality", v), errnoAction(EPERM))
		}
	}
}

func TestRelax(t *testing.T) {
	p := mustBuild(t, "x86_64", "ptrace")
	if slices.Contains(p.Blocked, "ptrace") || len(p.Blocked) != len(groups) { // less ptrace, plus vsock
		t.Errorf("Blocked = %q", p.Blocked)
	}
	for _, s := range []string{"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"} {
		expect(t, "relaxed "+s, call(t, p, s), retAllow)
	}
	expect(t, "keyctl still", call(t, p, "keyctl"), errnoAction(EPERM))
	expect(t, "TIOCSTI still", call(t, p, "ioctl", 0, tiocsti), errnoAction(EPERM))

	p = mustBuild(t, "x86_64", "tty-inject", "personality", "namespaces")
	expect(t, "relaxed TIOCSTI", call(t, p, "ioctl", 0, tiocsti), retAllow)
	expect(t, "relaxed personality", call(t, p, "personality", addrNoRandomize), retAllow)
	expect(t, "relaxed clone", call(t, p, "clone", cloneNewUser), retAllow)
	expect(t, "relaxed unshare", call(t, p, "unshare", cloneNewUser), retAllow)
	expect(t, "clone3 still", call(t, p, "clone3"), errnoAction(ENOSYS))

	p = mustBuild(t, "x86_64", groupNames()...)
	if !slices.Equal(p.Blocked, []string{groupVsock}) {
		t.Errorf("all relaxed: Blocked = %q (want vsock alone: the network's groups are not relaxed)", p.Blocked)
	}
	expect(t, "all relaxed: ptrace", call(t, p, "ptrace"), retAllow)
}

func TestRelaxErrors(t *testing.T) {
	_, err := Build("x86_64", []string{"ptrace", "debugging"})
	if err == nil {
		t.Fatal("unknown group accepted")
	}
	for _, name := range append(groupNames(), `"debugging"`) {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %s", err, name)
		}
	}
	for relax, needs := range map[string]string{"clone3": "namespaces", "new-mount-api": "mount"} {
		if _, err := Build("x86_64", []string{relax}); err == nil || !strings.Contains(err.Error(), needs) {
			t.Errorf("relax %s alone: err = %v, want one naming %s", relax, err, needs)
		}
		if _, err := Build("x86_64", []string{relax, needs}); err != nil {
			t.Errorf("relax %s with %s: %v", relax, needs, err)
		}
	}
	if _, err := Build("i386", nil); err == nil || !strings.Contains(err.Error(), "aarch64, x86_64") {
		t.Errorf("unknown arch: err = %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	for _, arch := range Arches() {
		a := mustBuild(t, arch, "ptrace", "perf", "bpf")
		b := mustBuild(t, arch, "bpf", "ptrace", "perf", "ptrace")
		if !bytes.Equal(a.Bytes, b.Bytes) || !slices.Equal(a.Blocked, b.Blocked) {
			t.Errorf("%s: relax order or duplicates changed the program", arch)
		}
		for range 20 {
			if c := mustBuild(t, arch); !bytes.Equal(c.Bytes, mustBuild(t, arch).Bytes) {
				t.Fatalf("%s: two builds differ", arch)
			}
		}
	}
}

// TestProgramShape checks statically what the kernel's checker checks:
// size, known opcodes, aligned in-range loads, jumps inside the program,
// and a return at the end.
func TestProgramShape(t *testing.T) {
	for _, arch := range Arches() {
		for _, relax := range [][]string{nil, {"ptrace"}, groupNames()} {
			p := mustBuild(t, arch, relax...)
			ins, err := decode(p.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			if len(ins) > maxInsns || ins[len(ins)-1].op != opRetK {
				t.Fatalf("%s: %d instructions, last op %#x", arch, len(ins), ins[len(ins)-1].op)
			}
			for pc, in := range ins {
				switch in.op {
				case opLdAbsW:
					if in.k%4 != 0 || in.k > 60 {
						t.Errorf("%s pc %d: load at %d", arch, pc, in.k)
					}
				case opJeqK, opJgeK, opJsetK:
					if pc+1+int(in.jt) >= len(ins) || pc+1+int(in.jf) >= len(ins) {
						t.Errorf("%s pc %d: jump out of the program", arch, pc)
					}
				case opRetK:
				default:
					t.Errorf("%s pc %d: unexpected opcode %#x", arch, pc, in.op)
				}
			}
		}
	}
}

func TestNativeArch(t *testing.T) {
	for goarch, want := range map[string]string{"amd64": "x86_64", "arm64": "aarch64"} {
		if got, err := archFromGOARCH(goarch); got != want || err != nil {
			t.Errorf("%s: %q, %v", goarch, got, err)
		}
	}
	if _, err := archFromGOARCH("riscv64"); err == nil {
		t.Error("riscv64 accepted")
	}
	if a, err := NativeArch(); err == nil {
		mustBuild(t, a)
	}
}

// Build compiles the deny-list for arch ("x86_64" or "aarch64", see
// NativeArch) with the groups named in relax left out. An unknown group
// name is an error that lists the valid names; so is relaxing a group
// without the groups in its RelaxWith. The order of relax does not matter.
func Build(arch string, relax []string) (*Program, error) {
	return build(arch, relax, Network{}, nil)
}

// String renders the rule for explain output, for example
// "ioctl: arg1 & 0xffffffff in {TIOCSTI 0x5412, TIOCLINUX 0x541c}".
func (r ArgRule) String() string {
	vals := make([]string, len(r.Values))
	for i, v := range r.Values {
		vals[i] = fmt.Sprintf("%s 0x%x", r.Names[i], v)
	}
	op := map[ArgOp]string{ArgIn: "in", ArgNotIn: "not in", ArgHasBits: "has any bit of"}[r.Op]
	return fmt.Sprintf("%s: arg%d & 0xffffffff %s {%s}", r.Syscall, r.Arg, op, strings.Join(vals, ", "))
}
