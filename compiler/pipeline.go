// Package compiler turns settings into a frozen, explained bwrap
// invocation. Its pipeline is the ordered table of stages below; each
// stage is one package with a narrow entry point, and every stage reports
// positioned diagnostics into one list. Compilation stops after the first
// stage that reports an error, so later stages never see bad input, with
// one exception that keeps that promise: the schema stage drops what it
// refuses (schema.Prune) and, when what is left validates, the later
// stages run on the rest and report its rule errors too (an unknown key
// does not hide a refused cwd). A compilation with any error has no
// invocation, and the emit stage does not run.
package compiler

import (
	"context"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
	"github.com/bwpolicy/bwpolicy/settings"
)

// Request is one compilation's input.
type Request struct {
	// File is the settings file; "" discovers $HERMES_HOME/config.yaml,
	// else uses the embedded defaults.
	File string
	// Source, when non-nil, is used instead of reading File.
	Source []byte
	// Profile and Cwd override the settings (--profile, --cwd).
	Profile string
	Cwd     string
	// SandboxID overrides the settings' sandbox_id (--sandbox-id): this
	// environment's private state and scratch directories.
	SandboxID string
	// Profiles is the profile set (built-in plus --profiles dirs); nil
	// means the built-in ones.
	Profiles *profile.Set
	// Policy is the rule engine; nil means the built-in rules.
	Policy *policy.Engine
	// Host is the machine; nil means facts.FromEnvironment().
	Host *facts.Host
	// PrepareSandbox, when set, is called with the Hermes home and the
	// sandbox ID (the settings' sandbox_id or SandboxID, valid) before
	// the facts stage, to create this environment's state and scratch
	// directories (cmd/bwpolicy: facts.MakeSandboxDirs) so that the facts
	// find them; its error is the compile's (S6). The compiler itself
	// changes nothing on the host.
	PrepareSandbox func(hermesHome, id string) error
	// Facts, when set, remembers the facts gathered on Host across
	// compilations (bwpolicy check of many files): Host must be the same
	// for every request that shares it.
	Facts *facts.Cache
	// Lint, when set, compiles for the findings alone (bwpolicy check of
	// many files): the result has no invocation, and what the
	// compilations sharing it have in common is remembered (see Lint).
	Lint *Lint
}

// Result is what a compilation produced. Invocation is nil when Diags
// has errors.
type Result struct {
	Invocation *invocation.Invocation
	Diags      diag.List
	Document   *settings.Document
	Settings   *settings.Settings
	Profile    *profile.Profile
	Facts      *facts.Facts
}

// state is what the stages pass along.
type state struct {
	ctx context.Context
	req *Request
	res *Result
	// violations are the policy stage's decisions.
	violations []policy.Violation
	// values are the settings the stages after the schema see: the
	// document's, less what the schema stage dropped.
	values map[string]any
	// recovered is the number of errors the schema stage reported and
	// recovered from by dropping what they were about.
	recovered int
}

// stage is one named step of the pipeline.
type stage struct {
	name string
	run  func(*state)
}

// stages is the pipeline, in order.
var stages = []stage{
	{"load", loadSettings},      // YAML → Document, with positions (settings)
	{"schema", validateSchema},  // settings.schema.json (schema)
	{"decode", decodeSettings},  // Document → Settings, CLI overrides
	{"profile", resolveProfile}, // CUE: profile & #Profile, limits merged (profile)
	{"facts", gatherFacts},      // host facts against settings and profile (facts)
	{"policy", evaluatePolicy},  // Rego rules R1–R13 and custom rules (policy)
	{"emit", emitInvocation},    // the frozen, explained invocation (this package)
	{"self-check", selfCheck},   // verify's invariants on it, or nothing (verify)
}

// Compile runs the pipeline.
func Compile(ctx context.Context, req *Request) *Result {
	// The built-in rules are prepared once per process (a third of a
	// cold compile is OPA parsing and compiling them): start now, so that
	// it overlaps the stages before the policy stage, which waits for it
	// (sync.Once). Doing the same for the profiles measured no gain.
	if req.Policy == nil {
		go policy.Builtin()
	}
	st := &state{ctx: ctx, req: req, res: &Result{}}
	for _, s := range stages {
		if s.name == "emit" && st.res.Diags.HasErrors() {
			break
		}
		s.run(st)
		if errorCount(st.res.Diags) > st.recovered {
			break
		}
	}
	if st.res.Diags.HasErrors() || req.Lint != nil {
		st.res.Invocation = nil
	}
	st.res.Diags.Sort()
	st.res.Diags.Clip()
	return st.res
}

// Failure reports whether d says the compilation itself could not be
// trusted rather than finding something wrong with the input: an
// internal error, or an organisation rule that fails when evaluated
// (rule ID "policy"). Callers exit 2 for these, never 1.
func Failure(d diag.Diagnostic) bool {
	return d.Rule == "internal" || d.Rule == "policy"
}

func errorCount(l diag.List) int {
	n := 0
	for _, d := range l {
		if d.Severity == diag.Error {
			n++
		}
	}
	return n
}
