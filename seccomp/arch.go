package seccomp

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
)

// Audit architecture values (linux/audit.h) reported in seccomp_data.arch.
const (
	auditArchX86_64  = 0xc000003e
	auditArchI386    = 0x40000003
	auditArchAARCH64 = 0xc00000b7
	auditArchARM     = 0x40000028
)

// x32SyscallBit marks an x32 syscall number on x86_64 (__X32_SYSCALL_BIT).
const x32SyscallBit = 0x40000000

// archInfo is what the builder needs to know about one architecture.
type archInfo struct {
	name  string
	audit uint32
	// x32 is true where syscall numbers with x32SyscallBit select another
	// ABI under the same audit architecture (x86_64).
	x32 bool
	// nr maps every syscall the groups mention to its number.
	nr map[string]uint32
}

var archs = map[string]*archInfo{
	"x86_64": {
		name: "x86_64", audit: auditArchX86_64, x32: true,
		nr: map[string]uint32{
			"ioctl": 16, "clone": 56, "ptrace": 101, "personality": 135,
			"pivot_root": 155, "mount": 165, "umount2": 166,
			"init_module": 175, "delete_module": 176, "kexec_load": 246,
			"add_key": 248, "request_key": 249, "keyctl": 250,
			"unshare": 272, "perf_event_open": 298, "setns": 308,
			"process_vm_readv": 310, "process_vm_writev": 311,
			"finit_module": 313, "kexec_file_load": 320, "bpf": 321,
			"userfaultfd": 323, "open_tree": 428, "move_mount": 429,
			"fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
			"clone3": 435, "mount_setattr": 442, "open_tree_attr": 467,
			"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
			"socket": 41, "sendto": 44, "sendmsg": 46, "sendmmsg": 307,
			"pidfd_getfd": 438,
		},
	},
	"aarch64": {
		name: "aarch64", audit: auditArchAARCH64,
		nr: map[string]uint32{
			"ioctl": 29, "umount2": 39, "mount": 40, "pivot_root": 41,
			"personality": 92, "unshare": 97, "kexec_load": 104,
			"init_module": 105, "delete_module": 106, "ptrace": 117,
			"add_key": 217, "request_key": 218, "keyctl": 219, "clone": 220,
			"perf_event_open": 241, "setns": 268, "process_vm_readv": 270,
			"process_vm_writev": 271, "finit_module": 273, "bpf": 280,
			"userfaultfd": 282, "kexec_file_load": 294, "open_tree": 428,
			"move_mount": 429, "fsopen": 430, "fsconfig": 431,
			"fsmount": 432, "fspick": 433, "clone3": 435,
			"mount_setattr": 442, "open_tree_attr": 467,
			"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
			"socket": 198, "sendto": 206, "sendmsg": 211, "sendmmsg": 269,
			"pidfd_getfd": 438,
		},
	},
}

// auditArchNames names the audit architectures the disassembler shows.
var auditArchNames = map[uint32]string{
	auditArchX86_64:  "AUDIT_ARCH_X86_64",
	auditArchI386:    "AUDIT_ARCH_I386",
	auditArchAARCH64: "AUDIT_ARCH_AARCH64",
	auditArchARM:     "AUDIT_ARCH_ARM",
}

// Arches returns the architectures BuildNetwork supports, sorted.
func Arches() []string {
	names := make([]string, 0, len(archs))
	for n := range archs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NativeArch returns the architecture name (as BuildNetwork expects it) of the
// machine this binary was built for, or an error when BuildNetwork does not
// support it.
func NativeArch() (string, error) {
	return archFromGOARCH(runtime.GOARCH)
}

func archFromGOARCH(goarch string) (string, error) {
	switch goarch {
	case "amd64":
		return "x86_64", nil
	case "arm64":
		return "aarch64", nil
	}
	return "", fmt.Errorf("seccomp: no filter for GOARCH %q (supported: %s)",
		goarch, strings.Join(Arches(), ", "))
}

func lookupArch(arch string) (*archInfo, error) {
	a, ok := archs[arch]
	if !ok {
		return nil, fmt.Errorf("seccomp: unknown architecture %q (supported: %s)",
			arch, strings.Join(Arches(), ", "))
	}
	return a, nil
}
