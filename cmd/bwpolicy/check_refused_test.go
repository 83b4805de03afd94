package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSelectsRefusedProfile: a settings file that selects a custom
// profile R13 refuses gets its own finding on its profile: line (in text
// and in SARIF), besides the findings at the profile's file.
func TestCheckSelectsRefusedProfile(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "prof"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "prof", "leaky.cue"), []byte("name: \"leaky\"\ndescription: \"x\"\ncwd_writable: true\nnetwork: \"host\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sel.yaml"), []byte("memory_mb: 100\nprofile: leaky\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, sandboxEnv(t), "check", "--profiles", "prof", "sel.yaml")
	want := `sel.yaml:2:10: error: profile: profile "leaky" was refused (see prof/leaky.cue:4:10) [profile]`
	if r.code != exitFound || !strings.Contains(r.stdout, want) {
		t.Fatalf("want exit 1 and %q\n%s", want, r)
	}
	s := run(t, dir, sandboxEnv(t), "check", "--format", "sarif", "--profiles", "prof", "sel.yaml")
	validateSARIF(t, []byte(s.stdout))
	if !strings.Contains(s.stdout, `"uri": "sel.yaml"`) || !strings.Contains(s.stdout, `"startLine": 2`) {
		t.Errorf("SARIF lacks the finding on sel.yaml:2\n%s", s.stdout)
	}
}
