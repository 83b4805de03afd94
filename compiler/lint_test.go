package compiler

import (
	"bytes"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// withoutSelfCheck is l less the self-check's findings.
func withoutSelfCheck(l diag.List) diag.List {
	return slices.DeleteFunc(slices.Clone(l), func(d diag.Diagnostic) bool { return d.Rule == string(invocation.ReasonVerify) })
}

// TestLintReportsWhatCompileReports: every golden case, compiled for its
// findings (Lint) twice, with one Lint shared by all the cases and one
// facts.Cache per case's host, reports exactly what its whole
// compilation reports (the second time from what the first remembered),
// and hands out no invocation.
func TestLintReportsWhatCompileReports(t *testing.T) {
	l := NewLint()
	hits := 0
	for _, file := range caseFiles(t) {
		tc := loadCase(t, file)
		want := renderDiags(withoutSelfCheck(Compile(t.Context(), tc.req).Diags))
		cache := facts.NewCache()
		for pass := range 2 {
			c := loadCase(t, file)
			c.req.Lint, c.req.Facts = l, cache
			n := len(l.decisions.cur) // fewer cases than maxLint: one generation
			res := Compile(t.Context(), c.req)
			if got := renderDiags(res.Diags); !bytes.Equal(got, want) {
				t.Errorf("%s, pass %d: Lint says\n%s\nthe whole compilation\n%s", tc.name, pass, got, want)
			}
			if res.Invocation != nil {
				t.Errorf("%s: a Lint compilation handed out an invocation", tc.name)
			}
			if pass == 1 && res.Profile != nil && res.Facts != nil && len(l.decisions.cur) == n {
				hits++
			}
		}
	}
	if hits < len(caseFiles(t))/2 {
		t.Errorf("the second pass found %d decisions remembered, want most cases' (%d)", hits, len(caseFiles(t)))
	}
}

// TestSelfCheckFindingsAreHost: the self-check's findings are about the
// invocation compiled on this machine (Host), which is why a Lint
// compilation, whose caller shows no Host finding, leaves it out.
func TestSelfCheckFindingsAreHost(t *testing.T) {
	tc := loadCase(t, "testdata/cases/H9_protected.txtar")
	st := &state{req: tc.req, res: Compile(t.Context(), tc.req)}
	args := st.res.Invocation.Bwrap.Args
	i := slices.Index(args, "/home/u/proj/.git/config")
	st.res.Invocation.Bwrap.Args = slices.Delete(slices.Clone(args), i-1, i+2)
	selfCheck(st)
	n := 0
	for _, d := range st.res.Diags {
		if d.Rule == string(invocation.ReasonVerify) {
			n++
			if !d.Host {
				t.Errorf("a self-check finding not marked Host: %v", d)
			}
		}
	}
	if n == 0 {
		t.Fatalf("the broken invocation passed the self-check: %v", st.res.Diags)
	}
}

// TestLintSharesProfiles: a profile with the same limits is resolved
// once, one with other limits apart.
func TestLintSharesProfiles(t *testing.T) {
	l := NewLint()
	a, b := loadCase(t, "testdata/cases/H9_protected.txtar"), loadCase(t, "testdata/cases/H9_protected.txtar")
	a.req.Lint, b.req.Lint = l, l
	ra, rb := Compile(t.Context(), a.req), Compile(t.Context(), b.req)
	if ra.Profile == nil || ra.Profile != rb.Profile {
		t.Fatalf("the same settings resolved two profiles: %p, %p", ra.Profile, rb.Profile)
	}
	c := loadCase(t, "testdata/cases/H9_protected.txtar")
	c.req.Lint, c.req.Source = l, append(slices.Clone(c.req.Source), []byte("\nmemory_mb: 777\n")...)
	rc := Compile(t.Context(), c.req)
	if rc.Profile == nil || rc.Profile == ra.Profile || rc.Profile.Defaults.MemoryMB != 777 || ra.Profile.Defaults.MemoryMB == 777 {
		t.Errorf("other limits shared a profile: %+v, %+v (%v)", ra.Profile.Defaults, rc.Profile, rc.Diags)
	}
}

// TestLintTableGenerations: a table holds at most two generations of
// maxLint entries; an entry used in each generation stays, one unused
// for a whole generation is let go.
func TestLintTableGenerations(t *testing.T) {
	l := NewLint()
	var tb table[int, int]
	keep(l, &tb, -1, -1)
	for i := range 5 * maxLint {
		keep(l, &tb, i, i)
		if _, ok := recall(l, &tb, -1); !ok {
			t.Fatalf("the entry used all along was let go after %d others", i+1)
		}
		if n := len(tb.cur) + len(tb.old); n > 2*maxLint {
			t.Fatalf("%d entries, want at most %d", n, 2*maxLint)
		}
	}
	if _, ok := recall(l, &tb, 0); ok {
		t.Errorf("an entry unused for generations is still held")
	}
}
