package compiler

import (
	"bytes"
	"context"
	"testing"

	"github.com/bwpolicy/bwpolicy/policy"
)

// TestBuiltinEngineAgreesWithFullCompile: the built-in engine, prepared
// without OPA's check-only stages (policy.Builtin), decides every golden
// case exactly as an engine whose preparation runs every stage (one
// with a custom rule file that decides nothing).
func TestBuiltinEngineAgreesWithFullCompile(t *testing.T) {
	full, err := policy.New(map[string]string{"policy/noop.rego": "package bwpolicy.custom.noop\n\ndeny contains v if {\n\tinput.settings.memory_mb < 0\n\tv := {\"msg\": \"never\"}\n}\n"})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range caseFiles(t) {
		a, b := loadCase(t, file), loadCase(t, file)
		b.req.Policy = full
		ra, rb := Compile(context.Background(), a.req), Compile(context.Background(), b.req)
		if da, db := renderDiags(ra.Diags), renderDiags(rb.Diags); !bytes.Equal(da, db) {
			t.Errorf("%s: the built-in engine says\n%s\nthe fully compiled one\n%s", a.name, da, db)
		}
	}
}
