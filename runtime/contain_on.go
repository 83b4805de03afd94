//go:build !bwpolicy_nocontain

package runtime

// containKill is true in every real build: finish kills the sandbox's pid
// namespace (contain). Only the S11 test's control build
// (-tags bwpolicy_nocontain) turns it off, to show the attack it stops.
const containKill = true
