package report

import (
	"encoding/json"
	"io"

	"github.com/bwpolicy/bwpolicy/diag"
)

// Diagnostic is the JSON form of one diagnostic. Line and column are
// 1-based; 0 means unknown. Path is the key path inside the settings
// ("binds[1].src"), "" when the diagnostic is not about one key.
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Message  string `json:"message"`
	Path     string `json:"path"`
	// Detail optionally says why it matters or how to fix it.
	Detail string `json:"detail,omitempty"`
	// Replacement is the text to write instead, when the diagnostic is
	// a migration (rule "config").
	Replacement string `json:"replacement,omitempty"`
	// Failure is true for a diagnostic that made the run fail as a tool
	// (exit 2: a broken organisation rule, an internal error) rather
	// than a finding about the inputs.
	Failure bool `json:"failure,omitempty"`
	// Suppressed is true for a finding an inline "# bwpolicy:ignore"
	// comment silenced (not counted); Justification is its reason.
	Suppressed    bool   `json:"suppressed,omitempty"`
	Justification string `json:"justification,omitempty"`
	// Related are the other places the finding involves (the other
	// side of a conflict), in order; left out when there are none.
	Related []RelatedPosition `json:"related,omitempty"`
}

// RelatedPosition is the JSON form of one related position: a place in
// a file ("" and 0 when unknown, like a Diagnostic's) and what is there.
type RelatedPosition struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Message string `json:"message"`
}

// JSONDiagnostics returns the findings, then the failures, then the
// suppressed findings, in their JSON form.
func JSONDiagnostics(r *Report) []Diagnostic {
	out := make([]Diagnostic, 0, len(r.Findings)+len(r.Failures))
	add := func(d diag.Diagnostic, failure bool) {
		out = append(out, Diagnostic{
			File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col,
			Severity: d.Severity.String(), Rule: d.Rule, Message: d.Summary, Path: d.Path,
			Detail: d.Detail, Replacement: d.Fix, Failure: failure, Related: jsonRelated(d.Related),
		})
	}
	for _, d := range r.Findings {
		add(d, false)
	}
	for _, d := range r.Failures {
		add(d, true)
	}
	for _, sd := range r.Suppressed {
		add(sd.Diagnostic, false)
		out[len(out)-1].Suppressed = true
		out[len(out)-1].Justification = sd.Justification
	}
	return out
}

// jsonRelated is the JSON form of a diagnostic's related positions (nil
// when there are none, so the field is left out).
func jsonRelated(rs []diag.Related) []RelatedPosition {
	var out []RelatedPosition
	for _, r := range rs {
		out = append(out, RelatedPosition{File: r.Pos.File, Line: r.Pos.Line, Column: r.Pos.Col, Message: r.Message})
	}
	return out
}

// JSONVersion is the version of the JSON report's shape
// (schema/findings.schema.json). It changes only when a field is removed
// or changes meaning; new optional fields keep it.
const JSONVersion = 1

// JSONReport is the JSON form of a report: a versioned envelope around
// the diagnostics.
type JSONReport struct {
	// Version is JSONVersion.
	Version int `json:"version"`
	// Tool names the program and its module version ("" for a
	// development build).
	Tool JSONTool `json:"tool"`
	// Findings are the diagnostics, as JSONDiagnostics orders them.
	Findings []Diagnostic `json:"findings"`
}

// JSONTool names the program that wrote a JSON report.
type JSONTool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// JSON writes the report as a JSONReport (findings [] when there are
// none).
func JSON(w io.Writer, r *Report) error {
	env := JSONReport{Version: JSONVersion, Tool: JSONTool{Name: r.Tool.Name, Version: r.Tool.Version}, Findings: JSONDiagnostics(r)}
	b, err := json.MarshalIndent(env, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
