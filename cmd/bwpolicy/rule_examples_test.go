package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/bwpolicy/bwpolicy/report"
)

// TestRuleExamples: the command-line examples docs/rules.md shows
// (report.CLIExamples) print exactly what they say, with the exit status
// they say.
func TestRuleExamples(t *testing.T) {
	env := sandboxEnv(t)
	for _, ex := range report.CLIExamples {
		t.Run(ex.ID, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range ex.Files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if content == "<fifo>" {
					if err := syscall.Mkfifo(p, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := run(t, dir, env, ex.Args...)
			if r.code != ex.Exit || r.stdout != ex.Stdout || r.stderr != ex.Stderr {
				t.Errorf("bwpolicy %v: got exit %d\n--- stdout\n%s--- stderr\n%s\nwant exit %d\n--- stdout\n%s--- stderr\n%s",
					ex.Args, r.code, r.stdout, r.stderr, ex.Exit, ex.Stdout, ex.Stderr)
			}
		})
	}
}
