package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

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
			if _, lerr := os.Lstat(p); Unreachable(p, lerr) || !errors.Is(lerr, os.ErrPermission) {
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
