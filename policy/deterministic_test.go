package policy

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestMemoizable: the built-in engine's decisions may be remembered; a
// module that calls a nondeterministic builtin (the time, a random
// number, the network, the runtime's environment), directly or nested
// in a term, is not deterministic; an engine with deterministic custom
// rules is memoizable, one whose children did not say theirs are
// deterministic (a remote engine, see TestBuiltinDecisionsSplit) is not.
// The control: the same module without the call is deterministic.
func TestMemoizable(t *testing.T) {
	b, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if !b.Memoizable() {
		t.Errorf("the built-in engine is not memoizable")
	}
	rule := func(call string) map[string]*ast.Module {
		c, err := ast.CompileModules(map[string]string{"x.rego": "package x\n\nf(a) := a\n\ndeny contains v if {\n\tn := " + call + "\n\tn == n\n\tv := {\"msg\": \"x\"}\n}\n"})
		if err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		return c.Modules
	}
	for _, call := range []string{"time.now_ns()", "rand.intn(\"x\", 10)", "http.send({\"method\": \"get\", \"url\": \"http://127.0.0.1:9\"})",
		"opa.runtime()", "uuid.rfc4122(\"x\")", "count([1, time.now_ns()])", "f(time.now_ns())"} {
		if deterministic(rule(call)) {
			t.Errorf("a rule calling %s is deterministic", call)
		}
	}
	for _, call := range []string{"count([1, 2])", "sprintf(\"%d\", [1])", "f(1)"} {
		if !deterministic(rule(call)) {
			t.Errorf("a rule calling %s is not deterministic", call)
		}
	}
	custom, err := New(map[string]string{"policy/x.rego": "package bwpolicy.custom.x\n\ndeny contains v if {\n\tinput.settings.memory_mb > 1\n\tv := {\"msg\": \"x\"}\n}\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !custom.Memoizable() {
		t.Errorf("an engine with deterministic custom rules is not memoizable")
	}
	if (&Engine{remote: &pool{}}).Memoizable() || (*Engine)(nil).Memoizable() {
		t.Errorf("a remote engine whose children said nothing, or none, is memoizable")
	}
}
