// Package testglob lists a test's input files and fails the test when
// the list is empty: a test that globs its inputs and finds none proves
// nothing, and must not pass as if it had (a moved directory once left a
// golden test skipping for weeks).
package testglob

import (
	"path/filepath"
	"sort"
	"testing"
)

// Files returns the files matching pattern, sorted, and fails tb when
// the pattern is malformed or matches nothing.
func Files(tb testing.TB, pattern string) []string {
	tb.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		tb.Fatalf("testglob: pattern %q: %v", pattern, err)
	}
	if len(files) == 0 {
		tb.Fatalf("testglob: nothing matches %q: the test would prove nothing (moved inputs?)", pattern)
	}
	sort.Strings(files)
	return files
}

// MayBeEmpty marks, in a comment on its line, a filepath.Glob in a test
// whose empty result is what the test expects (nothing left behind).
const MayBeEmpty = "testglob:may-be-empty"
