package report

import (
	"regexp"
	"testing"

	"github.com/bwpolicy/bwpolicy/policy"
)

// TestEveryBuiltinRuleIsDescribed keeps the catalogue in step with the
// Rego rules: every rule ID a built-in rule can report has a description
// for SARIF.
func TestEveryBuiltinRuleIsDescribed(t *testing.T) {
	described := map[string]bool{}
	for _, ru := range BuiltinRules() {
		described[ru.ID] = true
	}
	ids := regexp.MustCompile(`(?:\bv\(|\bfloor\(|"rule":\s*)"([A-Za-z][A-Za-z0-9]*)"`)
	found := 0
	for name, src := range policy.BuiltinModules(false) {
		for _, m := range ids.FindAllStringSubmatch(src, -1) {
			found++
			if !described[m[1]] {
				t.Errorf("%s: rule %s has no description in report/rules.go", name, m[1])
			}
		}
	}
	if found == 0 {
		t.Fatal("found no rule IDs in the built-in rules; the pattern is out of date")
	}
}
