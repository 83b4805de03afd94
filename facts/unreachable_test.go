package facts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/asuser"
)

// TestOSLstatDenied: as an ordinary user (asuser.Nobody), OS.Lstat of a
// path inside another user's directory that denies search is
// invocation.KindDenied, without an error; inside a directory of the user's
// own that denies search it is KindOther with Err set (the compile
// refuses it); an open one is what it is.
func TestOSLstatDenied(t *testing.T) {
	base := asuser.Tree(t)
	want := []string{"foreign: denied <nil>", "own: other permission denied", "open: file <nil>"}
	if got := asuser.Run(t, "TestOSLstatDeniedHelper", "BWPOLICY_UNREACHABLE_BASE="+base); !slices.Equal(got, want) {
		t.Errorf("as uid %d:\n got %q\nwant %q", asuser.Nobody, got, want)
	}
}

// TestOSLstatDeniedHelper is TestOSLstatDenied's part that runs as
// another user.
func TestOSLstatDeniedHelper(t *testing.T) {
	if !asuser.Helper(t.Name()) {
		return
	}
	base := os.Getenv("BWPOLICY_UNREACHABLE_BASE")
	for _, d := range []string{"foreign", "own", "open"} {
		st := OS{}.Lstat(filepath.Join(base, d, "cred"))
		errText := "<nil>"
		if st.Err != nil {
			errText = "permission denied"
			if !os.IsPermission(st.Err) {
				errText = st.Err.Error()
			}
		}
		asuser.Print(fmt.Sprintf("%s: %s %s", d, st.Kind, errText))
	}
}
