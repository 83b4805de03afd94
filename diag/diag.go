// Package diag holds the diagnostics that every stage of bwpolicy's
// pipeline reports (YAML parsing, JSON Schema, CUE, Rego, compilation):
// one shape, one sort order, one renderer.
package diag

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Severity says whether a diagnostic stops compilation.
type Severity int

const (
	// Error stops compilation: nothing is compiled and `check` fails.
	Error Severity = iota
	// Warning compiles (the offending item left out) and is shown.
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// Pos is a position in a source file. Line and Col are 1-based; zero
// means unknown. A value given on the command line has Flag set (and no
// file): it is blamed on the flag, not on a settings file.
type Pos struct {
	File string
	Line int
	Col  int
	// Flag is the command-line flag ("--profile") the value came from.
	Flag string
}

// CommandLine is the position of a value given by flag.
func CommandLine(flag string) Pos { return Pos{Flag: flag} }

// String renders p as "file:line:col", dropping unknown parts, or
// "command line: --flag".
func (p Pos) String() string {
	switch {
	case p.Flag != "":
		return "command line: " + p.Flag
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Diagnostic is one finding of one stage.
type Diagnostic struct {
	Severity Severity
	// Rule is the stable ID of the property or rule (R3, S5, schema, yaml).
	Rule string
	// Summary is one line saying what is wrong.
	Summary string
	// Detail optionally says how to fix it (a migration's steps); every
	// format shows it after the summary.
	Detail string
	// Fix optionally is the text to write instead (a migration's
	// replacement), for tools that apply it.
	Fix string
	// Pos is where the offending value is.
	Pos Pos
	// Related are the other places the finding involves: the other
	// side of a conflict (CUE's second position), in order.
	Related []Related
	// Path is the key path inside the settings, such as "binds[1].src".
	Path string
	// Host marks a diagnostic about the machine compiling (no bwrap, an
	// old kernel, compiling as root), not about the file: `check` leaves
	// these to `compile` and `doctor`, so a lint verdict does not depend
	// on the CI runner.
	Host bool
}

// String renders d as "file:line:col: severity: summary [RULE] (path)".
func (d Diagnostic) String() string {
	var b strings.Builder
	if p := d.Pos.String(); p != "" {
		b.WriteString(p)
		b.WriteString(": ")
	}
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	if d.Path != "" {
		b.WriteString(d.Path)
		b.WriteString(": ")
	}
	b.WriteString(d.Summary)
	if d.Rule != "" {
		b.WriteString(" [")
		b.WriteString(d.Rule)
		b.WriteString("]")
	}
	return b.String()
}

// Related is another place a diagnostic involves.
type Related struct {
	Pos Pos
	// Message says what is there ("the other value").
	Message string
}

// Equal reports whether d and o are the same diagnostic.
func (d Diagnostic) Equal(o Diagnostic) bool {
	return d.Severity == o.Severity && d.Rule == o.Rule && d.Summary == o.Summary && d.Detail == o.Detail && d.Fix == o.Fix &&
		d.Pos == o.Pos && d.Path == o.Path && d.Host == o.Host && slices.Equal(d.Related, o.Related)
}

// List is a list of diagnostics, sortable by position.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(d Diagnostic) { *l = append(*l, d) }

// Append appends all of other.
func (l *List) Append(other List) { *l = append(*l, other...) }

// HasErrors reports whether any diagnostic is an Error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns the diagnostics of severity Error.
func (l List) Errors() List { return l.filter(Error) }

// Warnings returns the diagnostics of severity Warning.
func (l List) Warnings() List { return l.filter(Warning) }

func (l List) filter(s Severity) List {
	var out List
	for _, d := range l {
		if d.Severity == s {
			out = append(out, d)
		}
	}
	return out
}

// Sort orders l by file, line, column, then rule and summary, and drops
// exact duplicates, so output is stable whatever order stages ran in.
func (l *List) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Col != b.Pos.Col {
			return a.Pos.Col < b.Pos.Col
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Summary < b.Summary
	})
	out := s[:0]
	for i, d := range s {
		if i > 0 && d.Equal(s[i-1]) {
			continue
		}
		out = append(out, d)
	}
	*l = out
}

// Error makes a List usable as an error; it lists every diagnostic.
func (l List) Error() string {
	lines := make([]string, len(l))
	for i, d := range l {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}
