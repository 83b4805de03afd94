package factstest

import (
	"testing"
)

// TestGuardSealed: a sealed Guard panics on access, an opened one
// answers.
func TestGuardSealed(t *testing.T) {
	g := &Guard{FS: Tree{"/etc": {Kind: "dir"}}}
	if g.Lstat("/etc").Kind != "dir" {
		t.Fatal("open guard did not answer")
	}
	g.Seal()
	defer func() {
		if recover() == nil {
			t.Fatal("sealed guard answered")
		}
	}()
	g.ReadDir("/etc")
}
