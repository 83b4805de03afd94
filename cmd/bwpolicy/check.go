package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
)

func init() {
	register("check", "lint settings files (and custom profiles) against the schema, CUE and the rules", checkMain)
}

// checkedFile is the outcome of checking one file.
type checkedFile struct {
	File   string
	Diags  diag.List
	Source []byte
}

func checkMain(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("check", stderr)
	var cf compileFlags
	fs.Var(&cf.profiles, "profiles", "extra `DIR` of custom .cue profiles (repeatable)")
	fs.Var(&cf.policies, "policy", "extra `DIR` of organisation .rego rules (repeatable)")
	format := fs.String("format", "text", "output `FORMAT`: text")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *format != "text" {
		fmt.Fprintf(stderr, "bwpolicy check: unknown format %q\n", *format)
		return exitUsage
	}
	req, ds, code := cf.request()
	if req == nil {
		diag.Render(stderr, ds, nil)
		return code
	}
	files, err := expandInputs(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "bwpolicy check: %v\n", err)
		return exitUsage
	}
	host := facts.FromEnvironment()
	var results []checkedFile
	for _, f := range files {
		r := *req
		r.File = f
		r.Host = host
		res := compiler.Compile(context.Background(), &r)
		cfile := checkedFile{File: f, Diags: res.Diags}
		if res.Document != nil {
			cfile.Source = res.Document.Source
		}
		results = append(results, cfile)
	}
	errs := 0
	for _, r := range results {
		diag.Render(stdout, r.Diags, map[string][]byte{r.File: r.Source})
		errs += len(r.Diags.Errors())
	}
	fmt.Fprintf(stdout, "%d file(s) checked, %d error(s)\n", len(results), errs)
	if errs > 0 {
		return exitFound
	}
	return exitOK
}

// expandInputs turns the arguments into settings files: a directory
// contributes its *.yaml and *.yml files (not recursively). No argument
// means the file compile would use.
func expandInputs(args []string) ([]string, error) {
	if len(args) == 0 {
		if f := compiler.DiscoverFile(); f != "" {
			return []string{f}, nil
		}
		return []string{""}, nil
	}
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil || !fi.IsDir() {
			out = append(out, a) // the loader reports a missing file
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, e := range entries {
			n := e.Name()
			if !e.IsDir() && (strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")) {
				names = append(names, filepath.Join(a, n))
			}
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	return out, nil
}
