package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/schematest"
)

// sample is a report with the cases that matter to the formats: two
// files, an error and a warning, a custom rule with a name, a file name
// that needs escaping, a diagnostic without a position, and (when
// failed) a failure.
func sample(failed bool) *Report {
	src := []byte("profile: workspace\nmemory_mb: 8192\nbinds:\n  - src: /nonexist\n")
	r := &Report{
		Tool:    Tool{Name: "bwpolicy", Version: "v1.2.3", URI: "https://github.com/bwpolicy/bwpolicy"},
		Inputs:  []string{"sandbox/a.yaml", "odd dir/b,c:d.yaml", "/abs/path/e.yaml"},
		Sources: map[string][]byte{"sandbox/a.yaml": src},
		Rules:   append(BuiltinRules(), Rule{ID: "custom.limits", Short: "Memory cap.", Help: "4 GiB at most.", Level: diag.Error}),
		WorkDir: "/work/repo",
	}
	r.Findings = diag.List{
		{Severity: diag.Error, Rule: "custom.limits", Summary: "memory_mb above the 4096 allowed here", Path: "memory_mb",
			Pos: diag.Pos{File: "sandbox/a.yaml", Line: 2, Col: 12}},
		{Severity: diag.Error, Rule: "custom.limits/max-mem", Summary: "named custom rule", Path: "memory_mb",
			Pos: diag.Pos{File: "sandbox/a.yaml", Line: 2, Col: 12}},
		{Severity: diag.Error, Rule: "R9", Summary: `bind source "/nonexist" does not exist`, Path: "binds[0].src",
			Pos: diag.Pos{File: "sandbox/a.yaml", Line: 4, Col: 10}},
		{Severity: diag.Warning, Rule: "R7", Summary: "100% of the home, a line\nbreak: and, commas", Path: "cwd",
			Pos: diag.Pos{File: "odd dir/b,c:d.yaml", Line: 1, Col: 1}},
		{Severity: diag.Error, Rule: "input", Summary: "cannot read settings file: permission denied",
			Pos: diag.Pos{File: "/abs/path/e.yaml"}},
		{Severity: diag.Warning, Rule: "S1", Summary: "about the defaults", Pos: diag.Pos{File: "<embedded defaults>"}},
	}
	if failed {
		r.Failures = diag.List{{Severity: diag.Error, Rule: "policy", Summary: "rego_parse_error: unexpected } token",
			Pos: diag.Pos{File: "policy/bad.rego", Line: 3, Col: 9}}}
	}
	return r
}

