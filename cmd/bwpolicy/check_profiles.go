package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/compiler"
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/internal/bounded"
	"github.com/bwpolicy/bwpolicy/profile"
	"github.com/bwpolicy/bwpolicy/profiles"
)

// checkProfiles loads the custom profiles of dirs and checks each one on
// its own, whether or not a settings file selects it: CUE unification
// with #Profile (an S property restated with another value, an unknown
// field) and the floor rules R13 (sharing the host network), evaluated
// through the whole pipeline with a settings file that only selects the
// profile. It returns the profile set (nil when even the built-in
// profiles failed), the findings and failures, the profile files checked
// and, for each refused profile, where it was refused.
func checkProfiles(ctx context.Context, dirs []string, lim bounded.Limits, base compiler.Request, sources map[string][]byte) (*profile.Set, diag.List, diag.List, []string, map[string]diag.Pos) {
	var findings, failures diag.List
	var inputs []string
	budget := profile.NewBudget()
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // profile.Load reports it
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".cue") {
				continue
			}
			f := filepath.Join(dir, e.Name())
			inputs = append(inputs, f)
			if src, err := budget.ReadFile(f); err == nil {
				sources[f] = src
			}
		}
	}
	set, ds := profile.LoadWith(dirs, lim)
	for i := range ds {
		ds[i] = floorDiag(ds[i])
	}
	for _, d := range ds {
		if compiler.Failure(d) { // internal, or a crossed bound
			failures.Add(d)
		} else {
			findings.Add(d)
		}
	}
	refused := map[string]diag.Pos{}
	for _, f := range inputs {
		name := strings.TrimSuffix(filepath.Base(f), ".cue")
		for _, d := range ds {
			if d.Severity == diag.Error && d.Pos.File == f {
				if _, ok := refused[name]; !ok {
					refused[name] = d.Pos
				}
			}
		}
	}
	if set == nil || failures.HasErrors() {
		return nil, findings, failures, inputs, refused
	}
	builtin := map[string]bool{}
	for _, n := range profiles.Names {
		builtin[n] = true
	}
	names := set.Names()
	sort.Strings(names)
	for _, name := range names {
		if builtin[name] {
			continue
		}
		req := base
		req.Profiles = set
		req.File = "<profile " + name + ">"
		req.Source = []byte(fmt.Sprintf("profile: %s\n", name))
		res := compileSafely(ctx, &req)
		if res.Profile == nil {
			for _, d := range res.Diags {
				if compiler.Failure(d) {
					failures.Add(d)
				}
			}
			continue
		}
		for _, d := range res.Diags {
			switch {
			case compiler.Failure(d):
				failures.Add(d)
			case d.Pos.File == res.Profile.Source:
				// About the profile itself (R13, or an organisation
				// rule with "in": "profile"); what the synthetic
				// settings file gets wrong is no finding.
				findings.Add(d)
				if d.Severity == diag.Error {
					if _, ok := refused[name]; !ok {
						refused[name] = d.Pos
					}
				}
			}
		}
	}
	return set, findings, failures, inputs, refused
}

// compileSafely is compiler.Compile with a panic turned into an internal
// diagnostic.
func compileSafely(ctx context.Context, req *compiler.Request) (res *compiler.Result) {
	defer func() {
		if r := recover(); r != nil {
			res = &compiler.Result{Diags: diag.List{{Severity: diag.Error, Rule: "internal",
				Pos: diag.Pos{File: req.File}, Summary: fmt.Sprintf("internal error: %v", r)}}}
		}
	}()
	return compiler.Compile(ctx, req)
}

// floorProperty maps a #Profile field to the S property it carries.
var floorProperty = map[string]string{
	"namespaces": "S2", "die_with_parent": "S2", "new_session": "S2", "network": "S2",
	"root": "S3", "dev": "S3", "proc": "S3", "tmp": "S3",
	"run_user": "S4", "docker_socket": "S4", "unset_env": "S4",
	"hidden_home": "S5", "hide_hermes_home": "S5", "pin_parents": "S7",
}

// floorDiag words a CUE conflict with #Profile as what it is: a custom
// profile trying to change a property every sandbox keeps.
func floorDiag(d diag.Diagnostic) diag.Diagnostic {
	path, ok := strings.CutPrefix(d.Path, "#Profile.")
	if !ok {
		return d
	}
	d.Path = path
	field, _, _ := strings.Cut(path, ".")
	if s, ok := floorProperty[field]; ok && strings.Contains(d.Summary, "conflicting values") {
		d.Summary += fmt.Sprintf(": every sandbox keeps %s as #Profile fixes it (%s); a profile cannot change it", field, s)
	}
	return d
}
