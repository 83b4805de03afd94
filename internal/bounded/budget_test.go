package bounded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestBudget: a directory's files are read until one crosses PerFile
// (*TooLarge, the rest still read) or the files together cross Total or
// Files (*OverBudget at the file that crossed it); a directory within
// every bound reads whole.
func TestBudget(t *testing.T) {
	for _, c := range []struct {
		name  string
		sizes []int
		b     Budget
		// stop is the index of the file refused (-1: none), byCount
		// and tooLarge what refused it.
		stop              int
		byCount, tooLarge bool
	}{
		{"within", []int{400, 400, 200}, Budget{PerFile: 500, Total: 1000, Files: 3}, -1, false, false},
		{"one_file_too_large", []int{100, 600, 100}, Budget{PerFile: 500, Total: 1000, Files: 3}, 1, false, true},
		{"total", []int{400, 400, 400}, Budget{PerFile: 500, Total: 1000, Files: 10}, 2, false, false},
		{"count", []int{1, 1, 1, 1}, Budget{PerFile: 500, Total: 1000, Files: 3}, 3, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			b := c.b
			stopped := -1
			for i, n := range c.sizes {
				f := filepath.Join(dir, fmt.Sprintf("f%d", i))
				if err := os.WriteFile(f, make([]byte, n), 0o644); err != nil {
					t.Fatal(err)
				}
				src, err := b.ReadFile(f)
				var big *TooLarge
				var over *OverBudget
				switch {
				case err == nil:
					if len(src) != n {
						t.Fatalf("%s: read %d bytes of %d", f, len(src), n)
					}
					continue
				case errors.As(err, &big):
					if !c.tooLarge {
						t.Fatalf("%s: %v", f, err)
					}
				case errors.As(err, &over):
					if c.tooLarge || over.ByCount != c.byCount || over.File != f {
						t.Fatalf("%s: %v (by count: %v)", f, err, over.ByCount)
					}
				default:
					t.Fatal(err)
				}
				if stopped < 0 {
					stopped = i
				}
			}
			if stopped != c.stop {
				t.Fatalf("refused at file %d, want %d", stopped, c.stop)
			}
		})
	}
}
