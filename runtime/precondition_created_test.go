package runtime

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// TestCreatedProtected: only H9 paths recorded absent that exist now are
// reported; other absent preconditions and H9 paths recorded present are
// not.
func TestCreatedProtected(t *testing.T) {
	dir := t.TempDir()
	made := filepath.Join(dir, "made")
	if err := os.WriteFile(made, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	inv := &invocation.Invocation{Preconditions: []invocation.Precondition{
		{Path: made, Kind: invocation.KindAbsent, Why: "H9"},
		{Path: filepath.Join(dir, "still-absent"), Kind: invocation.KindAbsent, Why: "H9"},
		{Path: made, Kind: invocation.KindFile, Why: "H9"},
		{Path: made, Kind: invocation.KindAbsent, Why: "S5"},
	}}
	if got := CreatedProtected(inv); !reflect.DeepEqual(got, []string{made}) {
		t.Errorf("CreatedProtected = %q, want [%s]", got, made)
	}
}
