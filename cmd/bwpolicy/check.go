package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/report"
	"github.com/bwpolicy/bwpolicy/settings"
)

func init() {
	register(&command{
		name:     "check",
		summary:  "lint settings files (and custom profiles) against the schema, CUE and the rules",
		synopsis: "bwpolicy check [--format " + strings.Join(report.Formats(), "|") + "] [--fail-on error|warning]\n                      [--policy DIR]... [--profiles DIR]... [--exclude GLOB]...\n                      [--eval-timeout DURATION] [--eval-memory MIB] [--policy-net] [--policy-env] [--jobs N]\n                      [-o FILE] [FILE|DIR|-...]",
		description: `Checks settings files (a directory: the *.yaml and *.yml files under it,
recursively, less --exclude; -: standard input) and the custom profiles of
--profiles against the schema, the CUE profiles and the rules, with this
host's facts. With no FILE, checks the file compile would use
($HERMES_HOME/config.yaml, else the embedded defaults). docs/ci.md
describes the formats and CI set-ups.`,
		exits: []exitCode{
			{exitOK, "no errors (warnings are shown but do not fail, unless --fail-on warning)"},
			{exitFound, "errors found (or warnings, with --fail-on warning)"},
			{exitUsage, "usage error, an organisation rule that does not load, or an internal failure"},
		},
		args:  "files",
		setup: checkSetup,
	})
}

// checkOptions are the flags of check.
type checkOptions struct {
	format, failOn, output      string
	profiles, policies, exclude multiFlag
	files                       []string
	stdin                       []byte // the settings read from "-"
	jobs                        int
	eval                        evalFlags
	// wholeCompiles checks each file with the compile command's own
	// compilation (no compiler.Lint, no facts.Cache): the reference the
	// tests hold check's shared path to.
	wholeCompiles bool
}

func checkSetup(fs *flag.FlagSet) runner {
	var o checkOptions
	fs.StringVar(&o.format, "format", "text", "output `FORMAT`: "+strings.Join(report.Formats(), "|"))
	fs.StringVar(&o.failOn, "fail-on", "error", "exit 1 on findings of `LEVEL` or worse: error|warning")
	fs.Var(&o.policies, "policy", "extra `DIR` of organisation .rego rules (repeatable)")
	fs.Var(&o.profiles, "profiles", "extra `DIR` of custom .cue profiles (repeatable)")
	fs.Var(&o.exclude, "exclude", "skip files and directories under a DIR argument whose relative path or name matches `GLOB` (repeatable)")
	fs.StringVar(&o.output, "o", "", "write the report to `FILE` instead of standard output, and a text summary to standard output")
	fs.IntVar(&o.jobs, "jobs", 0, "check `N` files at a time (default: the number of CPUs)")
	o.eval.register(fs, true)
	return func(args []string, stdout, stderr io.Writer) int { return checkMain(&o, args, stdout, stderr) }
}

func checkMain(o *checkOptions, args []string, stdout, stderr io.Writer) int {
	if !validFormat(o.format) {
		fmt.Fprintf(stderr, "bwpolicy check: unknown format %q (want %s)\n", o.format, strings.Join(report.Formats(), ", "))
		return exitUsage
	}
	if o.failOn != "error" && o.failOn != "warning" {
		fmt.Fprintf(stderr, "bwpolicy check: --fail-on %q: want error or warning\n", o.failOn)
		return exitUsage
	}
	for _, d := range append(append([]string(nil), o.policies...), o.profiles...) {
		if err := requireDir(d); err != nil {
			fmt.Fprintf(stderr, "bwpolicy check: %v\n", err)
			return exitUsage
		}
	}
	if err := o.eval.check(); err != nil {
		fmt.Fprintf(stderr, "bwpolicy check: %v\n", err)
		return exitUsage
	}
	if o.jobs < 0 {
		fmt.Fprintf(stderr, "bwpolicy check: --jobs %d: want 0 (one per CPU) or more\n", o.jobs)
		return exitUsage
	}
	for _, p := range o.exclude {
		if _, err := path.Match(p, ""); err != nil {
			fmt.Fprintf(stderr, "bwpolicy check: --exclude %q: %v\n", p, err)
			return exitUsage
		}
	}
	files, err := expandInputs(args, len(o.profiles) > 0, o.exclude)
	if err != nil {
		fmt.Fprintf(stderr, "bwpolicy check: %v\n", err)
		return exitUsage
	}
	o.files = files
	if slices.Contains(files, stdinName) {
		o.stdin, err = io.ReadAll(io.LimitReader(os.Stdin, settings.MaxFileSize+1))
		if err != nil {
			fmt.Fprintf(stderr, "bwpolicy check: reading standard input: %v\n", err)
			return exitUsage
		}
		if o.stdin == nil {
			o.stdin = []byte{}
		}
	}

	rep := runCheck(context.Background(), o)
	rep.WarningsFail = o.failOn == "warning"

	if err := writeReport(o, rep, stdout); err != nil {
		fmt.Fprintf(stderr, "bwpolicy check: writing the report: %v\n", err)
		return exitUsage
	}
	if len(rep.Failures) > 0 {
		report.TextFailures(stderr, rep)
		return exitUsage
	}
	nerr, nwarn := rep.Counts()
	if nerr > 0 || (o.failOn == "warning" && nwarn > 0) {
		return exitFound
	}
	return exitOK
}

