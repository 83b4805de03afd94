package compiler

// This file records the host state an invocation depends on.

import (
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// preconditions records every path the facts stage looked at, so the
// runtime can refuse an invocation compiled under other host state.
func preconditions(f *facts.Facts) []invocation.Precondition {
	why := reasons(f)
	abs := newAbsentDirs(f.Observed)
	paths := make([]string, 0, len(f.Observed))
	for p := range f.Observed {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	entries := homeEntryRows(f, why, abs)
	out := make([]invocation.Precondition, 0, len(paths))
	for _, p := range paths {
		st := f.Observed[p]
		if redundant(why, abs, p) {
			continue
		}
		w, ok := why[p]
		if !ok {
			if _, grouped := entries.of[p]; grouped {
				continue // in its directory's names row
			}
			w = because{Why: invocation.ReasonPathComponent}
		}
		pc := invocation.Precondition{Path: p, Kind: st.Kind, Target: st.Target, Why: w.Why, Scope: w.Scope, Bind: w.Bind}
		if wd := f.Walked[p]; wd != nil {
			pc.MTime = st.MTime
			pc.Match = append([]string(nil), wd.Match...)
			sort.Strings(pc.Match)
			pc.NewDirs = wd.NewDirs
			pc.Why, pc.Scope, pc.Bind = invocation.ReasonUserHidePaths, invocation.ScopeHideListing, 0
		}
		if l := f.HomeLayout; l.Active() && p == l.Home && st.MTime != 0 {
			// A non-dot entry made in HOME after the compile: stale, so
			// the next compile binds it back (the plugin recompiles once).
			pc.MTime = st.MTime
			pc.Match = append(pc.Match, invocation.HomeNewEntries)
			if pc.Why == invocation.ReasonPathComponent {
				pc.Why, pc.Scope = invocation.ReasonHomeLayout, invocation.ScopeHomeLayout
			}
		}
		out = append(out, pc)
		out = append(out, entries.rows[p]...) // after the directory's own row
	}
	return out
}

// homeRows are the home layout's entries as names rows
// (invocation.Precondition.Names): of maps each entry's path to its
// directory, rows holds each directory's rows (a file row, then a
// directory row).
type homeRows struct {
	of   map[string]string
	rows map[string][]invocation.Precondition
}

// homeEntryRows groups the files and directories the home layout binds
// back (H10) whose precondition has no reason of its own (a working
// directory or a bind keeps its row and its reason) by directory and
// kind: a home of 200 entries is then a few rows, not 200, in the
// invocation bwrun reads on every command. A directory that is not
// itself a precondition keeps its entries one row each.
func homeEntryRows(f *facts.Facts, why map[string]because, abs *absentDirs) homeRows {
	hr := homeRows{of: map[string]string{}, rows: map[string][]invocation.Precondition{}}
	l := f.HomeLayout
	if !l.Active() {
		return hr
	}
	names := map[[2]string][]string{}
	for _, en := range l.Entries {
		st, ok := f.Observed[en.Path]
		dir := path.Dir(en.Path)
		_, dirRow := f.Observed[dir]
		_, reasoned := why[en.Path]
		if !ok || reasoned || st.Kind != en.Kind || !dirRow ||
			(en.Kind != invocation.KindFile && en.Kind != invocation.KindDir) || redundant(why, abs, en.Path) {
			continue
		}
		hr.of[en.Path] = dir
		k := [2]string{dir, en.Kind}
		names[k] = append(names[k], path.Base(en.Path))
	}
	for _, kind := range []string{invocation.KindFile, invocation.KindDir} {
		for k, ns := range names {
			if k[1] != kind {
				continue
			}
			sort.Strings(ns)
			hr.rows[k[0]] = append(hr.rows[k[0]], invocation.Precondition{Path: k[0], Names: ns, Kind: kind, Why: invocation.ReasonPathComponent})
		}
	}
	return hr
}

// redundant tells whether the observed path p needs no precondition of
// its own: p cannot appear before its missing parent does, and that
// parent is a precondition of its own. H9 entries stay, the profile
// home's too: the runtime names the one a command created, and sets a
// start-up file aside (a profile home without .config loses
// .config/systemd/user otherwise: the new parent only made the
// invocation stale, and the recompile took the planted unit for the
// user's).
func redundant(why map[string]because, abs *absentDirs, p string) bool {
	return why[p].Why != invocation.ReasonProtectedEntries && abs.above(p)
}

// because is a precondition's reason: invocation.Precondition's Why,
// Scope and Bind.
type because struct {
	Why   invocation.Reason
	Scope invocation.Scope
	Bind  int
}

// reasons is why each path the facts stage looked at matters (its
// precondition's Why); the first reason recorded for a path wins,
// hidden paths first.
func reasons(f *facts.Facts) map[string]because {
	why := map[string]because{}
	note := func(p string, w because) {
		if _, ok := why[p]; !ok {
			why[p] = w
		}
	}
	for _, h := range f.Hidden {
		if h.Why == facts.ReasonInherited {
			continue // never recorded: a mirror takes its path's reason
		}
		w := because{Why: h.Why}
		if h.Source != "" {
			w.Scope = facts.ProtectionOf(h.Source).Scope
		}
		note(h.Entry, w)
		note(h.Path, w)
	}
	for _, d := range f.DockerSockets {
		note(d.Path, because{Why: facts.ReasonAgentSockets})
		note(d.Real, because{Why: facts.ReasonAgentSockets})
	}
	note(f.RunUser.Path, because{Why: facts.ReasonAgentSockets})
	for _, ca := range f.CABundles {
		note(ca.Path.Path, because{Why: facts.ReasonCABundle})
	}
	note(f.Scratch.Path, because{Why: facts.ReasonException})
	note(f.ProfileHome.Path, because{Why: facts.ReasonException})
	note(f.Cwd.Real, because{Why: invocation.ReasonWorkingDirectory})
	profileHome := facts.ProtectionOf(facts.SourceProfileHomeEntry)
	for _, p := range f.ProtectedLooked {
		if f.HomeMode == "profile" && f.ProfileHome.Kind == invocation.KindDir && facts.Within(p, f.ProfileHome.Real) {
			note(p, because{Why: profileHome.Reason, Scope: profileHome.Scope})
			continue
		}
		note(p, because{Why: facts.ReasonProtected})
	}
	for _, b := range f.Binds {
		note(path.Clean(b.Src), because{Why: invocation.ReasonBinds, Bind: b.Index})
		note(path.Clean(b.Dest), because{Why: invocation.ReasonBinds, Bind: b.Index})
	}
	return why
}

// absentDirs tells whether a parent of an observed path was observed
// absent (or denied: nothing below it can be looked at either),
// remembering the answer for each directory: a compile's few hundred
// paths share a handful of parents. The paths are absolute and clean,
// as the facts stage records them.
type absentDirs struct {
	observed map[string]facts.Stat
	memo     map[string]bool
}

func newAbsentDirs(observed map[string]facts.Stat) *absentDirs {
	return &absentDirs{observed: observed, memo: map[string]bool{}}
}

// above tells whether a directory above p, "/" excluded, is missing.
func (a *absentDirs) above(p string) bool {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return false
	}
	return a.at(p[:i])
}

// at tells whether d or a directory above it is missing.
func (a *absentDirs) at(d string) bool {
	if v, ok := a.memo[d]; ok {
		return v
	}
	st, ok := a.observed[d]
	v := (ok && invocation.Missing(st.Kind)) || a.above(d)
	a.memo[d] = v
	return v
}
