package secrets

import (
	"strings"
	"testing"
)

// TestRules: each row of Rules finds its own examples (Hits) and no rule
// finds its Misses; a row without an example fails, so a rule added
// without a test does too. The kind printed never holds the value.
func TestRules(t *testing.T) {
	seen := map[Rule]bool{}
	for _, row := range Rules {
		if seen[row.Rule] {
			t.Errorf("rule %d (%s) has two rows", row.Rule, row.What)
		}
		seen[row.Rule] = true
		if row.Rule == RuleUnexamined {
			continue // TestScanBounds
		}
		t.Run(row.What, func(t *testing.T) { testRuleRow(t, row) })
	}
	for r := RuleNone + 1; r <= RuleUnexamined; r++ {
		if !seen[r] {
			t.Errorf("rule %d has no row", r)
		}
	}
}

// testRuleRow is one row's test: its hits found by it, its misses by no
// rule.
func testRuleRow(t *testing.T, row RuleRow) {
	if len(row.Hits) == 0 || len(row.Misses) == 0 {
		t.Errorf("%s: a row needs hits and misses", row.What)
	}
	for _, hit := range row.Hits {
		var rules []string
		ok := false
		for _, line := range strings.Split(hit, "\n") {
			fs := FindAll(line)
			if strings.Contains(hit, "\\\n") || strings.Contains(hit, "<<") {
				fs = Scan(hit) // a line continued, a here-document: the text's logical line
			}
			for _, f := range fs {
				rules = append(rules, f.Rule.String())
				ok = ok || f.Rule == row.Rule
				if f.What == "" || len(line) > 12 && strings.Contains(f.What, line) {
					t.Errorf("%q: finding %+v names no kind or holds the line", line, f)
				}
			}
		}
		if !ok {
			t.Errorf("%s: %q not found by its rule (found: %q)", row.What, hit, rules)
		}
	}
	for _, miss := range row.Misses {
		if fs := FindAll(miss); len(fs) > 0 {
			t.Errorf("%s: %q is no secret, found %+v", row.What, miss, fs)
		}
	}
}
