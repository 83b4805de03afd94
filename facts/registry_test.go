package facts

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/report"
	"github.com/bwpolicy/bwpolicy/schema"
)

// TestRegistryRowsUnique: one row per source, every field filled.
func TestRegistryRowsUnique(t *testing.T) {
	seen := map[Source]bool{}
	for _, p := range Protections {
		if seen[p.Source] {
			t.Errorf("source %s has two rows", p.Source)
		}
		seen[p.Source] = true
		if p.Rule == "" || p.Role == "" || p.Gather == "" || p.ExplainSource == "" {
			t.Errorf("row %s has an empty field: %+v", p.Source, p)
		}
		if !p.Rule.IsRule() || p.Reason != ReasonInherited && !p.Reason.IsRule() || !p.Scope.Known() {
			t.Errorf("row %s: reason %q, rule %q or scope %q is not the format's (invocation.Reasons, Scopes)", p.Source, p.Reason, p.Rule, p.Scope)
		}
		if (p.Role == RoleMask) != (p.Setting != "") {
			t.Errorf("row %s: a mask row, and only one, says which setting a finding points at (Setting %q)", p.Source, p.Setting)
		}
		if p.Reason == ReasonInherited && p.Source != SourceMountMirror {
			t.Errorf("row %s has no reason", p.Source)
		}
	}
}

// TestProtectionOfUnknownPanics: a source without a row is never
// reported under another row's name.
func TestProtectionOfUnknownPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("ProtectionOf of an unknown source did not panic")
		}
	}()
	ProtectionOf("no-such-source")
}

