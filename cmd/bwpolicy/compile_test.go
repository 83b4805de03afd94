package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompileBadInput: every kind of bad input gets one positioned line
// and exit 1, never a stack trace, and -o never leaves a file behind.
func TestCompileBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unreadable := write("unreadable.yaml", "profile: workspace\n")
	os.Chmod(unreadable, 0)
	cases := []struct {
		name, file, want string
	}{
		{"malformed", write("bad.yaml", "binds: [\n"), "bad.yaml:1:8: error: invalid YAML"},
		{"wrong type", write("type.yaml", "memory_mb: lots\n"), "type.yaml:1:12: error: memory_mb: got string, want integer [schema]"},
		{"unknown key", write("unknown.yaml", "profile: workspace\nprofiel: x\n"), `unknown.yaml:2:1: error: profiel: unknown key "profiel" in the settings; did you mean "profile"? [schema]`},
		{"negative", write("neg.yaml", "cpu_seconds: -3\n"), "neg.yaml:1:14: error: cpu_seconds: must be at least 0, got -3 [schema]"},
		{"empty", write("empty.yaml", ""), "empty.yaml:1:1: error: empty settings file"},
		{"comments only", write("comments.yaml", "# nothing\n"), "comments.yaml:1:1: error: settings file has no content"},
		{"directory", dir, "error: is a directory, not a settings file [input]"},
		{"missing", filepath.Join(dir, "nope.yaml"), "nope.yaml: error: cannot read settings file: no such file or directory [input]"},
	}
	if os.Getuid() != 0 { // root reads a mode-0 file anyway
		cases = append(cases, struct{ name, file, want string }{"unreadable", unreadable, "unreadable.yaml: error: cannot read settings file: permission denied"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "_")+".json")
			r := run(t, dir, sandboxEnv(t), "compile", "--config", c.file, "-o", out)
			if r.code != 1 {
				t.Errorf("exit %d, want 1\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr lacks %q:\n%s", c.want, r.stderr)
			}
			if strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
				t.Errorf("stack trace:\n%s", r.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("-o wrote %s on error", out)
			}
			if strings.Contains(r.stdout, "{") {
				t.Errorf("printed an invocation on error:\n%s", r.stdout)
			}
		})
	}
}

// TestCompileNoSetup: with no file and no Hermes config, compile uses
// the embedded defaults; -o writes the invocation atomically (no temp
// file left beside it) and it is the same bytes as stdout.
func TestCompileNoSetup(t *testing.T) {
	dir := t.TempDir()
	env := sandboxEnv(t)
	r := run(t, dir, env, "compile", "--explain")
	if r.code != 0 || !strings.Contains(r.stdout, "profile network") || !strings.Contains(r.stdout, "settings:  <embedded defaults>") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r1 := run(t, dir, env, "compile")
	out := filepath.Join(dir, "inv.json")
	r2 := run(t, dir, env, "compile", "-o", out)
	if r1.code != 0 || r2.code != 0 {
		t.Fatalf("exit %d / %d: %s %s", r1.code, r2.code, r1.stderr, r2.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The same bytes: the invocation holds no time (issue 26).
	if string(data) != r1.stdout {
		t.Error("-o and stdout differ")
	}
	var inv map[string]any
	if err := json.Unmarshal(data, &inv); err != nil || inv["format"] != "bwpolicy.invocation/v1" {
		t.Fatalf("not an invocation: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	// Usage errors exit 2.
	if r := run(t, dir, env, "compile", "--no-such-flag"); r.code != 2 {
		t.Errorf("unknown flag: exit %d", r.code)
	}
	if r := run(t, dir, env, "compile", "extra"); r.code != 2 {
		t.Errorf("extra argument: exit %d", r.code)
	}
}

// TestCompileFindsHermesConfig: $HERMES_HOME/config.yaml is used with no
// flags, and errors point into it.
func TestCompileFindsHermesConfig(t *testing.T) {
	dir := t.TempDir()
	env := sandboxEnv(t)
	hh := filepath.Join(dir, "hermes")
	os.MkdirAll(hh, 0o755)
	os.WriteFile(filepath.Join(hh, "config.yaml"), []byte("plugins:\n  entries:\n    bubblewrap:\n      settings:\n        profile: workspace\n        memory_mb: -1\n"), 0o644)
	env = append(env, "HERMES_HOME="+hh)
	r := run(t, dir, env, "compile")
	if r.code != 1 || !strings.Contains(r.stderr, filepath.Join(hh, "config.yaml")+":6:20: error: memory_mb") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(hh, "config.yaml"), []byte("plugins:\n  entries:\n    bubblewrap:\n      settings:\n        profile: workspace\n"), 0o644)
	r = run(t, dir, env, "compile", "--explain")
	if r.code != 0 || !strings.Contains(r.stdout, "profile workspace") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
