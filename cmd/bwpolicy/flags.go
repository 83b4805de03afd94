package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/settings"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// evalFlags bound the evaluation of organisation rules (--policy) and
// custom profiles (--profiles), and say what the rules may reach: the
// same flags for check, compile, run and test.
type evalFlags struct {
	timeout              time.Duration
	memoryMiB            int64
	policyNet, policyEnv bool
}

func (e *evalFlags) register(fs *flag.FlagSet, timeout bool) {
	if timeout {
		fs.DurationVar(&e.timeout, "eval-timeout", bounded.DefaultTime, "bound each evaluation of --policy rules and --profiles profiles to `DURATION` of wall clock")
	}
	fs.Int64Var(&e.memoryMiB, "eval-memory", bounded.DefaultMemoryMiB, "bound the memory of that evaluation to `MIB` MiB")
	fs.BoolVar(&e.policyNet, "policy-net", false, "let --policy rules reach the network (http.send, net.lookup_ip_addr, JSON Schema $ref)")
	fs.BoolVar(&e.policyEnv, "policy-env", false, "let --policy rules read the process environment (opa.runtime().env)")
}

// check refuses bounds that are not bounds.
func (e *evalFlags) check() error {
	if e.timeout < 0 || e.timeout > time.Hour {
		return fmt.Errorf("--eval-timeout %v: want a duration between 0 (the default, %v) and 1h", e.timeout, bounded.DefaultTime)
	}
	if e.memoryMiB < 0 || e.memoryMiB > 1<<20 {
		return fmt.Errorf("--eval-memory %d: want MiB between 0 (the default, %d) and 1048576", e.memoryMiB, bounded.DefaultMemoryMiB)
	}
	return nil
}

func (e *evalFlags) limits() bounded.Limits {
	return bounded.Limits{Time: e.timeout, MemoryMiB: e.memoryMiB}
}

func (e *evalFlags) policyOptions() policy.Options {
	return policy.Options{Limits: e.limits(), Reach: policy.Reach{Net: e.policyNet, Env: e.policyEnv}}
}

// compileFlags are the flags compile and run share.
type compileFlags struct {
	config, profile, cwd string
	sandboxID            string
	profiles, policies   multiFlag
	eval                 evalFlags
}

func (c *compileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "settings `FILE` (-: standard input; default: $HERMES_HOME/config.yaml if it exists, else the embedded defaults)")
	fs.StringVar(&c.profile, "profile", "", "profile `NAME` (overrides the settings)")
	fs.StringVar(&c.cwd, "cwd", "", "working `DIR` (overrides the settings)")
	fs.StringVar(&c.sandboxID, "sandbox-id", "", "this environment's `ID`: HERMES_HOME/sandboxes/bwrap-ID read-write, HERMES_HOME/cache/scratch/hermes-bwrap-ID the private TMPDIR (both created 0700)")
	fs.Var(&c.profiles, "profiles", "extra `DIR` of custom .cue profiles (repeatable)")
	fs.Var(&c.policies, "policy", "extra `DIR` of organisation .rego rules (repeatable)")
	c.eval.register(fs, true)
}

// request builds the compiler request; usage problems come back as
// diagnostics with exit code 2.
func (c *compileFlags) request() (*compiler.Request, diag.List, int) {
	req := &compiler.Request{File: c.config, Profile: c.profile, Cwd: c.cwd, SandboxID: c.sandboxID}
	if c.sandboxID != "" && !facts.SandboxIDPattern.MatchString(c.sandboxID) {
		return nil, diag.List{{Severity: diag.Error, Rule: "usage", Pos: diag.CommandLine("--sandbox-id"),
			Summary: fmt.Sprintf("--sandbox-id %q: want 1-64 letters, digits, '.', '_' or '-', not starting with '.', '_' or '-'", c.sandboxID)}}, exitUsage
	}
	if c.config == "-" {
		// Standard input, as check - reads it: the settings (a larger
		// input is refused by the loader, as a file would be).
		src, err := io.ReadAll(io.LimitReader(os.Stdin, settings.MaxFileSize+1))
		if err != nil {
			return nil, diag.List{{Severity: diag.Error, Rule: "input", Pos: diag.CommandLine("--config"),
				Summary: "reading the settings from standard input: " + err.Error()}}, exitUsage
		}
		if src == nil {
			src = []byte{}
		}
		req.File, req.Source = stdinName, src
	}
	if err := c.eval.check(); err != nil {
		return nil, diag.List{{Severity: diag.Error, Rule: "usage", Summary: err.Error()}}, exitUsage
	}
	if len(c.profiles) > 0 {
		set, ds := profile.LoadWith(c.profiles, c.eval.limits())
		if ds.HasErrors() {
			code := exitFound
			if failed(ds) {
				code = exitUsage
			}
			return nil, ds, code
		}
		req.Profiles = set
	}
	if len(c.policies) > 0 {
		eng, err := policy.LoadWith(c.policies, c.eval.policyOptions())
		if err != nil {
			return nil, policy.ErrorDiags(err), exitUsage
		}
		req.Policy = eng
	}
	return req, nil, exitOK
}

// sources returns the source bytes of the documents, for snippets.
func sources(res *compiler.Result) map[string][]byte {
	m := map[string][]byte{}
	if res != nil && res.Document != nil && res.Document.Source != nil {
		m[res.Document.File] = res.Document.Source
	}
	return m
}

// failed reports whether l holds a diagnostic that makes the compilation
// untrustworthy rather than the settings wrong (compiler.Failure: an
// organisation rule that fails or crosses a bound): exit 2, not 1.
func failed(l diag.List) bool {
	for _, d := range l {
		if compiler.Failure(d) {
			return true
		}
	}
	return false
}
