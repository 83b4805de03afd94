package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestCheckNames: a names row (the home layout's entries) is checked
// with one listing, exactly as one lstat per name would: entries as
// recorded pass; a directory replaced by a symlink (to a hidden one), a
// file where a directory was, a removed entry, and every entry of a
// directory that is gone make the invocation stale, each named.
func TestCheckNames(t *testing.T) {
	t.Run("own listing", func(t *testing.T) { testCheckNames(t, 0) })
	// Eight absent rows in the same directory make listedKinds list it:
	// the names rows are checked from that listing.
	t.Run("shared listing", func(t *testing.T) { testCheckNames(t, minListed) })
}

func testCheckNames(t *testing.T, absentRows int) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	mkdirs(t, filepath.Join(home, "a"), filepath.Join(home, "b"), filepath.Join(home, "c"), filepath.Join(home, ".ssh"))
	writeFile(t, filepath.Join(home, "f"))
	dirs := invocation.Precondition{Path: home, Names: []string{"a", "b", "c"}, Kind: invocation.KindDir, Why: "path component"}
	files := invocation.Precondition{Path: home, Names: []string{"f"}, Kind: invocation.KindFile, Why: "path component"}
	inv := &invocation.Invocation{Preconditions: []invocation.Precondition{dirs, files}}
	for i := range absentRows {
		inv.Preconditions = append(inv.Preconditions, invocation.Precondition{Path: filepath.Join(home, fmt.Sprintf(".absent%d", i)), Kind: invocation.KindAbsent, Why: "H7"})
	}
	if err := CheckPreconditions(inv); err != nil {
		t.Fatalf("unchanged home: %v", err)
	}

	os.Remove(filepath.Join(home, "a"))
	os.Symlink(".ssh", filepath.Join(home, "a"))
	os.Remove(filepath.Join(home, "b"))
	writeFile(t, filepath.Join(home, "b"))
	os.Remove(filepath.Join(home, "c"))
	var se *StaleError
	err := CheckPreconditions(inv)
	if !errors.As(err, &se) {
		t.Fatalf("changed home: %v, want a StaleError", err)
	}
	var got []string
	for _, m := range se.Mismatches {
		got = append(got, strings.TrimPrefix(m.Precondition.Path, home)+" "+m.Precondition.Kind+"->"+m.Kind+" "+m.Target)
	}
	want := []string{"/a dir->symlink .ssh", "/b dir->file ", "/c dir->absent "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("mismatches %q, want %q", got, want)
	}

	os.RemoveAll(home)
	se = nil
	if !errors.As(CheckPreconditions(inv), &se) || len(se.Mismatches) != 4 {
		t.Fatalf("home gone: %v, want 4 absent entries", se)
	}
	if absentRows > 0 {
		ncs := namesChecks(inv.Preconditions)
		var buf []byte
		listedKinds(inv.Preconditions, &buf, ncs)
		if len(ncs) != 1 || !ncs[0].absent {
			t.Fatal("listedKinds' listing of the directory did not serve its names rows")
		}
	}
	for _, m := range se.Mismatches {
		if m.Kind != invocation.KindAbsent {
			t.Fatalf("home gone: %s is %q, want absent", m.Precondition.Path, m.Kind)
		}
	}
}
