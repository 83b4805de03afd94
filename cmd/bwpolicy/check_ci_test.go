package main

import (
	"encoding/xml"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// The "Use in CI" examples (testdata/ci, shown in docs/ci.md) are tested
// by running their own command lines: every line of the GitHub workflow's
// run steps and of the GitLab job's scripts that starts with "bwpolicy",
// and every pre-commit hook the example config uses, built from the
// hook's entry, args and files pattern in .pre-commit-hooks.yaml. They
// run with bash in a copy of testdata/ci/example (the repository the
// examples are written for), with the built binary first on PATH.

const ciDir = "../../testdata/ci"

// ciCommand is one command line of an example, and where it comes from.
type ciCommand struct {
	from, line string
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// bwpolicyLines returns the lines of a shell script that run bwpolicy.
func bwpolicyLines(script string) []string {
	var out []string
	for _, l := range strings.Split(script, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "bwpolicy ") {
			out = append(out, l)
		}
	}
	return out
}

func githubCommands(t *testing.T) []ciCommand {
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, filepath.Join(ciDir, "github-workflow.yml"), &wf)
	var out []ciCommand
	for job, j := range wf.Jobs {
		for _, s := range j.Steps {
			for _, l := range bwpolicyLines(s.Run) {
				out = append(out, ciCommand{"github-workflow.yml " + job + ": " + s.Name, l})
			}
		}
	}
	return out
}

func gitlabCommands(t *testing.T) []ciCommand {
	var jobs map[string]any
	readYAML(t, filepath.Join(ciDir, ".gitlab-ci.yml"), &jobs)
	var out []ciCommand
	for name, j := range jobs {
		m, ok := j.(map[string]any)
		if !ok {
			continue
		}
		for _, key := range []string{"before_script", "script", "after_script"} {
			lines, _ := m[key].([]any)
			for _, l := range lines {
				s, _ := l.(string)
				for _, c := range bwpolicyLines(s) {
					out = append(out, ciCommand{".gitlab-ci.yml " + name + "." + key, c})
				}
			}
		}
	}
	return out
}

