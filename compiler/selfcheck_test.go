package compiler

import (
	"slices"
	"strings"
	"testing"
)

// TestSelfCheckWithholdsBrokenInvocation: an invocation that breaks one
// of verify's invariants (here the read-only bind of a protected
// .git/config dropped, as an emitter bug would) is withheld, with an
// error naming the invariant; the untouched one passes.
func TestSelfCheckWithholdsBrokenInvocation(t *testing.T) {
	tc := loadCase(t, "testdata/cases/H9_protected.txtar")
	st := &state{req: tc.req, res: Compile(t.Context(), tc.req)}
	if st.res.Invocation == nil {
		t.Fatalf("H9_protected does not compile: %v", st.res.Diags)
	}
	selfCheck(st)
	if st.res.Invocation == nil || st.res.Diags.HasErrors() {
		t.Fatalf("the compiled invocation failed its own check: %v", st.res.Diags)
	}
	args := st.res.Invocation.Bwrap.Args
	i := slices.Index(args, "/home/u/proj/.git/config")
	if i < 1 || args[i-1] != "--ro-bind" {
		t.Fatalf("no read-only bind of .git/config in %q", args)
	}
	st.res.Invocation.Bwrap.Args = slices.Delete(slices.Clone(args), i-1, i+2)
	selfCheck(st)
	if st.res.Invocation != nil || !strings.Contains(st.res.Diags.Error(), "protected-read-only") {
		t.Errorf("a broken invocation was handed out, or the error does not name the invariant: %v", st.res.Diags)
	}
}
