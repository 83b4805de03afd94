package verify

import (
	"maps"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts"
)

// TestHiddenWhyFollowsRegistry holds verify's own list of the reasons
// that mark a hidden path (hiddenWhy) equal to the mask rows of the
// protection registry. verify keeps its own list on purpose (an
// independent checker must not share a mistake with the compiler); this
// test makes a new row impossible to forget here.
func TestHiddenWhyFollowsRegistry(t *testing.T) {
	var want []string
	for _, r := range facts.ReasonsOf(facts.RoleMask) {
		want = append(want, string(r))
	}
	sameSet(t, "verify's hiddenWhy", hiddenWhy, "registry mask reasons", want)
}

// TestExceptionRulesFollowRegistry holds the rules verify accepts for a
// bind brought back inside a mask (exceptionRules) equal to the rules
// of the registry's exception rows.
func TestExceptionRulesFollowRegistry(t *testing.T) {
	var want []string
	for _, p := range facts.Protections {
		if p.Role == facts.RoleException && !slices.Contains(want, p.Rule) {
			want = append(want, p.Rule)
		}
	}
	sameSet(t, "verify's exceptionRules", exceptionRules, "registry exception rules", want)
}

func sameSet(t *testing.T, gotName string, got map[string]bool, wantName string, want []string) {
	t.Helper()
	keys := slices.Sorted(maps.Keys(got))
	slices.Sort(want)
	if !slices.Equal(keys, want) {
		t.Errorf("%s = %v, %s = %v", gotName, keys, wantName, want)
	}
}
