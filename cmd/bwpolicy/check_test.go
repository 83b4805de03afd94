package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/internal/schematest"
	"github.com/bwpolicy/bwpolicy/internal/testtree"
)

// limitsRego is the organisation rule of issue 4.
const limitsRego = `package bwpolicy.custom.limits

deny contains v if {
	input.settings.memory_mb > 4096
	v := {"msg": "memory_mb above the 4096 allowed here", "path": ["memory_mb"]}
}
`

func wantContains(t *testing.T, r result, where, want string) {
	t.Helper()
	got := r.stdout
	if where == "stderr" {
		got = r.stderr
	}
	if !strings.Contains(got, want) {
		t.Errorf("%s lacks %q\n%s", where, want, r)
	}
}

func wantCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d\n%s", r.code, code, r)
	}
}

// TestCheckOrganisationRule: issue 4's rule reports an error at the
// memory_mb line, in every format.
func TestCheckOrganisationRule(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"policy/limits.rego": limitsRego,
		"sandbox/team.yaml":  "profile: workspace\nmemory_mb: 8192\n",
		"sandbox/small.yaml": "profile: workspace\nmemory_mb: 1024\n",
	})
	env := sandboxEnv(t)

	r := run(t, dir, env, "check", "--policy", "policy", "sandbox")
	wantCode(t, r, 1)
	wantContains(t, r, "stdout", "sandbox/team.yaml:2:12: error: memory_mb: memory_mb above the 4096 allowed here [custom.limits]\n     2 | memory_mb: 8192\n       |            ^\n")
	wantContains(t, r, "stdout", "2 files checked: 1 error")

	r = run(t, dir, env, "check", "--format", "json", "--policy", "policy", "sandbox")
	wantCode(t, r, 1)
	diags := checkJSON[map[string]any](t, []byte(r.stdout))
	found := false
	for _, d := range diags {
		if d["rule"] == "custom.limits" {
			found = true
			want := map[string]any{"file": "sandbox/team.yaml", "line": 2.0, "column": 12.0, "severity": "error",
				"message": "memory_mb above the 4096 allowed here", "path": "memory_mb"}
			for k, v := range want {
				if d[k] != v {
					t.Errorf("json %s = %v, want %v", k, d[k], v)
				}
			}
		}
	}
	if !found {
		t.Errorf("json lacks the custom.limits diagnostic:\n%s", r.stdout)
	}

	r = run(t, dir, env, "check", "--format", "github", "--policy", "policy", "sandbox")
	wantCode(t, r, 1)
	wantContains(t, r, "stdout", "::error file=sandbox/team.yaml,line=2,col=12,title=custom.limits::memory_mb: memory_mb above the 4096 allowed here\n")

	r = run(t, dir, env, "check", "--format", "sarif", "--policy", "policy", "sandbox")
	wantCode(t, r, 1)
	validateSARIF(t, []byte(r.stdout))
	if !strings.Contains(r.stdout, `"ruleId": "custom.limits"`) || !strings.Contains(r.stdout, `"startLine": 2`) {
		t.Errorf("sarif lacks the located custom result:\n%s", r.stdout)
	}
}

// validateSARIF checks a SARIF log against the OASIS SARIF 2.1.0 schema
// vendored in report/testdata and GitHub's ingestion rules.
func validateSARIF(t *testing.T, out []byte) {
	t.Helper()
	sch := schematest.CompileFile(t, "../../"+schematest.SARIFFile, schematest.SARIFID)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v\n%s", err, out)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("SARIF output does not validate: %v", err)
	}
	if err := schematest.GitHubSARIF(out); err != nil {
		t.Errorf("GitHub would refuse the SARIF upload: %v\n%s", err, out)
	}
}

