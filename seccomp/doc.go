// Package seccomp compiles bwpolicy's seccomp deny-list (docs/protections.md, H2) into
// a classic BPF program that bwrap loads with --seccomp FD.
//
// The program is built at compile time, carried in the frozen invocation
// and handed to bwrap by the runtime; nothing here runs on the per-command
// path. It is a deny-list in the style of Flatpak's filter:
//
//  1. A syscall from any architecture other than the one the program was
//     built for (for example a 32-bit int 0x80 call on x86_64) kills the
//     process (SECCOMP_RET_KILL_PROCESS). Without this check a non-native
//     call would be compared against the wrong syscall numbers.
//  2. On x86_64, a syscall number with the x32 bit (0x40000000) set also
//     kills the process: x32 calls report AUDIT_ARCH_X86_64 but use their
//     own numbering, a classic way around x86_64 rules. The number -1
//     (0xffffffff), which a tracer uses to skip a call, is let through as
//     libseccomp does; the kernel answers it with ENOSYS.
//  3. The named Groups return an errno (EPERM, or ENOSYS where a caller is
//     expected to fall back to an older call).
//  4. Everything else is allowed.
//
// Argument filters compare only the low 32 bits of an argument. The kernel
// reads ioctl's request, personality's persona and the legacy clone flags
// as 32-bit values, so a 64-bit compare would let TIOCSTI|1<<32 through.
//
// Decisions beyond the list:
//
//   - personality: a persona cannot switch the syscall ABI on x86_64 or
//     aarch64 (the kernel picks the ABI per call, from the entry point and
//     the x32 bit, which steps 1 and 2 cover); PER_LINUX32 only changes
//     uname and the address-space layout. The flags are still dangerous:
//     ADDR_NO_RANDOMIZE switches ASLR off for children, READ_IMPLIES_EXEC
//     makes data executable. Group "personality" allows only Docker's set
//     (PER_LINUX, PER_LINUX32, UNAME26, both, and the 0xffffffff query).
//     gdb, which turns ASLR off by default, then warns "Error disabling
//     address space randomization" and goes on; relax the group to keep it.
//   - clone: group "namespaces" also denies clone(2) with any CLONE_NEW*
//     flag; unshare and setns alone would leave that door open. clone3
//     passes flags in memory the filter cannot read, which is why it
//     answers ENOSYS and why relaxing "clone3" requires relaxing
//     "namespaces" (Group.RelaxWith). Likewise "new-mount-api" requires
//     "mount": fsmount and move_mount mount without mount(2).
//   - open_tree_attr (Linux 6.15) belongs to the new mount API.
//   - The x32 and foreign-architecture actions are not in any group and
//     cannot be relaxed.
//
// The syscalls are compared one after another. That costs nothing per
// call on Linux 5.11 and later: the kernel's seccomp action cache
// precomputes "allow" for every syscall whose verdict does not depend on
// its arguments.
//
// The program is deterministic: the same arch and relaxed groups give the
// same bytes. It uses only the standard library.
package seccomp
