package sandboxtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testglob"
)

// TestEveryScenarioRegistered: every function of this package shaped
// as a scenario (func(*testing.T, *fixture), named test…) is in the
// scenarios table, so a scenario that was written but not registered
// fails here instead of never running.
func TestEveryScenarioRegistered(t *testing.T) {
	registered := map[string]bool{}
	for _, sc := range scenarios {
		name := goruntime.FuncForPC(reflect.ValueOf(sc.run).Pointer()).Name()
		registered[name[strings.LastIndex(name, ".")+1:]] = true
	}
	fset := token.NewFileSet()
	found := 0
	for _, file := range testglob.Files(t, "*_test.go") {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "test") || !isScenarioShape(fn.Type) {
				continue
			}
			found++
			if !registered[fn.Name.Name] {
				t.Errorf("%s: %s has a scenario's shape but is not in the scenarios table (sandbox_test.go): it never runs", filepath.Base(file), fn.Name.Name)
			}
		}
	}
	if found < len(scenarios)/2 {
		t.Fatalf("found %d scenario functions for %d table entries: the shape test is broken", found, len(scenarios))
	}
}

// isScenarioShape reports whether ft is func(*testing.T, *fixture).
func isScenarioShape(ft *ast.FuncType) bool {
	if ft.Results != nil && len(ft.Results.List) > 0 {
		return false
	}
	var types []string
	for _, p := range ft.Params.List {
		star, ok := p.Type.(*ast.StarExpr)
		if !ok {
			return false
		}
		var name string
		switch x := star.X.(type) {
		case *ast.Ident:
			name = x.Name
		case *ast.SelectorExpr:
			name = x.Sel.Name
		}
		n := len(p.Names)
		if n == 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			types = append(types, name)
		}
	}
	return len(types) == 2 && types[0] == "T" && types[1] == "fixture"
}

func TestSelectIdentities(t *testing.T) {
	root, user := identity{name: "root"}, identity{name: "user"}
	for _, c := range []struct {
		spec string
		want []string
		err  bool
	}{
		{"", []string{"root", "user"}, false},
		{"user", []string{"user"}, false},
		{" root , user", []string{"root", "user"}, false},
		{"usr", nil, true},
		{",", nil, true},
	} {
		got, err := selectIdentities(c.spec, root, user)
		var names []string
		for _, id := range got {
			names = append(names, id.name)
		}
		if (err != nil) != c.err || strings.Join(names, ",") != strings.Join(c.want, ",") {
			t.Errorf("%q: got %v, %v; want %v (error %v)", c.spec, names, err, c.want, c.err)
		}
	}
}
