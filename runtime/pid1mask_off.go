//go:build bwpolicy_nocontain || bwpolicy_nopid1check

package runtime

// requirePid1Mask is false in the S11 test's builds only (see
// pid1mask_on.go).
const requirePid1Mask = false
