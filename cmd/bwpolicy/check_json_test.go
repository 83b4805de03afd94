package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bwpolicy/bwpolicy/internal/schematest"
	"github.com/bwpolicy/bwpolicy/internal/testtree"
)

// findingsSchemaID is the $id of schema/findings.schema.json.
const findingsSchemaID = "https://bwpolicy.dev/schema/findings.schema.json"

// checkJSON validates the output of check --format json against
// schema/findings.schema.json and returns its findings decoded into a
// list of T.
func checkJSON[T any](t testing.TB, out []byte) []T {
	t.Helper()
	sch := schematest.CompileFile(t, "../../schema/findings.schema.json", findingsSchemaID)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("check --format json is not JSON: %v\n%s", err, out)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("check --format json does not validate against schema/findings.schema.json: %v\n%s", err, out)
	}
	var env struct {
		Version  int `json:"version"`
		Findings []T `json:"findings"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	return env.Findings
}

// TestCheckJSONEnvelope: check --format json writes the versioned
// envelope of schema/findings.schema.json for findings, failures,
// suppressions and a clean run, and the schema refuses what breaks it.
func TestCheckJSONEnvelope(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"bad.yaml":           "profile: workspace\nmemroy_mb: 1\n",
		"sup.yaml":           "profile: workspace\nbinds:\n  - src: /nonexistent-bwpolicy-json # bwpolicy:ignore R9 test\n",
		"good.yaml":          "profile: workspace\n",
		"policy/broken.rego": "package bwpolicy.custom.x\ndeny contains v if {\n",
	})
	env := sandboxEnv(t)

	r := run(t, dir, env, "check", "--format", "json", "bad.yaml", "sup.yaml")
	wantCode(t, r, 1)
	ds := checkJSON[map[string]any](t, []byte(r.stdout))
	var sawSuppressed, sawSchema bool
	for _, d := range ds {
		sawSuppressed = sawSuppressed || (d["suppressed"] == true && d["justification"] == "test")
		sawSchema = sawSchema || d["rule"] == "schema"
	}
	if !sawSuppressed || !sawSchema {
		t.Errorf("want a schema finding and a suppressed R9:\n%s", r.stdout)
	}

	r = run(t, dir, env, "check", "--format", "json", "good.yaml")
	wantCode(t, r, 0)
	if ds := checkJSON[map[string]any](t, []byte(r.stdout)); len(ds) != 0 {
		t.Errorf("clean run: %v", ds)
	}
	wantContains(t, r, "stdout", `"findings": []`)

	r = run(t, dir, env, "check", "--format", "json", "--policy", "policy", "good.yaml")
	wantCode(t, r, 2)
	ds = checkJSON[map[string]any](t, []byte(r.stdout))
	if len(ds) == 0 || ds[0]["failure"] != true {
		t.Errorf("broken policy: want a failure: %s", r.stdout)
	}

	// The schema is strict enough to catch the old bare list, a missing
	// version, and a diagnostic without its required fields.
	sch := schematest.CompileFile(t, "../../schema/findings.schema.json", findingsSchemaID)
	for _, bad := range []string{
		`[]`,
		`{"tool": {"name": "bwpolicy", "version": ""}, "findings": []}`,
		`{"version": 2, "tool": {"name": "bwpolicy", "version": ""}, "findings": []}`,
		`{"version": 1, "tool": {"name": "bwpolicy", "version": ""}, "findings": [{"file": "a", "line": 1}]}`,
		`{"version": 1, "tool": {"name": "bwpolicy", "version": ""}, "findings": [{"file": "a", "line": 1, "column": 1, "severity": "fatal", "rule": "R1", "message": "m", "path": ""}]}`,
	} {
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(bad)))
		if sch.Validate(inst) == nil {
			t.Errorf("schema accepted %s", bad)
		}
	}
}
