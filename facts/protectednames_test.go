package facts

import (
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime"
)

// TestProtectedNamesStartup: every protected name is git's or one the
// runtime sets aside when a command creates it, and the runtime knows
// no start-up name the compile does not protect.
func TestProtectedNamesStartup(t *testing.T) {
	for _, n := range ProtectedNames {
		if !slices.Contains(gitProtectedNames, n) && !slices.Contains(runtime.StartupNames, n) && !slices.Contains(runtime.HomeStartupNames, n) {
			t.Errorf("%s is neither git's nor in runtime.StartupNames or HomeStartupNames", n)
		}
	}
	for _, n := range append(append([]string(nil), runtime.StartupNames...), runtime.HomeStartupNames...) {
		if !slices.Contains(ProtectedNames, n) {
			t.Errorf("runtime.StartupNames has %s, ProtectedNames does not", n)
		}
	}
	for _, n := range gitProtectedNames {
		if !slices.Contains(ProtectedNames, n) || slices.Contains(runtime.StartupNames, n) {
			t.Errorf("git's %s: not protected, or also a start-up name", n)
		}
	}
}
