package policy

import (
	"os"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// TestMain serves as a bounded child when LoadWith or RunTestDirs
// re-executes the test binary.
func TestMain(m *testing.M) {
	bounded.ServeIfChild()
	os.Exit(m.Run())
}
