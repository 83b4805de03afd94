package compiler

// This file records the host state an invocation depends on.

import (
	"fmt"
	"path"
	"sort"

	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// preconditions records every path the facts stage looked at, so the
// runtime can refuse an invocation compiled under other host state.
func preconditions(f *facts.Facts) []invocation.Precondition {
	why := reasons(f)
	paths := make([]string, 0, len(f.Observed))
	for p := range f.Observed {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([]invocation.Precondition, 0, len(paths))
	for _, p := range paths {
		st := f.Observed[p]
		if redundant(f, why, p) {
			continue
		}
		w := why[p]
		if w == "" {
			w = "path component"
		}
		pc := invocation.Precondition{Path: p, Kind: st.Kind, Target: st.Target, Why: w}
		if wd := f.Walked[p]; wd != nil {
			pc.MTime = st.MTime
			pc.Match = append([]string(nil), wd.Match...)
			sort.Strings(pc.Match)
			pc.NewDirs = wd.NewDirs
			pc.Why = "H4 (listed by a hide glob)"
		}
		out = append(out, pc)
	}
	return out
}

// redundant tells whether the observed path p needs no precondition of
// its own: p cannot appear before its missing parent does, and that
// parent is a precondition of its own. H9 entries stay, the profile
// home's too: the runtime names the one a command created, and sets a
// start-up file aside (a profile home without .config loses
// .config/systemd/user otherwise: the new parent only made the
// invocation stale, and the recompile took the planted unit for the
// user's).
func redundant(f *facts.Facts, why map[string]string, p string) bool {
	return why[p] != string(facts.ReasonProtected) && why[p] != string(facts.ReasonProfileHome) && absentAbove(f.Observed, p)
}

// reasons is why each path the facts stage looked at matters (its
// precondition's Why); the first reason recorded for a path wins,
// hidden paths first.
func reasons(f *facts.Facts) map[string]string {
	why := map[string]string{}
	note := func(p, w string) {
		if _, ok := why[p]; !ok {
			why[p] = w
		}
	}
	for _, h := range f.Hidden {
		note(h.Entry, string(h.Why))
		note(h.Path, string(h.Why))
	}
	for _, d := range f.DockerSockets {
		note(d.Path, string(facts.ReasonAgentSockets))
		note(d.Real, string(facts.ReasonAgentSockets))
	}
	note(f.RunUser.Path, string(facts.ReasonAgentSockets))
	for _, ca := range f.CABundles {
		note(ca.Path.Path, string(facts.ReasonCABundle))
	}
	note(f.Scratch.Path, string(facts.ReasonException))
	note(f.ProfileHome.Path, string(facts.ReasonException))
	note(f.Cwd.Real, "S9")
	for _, p := range f.ProtectedLooked {
		if f.HomeMode == "profile" && f.ProfileHome.Kind == invocation.KindDir && facts.Within(p, f.ProfileHome.Real) {
			note(p, string(facts.ReasonProfileHome))
			continue
		}
		note(p, string(facts.ReasonProtected))
	}
	for _, b := range f.Binds {
		note(path.Clean(b.Src), fmt.Sprintf("binds[%d]", b.Index))
		note(path.Clean(b.Dest), fmt.Sprintf("binds[%d]", b.Index))
	}
	return why
}

// absentAbove tells whether a parent of p was observed absent (or
// denied: nothing below it can be looked at either).
func absentAbove(observed map[string]facts.Stat, p string) bool {
	for d := path.Dir(p); d != p && d != "/"; p, d = d, path.Dir(d) {
		if st, ok := observed[d]; ok && invocation.Missing(st.Kind) {
			return true
		}
	}
	return false
}
