package policy

// This file tells whether an engine's decisions may be remembered:
// `bwpolicy check` of many settings files evaluates the built-in rules
// over inputs that are often equal, and evaluating them is the larger
// part of a check (compiler.Lint remembers them).

import (
	"slices"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Memoizable reports whether e's decisions are a function of its input
// alone, so that they may be remembered by input: e evaluates in this
// process, untraced, rules whose compiled modules call no builtin OPA
// marks nondeterministic (time.now_ns, rand.intn, http.send, opa.runtime
// …) and no function it does not know. An engine with organisation rules
// is when its built-in engine is and its children said theirs are
// (loaded): each evaluation of the same input then gives the same
// decisions, within the bounds (a crossing is an error, never
// remembered), and remembering one costs no child anything.
func (e *Engine) Memoizable() bool {
	if e != nil && e.remote != nil {
		return e.remote.pure && e.builtin.Memoizable()
	}
	if e == nil || e.traced || e.compiler == nil {
		return false
	}
	e.pureOnce.Do(func() { e.pure = deterministic(e.compiler.Modules) })
	return e.pure
}

// deterministic reports whether mods call no nondeterministic builtin
// and no function that is neither a builtin nor defined in data (what
// the modules define, walked with them), in an expression or nested in
// a term.
func deterministic(mods map[string]*ast.Module) bool {
	ok := len(mods) > 0
	check := func(op ast.Ref) {
		if op.HasPrefix(ast.DefaultRootRef) {
			return // a function of the modules
		}
		if b, known := ast.BuiltinMap[op.String()]; !known || b.Nondeterministic {
			ok = false
		}
	}
	for _, mod := range mods {
		ast.NewGenericVisitor(func(x any) bool {
			switch x := x.(type) {
			case *ast.Expr:
				if x.IsCall() {
					check(x.Operator())
				}
			case ast.Call:
				if len(x) == 0 {
					ok = false
				} else if r, isRef := x[0].Value.(ast.Ref); isRef {
					check(r)
				} else {
					ok = false
				}
			}
			return !ok
		}).Walk(mod)
	}
	return ok
}

// CloneViolations is a copy of vs that shares nothing changeable with it.
func CloneViolations(vs []Violation) []Violation {
	out := slices.Clone(vs)
	for i := range out {
		out[i].Path = slices.Clone(out[i].Path)
	}
	return out
}
