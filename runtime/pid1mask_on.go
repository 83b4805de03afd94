//go:build !bwpolicy_nocontain && !bwpolicy_nopid1check

package runtime

// requirePid1Mask is true in every real build: CheckArgs requires the
// mask of the sandbox's pid 1's memory (S11). Only the S11 test's builds
// turn it off (-tags bwpolicy_nocontain, the control without any
// containment; -tags bwpolicy_nopid1check, the runtime with the pid
// namespace kill but without this check), to run an invocation whose
// mask was removed, as a route the mask does not foresee would be.
const requirePid1Mask = true
