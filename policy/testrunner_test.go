package policy

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testtree"
)

const limitsRego = `package bwpolicy.custom.limits

deny contains v if {
	input.settings.memory_mb > 4096
	v := {"msg": "memory_mb above the 4096 allowed here", "path": ["memory_mb"]}
}
`

const limitsTestRego = `package bwpolicy.custom.limits_test

import data.bwpolicy.custom.limits

test_big_memory_denied if {
	count(limits.deny) == 1 with input as {"settings": {"memory_mb": 8192}}
}

test_small_memory_allowed if {
	count(limits.deny) == 0 with input as {"settings": {"memory_mb": 256}}
}

# Fails on purpose: the rule does not fire at 4096.
test_wrong_expectation if {
	print("memory is", 4096)
	count(limits.deny) == 1 with input as {"settings": {"memory_mb": 4096}}
}

todo_test_later if {
	false
}
`

func TestRunTestDirs(t *testing.T) {
	dir := testtree.Write(t, map[string]string{"limits.rego": limitsRego, "sub/limits_test.rego": limitsTestRego})
	res, err := RunTestDirs(context.Background(), []string{dir}, TestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name       string
		pass, skip bool
	}{
		{"data.bwpolicy.custom.limits_test.test_big_memory_denied", true, false},
		{"data.bwpolicy.custom.limits_test.test_small_memory_allowed", true, false},
		{"data.bwpolicy.custom.limits_test.test_wrong_expectation", false, false},
		{"data.bwpolicy.custom.limits_test.todo_test_later", false, true},
	}
	if len(res) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(res), len(want), res)
	}
	for i, w := range want {
		r := res[i]
		if r.Name != w.name || r.Pass != w.pass || r.Skip != w.skip {
			t.Errorf("result %d = %s pass=%v skip=%v, want %s pass=%v skip=%v", i, r.Name, r.Pass, r.Skip, w.name, w.pass, w.skip)
		}
		if r.File != filepath.Join(dir, "sub/limits_test.rego") || r.Line == 0 {
			t.Errorf("result %d at %s:%d", i, r.File, r.Line)
		}
	}
	if got := res[2].Output; !strings.Contains(got, "memory is 4096") {
		t.Errorf("print output of the failing test: %q", got)
	}
	// Only the tests of dirs run: the built-in rules are loaded, their
	// tests are not.
	for _, r := range res {
		if strings.HasPrefix(r.File, "policy/") {
			t.Errorf("built-in test %s ran", r.Name)
		}
	}

	only, err := RunTestDirs(context.Background(), []string{dir}, TestOptions{Run: "small"})
	if err != nil {
		t.Fatal(err)
	}
	if len(only) != 1 || !only[0].Pass {
		t.Errorf("--run small: %+v", only)
	}
}

