package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// ErrorDiags turns an error of LoadWith, Evaluate or the test runner into
// diagnostics with rule ID "policy", one per Rego error, each at the
// position OPA gives it (typed, never parsed back from the message). A
// position in a built-in rule file (BuiltinPrefix) makes it an
// "internal" error: bwpolicy's own rules failed, not the organisation's.
func ErrorDiags(err error) diag.List {
	var astErrs ast.Errors
	var astErr *ast.Error
	var evalErr *topdown.Error
	var pe *fs.PathError
	var de *diagsError
	var ex *bounded.Exceeded
	switch {
	case errors.As(err, &de):
		return de.diags
	case errors.As(err, &ex):
		return diag.List{exceededDiag(ex)}
	case errors.As(err, &astErrs):
		var out diag.List
		for _, e := range astErrs {
			out = append(out, astErrorDiag(e))
		}
		out.Sort()
		return out
	case errors.As(err, &astErr):
		return diag.List{astErrorDiag(astErr)}
	case errors.As(err, &evalErr):
		return diag.List{located(diag.Diagnostic{Severity: diag.Error, Rule: "policy", Summary: evalErr.Code + ": " + evalErr.Message}, evalErr.Location)}
	case errors.As(err, &pe):
		return diag.List{{Severity: diag.Error, Rule: "policy", Pos: diag.Pos{File: pe.Path},
			Summary: "cannot read organisation rules: " + pe.Err.Error()}}
	}
	return diag.List{{Severity: diag.Error, Rule: "policy", Summary: err.Error()}}
}

// exceededDiag is a crossed bound, at the organisation rule (or test)
// the evaluation was in when the child could say, else at the rules'
// directory.
func exceededDiag(ex *bounded.Exceeded) diag.Diagnostic {
	d := diag.Diagnostic{Severity: diag.Error, Rule: "policy", Pos: diag.Pos{File: ex.Where.File, Line: ex.Where.Line, Col: ex.Where.Col}}
	in := "the organisation rules"
	if ex.Where.Name != "" {
		in = "rule " + strings.TrimPrefix(ex.Where.Name, "data.")
	}
	switch ex.Bound {
	case bounded.Time:
		d.Summary = fmt.Sprintf("%s did not finish within the time bound (%s); --eval-timeout sets it", in, ex.Limit)
	case bounded.Memory:
		d.Summary = fmt.Sprintf("%s used more than the memory bound (%s); --eval-memory sets it", in, ex.Limit)
	default:
		d.Summary = fmt.Sprintf("evaluating %s failed: %s", in, ex.Detail)
	}
	d.Detail = "organisation rules are evaluated in a separate process with a time and a memory bound, so that no rule can hang or exhaust the machine; nothing was decided"
	return d
}

// astErrorDiag is one parse, compile or type error.
func astErrorDiag(e *ast.Error) diag.Diagnostic {
	d := diag.Diagnostic{Severity: diag.Error, Rule: "policy", Summary: e.Code + ": " + e.Message}
	if e.Details != nil {
		// A type error's "want (one of): [...]": the fields the input
		// has there.
		for _, l := range e.Details.Lines() {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "want (one of):") {
				d.Summary += " (" + l + ")"
			}
		}
	}
	return located(d, e.Location)
}

// located places d at loc; a built-in rule's location makes d internal.
func located(d diag.Diagnostic, loc *ast.Location) diag.Diagnostic {
	if loc == nil {
		return d
	}
	if name, builtin := strings.CutPrefix(loc.File, BuiltinPrefix); builtin {
		d.Rule = "internal"
		d.Summary = fmt.Sprintf("policy: %s:%d: %s", name, loc.Row, d.Summary)
		return d
	}
	d.Pos = diag.Pos{File: loc.File, Line: loc.Row, Col: loc.Col}
	return d
}
