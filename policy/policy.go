// Package policy is the OPA stage of bwpolicy's pipeline: the safety
// rules R1–R13 (and the extension rules) written in Rego, embedded in the
// binary, compiled and prepared once per process, and evaluated over
// {settings, profile, facts, known}. Organisations add their own rules in
// packages under bwpolicy.custom (see LoadWith). Each built-in rule ID is
// described by an OPA METADATA annotation (title, description, custom
// id, name, level, security) on one rule that reports it; report's rule
// catalogue and docs/rules.md are generated from them (BuiltinRuleDocs),
// and organisation rules' annotations are read by the same code
// (ModuleDoc).
package policy

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// Files holds the built-in rules and their tests.
//
//go:embed *.rego
var Files embed.FS

// Violation is one decision of a rule.
type Violation struct {
	Rule     string
	Severity diag.Severity
	Message  string
	// Path is the key path into the settings (or the profile, when In is
	// "profile") that the violation is about.
	Path []any
	In   string
	// DropBind is the index of a bind to leave out, or -1.
	DropBind int
	// Host marks a decision about the machine, not the settings.
	Host bool
}

// Engine is a prepared query over the built-in rules plus any custom
// ones. An engine with organisation rules (LoadWith) evaluates the
// built-in rules' decisions in process (builtin) and the organisation's
// (data.bwpolicy.custom) in bounded child processes (remote): the
// built-in decisions are data.bwpolicy.rules', which no custom module
// can define (checkCustomPackage) and no built-in rule reads custom
// ones from (TestBuiltinDecisionsSplit).
type Engine struct {
	query  rego.PreparedEvalQuery
	remote *pool
	// builtin is the built-in engine an engine with remote evaluates
	// the built-in rules' decisions with.
	builtin *Engine
	// customOnly marks an engine whose query is the organisation's
	// decisions alone (a child's).
	customOnly bool
	// traced marks an engine that records, for the report of a crossed
	// bound, the organisation rule being evaluated (in a child).
	traced bool
	// compiler compiled the engine's query; Memoizable reads its modules
	// once (pureOnce, pure).
	compiler *ast.Compiler
	pureOnce sync.Once
	pure     bool
}

// The queries an engine prepares: every decision, or the organisation's.
const (
	queryResult = "data.bwpolicy.main.result"
	queryCustom = "data.bwpolicy.main.custom"
)

var (
	builtinOnce   sync.Once
	builtinEngine *Engine
	builtinErr    error
)

// Builtin returns the engine of the built-in rules, prepared once.
func Builtin() (*Engine, error) {
	builtinOnce.Do(func() { builtinEngine, builtinErr = New(nil) })
	return builtinEngine, builtinErr
}

// Options are how organisation rules are evaluated: their bounds and
// what they may reach.
type Options struct {
	Limits bounded.Limits
	Reach  Reach
}

// LoadWith returns an engine with the built-in rules and every .rego file
// (tests excluded) of dirs, compiled and evaluated in bounded child
// processes (package bounded): an organisation rule is untrusted input.
// A file that does not parse or compile, or names a builtin opt.Reach
// does not allow, is an error naming file:line; so is crossing a bound
// while compiling.
func LoadWith(dirs []string, opt Options) (*Engine, error) {
	if len(dirs) == 0 {
		return Builtin()
	}
	extra, err := ReadDirs(dirs, false)
	if err != nil {
		return nil, err
	}
	builtin, err := Builtin()
	if err != nil {
		return nil, err
	}
	eng, err := startRemote(extra, opt, strings.Join(dirs, ", "))
	if err != nil {
		return nil, err
	}
	eng.builtin = builtin
	return eng, nil
}

// newLocal is the engine of the organisation's decisions (queryCustom)
// over the built-in rules plus extra, with extra's checks (its package,
// what it may reach, TypeCheck), in this process: what a child runs.
func newLocal(extra map[string]string, reach Reach) (*Engine, error) {
	if err := reach.checkReach(extra); err != nil {
		return nil, err
	}
	eng, err := newEngine(extra, reach, queryCustom)
	if err != nil {
		return nil, err
	}
	// A rule that refers to a field the input never has compiles, but
	// would never fire: refuse it too (see TypeCheck).
	if err := TypeCheck(extra); err != nil {
		return nil, err
	}
	return eng, nil
}

