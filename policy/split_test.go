package policy

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// splitRules are organisation rules an engine with remote children
// evaluates: the CI example's, one that reads the built-in decisions,
// and a nondeterministic one.
var splitRules = map[string]string{
	"limits.rego": `package bwpolicy.custom.limits

deny contains v if {
	input.settings.memory_mb > 4096
	v := {"msg": "memory_mb above the 4096 allowed here", "path": ["memory_mb"]}
}

warn contains v if {
	input.settings.memory_mb == 0
	v := {"msg": "memory_mb: 0 disables the memory limit", "path": ["memory_mb"], "rule": "no-memory-limit"}
}
`,
	"echo.rego": `package bwpolicy.custom.echo

import data.bwpolicy.rules

warn contains v if {
	some d in rules.warn
	v := {"msg": sprintf("also %s", [d.rule]), "path": []}
}
`,
}

// splitInputs are policy inputs that make built-in and custom decisions.
var splitInputs = []map[string]any{
	{"settings": map[string]any{"memory_mb": 8192}, "profile": map[string]any{}, "facts": map[string]any{"binds": []any{}, "hidden": []any{}, "cwd": map[string]any{}}, "known": map[string]any{}},
	{"settings": map[string]any{"memory_mb": 0, "binds": []any{map[string]any{"src": "relative/path"}}}, "profile": map[string]any{}, "facts": map[string]any{"binds": []any{}, "hidden": []any{}, "cwd": map[string]any{}}, "known": map[string]any{}},
	evalInput,
}

// TestBuiltinDecisionsSplit: an engine with organisation rules evaluates
// the built-in decisions in process and the organisation's in a child,
// and reports what one query over both (New) reports, for each input:
// no built-in rule reads data.bwpolicy.custom (or data.bwpolicy.main,
// or a document that holds them), so the built-in decisions cannot
// depend on custom rules, and a custom rule may still read the built-in
// ones. Its decisions are remembered (Memoizable) only while the
// organisation rules are deterministic.
func TestBuiltinDecisionsSplit(t *testing.T) {
	custom := ast.MustParseRef("data.bwpolicy.custom")
	main := ast.MustParseRef("data.bwpolicy.main")
	for name, src := range BuiltinModules(false) {
		if name == "policy/main.rego" {
			continue
		}
		ast.WalkRefs(ast.MustParseModule(src), func(r ast.Ref) bool {
			if !r.HasPrefix(ast.DefaultRootRef) {
				return false
			}
			ground := r.ConstantPrefix()
			if ground.HasPrefix(custom) || ground.HasPrefix(main) || custom.HasPrefix(ground) {
				t.Errorf("%s: built-in rule reads %v", name, r)
			}
			return false
		})
	}

	dir := t.TempDir()
	for n, src := range splitRules {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	extra, err := ReadDirs([]string{dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := New(extra)
	if err != nil {
		t.Fatal(err)
	}
	split, err := LoadWith([]string{dir}, Options{Limits: bounded.Limits{}})
	if err != nil {
		t.Fatal(err)
	}
	defer split.Close()
	if !split.Memoizable() {
		t.Error("deterministic organisation rules: not Memoizable")
	}
	customSeen := 0
	for i, in := range splitInputs {
		want, err := whole.Evaluate(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := split.Evaluate(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("input %d: split %+v\nwant (one query) %+v", i, got, want)
		}
		for _, v := range got {
			if len(v.Rule) > 7 && v.Rule[:7] == "custom." {
				customSeen++
			}
		}
	}
	if customSeen < 3 {
		t.Errorf("%d custom decisions over the inputs, want the deny, the warn and an echo at least", customSeen)
	}

	if err := os.WriteFile(filepath.Join(dir, "clock.rego"), []byte("package bwpolicy.custom.clock\n\nwarn contains {\"msg\": \"odd\", \"path\": []} if time.now_ns() % 2 == 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	clock, err := LoadWith([]string{dir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer clock.Close()
	if clock.Memoizable() {
		t.Error("organisation rules calling time.now_ns: Memoizable")
	}
}
