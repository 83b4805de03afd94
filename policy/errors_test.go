package policy

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/bwpolicy/bwpolicy/diag"
)

// TestErrorDiagsEvalTyped: an organisation rule that fails when
// evaluated is reported at its typed position (line and column), never
// by parsing the message; the same error in a built-in file is internal.
func TestErrorDiagsEvalTyped(t *testing.T) {
	eng, err := New(map[string]string{"org/bad.rego": "package bwpolicy.custom.bad\n\nx := 1 if true\n\nx := 2 if true\n\ndeny contains {\"msg\": \"m\"} if x == 1\n"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = eng.Evaluate(context.Background(), map[string]any{"settings": map[string]any{}, "profile": map[string]any{}, "facts": map[string]any{}})
	if err == nil {
		t.Fatal("no evaluation error")
	}
	ds := ErrorDiags(err)
	if len(ds) != 1 || ds[0].Rule != "policy" || ds[0].Pos.File != "org/bad.rego" || ds[0].Pos.Line == 0 || ds[0].Pos.Col == 0 {
		t.Fatalf("%+v", ds)
	}
	in := ErrorDiags(ast.Errors{ast.NewError(ast.TypeErr, &ast.Location{File: BuiltinPrefix + "policy/x.rego", Row: 3, Col: 1}, "boom")})
	if len(in) != 1 || in[0].Rule != "internal" || in[0].Pos != (diag.Pos{}) || in[0].Summary != "policy: policy/x.rego:3: rego_type_error: boom" {
		t.Fatalf("%+v", in)
	}
}
