package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/report"
)

// TestRuleExamples: the command-line examples docs/rules.md shows
// (report.CLIExamples) print exactly what they say, with the exit status
// they say. An example whose output changed (a golden invocation it
// edits was regenerated, say) is updated in report/examples.go, then
// docs/rules.md with BWPOLICY_UPDATE_DOCS=1 go test ./report -run
// TestRulesDoc.
func TestRuleExamples(t *testing.T) {
	env := sandboxEnv(t)
	for _, ex := range report.CLIExamples {
		t.Run(ex.ID, func(t *testing.T) {
			dir := t.TempDir()
			writeExampleFiles(t, dir, ex)
			var r result
			switch ex.Fault {
			case "":
				r = run(t, dir, env, ex.Args...)
			case report.FaultHostWithoutFS:
				r = runFaulty(t, dir, ex.Args)
			default:
				t.Fatalf("unknown fault %q", ex.Fault)
			}
			if r.code != ex.Exit || r.stdout != ex.Stdout || r.stderr != ex.Stderr {
				t.Errorf("bwpolicy %v: got exit %d\n--- stdout\n%s--- stderr\n%s\nwant exit %d\n--- stdout\n%s--- stderr\n%s",
					ex.Args, r.code, r.stdout, r.stderr, ex.Exit, ex.Stdout, ex.Stderr)
			}
		})
	}
}

// writeExampleFiles writes ex's files (and its edited file) into dir.
func writeExampleFiles(t *testing.T, dir string, ex report.CLIExample) {
	t.Helper()
	files := map[string]string{}
	for name, content := range ex.Files {
		files[name] = content
	}
	if e := ex.Edit; e != nil {
		src, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(e.From)))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), e.Old); n != 1 {
			t.Fatalf("%s holds the text the example replaces %d times, want once: update report.CLIExamples", e.From, n)
		}
		files[e.File] = strings.Replace(string(src), e.Old, e.New, 1)
	}
	for name, content := range files {
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
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// runFaulty runs bwpolicy in-process in dir with check's host replaced
// by a model without a file system, so that compiling panics: the
// internal failure no input provokes.
func runFaulty(t *testing.T, dir string, args []string) result {
	t.Helper()
	t.Chdir(dir)
	t.Setenv("HOME", dir)
	saved := checkHost
	t.Cleanup(func() { checkHost = saved })
	checkHost = func() *facts.Host { return &facts.Host{Home: "/home/u", HermesHome: "/home/u/.hermes"} }
	var out, errb bytes.Buffer
	code := mainCode(args, &out, &errb)
	return result{out.String(), errb.String(), code}
}