// writeReport writes the report in o's format to stdout or, with -o, to
// that file (atomically, as compile -o does) with a text summary on
// stdout, so one run feeds both the log and an upload.
func writeReport(o *checkOptions, rep *report.Report, stdout io.Writer) error {
	if o.output == "" {
		return report.Write(stdout, o.format, rep)
	}
	var b bytes.Buffer
	if err := report.Write(&b, o.format, rep); err != nil {
		return err
	}
	if err := writeAtomic(o.output, b.Bytes()); err != nil {
		return err
	}
	return report.Text(stdout, rep)
}

func validFormat(f string) bool {
	for _, g := range report.Formats() {
		if f == g {
			return true
		}
	}
	return false
}

func requireDir(d string) error {
	fi, err := os.Stat(d)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", d)
	}
	return nil
}

// checkHost reads the facts of the host check runs on. It is a
// variable so that a test can hand check a host model that makes
// compiling fail internally (docs/rules.md's example of rule internal,
// which no input can provoke).
var checkHost = facts.FromEnvironment

// runCheck checks everything o names and returns the report. The host
// facts are read once; the rules are compiled and their query prepared
// once (policy.Builtin / policy.Load); the profiles are compiled once.
func runCheck(ctx context.Context, o *checkOptions) *report.Report {
	rep := &report.Report{
		Tool:    report.Tool{Name: "bwpolicy", Version: toolVersion(), URI: "https://github.com/bwpolicy/bwpolicy"},
		Sources: map[string][]byte{},
		Rules:   report.BuiltinRules(),
	}
	if wd, err := os.Getwd(); err == nil {
		rep.WorkDir = wd
	}
	// Every file is checked against the same host: each path is read
	// once (facts.Memo), not once per file, and the facts of settings
	// that differ only in what the host does not decide are gathered
	// once (facts.Cache). Each file is compiled for its findings alone
	// (compiler.Lint): the rules' decisions are remembered by their
	// exact input, and no invocation is built to be handed out.
	req := compiler.Request{Host: checkHost(), Facts: facts.NewCache(), Lint: compiler.NewLint()}
	req.Host.FS = facts.NewMemo(req.Host.FS)
	if o.wholeCompiles {
		req.Facts, req.Lint = nil, nil
	}

	// Organisation rules: a file that does not load makes the whole run
	// untrustworthy, so nothing is checked (exit 2).
	if len(o.policies) > 0 {
		eng, rules, failures := loadPolicies(o.policies, o.eval.policyOptions(), rep.Sources)
		if len(failures) > 0 {
			rep.Failures = failures
			return rep
		}
		defer eng.Close()
		req.Policy = eng
		rep.Rules = append(rep.Rules, rules...)
	} else {
		eng, err := policy.Builtin()
		if err != nil {
			rep.Failures.Add(diag.Diagnostic{Severity: diag.Error, Rule: "internal", Summary: "built-in rules: " + err.Error()})
			return rep
		}
		req.Policy = eng
	}

	// Custom profiles are inputs like the settings files: their problems
	// are findings.
	var refused map[string]diag.Pos
	if len(o.profiles) > 0 {
		set, findings, failures, inputs, bad := checkProfiles(ctx, o.profiles, o.eval.limits(), req, rep.Sources)
		rep.Inputs = append(rep.Inputs, inputs...)
		rep.Findings.Append(findings)
		rep.Failures.Append(failures)
		if set == nil {
			return rep
		}
		req.Profiles = set
		refused = bad
	}

	known := func(id string) bool {
		for _, ru := range rep.Rules {
			if ru.ID == id {
				return true
			}
		}
		return false
	}
	results := checkFiles(ctx, req, o, refused)
	for _, r := range results {
		for name, src := range r.sources {
			rep.Sources[name] = src
		}
		rep.Inputs = append(rep.Inputs, r.name)
		findings, silenced := suppress(r.name, rep.Sources[r.name], r.findings, known)
		rep.Suppressed = append(rep.Suppressed, silenced...)
		rep.Findings.Append(findings)
		rep.Failures.Append(r.failures)
	}
	rep.Findings.Sort()
	rep.Failures.Sort()
	return rep
}

