package facts

import (
	"testing"

	"github.com/bwpolicy/bwpolicy/profile"
)

// builtinProfile resolves the built-in profile name, failing t when the
// built-in set or the name does not resolve.
func builtinProfile(t *testing.T, name string) *profile.Profile {
	t.Helper()
	set, ds := profile.Builtin()
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	p, err := set.Resolve(name, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
