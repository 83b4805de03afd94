package hostprobe

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// KernelRelease returns the running kernel's release string (uname -r).
func KernelRelease() (string, error) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", fmt.Errorf("uname: %w", err)
	}
	return unix.ByteSliceToString(u.Release[:]), nil
}

// ParseKernelVersion extracts major and minor from a release string such
// as "6.18.44-fc-v657" or "5.14.0-427.el9.x86_64".
func ParseKernelVersion(release string) (major, minor int, err error) {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return 0, 0, fmt.Errorf("kernel release %q: no major.minor", release)
	}
	major, err = strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, fmt.Errorf("kernel release %q: %v", release, err)
	}
	digits := parts[1]
	for i, c := range digits {
		if c < '0' || c > '9' {
			digits = digits[:i]
			break
		}
	}
	minor, err = strconv.Atoi(digits)
	if err != nil {
		return 0, 0, fmt.Errorf("kernel release %q: %v", release, err)
	}
	return major, minor, nil
}

// KernelAtLeast reports whether the running kernel is at least major.minor.
func KernelAtLeast(major, minor int) (bool, error) {
	rel, err := KernelRelease()
	if err != nil {
		return false, err
	}
	ma, mi, err := ParseKernelVersion(rel)
	if err != nil {
		return false, err
	}
	return ma > major || (ma == major && mi >= minor), nil
}

// NProcPerUserNSSince is the first kernel that counts RLIMIT_NPROC per
// user namespace (the ucounts rework), which S1 relies on.
const NProcPerUserNSSince = "5.14"

var nprocOnce struct {
	sync.Once
	ok  bool
	err error
}

// NProcPerUserNS reports whether the running kernel (>= 5.14) counts
// RLIMIT_NPROC per user namespace, so that a limit set inside the sandbox
// does not count the user's processes outside it. Cached per process.
func NProcPerUserNS() (bool, error) {
	nprocOnce.Do(func() {
		nprocOnce.ok, nprocOnce.err = KernelAtLeast(5, 14)
	})
	return nprocOnce.ok, nprocOnce.err
}

// LandlockABI returns the Landlock ABI version the kernel supports
// (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION); 0 means
// Landlock is unavailable (not built in, or not enabled at boot), in
// which case err says why.
func LandlockABI() (int, error) {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		switch {
		case errors.Is(errno, unix.ENOSYS):
			return 0, errors.New("kernel built without Landlock (ENOSYS)")
		case errors.Is(errno, unix.EOPNOTSUPP):
			return 0, errors.New("landlock is built in but disabled (EOPNOTSUPP): add landlock to the lsm= boot parameter")
		}
		return 0, fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	return int(abi), nil
}
