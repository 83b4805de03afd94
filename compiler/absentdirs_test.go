package compiler

import (
	"path"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestAbsentDirs: absentDirs.above answers as walking every parent of p
// (but "/") would, whatever order the paths are asked in and whichever
// answers are remembered already.
func TestAbsentDirs(t *testing.T) {
	observed := map[string]facts.Stat{
		"/a": {Kind: invocation.KindDir}, "/a/gone": {Kind: invocation.KindAbsent}, "/a/gone/x": {Kind: invocation.KindAbsent},
		"/a/b": {Kind: invocation.KindDir}, "/a/b/c": {Kind: invocation.KindFile}, "/a/shut": {Kind: invocation.KindDenied},
		"/none": {Kind: invocation.KindAbsent},
	}
	walk := func(p string) bool {
		for d := path.Dir(p); d != p && d != "/"; p, d = d, path.Dir(d) {
			if st, ok := observed[d]; ok && invocation.Missing(st.Kind) {
				return true
			}
		}
		return false
	}
	paths := []string{"/a/gone/x/y/z", "/a/b/c", "/a/gone/x", "/a", "/", "/none", "/none/x", "/a/shut/k", "/a/b/c/d", "/q/r/s", "/a/gone", "/a/b/unseen/deep"}
	backwards := slices.Clone(paths)
	slices.Reverse(backwards)
	for _, order := range [][]string{paths, backwards} {
		abs := newAbsentDirs(observed)
		for _, p := range order {
			if got, want := abs.above(p), walk(p); got != want {
				t.Errorf("above(%s) = %v, want %v", p, got, want)
			}
		}
	}
}
