package compiler

// This file refuses host paths the facts stage could not examine.

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"syscall"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// refuseUnexaminable reports, as errors, the paths the invocation would
// depend on that lstat() could not examine (facts.Stat.Err: permission
// denied by a directory of the user's own, a symlink loop, a name too
// long, an I/O error). bwrun checks every precondition before each
// command and could never check these: an invocation recording one would
// be refused as stale forever, so nothing is compiled. A path out of the
// user's reach for good (invocation.KindDenied) is no error: it is recorded
// as denied, and checked as such.
func (st *state) refuseUnexaminable() {
	f := st.res.Facts
	var paths []string
	for p, s := range f.Observed {
		if s.Err != nil {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return
	}
	why := reasons(f)
	abs := newAbsentDirs(f.Observed)
	paths = slices.DeleteFunc(paths, func(p string) bool { return redundant(why, abs, p) })
	sort.Strings(paths)
	for _, p := range paths {
		st.res.Diags.Add(st.unexaminableDiag(p, f.Observed[p].Err, why[p]))
	}
}

// unexaminableDiag is the error for path p, which lstat() failed on with
// err; w is why the invocation depends on it.
func (st *state) unexaminableDiag(p string, err error, w because) diag.Diagnostic {
	d := diag.Diagnostic{Severity: diag.Error, Rule: "input", Host: true, Pos: st.res.Document.FilePos()}
	ws := invocation.Precondition{Why: w.Why, Scope: w.Scope, Bind: w.Bind}.WhyString()
	what := ws
	if w.Why.IsRule() {
		d.Rule = string(w.Why)
	}
	if w.Why == "" {
		what = "a directory on the way to a path it depends on"
	}
	stop := "stop naming the path"
	for _, h := range st.res.Facts.Hidden {
		if h.Entry != p && h.Path != p {
			continue
		}
		switch {
		case h.Var != "":
			what = fmt.Sprintf("$%s names it (%s)", h.Var, ws)
			stop = fmt.Sprintf("point $%s elsewhere (or unset it)", h.Var)
		case h.Source == facts.SourceHide:
			d.Pos, d.Path, d.Host = st.settingsPos("hide", h.HideIndex), fmt.Sprintf("hide[%d]", h.HideIndex), false
			stop = "remove the hide entry"
		}
		break
	}
	if w.Why == invocation.ReasonBinds {
		i := w.Bind
		d.Rule, d.Pos, d.Path, d.Host = string(invocation.ReasonBindPathInvalid), st.settingsPos("binds", i), fmt.Sprintf("binds[%d]", i), false
		stop = "remove the bind"
	}
	d.Summary = fmt.Sprintf("cannot examine %s (%s): %v", p, what, err)
	if dir, ok := st.res.Facts.DenyingDirs[p]; ok && errors.Is(err, syscall.EACCES) {
		d.Detail = fmt.Sprintf("the directory %s denies you search permission, but it is yours: a sandboxed command could chmod it and reach %s, so the path does not count as out of reach, and bwrun could never check it. Make it searchable (chmod u+x %s) so that the path is examined and hidden, or %s", dir, p, dir, stop)
	} else {
		d.Detail = "bwrun checks every path an invocation depends on before each command and could never check this one: make it examinable, or " + stop
	}
	return d
}
