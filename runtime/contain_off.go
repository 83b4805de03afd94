//go:build bwpolicy_nocontain

package runtime

// containKill is false in the S11 test's control build only (see
// contain_on.go): finish leaves the sandbox's pid namespace alone, as the
// runtime did before it killed it.
const containKill = false
