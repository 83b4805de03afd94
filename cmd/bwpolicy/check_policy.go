package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/policy"
	"github.com/bwpolicy/bwpolicy/report"
)

// regoFiles returns the .rego files under dirs (as policy.Load finds
// them), sorted, with their sources.
func regoFiles(dirs []string, tests bool) ([]string, map[string]string, error) {
	srcs, err := policy.ReadDirs(dirs, tests)
	if err != nil {
		return nil, nil, err
	}
	files := make([]string, 0, len(srcs))
	for f := range srcs {
		files = append(files, f)
	}
	sort.Strings(files)
	return files, srcs, nil
}

// loadPolicies loads the built-in rules plus the organisation rules of
// dirs, compiled and prepared once in bounded child processes (opt). A rule file that does not parse or
// compile comes back as failures with its file:line:col (and its source
// in sources, for the snippet). rules describes each custom package, from
// its METADATA annotations when it has them.
func loadPolicies(dirs []string, opt policy.Options, sources map[string][]byte) (*policy.Engine, []report.Rule, diag.List) {
	files, srcs, err := regoFiles(dirs, true)
	if err != nil {
		return nil, nil, policy.ErrorDiags(err)
	}
	var rules []string
	for _, f := range files {
		sources[f] = []byte(srcs[f])
		if !strings.HasSuffix(f, "_test.rego") {
			rules = append(rules, f)
		}
	}
	if len(rules) == 0 {
		return nil, nil, diag.List{{Severity: diag.Error, Rule: "policy", Pos: diag.Pos{File: strings.Join(dirs, ", ")},
			Summary: "no organisation rules (*.rego files other than *_test.rego) in the --policy directory"}}
	}
	eng, err := policy.LoadWith(dirs, opt)
	if err != nil {
		return nil, nil, policy.ErrorDiags(err)
	}
	return eng, customRules(rules, sources), nil
}

// customRules describes the custom packages of files for SARIF: ID
// "custom.<package below bwpolicy.custom>", short description and help
// from the package's METADATA annotation (title, description,
// related_resources) or, failing that, from the first annotated deny or
// warn rule.
func customRules(files []string, sources map[string][]byte) []report.Rule {
	byID := map[string]report.Rule{}
	for _, f := range files {
		pkg, doc, err := policy.ModuleDoc(f, string(sources[f]))
		if err != nil {
			continue
		}
		pkg = strings.TrimPrefix(pkg, "bwpolicy.")
		if _, ok := byID[pkg]; ok && doc == nil {
			continue
		}
		ru := report.GenericRule(pkg)
		ru.Help += fmt.Sprintf(" Source: %s.", f)
		if doc != nil {
			if doc.Title != "" {
				ru.Short = doc.Title
			}
			if doc.Description != "" {
				if doc.Title == "" {
					ru.Short = firstSentence(doc.Description)
				}
				ru.Help = doc.Description + fmt.Sprintf(" (Source: %s.)", f)
			}
			if doc.HelpURI != "" {
				ru.HelpURI = doc.HelpURI
			}
			if doc.Level == "warning" {
				ru.Level = diag.Warning
			}
		}
		byID[pkg] = ru
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := make([]report.Rule, 0, len(ids))
	for _, id := range ids {
		out = append(out, byID[id])
	}
	return out
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
