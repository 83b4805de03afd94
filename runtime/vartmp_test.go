package runtime

import (
	"os"
	"testing"
)

// varTempDir is a fresh directory under /var/tmp, removed after the test:
// not under /tmp, which the sandbox replaces with a tmpfs of its own, so
// the sandbox shows it at its host path.
func varTempDir(t *testing.T, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
