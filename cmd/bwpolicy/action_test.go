package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The composite GitHub Action (action.yml at the repository root) is
// tested by running its own steps: the "run:" steps with bash as a runner
// would (RUNNER_TEMP, GITHUB_PATH, GITHUB_ACTION_PATH, the step's env and
// working-directory, the inputs' defaults and the ${{ }} expressions they
// use), in a copy of the example repository of docs/ci.md; the "uses:"
// steps are checked for what they are given.

// actionDef is the part of action.yml the test reads.
type actionDef struct {
	Name   string `yaml:"name"`
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name             string            `yaml:"name"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
	Run              string            `yaml:"run"`
}

var actionExpr = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// expand evaluates the ${{ }} expressions the action uses in the fields
// the runner expands: inputs.NAME and github.action_path. Any other
// expression fails the test, so the action cannot grow one this test
// does not run.
func expand(t *testing.T, s string, inputs map[string]string, actionPath string) string {
	t.Helper()
	return actionExpr.ReplaceAllStringFunc(s, func(m string) string {
		e := actionExpr.FindStringSubmatch(m)[1]
		if e == "github.action_path" {
			return actionPath
		}
		if name, ok := strings.CutPrefix(e, "inputs."); ok {
			if v, ok := inputs[name]; ok {
				return v
			}
		}
		t.Fatalf("action.yml: expression %q is not one the test evaluates", m)
		return ""
	})
}

// runAction runs the action's steps in workspace with the given inputs
// (over the defaults) and returns the check step's result.
//
// runner is RUNNER_TEMP, one for the calls of a test as on a runner
// that runs the action more than once: the build step still runs each
// time, and go build finds its output there up to date instead of
// linking it again (seconds a call).
func runAction(t *testing.T, act actionDef, runner, workspace string, given map[string]string) result {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{}
	for k, in := range act.Inputs {
		inputs[k] = in.Default
	}
	for k, v := range given {
		if _, ok := act.Inputs[k]; !ok {
			t.Fatalf("action.yml has no input %q", k)
		}
		inputs[k] = v
	}
	ghPath := filepath.Join(t.TempDir(), "github_path")
	if err := os.WriteFile(ghPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The runner's PATH without the test's own binary: the action must
	// build and add its own.
	var path []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if d != binDir {
			path = append(path, d)
		}
	}
	// The Go caches of the test's own go (setup-go gives the runner its
	// own): with the fresh HOME of sandboxEnv, go would rebuild and
	// download everything.
	base := append(sandboxEnv(t), goEnv(t, "GOCACHE"), goEnv(t, "GOMODCACHE"), goEnv(t, "GOPATH"), goEnv(t, "GOFLAGS"), "GOTOOLCHAIN=local")
	var check result
	ran := false
	for _, s := range act.Runs.Steps {
		if s.Run == "" {
			continue
		}
		if s.Shell != "bash" {
			t.Fatalf("step %q: shell %q, want bash (composite steps must name one)", s.Name, s.Shell)
		}
		env := []string{}
		for _, kv := range base {
			if !strings.HasPrefix(kv, "PATH=") {
				env = append(env, kv)
			}
		}
		// GITHUB_PATH lines are prepended to PATH for the later steps.
		added, _ := os.ReadFile(ghPath)
		p := append(strings.Fields(string(added)), path...)
		env = append(env, "PATH="+strings.Join(p, string(os.PathListSeparator)),
			"RUNNER_TEMP="+runner, "GITHUB_PATH="+ghPath, "GITHUB_WORKSPACE="+workspace, "GITHUB_ACTION_PATH="+repo)
		for k, v := range s.Env {
			env = append(env, k+"="+expand(t, v, inputs, repo))
		}
		dir := workspace
		if s.WorkingDirectory != "" {
			dir = expand(t, s.WorkingDirectory, inputs, repo)
		}
		if strings.Contains(s.Run, "${{") {
			t.Fatalf("step %q: an expression inside run: (script injection); pass it through env:", s.Name)
		}
		r := runShell(t, dir, env, s.Run)
		if strings.Contains(s.Run, "bwpolicy check") {
			check, ran = r, true
			continue
		}
		if r.code != 0 {
			t.Fatalf("step %q: exit %d\n%s", s.Name, r.code, r)
		}
	}
	if !ran {
		t.Fatal("action.yml has no step that runs bwpolicy check")
	}
	return check
}

// goEnv returns "NAME=value" of go env NAME.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return name + "=" + strings.TrimSpace(string(out))
}

func TestAction(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: make ci runs it (LONG_TESTS)")
	}
	t.Parallel() // runs bwpolicy in its own directories: side by side with the other slow tests
	var act actionDef
	readYAML(t, "../../action.yml", &act)
	if act.Runs.Using != "composite" {
		t.Fatalf("runs.using %q, want composite", act.Runs.Using)
	}
	// The uses: steps: Go from bwpolicy's own go.mod, and the SARIF the
	// check step wrote uploaded even when the check failed.
	var setupGo, upload *actionStep
	for i, s := range act.Runs.Steps {
		switch {
		case strings.HasPrefix(s.Uses, "actions/setup-go@"):
			setupGo = &act.Runs.Steps[i]
		case strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@"):
			upload = &act.Runs.Steps[i]
		}
	}
	if setupGo == nil || setupGo.With["go-version-file"] != "${{ github.action_path }}/go.mod" {
		t.Errorf("action.yml: want actions/setup-go with go-version-file ${{ github.action_path }}/go.mod, got %+v", setupGo)
	}
	if upload == nil || upload.With["sarif_file"] != "${{ inputs.sarif-file }}" || !strings.Contains(upload.If, "always()") {
		t.Errorf("action.yml: want upload-sarif of inputs.sarif-file under if: always(), got %+v", upload)
	}

	// docs/ci.md documents every input, with its default.
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range act.Inputs {
		row := "| `" + name + "` | "
		if in.Default != "" {
			row += "`" + in.Default + "` |"
		}
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/ci.md lacks the row of input %s (%q)", name, row)
		}
	}

	// The inputs docs/ci.md's workflow gives the action.
	var wf struct {
		Jobs map[string]struct {
			Steps []actionStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, filepath.Join(ciDir, "github-action.yml"), &wf)
	var given map[string]string
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "bwpolicy/bwpolicy@") {
				given = s.With
			}
		}
	}
	if given == nil {
		t.Fatal("testdata/ci/github-action.yml does not use bwpolicy/bwpolicy@...")
	}

	// The example repository passes, and the SARIF is valid.
	runner := t.TempDir()
	good := copyDir(t, filepath.Join(ciDir, "example"))
	r := runAction(t, act, runner, good, given)
	wantCode(t, r, 0)
	wantContains(t, r, "stdout", "files checked: 0 errors")
	out, err := os.ReadFile(filepath.Join(good, "bwpolicy.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, out)

	// A settings file over the organisation's cap fails the step, and
	// the SARIF (written anyway, for the upload) locates it.
	bad := copyDir(t, filepath.Join(ciDir, "example"))
	if err := os.WriteFile(filepath.Join(bad, "sandbox", "big.yaml"), []byte("profile: workspace\nmemory_mb: 8192\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	given["sarif-file"] = "out/results.sarif"
	if err := os.Mkdir(filepath.Join(bad, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = runAction(t, act, runner, bad, given)
	wantCode(t, r, 1)
	wantContains(t, r, "stdout", "sandbox/big.yaml:2:12: error: memory_mb: memory_mb above the 4096 allowed here [custom.limits]")
	out, err = os.ReadFile(filepath.Join(bad, "out", "results.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, out)
	if !strings.Contains(string(out), `"uri": "sandbox/big.yaml"`) {
		t.Errorf("SARIF does not locate sandbox/big.yaml")
	}

	// Inputs are data, not shell: a path with shell syntax is a name
	// that does not exist (exit 2), never a command.
	given["paths"] = "sandbox/ $(touch${IFS}pwned) *"
	r = runAction(t, act, runner, bad, given)
	wantCode(t, r, 2)
	if _, err := os.Stat(filepath.Join(bad, "pwned")); err == nil {
		t.Error("an input ran as a command")
	}

	// A path with spaces, one a line (blank lines and surrounding
	// spaces ignored), and, as a JSON array, a name with a newline: each
	// is checked, and its finding located.
	odd := copyDir(t, filepath.Join(ciDir, "example"))
	for _, name := range []string{"team a/sandbox b.yaml", "line\nbreak.yaml"} {
		f := filepath.Join(odd, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("profile: workspace\nmemory_mb: 8192\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	given["sarif-file"] = "bwpolicy.sarif"
	for _, c := range []struct{ paths, want, count string }{
		{"sandbox/\n\n  team a/sandbox b.yaml  \n", "team a/sandbox b.yaml:2:12: error", "5 files checked"},
		{`["sandbox/", "line\nbreak.yaml"]`, "2:12: error: memory_mb", "5 files checked"},
		{`["team a/sandbox b.yaml"]`, "team a/sandbox b.yaml:2:12: error", "2 files checked"},
	} {
		given["paths"] = c.paths
		r = runAction(t, act, runner, odd, given)
		wantCode(t, r, 1)
		wantContains(t, r, "stdout", c.want)
		wantContains(t, r, "stdout", c.count)
	}
	given["paths"] = `["unterminated`
	r = runAction(t, act, runner, odd, given)
	wantCode(t, r, 2)
}
