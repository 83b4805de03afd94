package profile

import (
	"os"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// TestMain serves as a bounded child when a test loads custom profiles
// or organisation rules (they are evaluated in a re-executed test
// binary).
func TestMain(m *testing.M) {
	bounded.ServeIfChild()
	os.Exit(m.Run())
}
