package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testtree"
	"github.com/open-policy-agent/opa/v1/ast"
)

// TestTypeCheckFindsWhatNeverFires: rules that compile but refer to a
// field the input never has, or compare values of types that never
// match, are errors at their line.
func TestTypeCheckFindsWhatNeverFires(t *testing.T) {
	for name, tc := range map[string]struct {
		body, want string
	}{
		"misspelt settings key": {"input.settings.memroy_mb > 4096", `undefined ref: input.settings.memroy_mb`},
		"misspelt facts key":    {`input.facts.binds[_].src_knd == "dir"`, `undefined ref: input.facts.binds[_].src_knd`},
		"unknown top level":     {`input.setings.profile == "network"`, `undefined ref: input.setings`},
		"number vs string":      {`input.settings.memory_mb == "big"`, `match error`},
	} {
		t.Run(name, func(t *testing.T) {
			src := "package bwpolicy.custom.x\n\ndeny contains v if {\n\t" + tc.body + "\n\tv := {\"msg\": \"m\", \"path\": []}\n}\n"
			err := TypeCheck(map[string]string{"org/x.rego": src})
			var errs ast.Errors
			if !errors.As(err, &errs) || len(errs) == 0 {
				t.Fatalf("TypeCheck = %v, want a type error", err)
			}
			if errs[0].Location == nil || errs[0].Location.File != "org/x.rego" || errs[0].Location.Row != 4 {
				t.Errorf("error at %v, want org/x.rego:4", errs[0].Location)
			}
			if !strings.Contains(errs[0].Message, tc.want) {
				t.Errorf("message %q lacks %q", errs[0].Message, tc.want)
			}
			// Load refuses it too.
			dir := testtree.Write(t, map[string]string{"x.rego": src})
			if _, err := Load([]string{dir}); err == nil {
				t.Error("Load accepted the rule")
			}
		})
	}
}

// TestTypeCheckAcceptsRealRules: the ways organisation rules read the
// input type-check.
func TestTypeCheckAcceptsRealRules(t *testing.T) {
	src := limitsRego + `
deny contains {"msg": "writable bind", "path": ["binds", i, "readonly"]} if {
	some i, b in input.settings.binds
	b.readonly == false
}

warn contains {"msg": "no userns", "path": []} if {
	not input.facts.bwrap.options["--disable-userns"]
}

warn contains {"msg": "ssh", "path": [], "in": "profile"} if {
	input.profile.hidden_home[".ssh"] != true
}

deny contains {"msg": "network", "path": ["profile"]} if {
	input.profile.network == "host"
	some h in input.facts.hidden
	h.kind == "dir"
	object.get(input.settings, "cwd", "") != ""
	input.facts.cwd.real == input.facts.home
}
`
	if err := TypeCheck(map[string]string{"org/limits.rego": src}); err != nil {
		t.Fatalf("TypeCheck: %v", err)
	}
}

// TestBuiltinRulesMatchInputSchema: the built-in rules read only what
// schema/policy-input.schema.json publishes (a field they start to read
// must be published too), and pass every stage of OPA's compiler,
// including the checks Builtin's preparation skips.
func TestBuiltinRulesMatchInputSchema(t *testing.T) {
	ss, err := inputSchemaSet()
	if err != nil {
		t.Fatal(err)
	}
	mods := map[string]*ast.Module{}
	for n, src := range BuiltinModules(false) {
		mods[n] = ast.MustParseModule(src)
	}
	c := ast.NewCompiler().WithSchemas(ss)
	c.Compile(mods)
	for _, e := range c.Errors {
		t.Errorf("built-in rule vs schema/policy-input.schema.json: %v", e)
	}
}
