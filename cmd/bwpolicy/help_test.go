package main

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestHelpEveryCommand: every subcommand answers --help, -h and -help
// (and `bwpolicy help NAME`) on standard output with exit 0: its
// synopsis, a description, every flag of the flag set it parses with
// spelled --flag (-o for one letter; never a single dash before a long
// name), and its exit statuses, each documented code listed.
func TestHelpEveryCommand(t *testing.T) {
	env := sandboxEnv(t)
	dir := t.TempDir()
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 8 {
		t.Fatalf("only %d commands registered: %v", len(names), names)
	}
	singleDashLong := regexp.MustCompile(`(?m)^\s+-[a-z][a-z-]+`)
	for _, n := range names {
		c := commands[n]
		fs, _ := c.flagSet(io.Discard)
		for _, args := range [][]string{{n, "--help"}, {n, "-h"}, {n, "-help"}, {"help", n}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				r := run(t, dir, env, args...)
				wantCode(t, r, 0)
				if r.stderr != "" {
					t.Errorf("help wrote to stderr: %q", r.stderr)
				}
				out := r.stdout
				wantContains(t, r, "stdout", "usage: bwpolicy "+n)
				if strings.TrimSpace(c.description) == "" || !strings.Contains(out, strings.TrimSpace(c.description)) {
					t.Errorf("no description")
				}
				fs.VisitAll(func(f *flag.Flag) {
					if !strings.Contains(out, "\n  "+dashed(f.Name)) {
						t.Errorf("flag %s not listed as %s", f.Name, dashed(f.Name))
					}
				})
				if m := singleDashLong.FindString(out); m != "" {
					t.Errorf("a long flag spelled with one dash: %q", m)
				}
				if !strings.Contains(out, "\nexit status:\n") || len(c.exits) == 0 {
					t.Fatalf("no exit statuses")
				}
				for _, e := range c.exits {
					if !strings.Contains(out, fmt.Sprintf("  %3d  %s\n", e.code, e.meaning)) {
						t.Errorf("exit status %d not listed", e.code)
					}
				}
			})
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := run(t, dir, env, args...)
		wantCode(t, r, 0)
		for _, n := range names {
			wantContains(t, r, "stdout", "\n  "+n+" ")
		}
	}
	wantCode(t, run(t, dir, env), 2)
}

// TestUsageErrors: an unknown flag, a bad flag value or a wrong argument
// is a usage error: exit 2 in every command but run, which exits 125
// (its 2 is the command's) and says so in its --help; each prints the
// synopsis and where to find more.
func TestUsageErrors(t *testing.T) {
	env := sandboxEnv(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"check", "--nosuch"}, 2, "flag provided but not defined: -nosuch"},
		{[]string{"check", "--format", "xml"}, 2, `unknown format "xml"`},
		{[]string{"check", "--fail-on", "info"}, 2, "--fail-on"},
		{[]string{"compile", "--nosuch"}, 2, "usage: bwpolicy compile"},
		{[]string{"compile", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"verify"}, 2, "name one INVOCATION file"},
		{[]string{"verify", "--nosuch", "x.json"}, 2, "usage: bwpolicy verify"},
		{[]string{"doctor", "--format", "yaml"}, 2, "text or json"},
		{[]string{"doctor", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"test"}, 2, "name at least one DIR"},
		{[]string{"test", "--nosuch", "."}, 2, "usage: bwpolicy test"},
		{[]string{"test", "--format", "xml", "."}, 2, `unknown format "xml"`},
		{[]string{"version", "extra"}, 2, "takes no arguments"},
		{[]string{"completion"}, 2, "name one shell"},
		{[]string{"completion", "pwsh"}, 2, `unknown shell "pwsh"`},
		{[]string{"run", "--nosuch", "--", "true"}, 125, "usage: bwpolicy run"},
		{[]string{"run"}, 125, "missing command"},
		{[]string{"run", "--timeout", "x", "--", "true"}, 125, "--timeout"},
		{[]string{"chekc"}, 2, `did you mean "check"`},
		{[]string{"help", "verfy"}, 2, `unknown command "verfy"; did you mean "verify"?`},
	} {
		r := run(t, dir, env, tc.args...)
		if r.code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, r.code, tc.code, r)
		}
		if !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: stderr lacks %q\n%s", tc.args, tc.want, r)
		}
	}
	r := run(t, dir, env, "run", "--help")
	wantContains(t, r, "stdout", "125  ")
	wantContains(t, r, "stdout", "run keeps 125 for its own\nusage errors")
}