// A test can query the whole decision, built-in rules included (from a
// package outside bwpolicy.custom: inside it, the test would be part of
// the decision it queries, a recursion).
func TestRunTestDirsSeesBuiltinRules(t *testing.T) {
	dir := testtree.Write(t, map[string]string{"limits.rego": limitsRego, "main_test.rego": `package org_test

test_custom_in_result if {
	r := data.bwpolicy.main.result with input as {"settings": {"memory_mb": 8192}, "profile": {}, "facts": {"binds": [], "hidden": [], "cwd": {}}}
	count(r.custom.limits.deny) == 1
}
`})
	res, err := RunTestDirs(context.Background(), []string{dir}, TestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !res[0].Pass {
		t.Fatalf("%+v", res)
	}
}

func TestRunTestDirsErrorsArePositioned(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string // file:line
	}{
		"parse error in a test":        {map[string]string{"limits.rego": limitsRego, "limits_test.rego": "package x_test\n\ntest_a if {\n\tv :=\n}\n"}, "limits_test.rego:5"},
		"rule outside bwpolicy.custom": {map[string]string{"evil.rego": "package bwpolicy.rules\n\ndeny := set()\n"}, "evil.rego:1"},
		"unsafe variable":              {map[string]string{"limits.rego": "package bwpolicy.custom.x\n\ndeny contains y if {\n\ttrue\n}\n"}, "limits.rego:3"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := testtree.Write(t, tc.files)
			_, err := RunTestDirs(context.Background(), []string{dir}, TestOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			ds := ErrorDiags(err)
			if len(ds) == 0 || ds[0].Pos.Line == 0 {
				t.Fatalf("error without a position: %v", ds)
			}
			got := filepath.Base(ds[0].Pos.File) + ":" + itoa(ds[0].Pos.Line)
			if got != tc.want {
				t.Errorf("error at %s, want %s (%v)", got, tc.want, ds)
			}
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestCustomRuleIDs: a custom decision's ID is its package, or the
// package and the object's "rule" name; it cannot claim a built-in ID.
func TestCustomRuleIDs(t *testing.T) {
	e, err := New(map[string]string{"org.rego": `package bwpolicy.custom.org

deny contains {"msg": "plain", "path": ["memory_mb"]} if true

deny contains {"msg": "named", "rule": "max-mem", "path": ["memory_mb"]} if true

warn contains {"msg": "spoof", "rule": "R3 spoof!", "path": []} if true
`})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"settings": map[string]any{}, "profile": map[string]any{}, "facts": map[string]any{"binds": []any{}, "hidden": []any{}, "cwd": map[string]any{}}}
	vs, err := e.Evaluate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range vs {
		if strings.HasPrefix(v.Rule, "custom") {
			got[v.Message] = v.Rule
		}
	}
	want := map[string]string{"plain": "custom.org", "named": "custom.org/max-mem", "spoof": "custom.org"}
	for msg, id := range want {
		if got[msg] != id {
			t.Errorf("%s: rule %q, want %q", msg, got[msg], id)
		}
	}
}

// TestLoadErrorsArePositioned: policy.Load's errors carry file:line for
// check to report.
func TestLoadErrorsArePositioned(t *testing.T) {
	dir := testtree.Write(t, map[string]string{"bad.rego": "package bwpolicy.custom.bad\n\ndeny contains v if { v := }\n"})
	_, err := Load([]string{dir})
	if ds := ErrorDiags(err); err == nil || ds[0].Pos.Line != 3 || ds[0].Pos.File != filepath.Join(dir, "bad.rego") {
		t.Fatalf("Load error %v, want one at bad.rego:3", err)
	}
	dir = testtree.Write(t, map[string]string{"evil.rego": "# comment\npackage bwpolicy.rules\n"})
	_, err = Load([]string{dir})
	if ds := ErrorDiags(err); err == nil || ds[0].Pos.Line != 2 {
		t.Fatalf("Load error %v, want one at line 2", err)
	}
}

// TestCustomFileCannotShadowBuiltin: an organisation's rule file whose
// path relative to its --policy directory equals a built-in module's
// name (policy/limits.rego) is a module of its own; it does not replace
// the built-in rules of that file (R12 here).
func TestCustomFileCannotShadowBuiltin(t *testing.T) {
	e, err := New(map[string]string{"policy/limits.rego": limitsRego})
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{"settings": map[string]any{"memory_mb": -1, "cpu_seconds": 30, "max_procs": 0},
		"profile": map[string]any{}, "facts": map[string]any{"binds": []any{}, "hidden": []any{}, "cwd": map[string]any{},
			"hard_as": 1 << 62, "hard_cpu": 1 << 62, "hard_nproc": 1 << 30, "nproc_userns": true}}
	vs, err := e.Evaluate(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Rule == "R12" {
			return
		}
	}
	t.Fatalf("R12 (built-in policy/limits.rego) no longer fires: %+v", vs)
}

// Load is LoadWith with the default bounds and no reach.
func Load(dirs []string) (*Engine, error) { return LoadWith(dirs, Options{}) }
