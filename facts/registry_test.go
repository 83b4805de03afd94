package facts

import (
	"encoding/json"
	"slices"
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
		if p.Rule == "" || p.Role == "" || p.Gatherer == "" || p.What == "" || p.ExplainSource == "" || p.Stale == "" {
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
	slices.Sort(reasons)
	slices.Sort(sources)
	gotWhy := slices.Sorted(slices.Values(props["why"].Enum))
	gotSrc := slices.Sorted(slices.Values(props["source"].Enum))
	if !slices.Equal(gotWhy, reasons) {
		t.Errorf("policy-input hidden.why enum = %v, registry mask reasons = %v", gotWhy, reasons)
	}
	if !slices.Equal(gotSrc, sources) {
		t.Errorf("policy-input hidden.source enum = %v, registry mask sources = %v", gotSrc, sources)
	}
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
		slices.Sort(want)
		got = slices.Sorted(slices.Values(got))
		if !slices.Equal(got, want) {
			t.Errorf("policy-input %s source enum = %v, registry = %v", role, got, want)
		}
	}
}
