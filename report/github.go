package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
)

// GitHub writes one workflow command per diagnostic,
//
//	::error file=F,line=L,col=C,title=RULE::message
//
// (::warning for warnings), which GitHub Actions shows as annotations on
// the lines of the pull request, then the summary as a plain line.
func GitHub(w io.Writer, r *Report) error {
	for _, l := range []diag.List{r.Findings, r.Failures} {
		for _, d := range l {
			if _, err := fmt.Fprintln(w, githubCommand(d)); err != nil {
				return err
			}
		}
	}
	_, err := fmt.Fprintln(w, r.Summary())
	return err
}

func githubCommand(d diag.Diagnostic) string {
	cmd := "error"
	if d.Severity == diag.Warning {
		cmd = "warning"
	}
	var props []string
	if d.Pos.File != "" && !strings.HasPrefix(d.Pos.File, "<") {
		props = append(props, "file="+escapeProperty(d.Pos.File))
		if d.Pos.Line > 0 {
			props = append(props, fmt.Sprintf("line=%d", d.Pos.Line))
			if d.Pos.Col > 0 {
				props = append(props, fmt.Sprintf("col=%d", d.Pos.Col))
			}
		}
	}
	if d.Rule != "" {
		props = append(props, "title="+escapeProperty(d.Rule))
	}
	msg := message(d)
	if d.Detail != "" {
		msg += "\n" + d.Detail
	}
	msg += relatedNotes(d)
	s := "::" + cmd
	if len(props) > 0 {
		s += " " + strings.Join(props, ",")
	}
	return s + "::" + escapeData(msg)
}

// relatedNotes is d's related positions as the text format's note
// lines, "\nfile:line:col: note: message" each, for the formats whose
// message is plain text (github, junit).
//
// GitHub gets them inside the annotation's message rather than as
// annotations of their own (::notice at the related line): a related
// position is often in no file of the repository (bwpolicy's own
// schema/sandbox.cue) or in a file the pull request does not change,
// where GitHub cannot attach an annotation to a line and only lists it
// in the run's summary; a notice would read as a finding of its own,
// apart from the one it explains; and GitHub caps the annotations one
// step may create, so notices could push real findings out. In the message the position stays with its finding,
// wherever that is shown.
func relatedNotes(d diag.Diagnostic) string {
	var b strings.Builder
	for _, r := range d.Related {
		b.WriteString("\n")
		if p := r.Pos.String(); p != "" {
			b.WriteString(p + ": ")
		}
		b.WriteString("note: " + r.Message)
	}
	return b.String()
}

// escapeData and escapeProperty escape the way @actions/core does, so a
// message or a file name cannot end the command early or start another.
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
