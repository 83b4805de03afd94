package compiler

import (
	"context"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/seccomp"
)

// TestSeccompAllowCheckedLikeTheBuilder holds the policy stage's check
// of seccomp.allow (policy/host.rego, over input.known) equal to what
// the seccomp builder accepts: for every list of up to two groups (and
// an unknown name), the compilation is refused exactly when
// seccomp.BuildNetwork refuses the list — by an H2 error, not by the
// settings schema (whose name pattern once refused io_uring) — and never
// ends in an internal error (emit finding a list the policy stage let
// through).
func TestSeccompAllowCheckedLikeTheBuilder(t *testing.T) {
	names := []string{"no-such-group"}
	for _, g := range seccomp.Groups() {
		names = append(names, g.Name)
	}
	lists := [][]string{{}}
	for i, a := range names {
		lists = append(lists, []string{a})
		for _, b := range names[i+1:] {
			lists = append(lists, []string{a, b})
		}
	}
	for _, l := range lists {
		tc := loadCase(t, "testdata/cases/profile_workspace.txtar")
		tc.req.File = "s.yaml"
		tc.req.Source = []byte("seccomp:\n  allow: [" + strings.Join(l, ", ") + "]\n")
		res := Compile(context.Background(), tc.req)
		_, buildErr := seccomp.BuildNetwork("x86_64", l, seccomp.Network{})
		refused := false
		for _, d := range res.Diags {
			if d.Rule == "internal" {
				t.Fatalf("%v: internal error: %s", l, d)
			}
			if d.Severity == diag.Error {
				refused = true
				if d.Rule != "H2" || d.Path != "seccomp.allow" {
					t.Errorf("%v: refused by %s", l, d)
				}
			}
		}
		if refused != (buildErr != nil) {
			t.Errorf("%v: policy stage refused=%v, builder error=%v", l, refused, buildErr)
		}
	}
	if len(lists) < 50 {
		t.Fatalf("only %d lists", len(lists))
	}
}

// TestProtectAllowAcceptsEveryKnownName: every name the policy input
// publishes for protect.allow compiles (with its H9 warning), and a name
// outside the list is an H9 error — nothing else refuses either.
func TestProtectAllowAcceptsEveryKnownName(t *testing.T) {
	for _, name := range append(append([]string(nil), knownNames.ProtectNames...), ".gitconfig.bak") {
		tc := loadCase(t, "testdata/cases/profile_workspace.txtar")
		tc.req.File = "s.yaml"
		tc.req.Source = []byte("protect:\n  allow: [\"" + name + "\"]\n")
		res := Compile(context.Background(), tc.req)
		known := name != ".gitconfig.bak"
		warned := false
		for _, d := range res.Diags {
			switch {
			case d.Severity == diag.Error && (known || d.Rule != "H9"):
				t.Errorf("%s: %s", name, d)
			case d.Rule == "H9" && d.Path == "protect.allow[0]":
				warned = true
			}
		}
		if !warned || known != (res.Invocation != nil) {
			t.Errorf("%s: warned %v, compiled %v", name, warned, res.Invocation != nil)
		}
	}
}