// ReadDirs reads the .rego files under dirs (recursively), by path, with
// or without the *_test.rego ones: the one place organisation rule files
// are found, for LoadWith, RunTestDirs and the CLI's snippets.
func ReadDirs(dirs []string, withTests bool) (map[string]string, error) {
	out := map[string]string{}
	budget := bounded.Budget{PerFile: MaxRuleFileSize, Total: MaxRuleBytes, Files: MaxRuleFiles}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(p, ".rego") || (!withTests && strings.HasSuffix(p, "_test.rego")) {
				return nil
			}
			src, err := budget.ReadFile(p)
			var big *bounded.TooLarge
			var over *bounded.OverBudget
			switch {
			case errors.As(err, &big):
				return ast.Errors{ast.NewError(ast.ParseErr, &ast.Location{File: p, Row: 1, Col: 1},
					"rule file larger than %d bytes (1 MiB): organisation rules are small, and bwpolicy reads no more", MaxRuleFileSize)}
			case errors.As(err, &over):
				return ast.Errors{ast.NewError(ast.ParseErr, &ast.Location{File: p, Row: 1, Col: 1},
					"the rule files of --policy (tests included) are over %d files or %d bytes (8 MiB) here: organisation rules are small, and bwpolicy reads no more", MaxRuleFiles, MaxRuleBytes)}
			}
			if err != nil {
				// Positioned at the file, whatever it is (a named pipe,
				// a link to /proc/kmsg: refused without blocking).
				return &fs.PathError{Op: "read", Path: p, Err: errors.New(invocation.ReadFailure(err))}
			}
			out[p] = string(src)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("policy directory: %w", err)
		}
	}
	return out, nil
}

// MaxRuleFileSize bounds an organisation rule file: the parent process
// reads it (for snippets and the rule catalogue) before any child does.
const MaxRuleFileSize = 1 << 20

// MaxRuleBytes and MaxRuleFiles bound the rule files of all --policy
// directories together, as the parent reads them.
const (
	MaxRuleBytes = 8 << 20
	MaxRuleFiles = 1000
)

// BuiltinModules returns the built-in rule files (without tests), by name.
func BuiltinModules(withTests bool) map[string]string {
	out := map[string]string{}
	entries, _ := Files.ReadDir(".")
	for _, e := range entries {
		if !withTests && strings.HasSuffix(e.Name(), "_test.rego") {
			continue
		}
		b, _ := Files.ReadFile(e.Name())
		out["policy/"+e.Name()] = string(b)
	}
	return out
}

// BuiltinPrefix starts the module names the built-in rules are compiled
// under next to custom ones, so that an organisation's file named, say,
// policy/limits.rego (a path relative to its --policy directory) is a
// module of its own and never replaces the built-in policy/limits.rego.
const BuiltinPrefix = "builtin:"

// builtinModulesForEval returns the built-in rules (without tests) under
// BuiltinPrefix + their name.
func builtinModulesForEval() map[string]string {
	out := map[string]string{}
	for k, v := range BuiltinModules(false) {
		out[BuiltinPrefix+k] = v
	}
	return out
}

// New prepares the query over the built-in rules plus extra modules
// (file name → source), in this process and unbounded: for the built-in
// rules and tests; organisation rules go through LoadWith.
func New(extra map[string]string) (*Engine, error) { return newEngine(extra, Reach{}, queryResult) }

