package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/policy"
)

func init() {
	register("test", "run the Rego unit tests (*_test.rego) of organisation rules, like opa test", testMain)
}

const testUsage = `usage: bwpolicy test [--run REGEX] [--timeout DURATION] [--format text|json] DIR...

Compiles the .rego files under each DIR (the organisation rules that check
--policy DIR loads, and their *_test.rego tests) with bwpolicy's built-in
rules, and runs every rule named test_* (todo_test_* is skipped), like
opa test. A test in a package outside bwpolicy.custom may also query the
whole decision, data.bwpolicy.main.result.

exit status: 0 every test passed; 1 a test failed or errored; 2 usage error,
a file that does not parse or compile, or no test found.

options:
`

// testJSON is one result of `bwpolicy test --format json`.
type testJSON struct {
	Name       string  `json:"name"`
	File       string  `json:"file"`
	Line       int     `json:"line"`
	Result     string  `json:"result"` // pass, fail, error, skip
	Detail     string  `json:"detail,omitempty"`
	Output     string  `json:"output,omitempty"`
	DurationMS float64 `json:"duration_ms"`
}

func testMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("test", stderr)
	run := fs.String("run", "", "run only the tests whose name (data.pkg.test_name) matches `REGEX`")
	timeout := fs.Duration("timeout", 5*time.Second, "fail a test that runs longer than `DURATION`")
	format := fs.String("format", "text", "output `FORMAT`: text|json")
	fs.Usage = func() {
		fmt.Fprint(stderr, testUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "bwpolicy test: name at least one DIR of .rego files")
		fs.Usage()
		return exitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "bwpolicy test: unknown format %q (want text, json)\n", *format)
		return exitUsage
	}
	if *run != "" {
		if _, err := regexp.Compile(*run); err != nil {
			fmt.Fprintf(stderr, "bwpolicy test: --run: %v\n", err)
			return exitUsage
		}
	}
	for _, d := range fs.Args() {
		if err := requireDir(d); err != nil {
			fmt.Fprintf(stderr, "bwpolicy test: %v\n", err)
			return exitUsage
		}
	}
	results, err := policy.RunTestDirs(context.Background(), fs.Args(), policy.TestOptions{Run: *run, Timeout: *timeout})
	if err != nil {
		ds := policy.ErrorDiags(err)
		diag.Render(stderr, ds, regoSources(fs.Args()))
		fmt.Fprintf(stderr, "bwpolicy test: %s: the rules or tests do not compile\n", plural(len(ds), "error"))
		return exitUsage
	}
	if len(results) == 0 {
		if *format == "json" {
			fmt.Fprintln(stdout, "[]")
		}
		what := "no test (a rule named test_* in a .rego file)"
		if *run != "" {
			what = fmt.Sprintf("no test matching %q", *run)
		}
		fmt.Fprintf(stderr, "bwpolicy test: %s in %s\n", what, strings.Join(fs.Args(), ", "))
		return exitUsage
	}
	var pass, fail, errd, skip int
	for _, r := range results {
		switch {
		case r.Skip:
			skip++
		case r.Errored:
			errd++
		case r.Pass:
			pass++
		default:
			fail++
		}
	}
	if *format == "json" {
		out := make([]testJSON, 0, len(results))
		for _, r := range results {
			out = append(out, testJSON{Name: r.Name, File: r.File, Line: r.Line, Result: outcome(r),
				Detail: r.Detail, Output: r.Output, DurationMS: float64(r.Duration.Microseconds()) / 1000})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		stdout.Write(append(b, '\n'))
	} else {
		for _, r := range results {
			fmt.Fprintf(stdout, "%s:%d: %s %s", r.File, r.Line, strings.ToUpper(outcome(r)), r.Name)
			if !r.Skip {
				fmt.Fprintf(stdout, " (%s)", r.Duration.Round(time.Microsecond))
			}
			fmt.Fprintln(stdout)
			if !r.Pass && !r.Skip {
				if r.Detail != "" {
					fmt.Fprintf(stdout, "    %s\n", strings.ReplaceAll(strings.TrimSpace(firstLineOf(r.Detail)), "\n", "\n    "))
				}
				if out := strings.TrimSpace(r.Output); out != "" {
					fmt.Fprintf(stdout, "    printed:\n      %s\n", strings.ReplaceAll(out, "\n", "\n      "))
				}
			}
		}
		summary := []string{fmt.Sprintf("%d passed", pass), fmt.Sprintf("%d failed", fail)}
		if errd > 0 {
			summary = append(summary, fmt.Sprintf("%d errored", errd))
		}
		if skip > 0 {
			summary = append(summary, fmt.Sprintf("%d skipped", skip))
		}
		fmt.Fprintf(stdout, "%s: %s\n", verdict(fail+errd == 0), strings.Join(summary, ", "))
	}
	if fail+errd > 0 {
		return exitFound
	}
	return exitOK
}

func outcome(r policy.TestResult) string {
	switch {
	case r.Skip:
		return "skip"
	case r.Errored:
		return "error"
	case r.Pass:
		return "pass"
	}
	return "fail"
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// firstLineOf keeps a failure detail short when it is "failed; printed:
// ..." (the output is shown on its own).
func firstLineOf(s string) string {
	if i := strings.Index(s, "; printed: "); i >= 0 {
		return s[:i]
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// regoSources reads the .rego files under dirs, for snippets.
func regoSources(dirs []string) map[string][]byte {
	m := map[string][]byte{}
	_, srcs, _ := regoFiles(dirs, true)
	for f, src := range srcs {
		m[f] = []byte(src)
	}
	return m
}
