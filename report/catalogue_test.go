package report

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testglob"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/policy"
)

// regoRuleID finds the rule IDs the built-in Rego rules report.
var regoRuleID = regexp.MustCompile(`(?:\bv\(|\bfloor\(|\bhost_warn\(|"rule":\s*)"([A-Za-z][A-Za-z0-9]*)"`)

// regoIDs returns the rule IDs the built-in Rego rules report, by file.
func regoIDs(t *testing.T) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for name, src := range policy.BuiltinModules(false) {
		for _, m := range regoRuleID.FindAllStringSubmatch(src, -1) {
			ids[m[1]] = name
		}
	}
	if len(ids) < 10 {
		t.Fatalf("found %d rule IDs in the built-in rules; the pattern is out of date", len(ids))
	}
	return ids
}

// TestEveryBuiltinRuleIsDescribed keeps the catalogue in step with the
// Rego rules: every rule ID a built-in rule can report has a description
// for SARIF.
func TestEveryBuiltinRuleIsDescribed(t *testing.T) {
	described := map[string]bool{}
	for _, ru := range BuiltinRules() {
		described[ru.ID] = true
	}
	for id, name := range regoIDs(t) {
		if !described[id] {
			t.Errorf("%s: rule %s has no METADATA annotation (custom.id: %s)", name, id, id)
		}
	}
}

// TestCatalogueSources holds the catalogue's split: an ID a built-in
// Rego rule reports is described by that rule's annotation, never by a
// Go row (which could drift from the rule); every ID is described once.
func TestCatalogueSources(t *testing.T) {
	docs, err := policy.BuiltinRuleDocs()
	if err != nil {
		t.Fatal(err)
	}
	annotated := map[string]bool{}
	for _, d := range docs {
		annotated[d.ID] = true
	}
	inRego := regoIDs(t)
	for _, ru := range goRules {
		if annotated[ru.ID] {
			t.Errorf("%s is described both by a Go row and by a METADATA annotation", ru.ID)
		}
		if f, ok := inRego[ru.ID]; ok {
			t.Errorf("%s is reported by %s: describe it there (# METADATA with custom.id), not in goRules", ru.ID, f)
		}
	}
	seen := map[string]bool{}
	for _, ru := range BuiltinRules() {
		if seen[ru.ID] {
			t.Errorf("%s is in the catalogue twice", ru.ID)
		}
		seen[ru.ID] = true
		if ru.Name == "" || ru.Short == "" || ru.Help == "" {
			t.Errorf("%s: name, short description and help are all needed: %+v", ru.ID, ru)
		}
	}
}

// goRuleID finds rule IDs written in Go: diagnostics' Rule fields.
var goRuleID = regexp.MustCompile(`\bRule:\s*"([A-Za-z][A-Za-z0-9.-]*)"`)

// TestEveryReportedIDIsInTheCatalogue: every rule ID a diagnostic can
// carry — written in Go, reported by a Rego rule, a
// protection's rule in the facts registry, or seen in a golden output —
// has a catalogue entry (organisation rules, custom.*, excepted).
func TestEveryReportedIDIsInTheCatalogue(t *testing.T) {
	described := map[string]bool{}
	for _, ru := range BuiltinRules() {
		described[ru.ID] = true
	}
	want := map[string]string{}
	for id, f := range regoIDs(t) {
		want[id] = f
	}
	for _, row := range facts.Protections {
		want[string(row.Rule)] = "facts registry"
	}
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".cache" || strings.HasPrefix(d.Name(), ".") && p != "..") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range goRuleID.FindAllStringSubmatch(string(b), -1) {
			want[m[1]] = p
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	golden := testglob.Files(t, "../golden/*.diags.txt")
	tag := regexp.MustCompile(`\[([A-Za-z][A-Za-z0-9.-]*)\]$`)
	for _, g := range golden {
		b, _ := os.ReadFile(g)
		for _, l := range strings.Split(string(b), "\n") {
			if m := tag.FindStringSubmatch(l); m != nil {
				want[m[1]] = g
			}
		}
	}
	n := 0
	for id, where := range want {
		if strings.HasPrefix(id, "custom.") || id == "custom" {
			continue
		}
		n++
		if !described[id] {
			t.Errorf("rule ID %q (%s) is not in the catalogue (report/rules.go or a Rego METADATA annotation)", id, where)
		}
	}
	if n < 30 {
		t.Fatalf("found only %d rule IDs; the patterns are out of date", n)
	}
}