// TestCheckBrokenPolicy: an organisation rule that does not parse,
// compile or evaluate makes check exit 2 (never 1), naming file:line.
func TestCheckBrokenPolicy(t *testing.T) {
	env := sandboxEnv(t)
	for name, tc := range map[string]struct {
		rego, want string
	}{
		"parse error":      {"package bwpolicy.custom.bad\n\ndeny contains v if {\n\tv :=\n}\n", "policy/bad.rego:5:1: error: rego_parse_error"},
		"unsafe variable":  {"package bwpolicy.custom.bad\n\ndeny contains v if {\n\tv := {\"msg\": y}\n}\n", "policy/bad.rego:4:"},
		"wrong package":    {"# org rules\npackage bwpolicy.rules\n\ndeny contains \"x\" if true\n", "policy/bad.rego:2:1: error: bwpolicy_package_error: package bwpolicy.rules: custom rules must live in a package under bwpolicy.custom"},
		"misspelt input":   {"package bwpolicy.custom.bad\n\ndeny contains v if {\n\tinput.settings.memroy_mb > 4096\n\tv := {\"msg\": \"m\", \"path\": [\"memory_mb\"]}\n}\n", "policy/bad.rego:4:2: error: rego_type_error: undefined ref: input.settings.memroy_mb"},
		"conflict at eval": {"package bwpolicy.custom.bad\n\nx := 1 if input.settings.memory_mb > 0\n\nx := 2 if input.settings.memory_mb > 0\n\ndeny contains {\"msg\": \"m\"} if x == 1\n", "policy/bad.rego:5:1: error: eval_conflict_error"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := testtree.Write(t, map[string]string{"policy/bad.rego": tc.rego, "s.yaml": "profile: workspace\n"})
			r := run(t, dir, env, "check", "--policy", "policy", "s.yaml")
			wantCode(t, r, 2)
			wantContains(t, r, "stderr", tc.want)
			r = run(t, dir, env, "check", "--format", "sarif", "--policy", "policy", "s.yaml")
			wantCode(t, r, 2)
			validateSARIF(t, []byte(r.stdout))
			wantContains(t, r, "stdout", `"executionSuccessful": false`)
			wantContains(t, r, "stderr", "policy/bad.rego:")
			r = run(t, dir, env, "check", "--format", "json", "--policy", "policy", "s.yaml")
			wantCode(t, r, 2)
			wantContains(t, r, "stdout", `"failure": true`)
		})
	}
	dir := testtree.Write(t, map[string]string{"policy/only_test.rego": "package x_test\n\ntest_a if true\n", "s.yaml": "{}\n"})
	wantCode(t, run(t, dir, env, "check", "--policy", "policy", "s.yaml"), 2)
	wantCode(t, run(t, dir, env, "check", "--policy", "nonexistent", "s.yaml"), 2)
}

// TestCheckManyInputs: files and directories in one call, each reported.
func TestCheckManyInputs(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"conf/a.yaml":          "profile: workspace\n",
		"conf/b.yml":           "profile: workspace\nmemory_mb: -1\n",
		"conf/.gitlab-ci.yml":  "stages: [test]\n",
		"conf/notes.txt":       "not settings\n",
		"conf/sub/deeper.yaml": "unknown: key\n",
		"c.yaml":               "profile: workspace\nbinds:\n  - src: /nonexistent-bwpolicy-test\n",
		"d.yaml":               "profile: [\n",
	})
	env := sandboxEnv(t)
	r := run(t, dir, env, "check", "--format", "json", "conf", "c.yaml", "d.yaml", "c.yaml")
	wantCode(t, r, 1)
	diags := checkJSON[struct {
		File, Rule, Severity string
		Line                 int
	}](t, []byte(r.stdout))
	errs := map[string]string{}
	for _, d := range diags {
		if d.Severity == "error" {
			errs[d.File] = d.Rule
		}
	}
	// Directories are checked recursively: conf/sub/deeper.yaml too.
	want := map[string]string{"conf/b.yml": "schema", "conf/sub/deeper.yaml": "schema", "c.yaml": "R9", "d.yaml": "yaml"}
	for f, rule := range want {
		if errs[f] != rule {
			t.Errorf("%s: error rule %q, want %q (all: %v)", f, errs[f], rule, errs)
		}
	}
	if len(errs) != len(want) {
		t.Errorf("errors in %v, want only %v", errs, want)
	}
	r = run(t, dir, env, "check", "conf", "c.yaml", "d.yaml", "c.yaml")
	wantContains(t, r, "stdout", "5 files checked: 4 errors")

	wantCode(t, run(t, dir, env, "check", "conf", "missing.yaml"), 2)
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = run(t, dir, env, "check", "empty")
	wantCode(t, r, 2)
	wantContains(t, r, "stderr", "no settings files")
}

