package paritydoc

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testglob"
)

// root is the repository root, from this package's directory.
const root = "../.."

// ref is one backquoted reference in the bwpolicy-test column.
var ref = regexp.MustCompile("`(sandbox|golden|go|pytest):([^`]+)`")

// TestParityRowsNameExistingTests: each table row of
// docs/hermes-parity.md names at least one bwpolicy test, and each named
// test exists. The table must have rows (a page that lost its table fails).
func TestParityRowsNameExistingTests(t *testing.T) {
	f, err := os.Open(filepath.Join(root, "docs", "hermes-parity.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scenarios := read(t, "sandboxtest/sandbox_test.go")
	rows := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		cells := strings.Split(line, "|")
		// | # | Hermes test | asserts | verdict | bwpolicy test |
		if len(cells) != 7 || !regexp.MustCompile(`^ [A-Z]\d+ $`).MatchString(cells[1]) {
			continue
		}
		rows++
		refs := ref.FindAllStringSubmatch(cells[5], -1)
		if len(refs) == 0 {
			t.Errorf("row %s names no bwpolicy test: %q", strings.TrimSpace(cells[1]), cells[5])
		}
		for _, r := range refs {
			if why := missing(t, r[1], r[2], scenarios); why != "" {
				t.Errorf("row %s: %s:%s %s", strings.TrimSpace(cells[1]), r[1], r[2], why)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows < 50 {
		t.Fatalf("docs/hermes-parity.md has %d rows: the table is gone or unparsed", rows)
	}
}

// missing says why the test kind:name does not exist ("" when it does).
func missing(t *testing.T, kind, name, scenarios string) string {
	switch kind {
	case "sandbox":
		if !strings.Contains(scenarios, `{"`+name+`",`) {
			return "is no scenario of sandboxtest/sandbox_test.go"
		}
	case "golden":
		if _, err := os.Stat(filepath.Join(root, "compiler", "testdata", "cases", name+".txtar")); err != nil {
			return "is no compiler case"
		}
	case "go":
		pkg, fn, ok := strings.Cut(name, ".")
		if !ok {
			return "is not PKG.TestName"
		}
		for _, file := range testglob.Files(t, filepath.Join(root, pkg, "*_test.go")) {
			if strings.Contains(read(t, strings.TrimPrefix(file, root+"/")), "func "+fn+"(") {
				return ""
			}
		}
		return "is no test function of " + pkg
	case "pytest":
		file, fn, ok := strings.Cut(name, "::")
		if !ok {
			return "is not FILE::test_name"
		}
		if !strings.Contains(read(t, "integrations/hermes/tests/"+file), "def "+fn+"(") {
			return "is no plugin test"
		}
	}
	return ""
}

func read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
