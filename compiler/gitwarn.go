package compiler

import (
	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
)

// gitWarnings is the policy stage's Go-side check of H9's facts that are
// Go data: each git configuration file in the writable set that sets a
// relative core.hooksPath for a git directory whose worktree the
// compile cannot tell (facts.GitNotes) is a host warning: the hooks
// directory it names is not bound read-only while a command runs.
func (st *state) gitWarnings() {
	for _, c := range st.res.Facts.GitNotes {
		st.res.Diags.Add(diag.Diagnostic{Severity: diag.Warning, Rule: string(invocation.ReasonProtectedEntries), Host: true, Pos: diag.Pos{File: st.res.Document.File},
			Summary: c + " sets a relative core.hooksPath, and the worktree its hooks run in is not known when compiling (no core.worktree, no checkout with a .git file leading there): the directory it names is not bound read-only, so a command can plant a hook there while it runs (bwrun's post-command scan sets aside what it finds); set core.worktree, or make core.hooksPath absolute"})
	}
}