// TestCheckExitCodes: the exit codes of docs/ci.md's Exit status table and --fail-on.
func TestCheckExitCodes(t *testing.T) {
	env := sandboxEnv(t)
	home := strings.TrimPrefix(env[0], "HOME=")
	dir := testtree.Write(t, map[string]string{
		"clean.yaml": "profile: workspace\nmemory_mb: 1024\n",
		// R7: a writable working directory that is the home directory.
		"warn.yaml":  "profile: workspace\ncwd: " + home + "\n",
		"error.yaml": "profile: workspace\nmemory_mb: lots\n",
	})
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"check", "clean.yaml"}, 0},
		{[]string{"check", "warn.yaml"}, 0},
		{[]string{"check", "--fail-on", "warning", "warn.yaml"}, 1},
		{[]string{"check", "--fail-on", "warning", "clean.yaml"}, 0},
		{[]string{"check", "error.yaml"}, 1},
		{[]string{"check", "--format", "xml", "clean.yaml"}, 2},
		{[]string{"check", "--fail-on", "info", "clean.yaml"}, 2},
		{[]string{"check", "--no-such-flag", "clean.yaml"}, 2},
	} {
		r := run(t, dir, env, tc.args...)
		if r.code != tc.code {
			t.Errorf("bwpolicy %s: exit %d, want %d\n%s", strings.Join(tc.args, " "), r.code, tc.code, r)
		}
	}
	r := run(t, dir, env, "check", "warn.yaml")
	wantContains(t, r, "stdout", "warning: cwd:")
	wantContains(t, r, "stdout", "[R7]")
}

