package runtime

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockCreateRulesetVersion is LANDLOCK_CREATE_RULESET_VERSION.
const landlockCreateRulesetVersion = 1

// LandlockABI returns the kernel's Landlock ABI version, or 0 when
// Landlock is unavailable (not built in, or disabled at boot).
func LandlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(nil)), 0, landlockCreateRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
}