func newEngine(extra map[string]string, reach Reach, query string) (*Engine, error) {
	opts := []func(*rego.Rego){rego.Query(query)}
	names := []string{}
	mods := builtinModulesForEval()
	for k, v := range extra {
		if _, clash := mods[k]; clash {
			return nil, fmt.Errorf("%s: a custom rule file cannot have the name of a built-in one", k)
		}
		mods[k] = v
	}
	for k := range mods {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, isExtra := extra[n]; isExtra {
			if err := checkCustomPackage(n, mods[n]); err != nil {
				return nil, err
			}
		}
		opts = append(opts, rego.Module(n, mods[n]))
	}
	var compiler *ast.Compiler
	if len(extra) == 0 {
		// The built-in rules alone: OPA's checks that only report errors
		// (TestBuiltinRulesMatchInputSchema runs them all) are left out of
		// the preparation a cold compile waits for.
		compiler = ast.NewCompiler().WithSkipStages(builtinSkippedChecks...)
		opts = append(opts, rego.Compiler(compiler))
	} else {
		// Organisation rules reach no network and no environment unless
		// allowed (Reach). The compiler is rego's own, kept for
		// Memoizable.
		opts = append(opts, reach.regoOptions()...)
		opts = append(opts, rego.CompilerHook(func(c *ast.Compiler) { compiler = c }))
	}
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		return nil, err
	}
	return &Engine{query: pq, compiler: compiler, customOnly: query == queryCustom}, nil
}

// builtinSkippedChecks are the stages of OPA's compiler that only check
// the rules and change nothing evaluation reads: type checks, conflicts,
// recursion, undefined or void calls, unsafe heads, unused or duplicate
// imports, deprecated or unsafe builtins. They are skipped when the
// built-in rules are prepared alone (a fifth of OPA's compile of them);
// TestBuiltinRulesMatchInputSchema compiles them with every stage, and an
// engine with custom rules (New with extra) runs them all, over the
// custom rules and the built-in ones.
var builtinSkippedChecks = []ast.StageID{
	ast.StageCheckTypes, ast.StageCheckRuleConflicts, ast.StageCheckRecursion,
	ast.StageCheckUndefinedFuncs, ast.StageCheckVoidCalls, ast.StageCheckSafetyRuleHeads,
	ast.StageCheckUnusedImports, ast.StageCheckDuplicateImports, ast.StageCheckKeywordOverrides,
	ast.StageCheckUnsafeBuiltins, ast.StageCheckDeprecatedBuiltins, ast.StageBuildRequiredCapabilities,
}

// checkCustomPackage keeps organisation rules inside bwpolicy.custom, so
// they can add decisions but never redefine the built-in rules.
func checkCustomPackage(name, src string) error {
	m, err := ast.ParseModule(name, src)
	if err != nil {
		return err
	}
	if m == nil {
		return ast.Errors{ast.NewError(ast.ParseErr, &ast.Location{File: name, Row: 1, Col: 1}, "empty module: a .rego file needs a package under bwpolicy.custom")}
	}
	pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
	if pkg != "bwpolicy.custom" && !strings.HasPrefix(pkg, "bwpolicy.custom.") {
		// An ast.Errors, like a parse error, so callers get file:line:col.
		return ast.Errors{ast.NewError("bwpolicy_package_error", m.Package.Location,
			"package %s: custom rules must live in a package under bwpolicy.custom", pkg)}
	}
	return nil
}

// Evaluate runs the rules over input (any JSON-marshalable value with
// fields settings, profile and facts) and returns the violations sorted
// by rule and path.
func (e *Engine) Evaluate(ctx context.Context, input any) ([]Violation, error) {
	value, err := InputValue(input)
	if err != nil {
		return nil, err
	}
	if e.remote == nil {
		return e.evaluateValue(ctx, value)
	}
	// The built-in decisions first, as the query over both evaluated
	// them: an error of theirs is the one reported.
	out, err := e.builtin.evaluateValue(ctx, value)
	if err != nil {
		return nil, err
	}
	custom, err := e.remote.evaluate(value)
	if err != nil {
		return nil, err
	}
	return sortViolations(append(out, custom...)), nil
}

