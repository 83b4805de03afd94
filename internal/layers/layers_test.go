package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testglob"
)

const module = "github.com/bwpolicy/bwpolicy"

// compileSide are the packages of the compile: they must not reach the
// launcher, directly or through another package.
var compileSide = []string{"facts", "compiler", "policy", "verify"}

// leaves are the packages under runtime/ the compile side may import:
// the invocation format, and the host probes (what the host's kernel and
// bwrap support, mountinfo). Each imports nothing of ours but another
// leaf (TestLeavesStayLeaves).
var leaves = []string{"runtime/invocation", "runtime/hostprobe"}

// knownRuntimeUses are the symbols of package runtime the compile side
// still uses, each with the branch that moves it out (issue 28). The
// list only shrinks: a use not listed fails TestCompileSideNeverImportsRuntime,
// and so does a listed one no longer used (delete its line).
var knownRuntimeUses = map[string]string{
	// The scan's directory listing, shared with the post-command scan
	// (runtime/scan/gitwalk.go) -> hazard/git.
	"facts.runtime.ListDir": "ledger",
}

// goList runs go list in the module's root and returns the words of
// its output (it fails the test when there are none).
func goList(t *testing.T, args ...string) []string {
	t.Helper()
	var words []string
	for _, l := range goListLines(t, args...) {
		words = append(words, strings.Fields(l)...)
	}
	return words
}

// goListLines runs go list in the module's root and returns its
// output's non-empty lines (it fails the test when there are none).
func goListLines(t *testing.T, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %v: %v", args, err)
	}
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		t.Fatalf("go list %v listed nothing", args)
	}
	return lines
}

// ours reports whether import path p is one of this module's packages,
// and its path below the module.
func ours(p string) (string, bool) {
	if p == module {
		return "", true
	}
	return strings.CutPrefix(p, module+"/")
}

// TestCompileSideNeverImportsRuntime: no package of the compile side
// depends, directly or not, on a runtime package other than the leaves;
// package runtime itself only directly, for the symbols
// knownRuntimeUses lists (each by its owner's branch), and no other.
// What runtime imports in turn is not followed (it is the exception);
// a compile-side package's use reached through another (compiler
// through facts) is checked as that one's.
func TestCompileSideNeverImportsRuntime(t *testing.T) {
	var used []string
	for _, pkg := range compileSide {
		imports := map[string][]string{}
		for _, line := range goListLines(t, "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./"+pkg) {
			f := strings.Fields(line)
			imports[f[0]] = f[1:]
		}
		root := module + "/" + pkg
		if _, ok := imports[root]; !ok {
			t.Fatalf("%s: not listed by go list", root)
		}
		seen := map[string]bool{root: true}
		queue := []string{root}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, dep := range imports[p] {
				rel, ok := ours(dep)
				isRuntime := ok && (rel == "runtime" || strings.HasPrefix(rel, "runtime/")) && !slices.Contains(leaves, rel)
				switch {
				case isRuntime && rel == "runtime" && p == root:
					used = append(used, runtimeUses(t, pkg)...)
				case isRuntime && rel == "runtime" && slices.ContainsFunc(compileSide, func(c string) bool { return p == module+"/"+c }):
					// Another compile-side package's use: checked as its own.
				case isRuntime:
					t.Errorf("%s depends on %s (imported by %s): the compile side never imports the launcher", pkg, rel, p)
				}
				if !seen[dep] && !isRuntime {
					queue = append(queue, dep)
				}
				seen[dep] = true
			}
		}
	}
	for _, u := range used {
		if _, ok := knownRuntimeUses[u]; !ok {
			t.Errorf("%s: a new use of package runtime from the compile side; move what it needs to a leaf (hazard/..., runtime/invocation)", u)
		}
	}
	for u, owner := range knownRuntimeUses {
		if !slices.Contains(used, u) {
			t.Errorf("%s (owner: %s) is no longer used: delete it from knownRuntimeUses", u, owner)
		}
	}
}

// runtimeUses returns the symbols of package runtime that the non-test
// files of pkg use, as "pkg.runtime.Name", sorted and unique.
func runtimeUses(t *testing.T, pkg string) []string {
	t.Helper()
	files := testglob.Files(t, filepath.Join("../..", pkg, "*.go"))
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		name := ""
		for _, imp := range af.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == module+"/runtime" {
				name = "runtime"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			continue
		}
		ast.Inspect(af, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name {
					seen[pkg+".runtime."+sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	var out []string
	for u := range seen {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// TestLeavesStayLeaves: the hazard knowledge packages and the runtime
// leaves import, of ours, only each other; from outside, the standard
// library and golang.org/x/sys only (both sides, bwrun included, import
// them).
func TestLeavesStayLeaves(t *testing.T) {
	pkgs := goList(t, "-f", "{{.ImportPath}}", "./hazard/...")
	for _, l := range leaves {
		pkgs = append(pkgs, module+"/"+l)
	}
	if len(pkgs) < 3 {
		t.Fatalf("only %v: the hazard packages were not found", pkgs)
	}
	for _, pkg := range pkgs {
		for _, dep := range goList(t, "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg) {
			rel, ok := ours(dep)
			switch {
			case dep == pkg, ok && (strings.HasPrefix(rel, "hazard/") || slices.Contains(leaves, rel)):
			case strings.HasPrefix(dep, "golang.org/x/sys/"):
			default:
				t.Errorf("%s depends on %s: a leaf imports only other leaves, the standard library and golang.org/x/sys", pkg, dep)
			}
		}
	}
}
