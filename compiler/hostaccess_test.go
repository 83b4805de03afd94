package compiler

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testglob"
)

// TestCompilerReadsNoHostDirectly: the compiler reads the host only
// through the facts stage (facts.Gather and its FS, sealed after it:
// TestNoHostAccessAfterFacts). No file of it imports a package that
// reads the host on its own, but stages.go, whose os use is finding
// the settings file (DiscoverFile) and creating the sandbox's
// directories before the facts stage.
func TestCompilerReadsNoHostDirectly(t *testing.T) {
	hostPkgs := map[string]bool{"os": true, "io/fs": true, "golang.org/x/sys/unix": true,
		"github.com/bwpolicy/bwpolicy/hazard/filekind": true, "github.com/bwpolicy/bwpolicy/runtime/hostprobe": true}
	allowed := map[string]bool{"stages.go": true}
	fset := token.NewFileSet()
	for _, file := range testglob.Files(t, "*.go") {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if hostPkgs[p] && !allowed[filepath.Base(file)] {
				t.Errorf("%s imports %s: the compiler reads the host only through the facts stage", file, p)
			}
		}
	}
}
