package policy

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestRegoUnitTests runs the *_test.rego files of this package.
func TestRegoUnitTests(t *testing.T) {
	results, err := RunTests(context.Background(), BuiltinModules(true))
	if err != nil {
		t.Fatal(err)
	}
	if len(results) < 20 {
		t.Fatalf("only %d Rego tests ran", len(results))
	}
	for _, r := range results {
		if !r.Pass {
			t.Errorf("%s: %s", r.Name, r.Detail)
		}
	}
}

// TestCustomRulesLiveUnderCustom: an organisation rule cannot redefine a
// built-in package.
func TestCustomRulesLiveUnderCustom(t *testing.T) {
	_, err := New(map[string]string{"evil.rego": "package bwpolicy.rules\n\ndeny := set()\n"})
	if err == nil {
		t.Fatal("a custom module in package bwpolicy.rules was accepted")
	}
}

// TestCustomRuleDecisions: the contract of issue 4's example.
func TestCustomRuleDecisions(t *testing.T) {
	e, err := New(map[string]string{"limits.rego": `package bwpolicy.custom.limits

deny contains v if {
	input.settings.memory_mb > 4096
	v := {"msg": "memory_mb above the 4096 allowed here", "path": ["memory_mb"]}
}
`})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"settings": map[string]any{"memory_mb": 8192}, "profile": map[string]any{}, "facts": map[string]any{"binds": []any{}, "hidden": []any{}, "cwd": map[string]any{}}}
	vs, err := e.Evaluate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range vs {
		if v.Rule == "custom.limits" && v.Message == "memory_mb above the 4096 allowed here" && len(v.Path) == 1 && v.Path[0] == "memory_mb" {
			found = true
		}
	}
	if !found {
		t.Fatalf("custom deny not reported: %+v", vs)
	}
}

// RunTests compiles modules (file name → source; tests included) and runs
// every test_* rule, like `opa test`. A module that does not parse or
// compile is an error naming file:line.
func RunTests(ctx context.Context, modules map[string]string) ([]TestResult, error) {
	parsed := map[string]*ast.Module{}
	for _, n := range sortedKeys(modules) {
		m, err := ast.ParseModule(n, modules[n])
		if err != nil {
			return nil, err
		}
		parsed[n] = m
	}
	return runParsed(ctx, parsed, TestOptions{NoTrace: true}, nil)
}
