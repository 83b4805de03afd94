package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDirRecursive: a directory is checked recursively (the file
// nested two levels down used to be skipped), without hidden entries and
// without what --exclude names; a bad pattern is a usage error.
func TestCheckDirRecursive(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"tree/ok.yml":                  "profile: workspace\n",
		"tree/nested/deeper/bad.yaml":  "profile: Bad\n",
		"tree/.hidden/bad.yaml":        "profile: Bad\n",
		"tree/.gitlab-ci.yml":          "stages: [x]\n",
		"tree/vendor/v.yaml":           "profile: Bad\n",
		"tree/nested/skip.yaml":        "profile: Bad\n",
		"tree/nested/deeper/notes.txt": "profile: Bad\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := sandboxEnv(t)
	r := run(t, dir, env, "check", "tree")
	for _, w := range []string{"tree/nested/deeper/bad.yaml:1:10:", "tree/vendor/v.yaml:1:10:", "tree/nested/skip.yaml:1:10:", "4 files checked: 3 errors"} {
		if r.code != exitFound || !strings.Contains(r.stdout, w) {
			t.Fatalf("want exit 1 and %q\n%s", w, r)
		}
	}
	if strings.Contains(r.stdout, ".hidden") || strings.Contains(r.stdout, "gitlab") {
		t.Fatalf("hidden entries checked\n%s", r)
	}
	r = run(t, dir, env, "check", "--exclude", "vendor", "--exclude", "nested/*.yaml", "tree")
	if r.code != exitFound || !strings.Contains(r.stdout, "2 files checked: 1 error") || strings.Contains(r.stdout, "vendor") || strings.Contains(r.stdout, "skip.yaml") {
		t.Fatalf("--exclude\n%s", r)
	}
	r = run(t, dir, env, "check", "--exclude", "*", "tree")
	if r.code != exitUsage || !strings.Contains(r.stderr, "no settings files") {
		t.Fatalf("everything excluded: want exit 2\n%s", r)
	}
	r = run(t, dir, env, "check", "--exclude", "[", "tree")
	if r.code != exitUsage || !strings.Contains(r.stderr, `--exclude "[": syntax error in pattern`) {
		t.Fatalf("bad pattern: want exit 2\n%s", r)
	}
}

// TestCheckStdin: "-" checks standard input, bounded like a file.
func TestCheckStdin(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		code     int
	}{
		{"memory_mb: .inf\n", "<stdin>:1:12: error: memory_mb: must be a finite number", exitFound},
		{"profile: workspace\n", "1 file checked: 0 errors", exitOK},
		{"cwd: /" + strings.Repeat("a", 3<<20), "<stdin>:1:1: error: settings file larger than 1048576 bytes", exitFound},
	} {
		out, code := runStdin(t, tc.in, "check", "-")
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("want exit %d and %q, got %d:\n%s", tc.code, tc.want, code, out)
		}
	}
}

// TestCheckOutputFile: -o FILE writes the report there (atomically; not
// onto a symbolic link) and a text summary to standard output, so one
// run feeds both the log and the SARIF upload.
func TestCheckOutputFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte("memory_mb: -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := sandboxEnv(t)
	r := run(t, dir, env, "check", "--format", "sarif", "-o", "out.sarif", "s.yaml")
	if r.code != exitFound || !strings.Contains(r.stdout, "s.yaml:1:12: error: memory_mb: must be at least 0, got -1 [schema]") {
		t.Fatalf("want exit 1 and the text report on stdout\n%s", r)
	}
	sarif, err := os.ReadFile(filepath.Join(dir, "out.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, sarif)
	os.Symlink("out.sarif", filepath.Join(dir, "link.sarif"))
	r = run(t, dir, env, "check", "--format", "sarif", "-o", "link.sarif", "s.yaml")
	if r.code != exitUsage || !strings.Contains(r.stderr, "is a symbolic link") {
		t.Fatalf("-o onto a symbolic link: want exit 2\n%s", r)
	}
}

// TestCompileConfigStdin: compile --config - (and --explain) read the
// settings from standard input as check - does, bounded like a file and
// positioned at <stdin>; before, "-" was a file name that did not exist.
func TestCompileConfigStdin(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		in, want string
		code     int
	}{
		{[]string{"compile", "--config", "-"}, "profile: workspace\n", `"profile": "workspace"`, exitOK},
		{[]string{"compile", "--explain", "--config", "-"}, "profile: restricted\n", "restricted", exitOK},
		{[]string{"compile", "--config", "-"}, "profile: workspace\nmemory_mb: .inf\n", "<stdin>:2:12: error: memory_mb: must be a finite number", exitFound},
		{[]string{"compile", "--config", "-"}, "cwd: /" + strings.Repeat("a", 3<<20), "<stdin>:1:1: error: settings file larger than 1048576 bytes", exitFound},
	} {
		out, code := runStdin(t, tc.in, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: want exit %d and %q, got %d:\n%s", tc.args, tc.code, tc.want, code, out)
		}
	}
}

// runStdin runs bwpolicy with args and in on standard input, in a fresh
// directory; it returns standard output and error together, and the
// exit status.
func runStdin(t *testing.T, in string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bwpolicyBin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = sandboxEnv(t)
	cmd.Stdin = strings.NewReader(in)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return out.String(), code
}
