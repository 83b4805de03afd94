package policy

import (
	"strings"
	"testing"
)

// TestBuiltinRuleDocs: the built-in annotations are read whole (R1's
// title, level and security flag), each ID once.
func TestBuiltinRuleDocs(t *testing.T) {
	docs, err := BuiltinRuleDocs()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]RuleDoc{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	r1 := byID["R1"]
	if r1.Title != "A bind source at or under a hidden path is dropped." || r1.Name != "BindUnderHiddenPath" || r1.Level != "warning" || !r1.Security || r1.File != "policy/binds.rego" {
		t.Errorf("R1: %+v", r1)
	}
	if len(docs) < 15 {
		t.Errorf("only %d annotated rule IDs", len(docs))
	}
}

// TestModuleDoc: an organisation rule file is described by its package
// annotation, else by its first annotated deny or warn rule.
func TestModuleDoc(t *testing.T) {
	src := "package bwpolicy.custom.limits\n\n# METADATA\n# title: Memory cap\n# description: Keep memory_mb small.\n# custom:\n#   severity: warning\nwarn contains {\"msg\": \"x\"} if input.settings.memory_mb > 1\n"
	pkg, d, err := ModuleDoc("limits.rego", src)
	if err != nil || pkg != "bwpolicy.custom.limits" || d == nil || d.Title != "Memory cap" || d.Description != "Keep memory_mb small." || d.Level != "warning" {
		t.Fatalf("%q %+v %v", pkg, d, err)
	}
	_, d, err = ModuleDoc("bare.rego", "package bwpolicy.custom.bare\n\nwarn contains {\"msg\": \"x\"} if true\n")
	if err != nil || d != nil {
		t.Fatalf("%+v %v", d, err)
	}
}

// TestRuleDocsRefusesBadAnnotations: an ID annotated twice, an
// annotation missing its level, or one on a helper rule is an error,
// naming the file and line.
func TestRuleDocsRefusesBadAnnotations(t *testing.T) {
	ann := func(id, level string) string {
		return "# METADATA\n# title: T\n# description: D\n# custom:\n#   id: " + id + "\n#   name: N\n#   level: " + level + "\n"
	}
	for name, src := range map[string]string{
		"twice":  "package p\n\n" + ann("X1", "error") + "deny contains 1 if true\n\n" + ann("X1", "error") + "warn contains 2 if true\n",
		"level":  "package p\n\n" + ann("X1", "fatal") + "deny contains 1 if true\n",
		"helper": "package p\n\n" + ann("X1", "error") + "helper := 1\n",
	} {
		if _, err := ruleDocs(map[string]string{"x.rego": src}); err == nil || !strings.Contains(err.Error(), "x.rego:") {
			t.Errorf("%s: %v", name, err)
		}
	}
	docs, err := ruleDocs(map[string]string{"x.rego": "package p\n\n" + ann("X1", "warning") + "warn contains 1 if true\n"})
	if err != nil || len(docs) != 1 || docs[0].Level != "warning" || docs[0].Row != 3 {
		t.Fatalf("%+v %v", docs, err)
	}
}
