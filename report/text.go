package report

import (
	"fmt"
	"io"

	"github.com/bwpolicy/bwpolicy/diag"
)

// Text writes the findings the way a compiler does, "file:line:col:
// severity: message [RULE]" with the offending line and a caret under
// the column, then a one-line summary. Failures are not included: write
// them with TextFailures (to standard error).
func Text(w io.Writer, r *Report) error {
	diag.Render(w, r.Findings, r.Sources)
	_, err := fmt.Fprintln(w, r.Summary())
	return err
}

// TextFailures writes the failures in the text form, each with its
// snippet.
func TextFailures(w io.Writer, r *Report) error {
	diag.Render(w, r.Failures, r.Sources)
	return nil
}