func write(t *testing.T, format string, r *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, format, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestText(t *testing.T) {
	out := string(write(t, "text", sample(false)))
	for _, want := range []string{
		"sandbox/a.yaml:2:12: error: memory_mb: memory_mb above the 4096 allowed here [custom.limits]\n     2 | memory_mb: 8192\n       |            ^\n",
		"sandbox/a.yaml:4:10: error: binds[0].src: bind source \"/nonexist\" does not exist [R9]\n     4 |   - src: /nonexist\n       |          ^\n",
		"3 files checked: 4 errors, 2 warnings\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	var f bytes.Buffer
	TextFailures(&f, sample(true))
	if !strings.HasPrefix(f.String(), "policy/bad.rego:3:9: error: rego_parse_error: unexpected } token [policy]") {
		t.Errorf("failures: %q", f.String())
	}
}

// validateFindings fails t unless out validates against
// schema/findings.schema.json.
func validateFindings(t *testing.T, out []byte) {
	t.Helper()
	sch := schematest.CompileFile(t, "../schema/findings.schema.json", "https://bwpolicy.dev/schema/findings.schema.json")
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("JSON report does not validate against schema/findings.schema.json: %v\n%s", err, out)
	}
}

func TestJSON(t *testing.T) {
	decode := func(out []byte) []map[string]any {
		t.Helper()
		validateFindings(t, out)
		var env struct {
			Version  int
			Tool     struct{ Name, Version string }
			Findings []map[string]any
		}
		if err := json.Unmarshal(out, &env); err != nil {
			t.Fatal(err)
		}
		if env.Version != JSONVersion || env.Tool.Name != "bwpolicy" {
			t.Errorf("envelope: %+v", env)
		}
		return env.Findings
	}
	got := decode(write(t, "json", sample(true)))
	if v := decode(write(t, "json", sample(false))); len(v) != 6 {
		t.Errorf("got %d diagnostics without failures, want 6", len(v))
	}
	if len(got) != 7 {
		t.Fatalf("got %d diagnostics, want 7", len(got))
	}
	first := got[0]
	for k, want := range map[string]any{"file": "sandbox/a.yaml", "line": 2.0, "column": 12.0, "severity": "error",
		"rule": "custom.limits", "message": "memory_mb above the 4096 allowed here", "path": "memory_mb"} {
		if first[k] != want {
			t.Errorf("%s = %v, want %v", k, first[k], want)
		}
	}
	if got[6]["failure"] != true || got[6]["rule"] != "policy" {
		t.Errorf("last diagnostic should be the failure: %v", got[6])
	}
	empty := write(t, "json", &Report{Tool: Tool{Name: "bwpolicy"}})
	if d := decode(empty); d == nil || len(d) != 0 {
		t.Errorf("no diagnostics: %s, want \"findings\": []", empty)
	}
}

func TestGitHub(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(string(write(t, "github", sample(true)))), "\n")
	want := []string{
		"::error file=sandbox/a.yaml,line=2,col=12,title=custom.limits::memory_mb: memory_mb above the 4096 allowed here",
		"::error file=sandbox/a.yaml,line=2,col=12,title=custom.limits/max-mem::memory_mb: named custom rule",
		`::error file=sandbox/a.yaml,line=4,col=10,title=R9::binds[0].src: bind source "/nonexist" does not exist`,
		"::warning file=odd dir/b%2Cc%3Ad.yaml,line=1,col=1,title=R7::cwd: 100%25 of the home, a line%0Abreak: and, commas",
		"::error file=/abs/path/e.yaml,title=input::cannot read settings file: permission denied",
		"::warning title=S1::about the defaults",
		"::error file=policy/bad.rego,line=3,col=9,title=policy::rego_parse_error: unexpected } token",
		"3 files checked: 4 errors, 2 warnings; the check itself failed (1 problem)",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("github output:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// sarifSchema compiles the vendored SARIF 2.1.0 schema (see
// testdata/README.md).
func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	return schematest.CompileFile(t, "../"+schematest.SARIFFile, schematest.SARIFID)
}

func TestSARIFValidatesAgainstSchema(t *testing.T) {
	sch := sarifSchema(t)
	for name, r := range map[string]*Report{"findings": sample(false), "failed": sample(true), "empty": {Tool: Tool{Name: "bwpolicy"}}} {
		out := write(t, "sarif", r)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: SARIF output does not validate: %v\n%s", name, err, out)
		}
		if err := schematest.GitHubSARIF(out); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The schema is strict enough to catch a broken log.
	bad := []byte(`{"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"level": "fatal", "message": {}}]}]}`)
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if sch.Validate(inst) == nil {
		t.Error("the SARIF schema accepted an invalid log")
	}
}

// TestSARIFForGitHub checks what GitHub code scanning needs beyond the
// schema: every result names a rule the driver describes (by id and
// index), has a located physicalLocation with a line when one is known,
// relative URIs that resolve against %SRCROOT%, and a rule with a short
// description and help text.
func TestSARIFForGitHub(t *testing.T) {
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string                          `json:"id"`
						ShortDescription struct{ Text string }           `json:"shortDescription"`
						Help             struct{ Text, Markdown string } `json:"help"`
						Properties       map[string]any                  `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			OriginalURIBaseIDs map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Results            []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string } `json:"artifactLocation"`
						Region           *struct {
							StartLine, StartColumn int
							Snippet                *struct{ Text string }
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
			Invocations []struct {
				ExecutionSuccessful        bool             `json:"executionSuccessful"`
				ToolExecutionNotifications []map[string]any `json:"toolExecutionNotifications"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(write(t, "sarif", sample(true)), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if run.Tool.Driver.Name != "bwpolicy" || log.Version != "2.1.0" {
		t.Errorf("driver %q version %q", run.Tool.Driver.Name, log.Version)
	}
	if got := run.OriginalURIBaseIDs["%SRCROOT%"].URI; got != "file:///work/repo/" {
		t.Errorf("%%SRCROOT%% = %q", got)
	}
	rules := run.Tool.Driver.Rules
	for _, ru := range rules {
		if ru.ShortDescription.Text == "" || ru.Help.Text == "" {
			t.Errorf("rule %s lacks a description or help", ru.ID)
		}
	}
	// The finding about no file is a notification: a result needs a
	// location.
	if len(run.Results) != 5 {
		t.Fatalf("%d results, want 5", len(run.Results))
	}
	wantURI := []string{"sandbox/a.yaml", "sandbox/a.yaml", "sandbox/a.yaml", "odd%20dir/b,c:d.yaml", "file:///abs/path/e.yaml"}
	for i, res := range run.Results {
		if res.RuleIndex >= len(rules) || rules[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d does not point at rule %s", i, res.RuleIndex, res.RuleID)
		}
		if wantURI[i] == "" {
			if len(res.Locations) != 0 {
				t.Errorf("result %d: a diagnostic without a file has a location", i)
			}
			continue
		}
		if len(res.Locations) != 1 {
			t.Fatalf("result %d: %d locations", i, len(res.Locations))
		}
		pl := res.Locations[0].PhysicalLocation
		if pl.ArtifactLocation.URI != wantURI[i] {
			t.Errorf("result %d: uri %q, want %q", i, pl.ArtifactLocation.URI, wantURI[i])
		}
		if !strings.HasPrefix(wantURI[i], "file:") && pl.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("result %d: relative uri without uriBaseId", i)
		}
	}
	first := run.Results[0]
	if r := first.Locations[0].PhysicalLocation.Region; r == nil || r.StartLine != 2 || r.StartColumn != 12 || r.Snippet == nil || r.Snippet.Text != "memory_mb: 8192" {
		t.Errorf("region of the first result: %+v", r)
	}
	if first.Level != "error" || run.Results[3].Level != "warning" {
		t.Errorf("levels %q %q", first.Level, run.Results[3].Level)
	}
	if rules[first.RuleIndex].ShortDescription.Text != "Memory cap." {
		t.Errorf("custom rule description: %q", rules[first.RuleIndex].ShortDescription.Text)
	}
	if got := rules[run.Results[1].RuleIndex].ShortDescription.Text; got != "Memory cap (max-mem)." {
		t.Errorf("named custom rule description: %q", got)
	}
	if r := run.Results[4].Locations[0].PhysicalLocation.Region; r == nil || r.StartLine != 1 || r.StartColumn != 0 {
		t.Errorf("a finding about a whole file is not at line 1: %+v", r)
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 2 {
		t.Errorf("invocation of a failed run: %+v", inv)
	}
}

func TestBuiltinRulesAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, ru := range BuiltinRules() {
		if seen[ru.ID] {
			t.Errorf("rule %s described twice", ru.ID)
		}
		seen[ru.ID] = true
		if ru.Name == "" || ru.Short == "" || ru.Help == "" {
			t.Errorf("rule %s lacks a name, description or help", ru.ID)
		}
		if ru.HelpURI != RulesDoc+"#"+strings.ToLower(ru.ID) {
			t.Errorf("rule %s: helpUri %q", ru.ID, ru.HelpURI)
		}
	}
	for _, id := range []string{"R1", "R13", "S1", "S11", "H1", "H6", "yaml", "schema", "input", "cue", "profile", "policy", "internal"} {
		if !seen[id] {
			t.Errorf("rule %s is not described", id)
		}
	}
}
