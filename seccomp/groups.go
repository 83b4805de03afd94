package seccomp

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
)

// Linux errno values the groups return. They are spelled out rather than
// taken from package syscall so that a filter built on another OS still
// carries Linux numbers (they are the same on x86_64 and aarch64).
const (
	EPERM  syscall.Errno = 1  // Operation not permitted
	ENOSYS syscall.Errno = 38 // Function not implemented
)

// errnoNames names the errno values the disassembler shows.
var errnoNames = map[uint32]string{1: "EPERM", 13: "EACCES", 38: "ENOSYS", 93: "EPROTONOSUPPORT", 95: "EOPNOTSUPP", 97: "EAFNOSUPPORT"}

// Group is a named set of syscalls the filter denies together. A settings
// key can relax (leave out) whole groups by name.
type Group struct {
	// Name is the stable identifier used in settings and in
	// Program.Blocked, for example "ptrace".
	Name string
	// Description says in one line what the group stops and why.
	Description string
	// Syscalls are denied whatever their arguments.
	Syscalls []string
	// Args are syscalls denied only when an argument matches.
	Args []ArgRule
	// Errno is the Linux errno a denied call returns.
	Errno syscall.Errno
	// RelaxWith names groups that must be relaxed together with this one:
	// relaxing this group alone would let a program get around them.
	RelaxWith []string
}

// ArgOp says how an ArgRule compares an argument with its Values.
type ArgOp int

const (
	// ArgIn denies the call when the argument equals one of Values.
	ArgIn ArgOp = iota + 1
	// ArgNotIn denies the call when the argument equals none of Values
	// (an allow-list).
	ArgNotIn
	// ArgHasBits denies the call when the argument has any bit of
	// Values[0] set.
	ArgHasBits
)

// ArgRule denies one syscall when one of its arguments matches. Only the
// low 32 bits of the argument are compared; every rule is on an argument
// the kernel itself truncates to 32 bits.
type ArgRule struct {
	// Syscall is the syscall's name, for example "ioctl".
	Syscall string
	// Arg is the 0-based index of the argument compared.
	Arg int
	// Op is the comparison.
	Op ArgOp
	// Values are the constants compared against.
	Values []uint32
	// Names are the constants' names, parallel to Values.
	Names []string
}

// Argument constants (identical on x86_64 and aarch64).
const (
	tiocsti   = 0x5412
	tioclinux = 0x541c

	cloneNewNS     = 0x00020000
	cloneNewCgroup = 0x02000000
	cloneNewUTS    = 0x04000000
	cloneNewIPC    = 0x08000000
	cloneNewUser   = 0x10000000
	cloneNewPID    = 0x20000000
	cloneNewNet    = 0x40000000
	cloneNewAny    = cloneNewNS | cloneNewCgroup | cloneNewUTS | cloneNewIPC |
		cloneNewUser | cloneNewPID | cloneNewNet
)

