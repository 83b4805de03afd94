// Package testtree writes small file trees for tests: the settings,
// policies and profiles a test feeds to a command or a package.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write writes files (slash-separated name relative to the tree → content)
// under a new temporary directory of t, creating parent directories, and
// returns the directory. Any failure ends the test.
func Write(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
