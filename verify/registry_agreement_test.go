package verify

import (
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestHiddenWhyFollowsRegistry holds the reasons verify takes for a
// candidate hidden path (invocation.Reason.Hides, the format's, not the
// compiler's) equal to the mask rows of the protection registry: a new
// row cannot be forgotten here.
func TestHiddenWhyFollowsRegistry(t *testing.T) {
	var want []invocation.Reason
	for _, p := range facts.Protections {
		if p.Role == facts.RoleMask && p.Reason != facts.ReasonInherited && !slices.Contains(want, p.Reason) {
			want = append(want, p.Reason)
		}
	}
	sameSet(t, "reasons that hide", func(r invocation.Reason) bool { return r.Hides() }, "registry mask reasons", want)
}

// TestExceptionRulesFollowRegistry holds the rules verify accepts for a
// bind brought back inside a mask (invocation.Reason.BindsBack) equal to
// the rules of the registry's exception rows.
func TestExceptionRulesFollowRegistry(t *testing.T) {
	var want []invocation.Reason
	for _, p := range facts.Protections {
		if p.Role == facts.RoleException && !slices.Contains(want, p.Rule) {
			want = append(want, p.Rule)
		}
	}
	sameSet(t, "reasons that bind back", func(r invocation.Reason) bool { return r.BindsBack() }, "registry exception rules", want)
}

func sameSet(t *testing.T, gotName string, has func(invocation.Reason) bool, wantName string, want []invocation.Reason) {
	t.Helper()
	var got []invocation.Reason
	for _, r := range invocation.Reasons {
		if has(r) {
			got = append(got, r)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("%s = %v, %s = %v", gotName, got, wantName, want)
	}
}