// TestPolicyInputEnumsFollowRegistry holds the policy-input schema's
// "why" and "source" enums of a hidden path equal to the registry's mask
// rows (those the facts' Hidden list carries: S4's masks are published
// as run_user and docker_sockets).
func TestPolicyInputEnumsFollowRegistry(t *testing.T) {
	var doc struct {
		Defs struct {
			Facts struct {
				Properties struct {
					Hidden struct {
						Items struct {
							Properties map[string]struct {
								Enum []string `json:"enum"`
							} `json:"properties"`
						} `json:"items"`
					} `json:"hidden"`
				} `json:"properties"`
			} `json:"facts"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema.PolicyInputJSON, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Defs.Facts.Properties.Hidden.Items.Properties
	var reasons, sources []string
	for _, p := range Protections {
		if p.Role != RoleMask || p.Source == SourceRunUser || p.Source == SourceDockerSocket {
			continue
		}
		if p.Reason != ReasonInherited && !slices.Contains(reasons, string(p.Reason)) {
			reasons = append(reasons, string(p.Reason))
		}
		sources = append(sources, string(p.Source))
	}
	enumFresh(t, "hidden.why", props["why"].Enum, reasons)
	enumFresh(t, "hidden.source", props["source"].Enum, sources)
}

// enumFresh holds a policy-input schema enum (got, as the file lists it)
// equal, as a set, to the registry's (want, in registry order). With
// BWPOLICY_UPDATE_SCHEMA=1 it writes the registry's list into
// schema/policy-input.schema.json instead (the enums are generated from
// the registry; this test is their freshness check).
func enumFresh(t *testing.T, where string, got, want []string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatalf("%s: the registry lists nothing", where)
	}
	if slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))) {
		return
	}
	render := func(l []string) string { return `"enum": ["` + strings.Join(l, `", "`) + `"]` }
	if os.Getenv("BWPOLICY_UPDATE_SCHEMA") == "" {
		t.Errorf("policy-input %s enum = %v, the registry's = %v (BWPOLICY_UPDATE_SCHEMA=1 go test ./facts -run PolicyInput writes it)", where, got, want)
		return
	}
	const file = "../schema/policy-input.schema.json"
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), render(got)); n != 1 {
		t.Fatalf("%s: %s found %d times in %s, want once: edit it by hand", where, render(got), n, file)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), render(got), render(want), 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: wrote %s", file, render(want))
}

// TestRegistryRulesCatalogued: every rule a row reports is in the rule
// catalogue (the SARIF rules and docs/rules.md).
func TestRegistryRulesCatalogued(t *testing.T) {
	known := map[string]bool{}
	for _, r := range report.BuiltinRules() {
		known[r.ID] = true
	}
	for _, p := range Protections {
		if !known[string(p.Rule)] {
			t.Errorf("row %s reports rule %s, which the catalogue (report.BuiltinRules) does not describe", p.Source, p.Rule)
		}
	}
}

// TestPolicyInputMaskAndExceptionSources holds the policy-input schema's
// source enums of facts.masks and facts.exceptions equal to the
// registry's mask and exception rows.
func TestPolicyInputMaskAndExceptionSources(t *testing.T) {
	type enumProps struct {
		Items struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		} `json:"items"`
	}
	var doc struct {
		Defs struct {
			Facts struct {
				Properties struct {
					Masks      enumProps `json:"masks"`
					Exceptions enumProps `json:"exceptions"`
				} `json:"properties"`
			} `json:"facts"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(schema.PolicyInputJSON, &doc); err != nil {
		t.Fatal(err)
	}
	for role, got := range map[Role][]string{
		RoleMask:      doc.Defs.Facts.Properties.Masks.Items.Properties["source"].Enum,
		RoleException: doc.Defs.Facts.Properties.Exceptions.Items.Properties["source"].Enum,
	} {
		var want []string
		for _, p := range Protections {
			if p.Role == role {
				want = append(want, string(p.Source))
			}
		}
		enumFresh(t, string(role)+"s.source", got, want)
	}
}

// TestEveryRowGathered: every row's step is a step of Gather (a row
// whose gatherer is not in the order would find nothing, silently), and
// every step that finds paths is some row's.
func TestEveryRowGathered(t *testing.T) {
	inOrder := map[Step]bool{}
	for _, st := range gatherSteps {
		if st.id != "" {
			inOrder[st.id] = true
		}
	}
	used := map[Step]bool{}
	for _, p := range Protections {
		used[p.Gather] = true
		if !inOrder[p.Gather] {
			t.Errorf("row %s: its step %q is not in gatherSteps: Gather never runs it", p.Source, p.Gather)
		}
	}
	if len(inOrder) == 0 {
		t.Fatal("gatherSteps names no step")
	}
	for st := range inOrder {
		if !used[st] {
			t.Errorf("step %q finds the paths of no row", st)
		}
	}
}

// TestStepFindsOnlyItsRows: a step that finds a path of a row naming
// another step panics.
func TestStepFindsOnlyItsRows(t *testing.T) {
	g := &gatherer{fs: NewMemo(OS{}), observed: map[string]Stat{}, walked: map[string]*Walked{}, step: StepMirrors}
	defer func() {
		if recover() == nil {
			t.Fatal("a path of the hide row found by the mirrors step was accepted")
		}
	}()
	g.hidden("/nonexistent-bwpolicy-test/x", SourceHide)
}

// TestUndeclaredVariablePanics: a gatherer reading a variable no row
// declares fails at once (the real host would never supply it:
// FromEnvironment reads EnvVars only).
func TestUndeclaredVariablePanics(t *testing.T) {
	h := &Host{Env: map[string]string{"BWPOLICY_NOT_A_ROW_VAR": "/x"}}
	if got := h.Getenv("AWS_SHARED_CREDENTIALS_FILE"); got != "" {
		t.Fatalf("declared unset variable: %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("reading an undeclared variable did not panic")
		}
	}()
	h.Getenv("BWPOLICY_NOT_A_ROW_VAR")
}

// TestFromEnvironmentReadsEveryRowVariable: every variable a row
// declares reaches the host FromEnvironment reads, and its digest the
// facts (Facts.EnvChecked: the invocation's env.checked).
func TestFromEnvironmentReadsEveryRowVariable(t *testing.T) {
	vars := EnvVars()
	if len(vars) < 10 {
		t.Fatalf("EnvVars = %v: the rows declare almost nothing", vars)
	}
	for _, v := range vars {
		t.Setenv(v, "/bwpolicy-test/"+v)
	}
	h := FromEnvironment()
	for _, v := range vars {
		if h.Getenv(v) != "/bwpolicy-test/"+v {
			t.Errorf("FromEnvironment did not read $%s", v)
		}
	}
	checked := envChecked(h)
	if checked["PATH"] == "" || checked["ZDOTDIR"] == "" {
		t.Errorf("envChecked = %v", checked)
	}
	for _, v := range vars {
		if _, ok := checked[v]; !ok && !slices.Contains(credentialVarNames(), v) {
			t.Errorf("$%s is read but bwrun re-checks it neither by value nor by the paths it names", v)
		}
	}
}

// TestEnvByPathsIsCheckCredentialEnv: a row whose variables bwrun
// re-checks by the paths they name declares exactly the variables
// runtime.CheckCredentialEnv checks (runtime.CredentialVars).
func TestEnvByPathsIsCheckCredentialEnv(t *testing.T) {
	n := 0
	for _, p := range Protections {
		if p.EnvByPaths {
			n++
			if !slices.Equal(p.Env, credentialVarNames()) {
				t.Errorf("row %s re-checks %v by paths; CheckCredentialEnv checks %v", p.Source, p.Env, credentialVarNames())
			}
		}
	}
	if n == 0 {
		t.Fatal("no row is re-checked by paths")
	}
}