// evaluateValue evaluates the rules over an input value.
func (e *Engine) evaluateValue(ctx context.Context, value ast.Value) ([]Violation, error) {
	evalOpts := []rego.EvalOption{rego.EvalParsedInput(value)}
	if e.traced {
		evalOpts = append(evalOpts, rego.EvalQueryTracer(ruleMarker{}))
	}
	rs, err := e.query.Eval(ctx, evalOpts...)
	if err != nil {
		return nil, err
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("policy: unexpected result %v", rs)
	}
	if e.customOnly {
		return sortViolations(decodeCustom(rs[0].Expressions[0].Value, "custom")), nil
	}
	res, ok := rs[0].Expressions[0].Value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("policy: unexpected result type %T", rs[0].Expressions[0].Value)
	}
	var out []Violation
	out = append(out, decode(res["deny"], diag.Error, "")...)
	out = append(out, decode(res["warn"], diag.Warning, "")...)
	out = append(out, decodeCustom(res["custom"], "custom")...)
	return sortViolations(out), nil
}

// sortViolations sorts vs by rule and message, stably: the built-in
// decisions (deny, then warn) before the organisation's among equals.
func sortViolations(vs []Violation) []Violation {
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].Rule != vs[j].Rule {
			return vs[i].Rule < vs[j].Rule
		}
		return vs[i].Message < vs[j].Message
	})
	return vs
}

// InputValue is the value the rules see as `input` for input: its JSON
// form, as OPA reads JSON. It converts Go values directly (valueOf) and
// takes the JSON round trip only for what that leaves to it.
func InputValue(input any) (ast.Value, error) {
	if v, err := valueOf(reflect.ValueOf(input)); !errors.Is(err, errSlowPath) {
		return v, err
	}
	return toValueJSON(input)
}

// toValueJSON is the input's JSON form, as OPA reads JSON.
func toValueJSON(input any) (ast.Value, error) {
	b, err := json.Marshal(input)
	if err != nil {
		return nil, err
	}
	var generic any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return ast.InterfaceToValue(generic)
}

func decode(set any, sev diag.Severity, defaultRule string) []Violation {
	items, _ := set.([]any)
	var out []Violation
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			out = append(out, Violation{Rule: defaultRule, Severity: sev, Message: fmt.Sprint(it), DropBind: -1})
			continue
		}
		v := Violation{Severity: sev, DropBind: -1, Rule: defaultRule}
		if r, ok := m["rule"].(string); ok {
			v.Rule = r
		}
		v.Message, _ = m["msg"].(string)
		if v.Message == "" {
			v.Message = fmt.Sprint(m)
		}
		v.In, _ = m["in"].(string)
		v.Host, _ = m["host"].(bool)
		if p, ok := m["path"].([]any); ok {
			for _, k := range p {
				switch t := k.(type) {
				case json.Number:
					n, _ := t.Int64()
					v.Path = append(v.Path, int(n))
				default:
					v.Path = append(v.Path, t)
				}
			}
		}
		if d, ok := m["drop_bind"].(json.Number); ok {
			n, _ := d.Int64()
			v.DropBind = int(n)
		}
		out = append(out, v)
	}
	return out
}

// decodeCustom walks data.bwpolicy.custom: each package's deny and warn.
func decodeCustom(tree any, prefix string) []Violation {
	m, ok := tree.(map[string]any)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Violation
	for _, k := range keys {
		switch k {
		case "deny":
			out = append(out, customIDs(decode(m[k], diag.Error, ""), prefix)...)
		case "warn":
			out = append(out, customIDs(decode(m[k], diag.Warning, ""), prefix)...)
		default:
			if sub, ok := m[k].(map[string]any); ok {
				out = append(out, decodeCustom(sub, prefix+"."+k)...)
			}
		}
	}
	return out
}

// customRuleName is what a custom decision may give as its "rule".
var customRuleName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// customIDs gives each decision of custom package prefix
// ("custom.limits") its rule ID: the package, or, when the object
// carries a "rule" name, "custom.limits/NAME". Custom IDs always start
// with the package, so an organisation rule can never pass itself off
// as a built-in one (R3, S5, schema...); a "rule" that is not a plain
// name is ignored.
func customIDs(vs []Violation, prefix string) []Violation {
	for i := range vs {
		if vs[i].Rule != "" && customRuleName.MatchString(vs[i].Rule) {
			vs[i].Rule = prefix + "/" + vs[i].Rule
		} else {
			vs[i].Rule = prefix
		}
	}
	return vs
}
