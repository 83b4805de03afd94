package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/profile"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// compileFlags are the flags compile and run share.
type compileFlags struct {
	config, profile, cwd string
	sandboxID            string
	profiles, policies   multiFlag
}

func (c *compileFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "settings `FILE` (default: $HERMES_HOME/config.yaml if it exists, else the embedded defaults)")
	fs.StringVar(&c.profile, "profile", "", "profile `NAME` (overrides the settings)")
	fs.StringVar(&c.cwd, "cwd", "", "working `DIR` (overrides the settings)")
	fs.StringVar(&c.sandboxID, "sandbox-id", "", "this environment's `ID`: HERMES_HOME/sandboxes/bwrap-ID read-write, HERMES_HOME/cache/scratch/hermes-bwrap-ID the private TMPDIR (both created 0700)")
	fs.Var(&c.profiles, "profiles", "extra `DIR` of custom .cue profiles (repeatable)")
	fs.Var(&c.policies, "policy", "extra `DIR` of organisation .rego rules (repeatable)")
}

// request builds the compiler request; usage problems come back as
// diagnostics with exit code 2.
func (c *compileFlags) request() (*compiler.Request, diag.List, int) {
	req := &compiler.Request{File: c.config, Profile: c.profile, Cwd: c.cwd, SandboxID: c.sandboxID,
		PrepareSandbox: facts.MakeSandboxDirs}
	if c.sandboxID != "" && !facts.SandboxIDPattern.MatchString(c.sandboxID) {
		return nil, diag.List{{Severity: diag.Error, Rule: "usage", Pos: diag.CommandLine("--sandbox-id"),
			Summary: fmt.Sprintf("--sandbox-id %q: want 1-64 letters, digits, '.', '_' or '-', not starting with '.', '_' or '-'", c.sandboxID)}}, exitUsage
	}
	if len(c.profiles) > 0 {
		set, ds := profile.Load(c.profiles)
		if ds.HasErrors() {
			return nil, ds, exitFound
		}
		req.Profiles = set
	}
	if len(c.policies) > 0 {
		eng, err := policy.Load(c.policies)
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
