package secrets

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: the package is a leaf that bwrun links, so it
// imports the standard library and nothing else.
func TestStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) != 1 || deps[0] != "github.com/bwpolicy/bwpolicy/hazard/secrets" {
		t.Errorf("hazard/secrets depends on %v: only the standard library is allowed", deps)
	}
}