// precommitCommands builds the command pre-commit runs for each hook of
// the example config: entry, args, then (unless pass_filenames is false)
// the repository's files that match the hook's files pattern.
func precommitCommands(t *testing.T, repo string) []ciCommand {
	type hookDef struct {
		ID            string `yaml:"id"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		Files         string `yaml:"files"`
		PassFilenames *bool  `yaml:"pass_filenames"`
	}
	var defs []hookDef
	readYAML(t, "../../.pre-commit-hooks.yaml", &defs)
	var cfg struct {
		Repos []struct {
			Repo  string `yaml:"repo"`
			Hooks []struct {
				ID   string   `yaml:"id"`
				Args []string `yaml:"args"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	readYAML(t, filepath.Join(ciDir, ".pre-commit-config.yaml"), &cfg)
	var files []string
	filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(repo, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	var out []ciCommand
	for _, r := range cfg.Repos {
		for _, h := range r.Hooks {
			var def *hookDef
			for i := range defs {
				if defs[i].ID == h.ID {
					def = &defs[i]
				}
			}
			if def == nil {
				t.Fatalf(".pre-commit-config.yaml uses hook %q, which .pre-commit-hooks.yaml does not define", h.ID)
			}
			if def.Language != "golang" {
				t.Errorf("hook %s: language %q, want golang (pre-commit builds the binary)", h.ID, def.Language)
			}
			args := append(strings.Fields(def.Entry), h.Args...)
			if def.PassFilenames == nil || *def.PassFilenames {
				re := regexp.MustCompile(def.Files)
				n := 0
				for _, f := range files {
					if re.MatchString(f) {
						args = append(args, f)
						n++
					}
				}
				if n == 0 {
					t.Errorf("hook %s: its files pattern matches nothing in the example", h.ID)
				}
			}
			out = append(out, ciCommand{".pre-commit-config.yaml " + h.ID, strings.Join(args, " ")})
		}
	}
	return out
}

// copyDir copies src into a new temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func runShell(t *testing.T, dir string, env []string, line string) result {
	t.Helper()
	cmd := exec.Command("bash", "-e", "-o", "pipefail", "-c", line)
	cmd.Dir = dir
	cmd.Env = env
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func TestCIExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: make ci runs it (LONG_TESTS)")
	}
	t.Parallel() // runs bwpolicy in its own directories: side by side with the other slow tests
	gh, gl := githubCommands(t), gitlabCommands(t)
	if len(gh) < 3 || len(gl) < 3 {
		t.Fatalf("found %d GitHub and %d GitLab bwpolicy command lines; the extraction is out of date", len(gh), len(gl))
	}
	env := sandboxEnv(t)

	// The example repository passes every command.
	good := copyDir(t, filepath.Join(ciDir, "example"))
	cmds := append(append(append([]ciCommand(nil), gh...), gl...), precommitCommands(t, good)...)
	for _, c := range cmds {
		t.Logf("%s: %s", c.from, c.line)
		r := runShell(t, good, env, c.line)
		if r.code != 0 {
			t.Errorf("%s: %q: exit %d, want 0\n%s", c.from, c.line, r.code, r)
		}
		if strings.Contains(c.line, "--format sarif") {
			out, err := os.ReadFile(filepath.Join(good, "bwpolicy.sarif"))
			if err != nil {
				t.Fatalf("%s: no bwpolicy.sarif: %v", c.from, err)
			}
			validateSARIF(t, out)
		}
	}

	// A settings file over the organisation's memory cap fails every
	// check command (exit 1) and is reported at its line; the tests of
	// the rules still pass.
	bad := copyDir(t, filepath.Join(ciDir, "example"))
	if err := os.WriteFile(filepath.Join(bad, "sandbox", "big.yaml"), []byte("profile: workspace\nmemory_mb: 8192\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds = append(append(append([]ciCommand(nil), gh...), gl...), precommitCommands(t, bad)...)
	for _, c := range cmds {
		r := runShell(t, bad, env, c.line)
		want := 1
		if strings.HasPrefix(c.line, "bwpolicy test") {
			want = 0
		}
		if r.code != want {
			t.Errorf("%s: %q on a bad settings file: exit %d, want %d\n%s", c.from, c.line, r.code, want, r)
		}
		switch {
		case strings.Contains(c.line, "--format github"):
			wantContains(t, r, "stdout", "::error file=sandbox/big.yaml,line=2,col=12,title=custom.limits::")
		case strings.Contains(c.line, "--format sarif"):
			out, _ := os.ReadFile(filepath.Join(bad, "bwpolicy.sarif"))
			validateSARIF(t, out)
			if !strings.Contains(string(out), `"uri": "sandbox/big.yaml"`) {
				t.Errorf("%s: SARIF does not locate sandbox/big.yaml", c.from)
			}
		case strings.Contains(c.line, "--format gitlab"):
			out, _ := os.ReadFile(filepath.Join(bad, "gl-code-quality-report.json"))
			if !strings.Contains(string(out), `"path": "sandbox/big.yaml"`) {
				t.Errorf("%s: the Code Quality report does not name sandbox/big.yaml:\n%s", c.from, out)
			}
			wantContains(t, r, "stdout", "sandbox/big.yaml:2:12: error: memory_mb: memory_mb above the 4096 allowed here [custom.limits]")
		case strings.Contains(c.line, "--format junit") && strings.HasPrefix(c.line, "bwpolicy check"):
			out, _ := os.ReadFile(filepath.Join(bad, "bwpolicy-check.xml"))
			if err := xml.Unmarshal(out, new(struct{})); err != nil || !strings.Contains(string(out), `<testsuite name="sandbox/big.yaml" tests="1" failures="1"`) {
				t.Errorf("%s: the JUnit report (%v) lacks the failing sandbox/big.yaml:\n%s", c.from, err, out)
			}
		case strings.HasPrefix(c.line, "bwpolicy check"):
			wantContains(t, r, "stdout", "sandbox/big.yaml:2:12: error: memory_mb: memory_mb above the 4096 allowed here [custom.limits]")
		}
	}
}

// TestCIDocsShowTheTestedExamples: docs/ci.md shows each example file
// exactly as tested.
func TestCIDocsShowTheTestedExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		filepath.Join(ciDir, "github-workflow.yml"),
		filepath.Join(ciDir, "github-action.yml"),
		filepath.Join(ciDir, ".gitlab-ci.yml"),
		filepath.Join(ciDir, ".pre-commit-config.yaml"),
		"../../.pre-commit-hooks.yaml",
		filepath.Join(ciDir, "example", "policy", "limits.rego"),
		filepath.Join(ciDir, "example", "policy", "limits_test.rego"),
		filepath.Join(ciDir, "example", "profiles", "ci.cue"),
	} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), string(b)) {
			t.Errorf("docs/ci.md does not show %s as it is", f)
		}
	}
}
