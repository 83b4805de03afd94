package main

import "golang.org/x/sys/unix"

// int80 makes a 32-bit (i386 ABI) syscall with int $0x80.
func int80(nr uintptr) uintptr

const (
	i386Getpid = 20
	x32Bit     = 0x40000000
)

// archProbes are probes of other ABIs on this architecture. A seccomp
// filter built for x86_64 kills both.
var archProbes = map[string]probe{
	// x32: getpid with the x32 bit set (ENOSYS where the kernel has no x32).
	"x32": sys(x32Bit | unix.SYS_GETPID),
	// int80: getpid through the i386 entry point.
	"int80": func() (unix.Errno, error) {
		r := int80(i386Getpid)
		if e := unix.Errno(-int32(r)); int32(r) < 0 && int32(r) > -4096 {
			return e, nil
		}
		return 0, nil
	},
}
