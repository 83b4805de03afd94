package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportedNamesDocumented: every exported name of the module's
// non-test, non-generated Go files has a doc comment, and a function's,
// method's or type's starts with its name (a type's may start "A Name",
// "An Name" or "The Name"), as go doc and the team's style want. A
// constant or variable may be documented by its group's comment, by its
// own, or by a comment at the end of its line.
func TestExportedNamesDocumented(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "node_modules", ".cache", "golden":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		rel, _ := filepath.Rel(root, p)
		for _, msg := range undocumented(f) {
			t.Errorf("%s: %s", rel, msg)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files: the walk is broken", files)
	}
}

// undocumented lists what f exports without the doc comment
// TestExportedNamesDocumented asks for.
func undocumented(f *ast.File) []string {
	var out []string
	startsWith := func(doc *ast.CommentGroup, name string, article bool) bool {
		if doc == nil {
			return false
		}
		text := doc.Text()
		if article {
			for _, a := range []string{"A ", "An ", "The "} {
				text = strings.TrimPrefix(text, a)
			}
		}
		return strings.HasPrefix(text, name+" ") || strings.HasPrefix(text, name+",") || strings.HasPrefix(text, name+"\n") || strings.HasPrefix(text, name+"'s ") || strings.HasPrefix(text, name+":")
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
				continue
			}
			if !startsWith(d.Doc, d.Name.Name, false) {
				out = append(out, "func "+d.Name.Name+": no doc comment starting with its name")
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					if !startsWith(doc, s.Name.Name, true) {
						out = append(out, "type "+s.Name.Name+": no doc comment starting with its name")
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if !n.IsExported() {
							continue
						}
						switch {
						case len(d.Specs) == 1 && d.Lparen == token.NoPos && !startsWith(d.Doc, n.Name, false) && s.Comment == nil:
							out = append(out, d.Tok.String()+" "+n.Name+": no doc comment starting with its name")
						case d.Doc == nil && s.Doc == nil && s.Comment == nil:
							out = append(out, d.Tok.String()+" "+n.Name+": no doc comment (its own, its group's or at the end of its line)")
						}
					}
				}
			}
		}
	}
	return out
}

// exportedRecv reports whether a method's receiver type is exported.
func exportedRecv(recv *ast.FieldList) bool {
	t := recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.Ident:
		return x.IsExported()
	case *ast.IndexExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.IsExported()
		}
	case *ast.IndexListExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return id.IsExported()
		}
	}
	return false
}
