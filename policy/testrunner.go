package policy

import (
	"context"
	"fmt"
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestResult is the outcome of one Rego test rule (test_*).
type TestResult struct {
	// Name is "package.test_name".
	Name string
	// Location is "file:line" of the test.
	Location string
	Pass     bool
	// Detail says why a test failed or errored.
	Detail string
}

// RunTests compiles modules (file name → source; tests included) and runs
// every test_* rule, like `opa test`. A module that does not parse or
// compile is an error naming file:line.
func RunTests(ctx context.Context, modules map[string]string) ([]TestResult, error) {
	parsed := map[string]*ast.Module{}
	names := make([]string, 0, len(modules))
	for n := range modules {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m, err := ast.ParseModule(n, modules[n])
		if err != nil {
			return nil, err
		}
		parsed[n] = m
	}
	store := inmem.New()
	txn, err := store.NewTransaction(ctx)
	if err != nil {
		return nil, err
	}
	defer store.Abort(ctx, txn)
	ch, err := tester.NewRunner().CapturePrintOutput(true).SetStore(store).SetModules(parsed).RunTests(ctx, txn)
	if err != nil {
		return nil, err
	}
	var out []TestResult
	for r := range ch {
		tr := TestResult{Name: r.Package + "." + r.Name, Pass: r.Pass()}
		if r.Location != nil {
			tr.Location = fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row)
		}
		switch {
		case r.Error != nil:
			tr.Detail = r.Error.Error()
		case r.Fail && len(r.Output) > 0:
			tr.Detail = "failed; printed: " + string(r.Output)
		case r.Fail:
			tr.Detail = "failed"
			if r.FailedAt != nil {
				tr.Detail = "failed at " + r.FailedAt.String()
			}
		}
		out = append(out, tr)
	}
	return out, nil
}
