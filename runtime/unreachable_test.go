package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/hazard/filekind"
	"github.com/bwpolicy/bwpolicy/internal/asuser"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestUnreachable: as an ordinary user (asuser.Nobody), a path inside
// another user's directory that denies search is KindDenied, and a
// precondition recording it so holds; one inside a directory of the
// user's own that denies search is an error (the owner can chmod it),
// and one that can be examined is what it is. Once the owner opens the
// directory, the denied precondition no longer holds (stale).
func TestUnreachable(t *testing.T) {
	base := asuser.Tree(t)
	env := "BWPOLICY_UNREACHABLE_BASE=" + base
	want := []string{"foreign: kind denied, recorded denied holds", "own: error, recorded denied stale",
		"open: kind file, recorded denied stale"}
	if got := asuser.Run(t, "TestUnreachableHelper", env); !slices.Equal(got, want) {
		t.Errorf("as uid %d:\n got %q\nwant %q", asuser.Nobody, got, want)
	}
	if err := os.Chmod(filepath.Join(base, "foreign"), 0o755); err != nil {
		t.Fatal(err)
	}
	want[0] = "foreign: kind file, recorded denied stale"
	if got := asuser.Run(t, "TestUnreachableHelper", env); !slices.Equal(got, want) {
		t.Errorf("after chmod 755 foreign:\n got %q\nwant %q", got, want)
	}
}

// TestUnreachableHelper is TestUnreachable's part that runs as another
// user.
func TestUnreachableHelper(t *testing.T) {
	if !asuser.Helper(t.Name()) {
		return
	}
	base := os.Getenv("BWPOLICY_UNREACHABLE_BASE")
	for _, d := range []string{"foreign", "own", "open"} {
		p := filepath.Join(base, d, "cred")
		line := d + ": "
		kind, _, err := KindOf(p)
		if err != nil {
			line += "error"
			if _, lerr := os.Lstat(p); filekind.Unreachable(p, lerr) || !errors.Is(lerr, os.ErrPermission) {
				t.Errorf("%s: Unreachable or not EACCES: %v", p, lerr)
			}
		} else {
			line += "kind " + kind
		}
		inv := &invocation.Invocation{Preconditions: []invocation.Precondition{{Path: p, Kind: invocation.KindDenied, Why: "H7"}}}
		if CheckPreconditions(inv) == nil {
			line += ", recorded denied holds"
		} else {
			line += ", recorded denied stale"
		}
		asuser.Print(line)
	}
}

// TestUnreachableListed: preconditions recorded as denied inside a
// directory another user owns that Nobody may read but not search (mode
// 0744), more of them than CheckPreconditions tells by one listing of
// their parent: the listing shows the names, but only lstat says they
// are still out of reach, so they hold (and go stale once the directory
// can be searched).
func TestUnreachableListed(t *testing.T) {
	asuser.NeedRoot(t)
	base := asuser.Tree(t)
	dir := filepath.Join(base, "listable")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range minListed + 2 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("cred%d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o744); err != nil {
		t.Fatal(err)
	}
	env := "BWPOLICY_UNREACHABLE_BASE=" + dir
	if got := asuser.Run(t, "TestUnreachableListedHelper", env); !slices.Equal(got, []string{"holds"}) {
		t.Errorf("denied preconditions in a readable, unsearchable directory: %q, want holds", got)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := asuser.Run(t, "TestUnreachableListedHelper", env); !slices.Equal(got, []string{"stale"}) {
		t.Errorf("after chmod 755: %q, want stale", got)
	}
}

// TestUnreachableListedHelper is TestUnreachableListed's part that runs
// as another user.
func TestUnreachableListedHelper(t *testing.T) {
	if !asuser.Helper(t.Name()) {
		return
	}
	dir := os.Getenv("BWPOLICY_UNREACHABLE_BASE")
	inv := &invocation.Invocation{}
	for i := range minListed + 2 {
		inv.Preconditions = append(inv.Preconditions, invocation.Precondition{Path: filepath.Join(dir, fmt.Sprintf("cred%d", i)), Kind: invocation.KindDenied, Why: "H7"})
	}
	if err := CheckPreconditions(inv); err != nil {
		asuser.Print("stale")
		return
	}
	asuser.Print("holds")
}
