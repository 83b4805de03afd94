package compiler

import (
	"context"
	"testing"
)

// TestEmitReportsNothing holds pipeline.go's promise: every check runs
// before emit, so across all golden cases the emit stage adds no
// diagnostic (a bwrap without an option, an old kernel, an unknown
// protect.allow or seccomp.allow name are the policy stage's findings).
func TestEmitReportsNothing(t *testing.T) {
	emitted := 0
	for _, file := range caseFiles(t) {
		tc := loadCase(t, file)
		st := &state{ctx: context.Background(), req: tc.req, res: &Result{}}
		for _, s := range stages {
			before := len(st.res.Diags)
			s.run(st)
			if s.name == "emit" {
				emitted++
				for _, d := range st.res.Diags[before:] {
					t.Errorf("%s: emit reported %s", tc.name, d)
				}
			}
			if st.res.Diags.HasErrors() {
				break
			}
		}
	}
	if emitted < 10 {
		t.Fatalf("only %d golden cases reached emit", emitted)
	}
}
