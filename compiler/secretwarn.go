package compiler

import (
	"fmt"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
)

// secretWarnings is the policy stage's Go-side check (the facts it reads
// are Go data, not part of the policy input): what H7 could not do for
// the hidden paths — the second mounts it could not look through
// (facts.MountNotes), and the hidden files git tracks, whose content
// stays readable from the repository (facts.Tracked), positioned on
// their hide entry.
func (st *state) secretWarnings() {
	f := st.res.Facts
	host := func(rule, msg string) {
		st.res.Diags.Add(diag.Diagnostic{Severity: diag.Warning, Rule: rule, Summary: msg,
			Pos: diag.Pos{File: st.res.Document.File}, Host: true})
	}
	for _, n := range append(f.MountNotes, f.SecretNotes...) {
		host("H7", n)
	}
	for _, n := range f.CodeDirNotes {
		host("H9", n)
	}
	for _, t := range f.Tracked {
		files := strings.Join(t.Files, ", ")
		if more := t.Count - len(t.Files); more > 0 {
			files += fmt.Sprintf(" and %d more", more)
		}
		msg := fmt.Sprintf("git tracks %s in %s: hiding the work tree's copy does not hide the repository's (`git show HEAD:%s` prints it); remove it from the repository and its history, and rotate what it holds",
			files, t.Repo, t.Files[0])
		if t.Why == facts.ReasonHide {
			i := t.HideIndex
			st.res.Diags.Add(diag.Diagnostic{Severity: diag.Warning, Rule: "H4", Path: fmt.Sprintf("hide[%d]", i),
				Pos: st.settingsPos("hide", i), Summary: fmt.Sprintf("hide entry %q: %s", t.Hidden, msg)})
			continue
		}
		host(string(facts.RuleOf(t.Why)), t.Hidden+" is hidden, but "+msg)
	}
}
