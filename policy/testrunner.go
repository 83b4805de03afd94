package policy

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/bwpolicy/bwpolicy/internal/bounded"
)

// TestResult is the outcome of one Rego test rule (test_*; todo_test_*
// is skipped), as `opa test` reports it.
type TestResult struct {
	// Name is "package.test_name" ("data.bwpolicy.custom.limits_test.test_big").
	Name string
	// Location is "file:line" of the test; File and Line the same, apart.
	Location string
	File     string
	Line     int
	Pass     bool
	// Skip is true for a todo_test_* rule; Errored for a test whose
	// evaluation failed (a conflict, a built-in error, the timeout) rather
	// than came out false or undefined.
	Skip    bool
	Errored bool
	// Detail says why a test failed or errored.
	Detail string
	// Output is what the test printed with print().
	Output   string
	Duration time.Duration
}

// TestOptions tune RunTestDirs.
type TestOptions struct {
	// Run, when set, is a regular expression: only the tests whose name
	// (data.pkg.test_name) it matches are run.
	Run string
	// Timeout bounds each test; zero means 5 s.
	Timeout time.Duration
	// NoTrace turns off the evaluation trace that finds the expression
	// a failing test stopped at.
	NoTrace bool
	// Memory bounds the tests' memory (MiB; zero: bounded's default).
	Memory int64
	// Reach is what the rules and tests may reach.
	Reach Reach

	marker bool // in a child: mark each rule entered (ruleMarker)
}

// RunTestDirs runs the Rego unit tests of the organisation rules in dirs
// (`bwpolicy test DIR...`) in a bounded child process: each test is
// bounded by opt.Timeout (OPA cancels it; a builtin that does not stop
// is ended with its process a second later) and the whole run by
// opt.Memory. A crossed bound is an error (*bounded.Exceeded) naming the
// test. Every .rego file under dirs, *_test.rego
// included, is compiled together with the built-in rules (so a test can
// query data.bwpolicy.main.result as well as its own package), and each
// test_* rule of dirs is evaluated. Rule files (not *_test.rego) must
// live under bwpolicy.custom, as for LoadWith. Files that do not parse or
// compile are an error (ast.Errors: every problem, each with
// file:line:col). Results are sorted by file and line.
func RunTestDirs(ctx context.Context, dirs []string, opt TestOptions) ([]TestResult, error) {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	body, err := gobEncode(testsCall{Dirs: dirs, Opt: opt})
	if err != nil {
		return nil, err
	}
	c, err := bounded.Start(childKind, bounded.Limits{Time: timeout + time.Second, MemoryMiB: opt.Memory, Env: opt.Reach.Env})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	out, err := c.Call(opTests, body)
	if err != nil {
		return nil, fromChild(err, strings.Join(dirs, ", "))
	}
	var rs []TestResult
	if err := gobDecode(out, &rs); err != nil {
		return nil, err
	}
	return rs, nil
}

