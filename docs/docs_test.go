package docs

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testglob"
)

// root is the repository, from this package's directory.
const root = ".."

// owned are the pages these tests hold (docs/hermes.md and
// docs/hermes-parity.md belong to the Hermes plugin and are not held
// here; docs/rules.md is generated and held by report's TestRulesDoc).
var owned = []string{"README.md", "BENCHMARKS.md", "docs/architecture.md", "docs/cli.md",
	"docs/limits.md", "docs/protections.md", "docs/settings.md", "docs/ci.md"}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sectionOf returns the "## title" section of the page at rel, up to
// the next "## " heading.
func sectionOf(t *testing.T, rel, title string) string {
	t.Helper()
	page := read(t, rel)
	start := strings.Index(page, "\n## "+title+"\n")
	if start < 0 {
		t.Fatalf("%s has no %q section", rel, "## "+title)
	}
	section := page[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	return section
}

var (
	fenced = regexp.MustCompile("(?s)```.*?```")
	inline = regexp.MustCompile("`([^`\n]+)`")
)

// codeSpans returns the inline code spans of a Markdown page, outside
// fenced blocks.
func codeSpans(page string) []string {
	var out []string
	for _, m := range inline.FindAllStringSubmatch(fenced.ReplaceAllString(page, ""), -1) {
		out = append(out, m[1])
	}
	return out
}

// packages returns the directories of the module that hold Go files, as
// `go list ./...` lists them: hidden and underscore directories,
// testdata and nested modules left out.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(d.Name(), ".go") {
			dir := filepath.ToSlash(filepath.Dir(rel))
			pkgs[dir] = append(pkgs[dir], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 20 {
		t.Fatalf("found only %d packages under %s", len(pkgs), root)
	}
	return pkgs
}

// TestArchitectureNamesEveryPackage: the package table of
// docs/architecture.md names every package that exists, and each
// package it names exists.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	section := sectionOf(t, "docs/architecture.md", "Packages")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	named := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		if named[m[1]] {
			t.Errorf("package %s has two rows", m[1])
		}
		named[m[1]] = true
	}
	if len(named) == 0 {
		t.Fatal("the Packages section has no rows")
	}
	pkgs := packages(t)
	for p := range pkgs {
		if !named[p] {
			t.Errorf("package %s exists but docs/architecture.md does not name it", p)
		}
	}
	for p := range named {
		if pkgs[p] == nil {
			t.Errorf("docs/architecture.md names package %s, which does not exist", p)
		}
	}
}