// checkFile compiles one settings file. An internal failure, even a
// panic, is a failure of the run, never a finding about the file.
func checkFile(ctx context.Context, base compiler.Request, file string, sources map[string][]byte, refused map[string]diag.Pos) (findings, failures diag.List) {
	req := base
	req.File = file
	res := compileSafely(ctx, &req)
	selected := false // the settings' profile was reported as refused
	if res.Document != nil && res.Document.Source != nil {
		sources[res.Document.File] = res.Document.Source
	}
	for i, d := range res.Diags {
		if compiler.Failure(d) && res.Document != nil && d.Pos.File != res.Document.File {
			// An organisation rule that failed (or crossed a bound) on
			// this file: say which file it was evaluating.
			res.Diags[i].Related = append(res.Diags[i].Related, diag.Related{Pos: diag.Pos{File: res.Document.File},
				Message: "the settings file being checked"})
		}
	}
	for _, d := range res.Diags {
		if compiler.Failure(d) {
			failures.Add(d)
			continue
		}
		if d.Host {
			continue // about this machine, not the file (compile and doctor show it)
		}
		if d.Rule == "profile" && res.Settings != nil {
			if at, ok := refused[res.Settings.Profile]; ok {
				d.Summary = fmt.Sprintf("profile %q was refused (see %s)", res.Settings.Profile, at)
				selected = true
			}
		}
		findings.Add(d)
	}
	// A refused profile that still compiled (R13 found it in the rules
	// stage) is reported at its own file; the settings file that selects
	// it gets a finding on its profile: line too.
	if res.Settings != nil && res.Document != nil && !selected {
		if at, ok := refused[res.Settings.Profile]; ok {
			findings.Add(diag.Diagnostic{Severity: diag.Error, Rule: "profile", Path: "profile",
				Pos:     res.Document.Pos([]any{"profile"}),
				Summary: fmt.Sprintf("profile %q was refused (see %s)", res.Settings.Profile, at)})
		}
	}
	return findings, failures
}

// toolVersion is the module version the binary was built from, "" for a
// development build.
func toolVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return ""
	}
	return bi.Main.Version
}

// stdinName is the name check gives settings read from standard input
// ("-" on the command line).
const stdinName = "<stdin>"

// expandInputs turns the arguments into settings files: a directory
// contributes the *.yaml and *.yml files under it, recursively (names
// starting with a dot are skipped, files and directories alike, so
// .gitlab-ci.yml and .git are not taken for settings; symbolic links to
// directories are not followed), less those an --exclude pattern matches;
// "-" is standard input. A path that does not exist, or a directory
// without settings files, is a usage error: a CI job that checks nothing
// must not pass. No argument means the file compile would use ("" for
// the embedded defaults), or nothing when profiles are being checked.
func expandInputs(args []string, haveProfiles bool, exclude []string) ([]string, error) {
	if len(args) == 0 {
		if f := compiler.DiscoverFile(); f != "" {
			return []string{f}, nil
		}
		if haveProfiles {
			return nil, nil
		}
		return []string{""}, nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, a := range args {
		if a == "-" {
			add(stdinName)
			continue
		}
		fi, err := os.Stat(a)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("%s: no such file or directory", a)
			}
			add(a) // unreadable: the loader reports it with its position
			continue
		}
		if !fi.IsDir() {
			add(a)
			continue
		}
		n := 0
		err = filepath.WalkDir(a, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p == a {
				return nil
			}
			rel, _ := filepath.Rel(a, p)
			if strings.HasPrefix(e.Name(), ".") || excluded(rel, e.Name(), exclude) {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if e.IsDir() || !(strings.HasSuffix(e.Name(), ".yaml") || strings.HasSuffix(e.Name(), ".yml")) {
				return nil
			}
			add(p)
			n++
			return nil
		})
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no settings files (*.yaml, *.yml) in this directory", a)
		}
	}
	return out, nil
}

// excluded reports whether an --exclude pattern matches a path found in
// a directory: its path relative to that directory, or its name.
func excluded(rel, name string, patterns []string) bool {
	rel = filepath.ToSlash(rel)
	for _, p := range patterns {
		if ok, _ := path.Match(p, rel); ok {
			return true
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
