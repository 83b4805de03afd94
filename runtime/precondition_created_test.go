package runtime

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
	inv := &Invocation{Preconditions: []Precondition{
		{Path: made, Kind: KindAbsent, Why: "H9"},
		{Path: filepath.Join(dir, "still-absent"), Kind: KindAbsent, Why: "H9"},
		{Path: made, Kind: KindFile, Why: "H9"},
		{Path: made, Kind: KindAbsent, Why: "S5"},
	}}
	if got := CreatedProtected(inv); !reflect.DeepEqual(got, []string{made}) {
		t.Errorf("CreatedProtected = %q, want [%s]", got, made)
	}
}
