package profile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// loadOne loads a directory holding one profile file and returns its
// diagnostics.
func loadOne(t *testing.T, name, src string) (string, diag.List) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ds := Load([]string{dir})
	return file, ds
}

// TestCUEConflictKeepsBothPositions: a profile value that conflicts with
// the one #Profile fixes is reported at the profile's value, with the
// definition's value as a related position (schema/sandbox.cue promises
// both).
func TestCUEConflictKeepsBothPositions(t *testing.T) {
	file, ds := loadOne(t, "rwroot.cue", "name:         \"rwroot\"\ndescription:  \"writable root\"\ncwd_writable: true\nroot:         \"read-write\"\n")
	if len(ds) != 1 {
		t.Fatalf("want one diagnostic: %v", ds)
	}
	d := ds[0]
	if d.Pos != (diag.Pos{File: file, Line: 4, Col: 15}) {
		t.Errorf("position %s", d.Pos)
	}
	if len(d.Related) != 1 || d.Related[0].Pos.File != schemaFile || d.Related[0].Pos.Line == 0 {
		t.Errorf("related %+v", d.Related)
	}
}

// TestCUEConflictInsideProfile: two values of one profile that conflict
// are both positioned in the profile.
func TestCUEConflictInsideProfile(t *testing.T) {
	file, ds := loadOne(t, "twice.cue", "name:         \"twice\"\ndescription:  \"says it twice\"\ncwd_writable: true\ncwd_writable: false\n")
	if len(ds) == 0 {
		t.Fatal("no diagnostic")
	}
	d := ds[0]
	if d.Pos.File != file || len(d.Related) == 0 || d.Related[0].Pos.File != file || d.Related[0].Pos.Line == d.Pos.Line {
		t.Fatalf("%s related %+v", d, d.Related)
	}
}

// Load returns the built-in profiles plus the .cue files of dirs,
// evaluated under the default bounds (LoadWith). A custom profile's name
// must match its file name.
func Load(dirs []string) (*Set, diag.List) { return LoadWith(dirs, bounded.Limits{}) }