// runTestDirs is RunTestDirs in this process (a child's).
func runTestDirs(ctx context.Context, dirs []string, opt TestOptions) ([]TestResult, error) {
	srcs, err := ReadDirs(dirs, true)
	if err != nil {
		return nil, err
	}
	parsed := map[string]*ast.Module{}
	var errs ast.Errors
	for _, n := range sortedKeys(srcs) {
		if !strings.HasSuffix(n, "_test.rego") {
			if err := checkCustomPackage(n, srcs[n]); err != nil {
				errs = append(errs, asErrors(err)...)
				continue
			}
		}
		m, err := ast.ParseModuleWithOpts(n, srcs[n], ast.ParserOptions{ProcessAnnotation: true})
		if err != nil {
			errs = append(errs, asErrors(err)...)
			continue
		}
		if m == nil {
			errs = append(errs, ast.NewError(ast.ParseErr, &ast.Location{File: n, Row: 1, Col: 1}, "empty module"))
			continue
		}
		parsed[n] = m
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if err := opt.Reach.checkReach(srcs); err != nil {
		return nil, err
	}
	rules := map[string]string{}
	for n, src := range srcs {
		if !strings.HasSuffix(n, "_test.rego") {
			rules[n] = src
		}
	}
	if err := TypeCheck(rules); err != nil {
		return nil, err
	}
	for n, src := range builtinModulesForEval() {
		m, err := ast.ParseModule(n, src)
		if err != nil {
			return nil, err
		}
		parsed[n] = m
	}
	return runParsed(ctx, parsed, opt, func(file string) bool { _, ok := srcs[file]; return ok })
}

// runParsed runs the tests of parsed; keep, when set, says which files'
// tests to report.
func runParsed(ctx context.Context, parsed map[string]*ast.Module, opt TestOptions, keep func(file string) bool) ([]TestResult, error) {
	store := inmem.New()
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Abort(ctx, txn)
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	r := tester.NewRunner().CapturePrintOutput(true).SetStore(store).SetModules(parsed).SetTimeout(timeout).
		SetCompiler(ast.NewCompiler().WithCapabilities(opt.Reach.capabilities()).WithEnablePrintStatements(true))
	if opt.Run != "" {
		r = r.Filter(opt.Run)
	}
	if !opt.NoTrace {
		r = r.EnableTracing(true)
	}
	if opt.marker {
		// After EnableTracing, which drops a coverage tracer set before
		// it; the runner passes both to each test's evaluation.
		r = r.SetCoverageQueryTracer(ruleMarker{tests: true})
	}
	ch, err := r.RunTests(ctx, txn)
	if err != nil {
		return nil, err
	}
	var out []TestResult
	var timedOut *bounded.Exceeded
	for r := range ch {
		var te *topdown.Error
		if opt.marker && timedOut == nil && errors.As(r.Error, &te) && te.Code == topdown.CancelErr {
			// The test ran past its timeout and OPA cancelled it: the
			// time bound, as the watchdog reports one a builtin ignores.
			timedOut = &bounded.Exceeded{Bound: bounded.Time, Limit: timeout.String(), Where: bounded.Here()}
			if timedOut.Where.File == "" && r.Location != nil {
				timedOut.Where = bounded.Where{File: r.Location.File, Line: r.Location.Row, Col: r.Location.Col, Name: "data." + r.Package + "." + r.Name}
			}
		}
		tr := TestResult{Name: r.Package + "." + r.Name, Pass: r.Pass(), Skip: r.Skip, Errored: r.Error != nil,
			Output: string(r.Output), Duration: r.Duration}
		if r.Location != nil {
			tr.File, tr.Line = r.Location.File, r.Location.Row
			tr.Location = fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row)
		}
		if keep != nil && !keep(tr.File) {
			continue
		}
		switch {
		case r.Error != nil:
			tr.Detail = r.Error.Error()
		case r.Fail:
			tr.Detail = "failed"
			if r.FailedAt != nil {
				tr.Detail = "failed at " + r.FailedAt.String()
			} else if at := failedAt(r.Trace); at != "" {
				tr.Detail = "failed at " + at
			}
			if len(r.Output) > 0 {
				tr.Detail += "; printed: " + string(r.Output)
			}
		}
		out = append(out, tr)
	}
	if timedOut != nil {
		return nil, timedOut
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// failedAt finds, in a test's trace, the expression that failed last
// (as opa test --var-values shows it): "file:line: expr".
func failedAt(trace []*topdown.Event) string {
	for i := len(trace) - 1; i >= 0; i-- {
		e := trace[i]
		if e.Op != topdown.FailOp || e.Location == nil || e.QueryID == 0 {
			continue
		}
		expr, ok := e.Node.(*ast.Expr)
		if !ok {
			continue
		}
		if _, isEvery := expr.Terms.(*ast.Every); isEvery {
			continue
		}
		text := strings.TrimSpace(string(e.Location.Text))
		if text == "" {
			text = expr.String()
		}
		return fmt.Sprintf("%s:%d: %s", e.Location.File, e.Location.Row, text)
	}
	return ""
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// asErrors returns err as ast.Errors when it is one (or one ast.Error).
func asErrors(err error) ast.Errors {
	switch e := err.(type) {
	case ast.Errors:
		return e
	case *ast.Error:
		return ast.Errors{e}
	}
	return ast.Errors{ast.NewError(ast.ParseErr, nil, "%s", err.Error())}
}
