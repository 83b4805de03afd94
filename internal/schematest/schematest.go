// Package schematest compiles the JSON Schemas tests validate against:
// the published invocation and policy-input schemas and the vendored
// SARIF schema.
package schematest

import (
	"bytes"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SARIFFile is the vendored SARIF 2.1.0 schema, relative to the module
// root (report/testdata/README.md says where it comes from), and SARIFID
// its $id.
const (
	SARIFFile = "report/testdata/sarif-2.1.0-rtm.5.json"
	SARIFID   = "https://raw.githubusercontent.com/schemastore/schemastore/master/src/schemas/json/sarif-2.1.0-rtm.5.json"
)

// CompileFile compiles the schema in file (a path relative to the test's
// package directory) under id, asserting formats and content. Any failure
// ends the test.
func CompileFile(t testing.TB, file, id string) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return Compile(t, data, id)
}

// Compile compiles the schema data under id, asserting formats and
// content. Any failure ends the test.
func Compile(t testing.TB, data []byte, id string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.AssertContent()
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}
