package facts

import (
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/profile"
)

// TestHermesDeniedInEveryProfile: every path Hermes' own backend denies
// is hidden by every built-in profile (in both home layouts), so deny
// always wins inside an allowed entry (.cargo/credentials in .cargo).
func TestHermesDeniedInEveryProfile(t *testing.T) {
	set, ds := profile.Builtin()
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	for _, name := range set.Names() {
		p, err := set.Resolve(name, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		hidden := p.HiddenNames()
		for _, d := range HermesDenied {
			covered := false
			for _, h := range hidden {
				if Within("/h/"+d, "/h/"+h) {
					covered = true
				}
			}
			if !covered {
				t.Errorf("profile %s does not hide %s (Hermes denies it)", name, d)
			}
		}
	}
}

// TestHomeAllowedRows: one row per path, relative, described, and none
// is itself a denied path (an allowed row never names a credential).
func TestHomeAllowedRows(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range HomeAllowed {
		if seen[a.Path] || a.What == "" || a.Path == "" || a.Path[0] == '/' {
			t.Errorf("bad or duplicate row %+v", a)
		}
		seen[a.Path] = true
		if slices.Contains(HermesDenied, a.Path) || slices.Contains(CredentialStores, a.Path) {
			t.Errorf("allowed row %s is a denied path", a.Path)
		}
	}
}
