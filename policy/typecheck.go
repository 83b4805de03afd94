package policy

import (
	"encoding/json"
	"sort"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/bwpolicy/bwpolicy/schema"
)

var (
	inputSchemaOnce sync.Once
	inputSchema     *ast.SchemaSet
	inputSchemaErr  error
)

// inputSchemaSet returns schema/policy-input.schema.json as the schema
// of `input`, for OPA's type checker.
func inputSchemaSet() (*ast.SchemaSet, error) {
	inputSchemaOnce.Do(func() {
		var doc any
		if inputSchemaErr = json.Unmarshal(schema.PolicyInputJSON, &doc); inputSchemaErr != nil {
			return
		}
		inputSchema = ast.NewSchemaSet()
		inputSchema.Put(ast.SchemaRootRef, doc)
	})
	return inputSchema, inputSchemaErr
}

// TypeCheck compiles the organisation rules extra (file name → source)
// with the built-in ones, with `input` typed by the published input
// schema, and returns the errors found in extra: a reference to a field
// the input never has (input.settings.memroy_mb), or a comparison that
// can never hold (a number compared with a string). Such a rule would
// compile but silently never fire. Errors in the built-in rules are not
// its business (a test keeps them clean). nil when extra is clean.
func TypeCheck(extra map[string]string) error {
	ss, err := inputSchemaSet()
	if err != nil {
		return err
	}
	mods := map[string]*ast.Module{}
	for n, src := range builtinModulesForEval() {
		m, err := ast.ParseModule(n, src)
		if err != nil {
			return err
		}
		mods[n] = m
	}
	for n, src := range extra {
		m, err := ast.ParseModule(n, src)
		if err != nil {
			return err
		}
		if m != nil {
			mods[n] = m
		}
	}
	c := ast.NewCompiler().WithSchemas(ss)
	c.Compile(mods)
	var out ast.Errors
	for _, e := range c.Errors {
		if e.Location == nil {
			continue
		}
		if _, custom := extra[e.Location.File]; custom {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Location, out[j].Location
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Row < b.Row
	})
	return out
}
