package testglob

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoBareGlobInTests: every test of the module lists its inputs with
// Files (which fails on none), not with filepath.Glob directly.
func TestNoBareGlobInTests(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	var bad []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".cache", "golden", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, "_test.go") || strings.HasPrefix(filepath.ToSlash(p), "../../internal/testglob/") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		checked++
		for i, line := range bytes.Split(src, []byte("\n")) {
			if bytes.Contains(line, []byte("filepath.Glob(")) && !bytes.Contains(line, []byte(MayBeEmpty)) {
				bad = append(bad, filepath.ToSlash(p)+":"+strconv.Itoa(i+1))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d test files found under %s", checked, root)
	}
	for _, b := range bad {
		t.Errorf("%s: filepath.Glob in a test: use testglob.Files, which fails when nothing matches", b)
	}
}

func TestFilesFailsOnNone(t *testing.T) {
	ft := &fakeTB{TB: t}
	func() {
		defer func() { _ = recover() }()
		Files(ft, filepath.Join(t.TempDir(), "*.none"))
	}()
	if !ft.failed {
		t.Fatal("Files passed with nothing matched")
	}
}

type fakeTB struct {
	testing.TB
	failed bool
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(string, ...any) {
	f.failed = true
	panic("fatal")
}
