// Package schematest compiles the JSON Schemas tests validate against:
// the published invocation and policy-input schemas and the vendored
// SARIF schema.
package schematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SARIFFile is the vendored SARIF 2.1.0 schema, relative to the module
// root (report/testdata/README.md says where it comes from), and SARIFID
// its $id.
const (
	SARIFFile = "report/testdata/sarif-schema-2.1.0.json"
	SARIFID   = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
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

// GitHubSARIF checks a SARIF log against the rules GitHub code scanning
// applies on upload beyond the schema: every result has at least one
// location, every region's startLine is at least 1, and every result has
// partialFingerprints (without them GitHub computes its own from the
// file's content, which needs the file in the repository).
func GitHubSARIF(data []byte) error {
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation *struct{ URI string } `json:"artifactLocation"`
						Region           *struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				PartialFingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return err
	}
	for _, run := range log.Runs {
		for i, res := range run.Results {
			if len(res.Locations) == 0 {
				return fmt.Errorf("result %d (%s) has no location", i, res.RuleID)
			}
			for _, l := range res.Locations {
				pl := l.PhysicalLocation
				if pl == nil || pl.ArtifactLocation == nil || pl.ArtifactLocation.URI == "" {
					return fmt.Errorf("result %d (%s): a location without an artifact URI", i, res.RuleID)
				}
				if pl.Region == nil || pl.Region.StartLine < 1 {
					return fmt.Errorf("result %d (%s): a region without startLine >= 1", i, res.RuleID)
				}
			}
			if len(res.PartialFingerprints) == 0 {
				return fmt.Errorf("result %d (%s) has no partialFingerprints", i, res.RuleID)
			}
		}
	}
	return nil
}
