package main

import (
	"testing"

	"github.com/bwpolicy/bwpolicy/internal/testtree"
)

// TestMistypedKey: an unknown settings key names the closest key the
// schema allows at that place (top level, nested, in a list item), and
// none when nothing is close.
func TestMistypedKey(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"k.yaml": "profile: workspace\nmemroy_mb: 1\nseccomp:\n  alow: [ptrace]\nbinds:\n  - {src: /usr, readonyl: true}\nzzzz: 1\n",
	})
	r := run(t, dir, sandboxEnv(t), "check", "k.yaml")
	wantCode(t, r, 1)
	for _, want := range []string{
		`k.yaml:2:1: error: memroy_mb: unknown key "memroy_mb" in the settings; did you mean "memory_mb"? [schema]`,
		`k.yaml:4:3: error: seccomp.alow: unknown key "alow" in the settings; did you mean "allow"? [schema]`,
		`binds[0].readonyl: unknown key "readonyl" in the settings; did you mean "readonly"? [schema]`,
		`k.yaml:7:1: error: zzzz: unknown key "zzzz" in the settings [schema]`,
	} {
		wantContains(t, r, "stdout", want)
	}
}

// TestBwrapEnvNamed: BWPOLICY_BWRAP naming a file that is not there is
// named in compile's and run's errors, not only "bwrap not found".
func TestBwrapEnvNamed(t *testing.T) {
	dir := t.TempDir()
	env := append(sandboxEnv(t), "BWPOLICY_BWRAP=/nonexistent/bwrap-ciformats")
	r := run(t, dir, env, "compile", "--cwd", dir)
	wantCode(t, r, 0) // a degraded invocation, with the S10 warning
	wantContains(t, r, "stderr", "bwpolicy compile: $BWPOLICY_BWRAP=/nonexistent/bwrap-ciformats:")
	r = run(t, dir, env, "run", "--cwd", dir, "--", "true")
	wantCode(t, r, 125)
	wantContains(t, r, "stderr", "bwpolicy run: $BWPOLICY_BWRAP=/nonexistent/bwrap-ciformats:")
	r = run(t, dir, env, "doctor")
	wantCode(t, r, 1)
	wantContains(t, r, "stdout", "/nonexistent/bwrap-ciformats")
}
