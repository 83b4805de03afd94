package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/report"
)

func init() {
	register(&command{
		name:     "test",
		summary:  "run the Rego unit tests (*_test.rego) of organisation rules, like opa test",
		synopsis: "bwpolicy test [--run REGEX] [--timeout DURATION] [--eval-memory MIB] [--policy-net] [--policy-env]\n                     [--format text|json|junit] DIR...",
		description: `Compiles the .rego files under each DIR (the organisation rules that check
--policy DIR loads, and their *_test.rego tests) with bwpolicy's built-in
rules, and runs every rule named test_* (todo_test_* is skipped), like
opa test. A test in a package outside bwpolicy.custom may also query the
whole decision, data.bwpolicy.main.result.`,
		exits: []exitCode{
			{exitOK, "every test passed"},
			{exitFound, "a test failed or errored"},
			{exitUsage, "usage error, a file that does not parse or compile, or no test found"},
		},
		args:  "dirs",
		setup: testSetup,
	})
}

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

func testSetup(fs *flag.FlagSet) runner {
	run := fs.String("run", "", "run only the tests whose name (data.pkg.test_name) matches `REGEX`")
	timeout := fs.Duration("timeout", 5*time.Second, "fail a test that runs longer than `DURATION` (a builtin that does not stop ends the run a second later)")
	format := fs.String("format", "text", "output `FORMAT`: text|json|junit")
	var ev evalFlags
	ev.register(fs, false)
	return func(args []string, stdout, stderr io.Writer) int {
		ev.timeout = *timeout
		return testMain(*run, &ev, *format, args, stdout, stderr)
	}
}

func testMain(run string, ev *evalFlags, format string, args []string, stdout, stderr io.Writer) int {
	if err := ev.check(); err != nil {
		fmt.Fprintf(stderr, "bwpolicy test: %v\n", testFlags(err.Error()))
		return exitUsage
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, "bwpolicy test: name at least one DIR of .rego files")
		commands["test"].shortUsage(stderr)
		return exitUsage
	}
	if format != "text" && format != "json" && format != "junit" {
		fmt.Fprintf(stderr, "bwpolicy test: unknown format %q (want text, json, junit)\n", format)
		return exitUsage
	}
	if run != "" {
		if _, err := regexp.Compile(run); err != nil {
			fmt.Fprintf(stderr, "bwpolicy test: --run: %v\n", err)
			return exitUsage
		}
	}
	for _, d := range args {
		if err := requireDir(d); err != nil {
			fmt.Fprintf(stderr, "bwpolicy test: %v\n", err)
			return exitUsage
		}
	}
	opt := ev.policyOptions()
	results, err := policy.RunTestDirs(context.Background(), args, policy.TestOptions{Run: run, Timeout: ev.timeout, Memory: ev.memoryMiB, Reach: opt.Reach})
	if err != nil {
		ds := policy.ErrorDiags(err)
		for i := range ds {
			ds[i].Summary = testFlags(ds[i].Summary)
		}
		diag.Render(stderr, ds, regoSources(args))
		var ex *bounded.Exceeded
		if errors.As(err, &ex) {
			fmt.Fprintln(stderr, "bwpolicy test: a test crossed its bound; no result can be trusted")
		} else {
			fmt.Fprintf(stderr, "bwpolicy test: %s: the rules or tests do not compile\n", plural(len(ds), "error"))
		}
		return exitUsage
	}
	if len(results) == 0 {
		switch format {
		case "json":
			fmt.Fprintln(stdout, "[]")
		case "junit":
			report.WriteJUnit(stdout, "bwpolicy test", nil)
		}
		what := "no test (a rule named test_* in a .rego file)"
		if run != "" {
			what = fmt.Sprintf("no test matching %q", run)
		}
		fmt.Fprintf(stderr, "bwpolicy test: %s in %s\n", what, strings.Join(args, ", "))
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
	switch format {
	case "junit":
		report.WriteJUnit(stdout, "bwpolicy test", testSuites(results))
	case "json":
		out := make([]testJSON, 0, len(results))
		for _, r := range results {
			out = append(out, testJSON{Name: r.Name, File: r.File, Line: r.Line, Result: outcome(r),
				Detail: r.Detail, Output: r.Output, DurationMS: float64(r.Duration.Microseconds()) / 1000})
		}
		b, _ := json.MarshalIndent(out, "", "  ")
		stdout.Write(append(b, '\n'))
	default:
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

// testSuites groups test results into JUnit suites, one per file in the
// order of the results; a case's classname is its Rego package.
func testSuites(results []policy.TestResult) []report.JUnitSuite {
	var suites []report.JUnitSuite
	index := map[string]int{}
	for _, r := range results {
		i, ok := index[r.File]
		if !ok {
			i = len(suites)
			index[r.File] = i
			suites = append(suites, report.JUnitSuite{Name: r.File})
		}
		pkg := r.Name
		if j := strings.LastIndexByte(pkg, '.'); j > 0 {
			pkg = pkg[:j]
		}
		c := report.JUnitCase{Name: r.Name, Classname: pkg, File: r.File, Line: r.Line, Seconds: r.Duration.Seconds(), Output: r.Output}
		switch m := (&report.JUnitMessage{Message: firstLineOf(r.Detail), Text: r.Detail}); outcome(r) {
		case "skip":
			c.Skipped, c.Seconds = &report.JUnitMessage{Message: "todo"}, 0
		case "error":
			c.Error = m
		case "fail":
			c.Failure = m
		}
		suites[i].Cases = append(suites[i].Cases, c)
	}
	return suites
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

// testFlags names test's own flag in a message of the policy package,
// which names check's: test bounds each test's time with --timeout.
func testFlags(s string) string { return strings.Replace(s, "--eval-timeout", "--timeout", 1) }