// TestDocsNameRealPaths: every repository path a page names in code
// (`facts/registry.go`, `compiler/testdata/cases/H9_*.txtar`) exists,
// and every relative link leads to a file and, with a fragment, to one
// of its headings.
func TestDocsNameRealPaths(t *testing.T) {
	top, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var tops []string
	for _, e := range top {
		// Dot directories (.git, .cache) are this checkout's state, not
		// the repository's: a page's `.git/hooks` is git's layout.
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			tops = append(tops, e.Name()+"/")
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, f := range owned {
		page := read(t, f)
		for _, s := range codeSpans(page) {
			if strings.ContainsAny(s, " <>$~") || !slices.ContainsFunc(tops, func(d string) bool { return strings.HasPrefix(s, d) }) {
				continue
			}
			checked++
			// An assertion, not a list of inputs: no match is the error.
			if m, _ := fs.Glob(os.DirFS(root), strings.TrimSuffix(s, "/")); len(m) == 0 {
				t.Errorf("%s names %s, which does not exist", f, s)
			}
		}
		for _, m := range link.FindAllStringSubmatch(fenced.ReplaceAllString(page, ""), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			checked++
			file, frag, _ := strings.Cut(target, "#")
			dest := f
			if file != "" {
				dest = filepath.Join(filepath.Dir(f), file)
			}
			fi, err := os.Stat(filepath.Join(root, dest))
			if err != nil {
				t.Errorf("%s links to %s: %v", f, target, err)
				continue
			}
			if frag == "" || fi.IsDir() {
				continue
			}
			if !slices.Contains(anchors(read(t, dest)), frag) {
				t.Errorf("%s links to %s: %s has no heading with that anchor", f, target, dest)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d paths and links checked: the pages lost them, or the parsing broke", checked)
	}
}

// anchors returns the anchors GitHub gives a page's headings.
func anchors(page string) []string {
	var out []string
	drop := regexp.MustCompile(`[^\p{L}\p{N} _-]`)
	for _, line := range strings.Split(fenced.ReplaceAllString(page, ""), "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		h = drop.ReplaceAllString(strings.ToLower(h), "")
		out = append(out, strings.ReplaceAll(h, " ", "-"))
	}
	return out
}

// declared returns the top-level names declared in the Go files of
// each package directory (test files included: benchmarks and tests
// are named too), keyed by the directory's base name.
func declared(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	for dir, files := range packages(t) {
		base := filepath.Base(dir)
		if out[base] == nil {
			out[base] = map[string]bool{}
		}
		for _, file := range files {
			f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						out[base][d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							out[base][s.Name.Name] = true
						case *ast.ValueSpec:
							for _, n := range s.Names {
								out[base][n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return out
}

var (
	symbol   = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9]*)$`)
	testName = regexp.MustCompile(`^(Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*$`)
	scenario = regexp.MustCompile(`^[SHR][0-9]*_[A-Za-z0-9_]+$`)
)

// TestDocsNameRealSymbols: every `pkg.Name` a page names is declared in
// a package of that name, every test, fuzz target or benchmark it names
// is declared in a test file, and every sandbox scenario it names
// (`H9_startup_planted`) is one of sandboxtest's.
func TestDocsNameRealSymbols(t *testing.T) {
	decls := declared(t)
	tests := map[string]bool{}
	for _, names := range decls {
		for n := range names {
			if testName.MatchString(n) {
				tests[n] = true
			}
		}
	}
	sandbox := sandboxSources(t)
	checked := 0
	for _, f := range owned {
		for _, s := range codeSpans(read(t, f)) {
			switch {
			case symbol.MatchString(s):
				checked++
				m := symbol.FindStringSubmatch(s)
				if names, ok := decls[m[1]]; !ok {
					t.Errorf("%s names %s: there is no package %s", f, s, m[1])
				} else if !names[m[2]] {
					t.Errorf("%s names %s: package %s declares no %s", f, s, m[1], m[2])
				}
			case testName.MatchString(s):
				checked++
				if !tests[s] {
					t.Errorf("%s names test %s, which no test file declares", f, s)
				}
			case scenario.MatchString(s):
				checked++
				if !regexp.MustCompile(`\b` + s + `\b`).MatchString(sandbox) {
					t.Errorf("%s names sandbox scenario %s, which sandboxtest does not have", f, s)
				}
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d symbols, tests and scenarios checked", checked)
	}
}

// sandboxSources returns the text of sandboxtest's Go files.
func sandboxSources(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, f := range testglob.Files(t, filepath.Join(root, "sandboxtest", "*.go")) {
		c, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(c)
	}
	return b.String()
}

// TestProtectionsCoverEveryRule: docs/protections.md has one section
// for each S and H rule ID of the catalogue (docs/rules.md, generated
// from the rules), in the catalogue's order, and each section names the
// tests that prove it, every named sandbox scenario among sandboxtest's.
func TestProtectionsCoverEveryRule(t *testing.T) {
	heading := regexp.MustCompile(`(?m)^#{2,3} ([SH][0-9]+)$`)
	var want []string
	for _, m := range heading.FindAllStringSubmatch(read(t, "docs/rules.md"), -1) {
		want = append(want, m[1])
	}
	if len(want) < 21 {
		t.Fatalf("docs/rules.md lists only %d S and H IDs: %v", len(want), want)
	}
	page := read(t, "docs/protections.md")
	idx := heading.FindAllStringSubmatchIndex(page, -1)
	var got []string
	for _, m := range idx {
		got = append(got, page[m[2]:m[3]])
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/protections.md's sections are %v, the catalogue's S and H IDs %v", got, want)
	}
	sandbox := sandboxSources(t)
	for i, m := range idx {
		end := len(page)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		} else if j := strings.Index(page[m[1]:], "\n## "); j >= 0 {
			end = m[1] + j
		}
		section := page[m[0]:end]
		id := page[m[2]:m[3]]
		_, tests, ok := strings.Cut(section, "\nTests: ")
		if !ok {
			t.Errorf("%s: no \"Tests:\" paragraph", id)
			continue
		}
		tests, _, _ = strings.Cut(tests, "\n\n")
		if len(codeSpans(tests)) == 0 {
			t.Errorf("%s: the Tests paragraph names no test", id)
		}
		for _, part := range strings.Split(tests, ";") {
			part = strings.TrimSpace(part)
			if !strings.HasPrefix(part, "sandbox ") {
				continue
			}
			for _, s := range codeSpans(part) {
				if !regexp.MustCompile(`"` + regexp.QuoteMeta(s) + `"`).MatchString(sandbox) {
					t.Errorf("%s names sandbox scenario %s, which sandboxtest does not have", id, s)
				}
			}
		}
	}
}

// TestSettingsDocNamesEveryKey: docs/settings.md's table has one row
// for each key of schema/settings.schema.json, nested keys dotted and
// list items' keys as `binds[].src`, and no other.
func TestSettingsDocNamesEveryKey(t *testing.T) {
	want := schemaKeys(t)
	if len(want) < 20 {
		t.Fatalf("the schema has only %d keys: %v", len(want), want)
	}
	section := sectionOf(t, "docs/settings.md", "Every key")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	var got []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		got = append(got, m[1])
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("docs/settings.md's keys:\n  %v\nthe schema's:\n  %v", got, want)
	}
}

// schemaKeys returns the keys of schema/settings.schema.json: nested
// objects' keys dotted (env.allow), list items' as binds[].src.
func schemaKeys(t *testing.T) []string {
	t.Helper()
	var doc struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(read(t, "schema/settings.schema.json")), &doc); err != nil {
		t.Fatal(err)
	}
	type node struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Items      *struct {
			Ref        string                     `json:"$ref"`
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"items"`
	}
	var keys []string
	var walk func(prefix string, props map[string]json.RawMessage)
	walk = func(prefix string, props map[string]json.RawMessage) {
		for k, raw := range props {
			keys = append(keys, prefix+k)
			var n node
			if err := json.Unmarshal(raw, &n); err != nil {
				t.Fatal(err)
			}
			walk(prefix+k+".", n.Properties)
			if n.Items == nil {
				continue
			}
			items := n.Items.Properties
			if ref, ok := strings.CutPrefix(n.Items.Ref, "#/$defs/"); ok {
				var d node
				if err := json.Unmarshal(doc.Defs[ref], &d); err != nil {
					t.Fatal(err)
				}
				items = d.Properties
			}
			walk(prefix+k+"[].", items)
		}
	}
	walk("", doc.Properties)
	return keys
}

// TestREADMEIsShort: the README stays an entry point; the reference is
// under docs/.
func TestREADMEIsShort(t *testing.T) {
	if n := strings.Count(read(t, "README.md"), "\n"); n > 400 {
		t.Errorf("README.md has %d lines, more than 400: move the detail to a page under docs/", n)
	}
}
