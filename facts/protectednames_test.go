package facts

import (
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/startup"
)

// TestProtectedNamesStartup: every protected name is git's or one the
// runtime sets aside when a command creates it, and the runtime knows
// no start-up name the compile does not protect.
func TestProtectedNamesStartup(t *testing.T) {
	for _, n := range ProtectedNames {
		if !slices.Contains(gitProtectedNames, n) && !slices.Contains(startup.Names, n) && !slices.Contains(startup.HomeNames, n) {
			t.Errorf("%s is neither git's nor in startup.Names or startup.HomeNames", n)
		}
	}
	for _, n := range append(append([]string(nil), startup.Names...), startup.HomeNames...) {
		if !slices.Contains(ProtectedNames, n) {
			t.Errorf("startup.Names has %s, ProtectedNames does not", n)
		}
	}
	for _, n := range gitProtectedNames {
		if !slices.Contains(ProtectedNames, n) || slices.Contains(startup.Names, n) {
			t.Errorf("git's %s: not protected, or also a start-up name", n)
		}
	}
}