// groups is the deny-list, in its stable order.
var groups = []Group{
	{
		Name:        "tty-inject",
		Description: "ioctl TIOCSTI/TIOCLINUX: push keystrokes into (or read) the terminal the agent's user sits at",
		Args: []ArgRule{{Syscall: "ioctl", Arg: 1, Op: ArgIn,
			Values: []uint32{tiocsti, tioclinux}, Names: []string{"TIOCSTI", "TIOCLINUX"}}},
		Errno: EPERM,
	},
	{
		Name:        "keyring",
		Description: "kernel keyrings are not namespaced: a sandbox could read or plant the user's keys",
		Syscalls:    []string{"keyctl", "add_key", "request_key"},
		Errno:       EPERM,
	},
	{
		Name:        "ptrace",
		Description: "tracing, cross-process memory access and taking another process's descriptors (pidfd_getfd: the sandbox's pid 1 holds the channel its exit status comes back on) (relax for debuggers such as gdb or strace)",
		Syscalls:    []string{"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"},
		Errno:       EPERM,
	},
	{
		Name:        "perf",
		Description: "perf_event_open: large kernel attack surface and side channels",
		Syscalls:    []string{"perf_event_open"},
		Errno:       EPERM,
	},
	{
		Name:        "bpf",
		Description: "bpf: loading programs into the kernel",
		Syscalls:    []string{"bpf"},
		Errno:       EPERM,
	},
	{
		Name:        "userfaultfd",
		Description: "userfaultfd: stalls kernel page faults, a standard exploit primitive",
		Syscalls:    []string{"userfaultfd"},
		Errno:       EPERM,
	},
	{
		Name: "io_uring",
		Description: "io_uring_setup, io_uring_enter, io_uring_register: a second system-call path that " +
			"seccomp cannot see into and a steady source of kernel privilege escalations; " +
			"ENOSYS so that libraries (liburing, libuv, tokio) fall back to ordinary calls",
		Syscalls: []string{"io_uring_setup", "io_uring_enter", "io_uring_register"},
		Errno:    ENOSYS,
	},
	{
		Name:        "mount",
		Description: "mount, umount2, pivot_root: changing the sandbox's mount table",
		Syscalls:    []string{"mount", "umount2", "pivot_root"},
		Errno:       EPERM,
	},
	{
		Name:        "new-mount-api",
		Description: "the file-descriptor mount API; ENOSYS so that tools fall back to mount(2)",
		Syscalls: []string{"open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
			"fspick", "mount_setattr", "open_tree_attr"},
		Errno:     ENOSYS,
		RelaxWith: []string{"mount"},
	},
	{
		Name:        "clone3",
		Description: "clone3 passes its flags in memory a filter cannot read; ENOSYS makes glibc fall back to clone",
		Syscalls:    []string{"clone3"},
		Errno:       ENOSYS,
		RelaxWith:   []string{"namespaces"},
	},
	{
		Name:        "namespaces",
		Description: "unshare, setns, and clone with CLONE_NEW* flags: new namespaces would give the sandbox capabilities over them",
		Syscalls:    []string{"unshare", "setns"},
		Args: []ArgRule{{Syscall: "clone", Arg: 0, Op: ArgHasBits,
			Values: []uint32{cloneNewAny}, Names: []string{"CLONE_NEW*"}}},
		Errno: EPERM,
	},
	{
		Name:        "kexec",
		Description: "kexec_load, kexec_file_load: replacing the running kernel",
		Syscalls:    []string{"kexec_load", "kexec_file_load"},
		Errno:       EPERM,
	},
	{
		Name:        "modules",
		Description: "init_module, finit_module, delete_module: loading kernel code",
		Syscalls:    []string{"init_module", "finit_module", "delete_module"},
		Errno:       EPERM,
	},
	{
		Name: "personality",
		Description: "personality flags other than PER_LINUX/PER_LINUX32/UNAME26 or a query: " +
			"no switching off ASLR (ADDR_NO_RANDOMIZE) or making data executable (READ_IMPLIES_EXEC)",
		Args: []ArgRule{{Syscall: "personality", Arg: 0, Op: ArgNotIn,
			Values: []uint32{0x0, 0x8, 0x20000, 0x20008, 0xffffffff},
			Names:  []string{"PER_LINUX", "PER_LINUX32", "UNAME26", "UNAME26|PER_LINUX32", "query"}}},
		Errno: EPERM,
	},
}

// Groups returns the deny-list's named groups in their stable order. The
// result is a copy; changing it does not change the filter.
func Groups() []Group {
	out := make([]Group, len(groups))
	for i, g := range groups {
		g.Syscalls = slices.Clone(g.Syscalls)
		g.RelaxWith = slices.Clone(g.RelaxWith)
		g.Args = slices.Clone(g.Args)
		for j := range g.Args {
			g.Args[j].Values = slices.Clone(g.Args[j].Values)
			g.Args[j].Names = slices.Clone(g.Args[j].Names)
		}
		out[i] = g
	}
	return out
}

// groupNames lists the group names in table order.
func groupNames() []string {
	names := make([]string, len(groups))
	for i, g := range groups {
		names[i] = g.Name
	}
	return names
}

// relaxSet checks the relaxed group names and returns them as a set.
func relaxSet(relax []string) (map[string]bool, error) {
	valid := map[string]bool{}
	for _, g := range groups {
		valid[g.Name] = true
	}
	set := map[string]bool{}
	for _, name := range relax {
		if !valid[name] {
			return nil, fmt.Errorf("seccomp: unknown group %q (valid groups: %s)",
				name, strings.Join(groupNames(), ", "))
		}
		set[name] = true
	}
	for _, g := range groups {
		if !set[g.Name] {
			continue
		}
		for _, other := range g.RelaxWith {
			if !set[other] {
				return nil, fmt.Errorf("seccomp: relaxing group %q also requires relaxing %q (%s)",
					g.Name, other, relaxReason(g.Name))
			}
		}
	}
	return set, nil
}

// RelaxReason says why relaxing group name needs the groups of its
// RelaxWith relaxed too (the policy stage's message for seccomp.allow).
func RelaxReason(name string) string { return relaxReason(name) }

func relaxReason(name string) string {
	switch name {
	case "clone3":
		return "clone3 can create namespaces with flags the filter cannot see"
	case "new-mount-api":
		return "open_tree/move_mount/fsmount can mount without mount(2)"
	}
	return "it would undo the other group"
}