// TestCheckCustomProfiles: --profiles adds profiles selectable with
// profile:, and the floor refuses one that drops an S property, with a
// positioned message.
func TestCheckCustomProfiles(t *testing.T) {
	env := sandboxEnv(t)
	good := "name:         \"ci\"\ndescription:  \"CI jobs: read-only checkout\"\ncwd_writable: false\nhidden_home: \".cargo/credentials.toml\": true\n"
	dir := testtree.Write(t, map[string]string{
		"profiles/ci.cue":     good,
		"profiles/leaky.cue":  "name:         \"leaky\"\ndescription:  \"shares the network\"\ncwd_writable: true\nnetwork:      \"host\"\n",
		"profiles/nossh.cue":  "name:         \"nossh\"\ndescription:  \"unhides ssh\"\ncwd_writable: true\nhidden_home: \".ssh\": false\n",
		"profiles/rwroot.cue": "name:         \"rwroot\"\ndescription:  \"writable root\"\ncwd_writable: true\nroot:         \"read-write\"\n",
		"sandbox/ci.yaml":     "profile: ci\nmemory_mb: 512\n",
		"sandbox/leaky.yaml":  "profile: leaky\n",
		"sandbox/nossh.yaml":  "profile: nossh\n",
	})
	r := run(t, dir, env, "check", "--profiles", "profiles", "sandbox")
	wantCode(t, r, 1)
	for _, want := range []string{
		`profiles/leaky.cue:4:15: error: network: profile "leaky" shares the host network`,
		`profiles/nossh.cue:4:22: error: hidden_home.".ssh": conflicting values false and true: every sandbox keeps hidden_home as #Profile fixes it (S5)`,
		`profiles/rwroot.cue:4:15: error: root: conflicting values "read-write" and "read-only": every sandbox keeps root as #Profile fixes it (S3)`,
		`sandbox/nossh.yaml:1:10: error: profile: profile "nossh" was refused (see profiles/nossh.cue:4:22) [profile]`,
		"[R13]",
		"7 files checked",
	} {
		wantContains(t, r, "stdout", want)
	}
	if strings.Contains(r.stdout, "sandbox/ci.yaml") {
		t.Errorf("the good profile's settings were reported:\n%s", r)
	}

	// The good profile alone: check passes, compile uses it.
	ok := testtree.Write(t, map[string]string{"profiles/ci.cue": good, "sandbox/ci.yaml": "profile: ci\nmemory_mb: 512\n"})
	r = run(t, ok, env, "check", "--profiles", "profiles", "sandbox")
	wantCode(t, r, 0)
	wantContains(t, r, "stdout", "2 files checked: 0 errors")
	r = run(t, ok, env, "compile", "--profiles", "profiles", "--config", "sandbox/ci.yaml")
	wantCode(t, r, 0)
	var inv struct {
		Profile string `json:"profile"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &inv); err != nil || inv.Profile != "ci" {
		t.Errorf("compile --profiles: profile %q (%v)\n%s", inv.Profile, err, r)
	}
}

// TestTestCommand: bwpolicy test runs *_test.rego like opa test.
func TestTestCommand(t *testing.T) {
	env := sandboxEnv(t)
	tests := `package limits_test

import data.bwpolicy.custom.limits

test_big_memory_denied if {
	count(limits.deny) == 1 with input as {"settings": {"memory_mb": 8192}}
}

test_small_memory_allowed if {
	count(limits.deny) == 0 with input as {"settings": {"memory_mb": 256}}
}
`
	dir := testtree.Write(t, map[string]string{"policy/limits.rego": limitsRego, "policy/limits_test.rego": tests})
	r := run(t, dir, env, "test", "policy")
	wantCode(t, r, 0)
	wantContains(t, r, "stdout", "policy/limits_test.rego:5: PASS data.limits_test.test_big_memory_denied")
	wantContains(t, r, "stdout", "PASS: 2 passed, 0 failed\n")

	failing := strings.Replace(tests, "== 0 with", "== 1 with", 1)
	dir = testtree.Write(t, map[string]string{"policy/limits.rego": limitsRego, "policy/limits_test.rego": failing})
	r = run(t, dir, env, "test", "policy")
	wantCode(t, r, 1)
	wantContains(t, r, "stdout", "policy/limits_test.rego:9: FAIL data.limits_test.test_small_memory_allowed")
	wantContains(t, r, "stdout", "failed at policy/limits_test.rego:10: count(limits.deny) == 1 with input as")
	wantContains(t, r, "stdout", "FAIL: 1 passed, 1 failed\n")

	r = run(t, dir, env, "test", "--format", "json", "policy")
	wantCode(t, r, 1)
	var res []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || len(res) != 2 || res[1]["result"] != "fail" {
		t.Errorf("json: %v\n%s", err, r)
	}

	dir = testtree.Write(t, map[string]string{"policy/limits.rego": limitsRego, "policy/limits_test.rego": "package limits_test\n\ntest_x if {\n\tcount(\n}\n"})
	r = run(t, dir, env, "test", "policy")
	wantCode(t, r, 2)
	wantContains(t, r, "stderr", "policy/limits_test.rego:5:1: error: rego_parse_error")

	dir = testtree.Write(t, map[string]string{"policy/limits.rego": limitsRego})
	r = run(t, dir, env, "test", "policy")
	wantCode(t, r, 2)
	wantContains(t, r, "stderr", "no test")
	wantCode(t, run(t, dir, env, "test"), 2)
	wantCode(t, run(t, dir, env, "test", "missing"), 2)
}

// TestCompletion: the scripts parse in their shells, and the bash one
// completes subcommands, flags and flag values.
func TestCompletion(t *testing.T) {
	env := sandboxEnv(t)
	dir := t.TempDir()
	for _, sh := range []string{"bash", "zsh", "fish"} {
		r := run(t, dir, env, "completion", sh)
		wantCode(t, r, 0)
		script := filepath.Join(dir, "bwpolicy."+sh)
		if err := os.WriteFile(script, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := exec.LookPath(sh); err != nil {
			t.Logf("%s not installed: syntax not checked", sh)
			continue
		}
		if out, err := exec.Command(sh, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", sh, err, out)
		}
	}
	wantCode(t, run(t, dir, env, "completion"), 2)
	wantCode(t, run(t, dir, env, "completion", "tcsh"), 2)

	complete := func(words ...string) []string {
		t.Helper()
		line := "source " + filepath.Join(dir, "bwpolicy.bash") + "\nCOMP_WORDS=("
		for _, w := range words {
			line += " '" + w + "'"
		}
		line += fmt.Sprintf(" )\nCOMP_CWORD=%d\n_bwpolicy\nprintf '%%s\\n' \"${COMPREPLY[@]}\"\n", len(words)-1)
		out, err := exec.Command("bash", "-c", line).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"bwpolicy", "ch"}, "check"},
		{[]string{"bwpolicy", "c"}, "completion"},
		{[]string{"bwpolicy", "check", "--format", ""}, "sarif"},
		{[]string{"bwpolicy", "check", "--fa"}, "--fail-on"},
		{[]string{"bwpolicy", "check", "--fail-on", "w"}, "warning"},
		{[]string{"bwpolicy", "compile", "--profile", "w"}, "workspace"},
		{[]string{"bwpolicy", "test", "--f"}, "--format"},
		{[]string{"bwpolicy", "completion", "f"}, "fish"},
	} {
		got := complete(tc.words...)
		if !contains(got, tc.want) {
			t.Errorf("completing %q: %v, want %q among them", tc.words, got, tc.want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestInternalFailureIsNotAFinding: a panic while checking a file (here:
// a host without a file system) is a failure of the run (exit 2), never
// a finding about the file (exit 1).
func TestInternalFailureIsNotAFinding(t *testing.T) {
	req := compiler.Request{Host: &facts.Host{Home: "/home/u", HermesHome: "/home/u/.hermes"}}
	dir := testtree.Write(t, map[string]string{"s.yaml": "profile: workspace\n"})
	findings, failures := checkFile(context.Background(), req, filepath.Join(dir, "s.yaml"), map[string][]byte{}, nil)
	if len(findings) != 0 || len(failures) != 1 || failures[0].Rule != "internal" {
		t.Fatalf("findings %v, failures %v; want one internal failure", findings, failures)
	}
	if failures[0].Pos.File == "" {
		t.Errorf("the failure does not name the file it happened on")
	}
}
