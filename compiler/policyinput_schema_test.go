package compiler

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/internal/schematest"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/profile"
)

// policyInputSchema compiles schema/policy-input.schema.json, the
// published shape of the Rego input that organisation rules are written
// against.
func policyInputSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return schematest.CompileFile(t, "../schema/policy-input.schema.json", "https://bwpolicy.dev/schema/policy-input.schema.json")
}

// inputOf rebuilds the policy input of a compilation exactly as
// evaluatePolicy does; ok is false when compilation stopped before the
// policy stage.
func inputOf(res *Result) (any, bool) {
	if res.Settings == nil || res.Profile == nil || res.Facts == nil {
		return nil, false
	}
	in := newPolicyInput(res)
	b, err := json.Marshal(in)
	if err != nil {
		return nil, false
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	return v, err == nil
}

func validateInput(t *testing.T, sch *jsonschema.Schema, name string, res *Result) bool {
	t.Helper()
	in, ok := inputOf(res)
	if !ok {
		return false
	}
	if err := sch.Validate(in); err != nil {
		b, _ := json.MarshalIndent(in, "", "  ")
		t.Errorf("%s: the policy input does not match schema/policy-input.schema.json (a field added to settings, profile or facts must be added there too, it is a published contract): %v\ninput: %s", name, err, b)
	}
	return true
}

// TestPolicyInputMatchesSchema validates the real policy input of every
// golden case (synthetic hosts: binds, hidden symlinks, CA bundles,
// home_mode profile, Hermes configs...) against the published schema.
func TestPolicyInputMatchesSchema(t *testing.T) {
	sch := policyInputSchema(t)
	n := 0
	for _, file := range caseFiles(t) {
		tc := loadCase(t, file)
		res := Compile(context.Background(), tc.req)
		if validateInput(t, sch, tc.name, res) {
			n++
		}
	}
	if n < 10 {
		t.Fatalf("only %d golden cases reached the policy stage", n)
	}
}

// TestPolicyInputOfThisHostMatchesSchema does the same on the real host
// (with a temporary HOME), with a custom profile and with binds.
func TestPolicyInputOfThisHostMatchesSchema(t *testing.T) {
	sch := policyInputSchema(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("HERMES_HOME", "")
	if err := os.MkdirAll(filepath.Join(home, ".hermes", "sandboxes", "bwrap-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	profDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(profDir, "ci.cue"), []byte("name: \"ci\"\ndescription: \"ci jobs\"\ncwd_writable: false\ndefaults: memory_mb: 1024\nhidden_home: \".cargo/credentials\": true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, ds := profile.LoadWith([]string{profDir}, bounded.Limits{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	host := facts.FromEnvironment()
	for name, src := range map[string]string{
		"defaults":  "{}\n",
		"binds":     "profile: workspace\ncwd: " + home + "\nbinds:\n  - src: /usr/share\n  - src: /etc\n    dest: /tmp/etc\n    readonly: false\n",
		"custom":    "profile: ci\n",
		"hermes":    "terminal:\n  cwd: /tmp\n  home_mode: profile\nplugins:\n  entries:\n    bubblewrap:\n      settings:\n        profile: restricted\n",
		"extension": "profile: network\nnetwork:\n  tcp_connect: [443]\nenv:\n  allow: [GITHUB_TOKEN]\n",
	} {
		res := Compile(context.Background(), &Request{File: name + ".yaml", Source: []byte(src), Profiles: set, Host: host})
		if !validateInput(t, sch, name, res) {
			t.Errorf("%s: compilation stopped before the policy stage: %v", name, res.Diags)
		}
	}
}

// TestPolicyInputValueMatchesJSON: the value the rules see for the real
// input of every golden case (policy.InputValue converts Go values
// directly) equals the input's JSON form read back as OPA reads JSON.
func TestPolicyInputValueMatchesJSON(t *testing.T) {
	n := 0
	for _, file := range caseFiles(t) {
		tc := loadCase(t, file)
		res := Compile(context.Background(), tc.req)
		if res.Settings == nil || res.Profile == nil || res.Facts == nil {
			continue
		}
		in := newPolicyInput(res)
		got, err := policy.InputValue(in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ast.ValueFromReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if got.Compare(want) != 0 {
			t.Errorf("%s: the input value differs from its JSON form:\n got %v\nwant %v", tc.name, got, want)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d golden cases reached the policy stage", n)
	}
}
