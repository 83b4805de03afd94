package compiler

import (
	"fmt"
	"io"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
	"github.com/bwpolicy/bwpolicy/facts"
	"github.com/bwpolicy/bwpolicy/hazard/secrets"
	"github.com/bwpolicy/bwpolicy/runtime/invocation"
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
		host(string(invocation.ReasonCredentialLocations), n)
	}
	for _, sf := range f.SecretFiles {
		if sf.Unread == facts.UnreadBudget || sf.Unread == facts.UnreadDepth {
			continue // one note (facts.SecretNotes) names them all
		}
		host(string(invocation.ReasonCredentialLocations), secretFileWarning(sf))
	}
	for _, n := range f.CodeDirNotes {
		host(string(invocation.ReasonProtectedEntries), n)
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
			st.res.Diags.Add(diag.Diagnostic{Severity: diag.Warning, Rule: string(invocation.ReasonUserHidePaths), Path: fmt.Sprintf("hide[%d]", i),
				Pos: st.settingsPos("hide", i), Summary: fmt.Sprintf("hide entry %q: %s", t.Hidden, msg)})
			continue
		}
		host(string(facts.RuleOf(t.Why)), t.Hidden+" is hidden, but "+msg)
	}
}

// secretFileWarning says why a file is hidden for a credential (H7):
// which file, which lines and rules, never the value, and how to have
// it back.
func secretFileWarning(sf facts.SecretFile) string {
	rel := sf.Rel
	switch {
	case sf.Part:
		return fmt.Sprintf("%s is hidden: an allowed entry's logs record command lines, registry URLs and headers (facts.HomeAllowedLeft); a build that needs it: home.allow: [%s]", sf.File, rel)
	case sf.Unread != facts.UnreadNone:
		return fmt.Sprintf("%s is hidden: the check of the allowed home entries' contents did not read it (%s), so it could hold a credential; a build that needs it: home.allow: [%s] (shown unread)", sf.File, sf.Unread, rel)
	case sf.NamedBy != "":
		return fmt.Sprintf("%s is hidden wherever it is: %s line %d names it (%s)", sf.File, sf.NamedBy, sf.Line, secretRules(sf.Rules))
	case rel == "":
		return fmt.Sprintf("%s %s: the file is hidden (empty) in the sandbox; move the secret to a store the sandbox does not show and recompile", sf.File, secretLinesText(sf))
	case sf.Startup:
		return fmt.Sprintf("%s %s: the file is hidden (empty) in the sandbox, with the rest of its settings; move the secret to a file the sandbox does not show (~/.config/secrets.sh, sourced with `[ -r FILE ] && . FILE`) and recompile", sf.File, secretLinesText(sf))
	}
	return fmt.Sprintf("%s %s: the file is hidden (empty) in the sandbox; move the secret to a store the sandbox does not show and recompile, or, for a build that needs the file as it is, home.allow: [%s] (the sandbox then reads the secret)", sf.File, secretLinesText(sf), rel)
}

// secretLinesText: "line 3 holds a credential (rule)" or "lines 3, 7
// hold credentials (rule; rule)"; a text beyond the detector's bounds
// says so.
func secretLinesText(sf facts.SecretFile) string {
	if n := len(sf.Rules); n > 0 && sf.Rules[n-1] == secrets.RuleUnexamined {
		return fmt.Sprintf("is larger than the detector examines (%d bytes, %d lines, %d bytes a line; stopped at line %d)", secrets.MaxTextBytes, secrets.MaxLines, secrets.MaxLineBytes, sf.Lines[n-1])
	}
	lines := make([]string, len(sf.Lines))
	for i, l := range sf.Lines {
		lines[i] = fmt.Sprint(l)
	}
	if len(lines) == 1 {
		return fmt.Sprintf("line %s holds a credential (%s)", lines[0], secretRules(sf.Rules))
	}
	return fmt.Sprintf("lines %s hold credentials (%s)", strings.Join(lines, ", "), secretRules(sf.Rules))
}

// secretRules names the distinct rules, in order.
func secretRules(rs []secrets.Rule) string {
	var out []string
	for _, r := range rs {
		if s := r.String(); !containsString(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

func containsString(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// writeSecretFiles lists, for --explain, the files hidden for a
// credential and why (H7): file, lines and rules, or the file that named
// it; never the value.
func writeSecretFiles(w io.Writer, f *facts.Facts) {
	if len(f.SecretFiles) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "hidden for a secret (H7; hazard/secrets, never the value):")
	for _, sf := range f.SecretFiles {
		switch {
		case sf.Part:
			fmt.Fprintf(w, "  %s: a log directory of an allowed entry\n", sf.File)
		case sf.Unread != facts.UnreadNone:
			fmt.Fprintf(w, "  %s: not read (%s); home.allow: [%s] shows it\n", sf.File, sf.Unread, sf.Rel)
		case sf.NamedBy != "":
			fmt.Fprintf(w, "  %s: named by %s line %d (%s)\n", sf.File, sf.NamedBy, sf.Line, secretRules(sf.Rules))
		default:
			fmt.Fprintf(w, "  %s: %s\n", sf.File, secretLinesText(sf))
		}
	}
}
