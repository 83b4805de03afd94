// Package report writes the findings of `bwpolicy check` in the formats
// CI systems read: text (file:line:col: severity: message [RULE] and a
// source snippet with a caret, like a compiler), json (a versioned
// envelope around the diagnostics, schema/findings.schema.json), sarif
// (SARIF 2.1.0, for GitHub code scanning and other SARIF viewers), github
// (workflow commands, which GitHub Actions shows as annotations on the
// pull request), junit (JUnit XML, for GitLab's and Jenkins' test
// reports) and gitlab (GitLab Code Quality).
//
// A report has two kinds of diagnostics. Findings are what the inputs
// are wrong about (exit 1). Failures are why the run itself could not be
// trusted: an organisation rule that does not parse, an internal error
// (exit 2). Every format carries both, and keeps them apart where the
// format can (SARIF puts failures in toolExecutionNotifications).
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bwpolicy/bwpolicy/diag"
)

// Tool names the program that made a report.
type Tool struct {
	Name    string
	Version string // "" when unknown
	URI     string // information URI, "" when none
}

// Report is everything one `bwpolicy check` call found.
type Report struct {
	Tool Tool
	// Inputs are the files that were checked, in order.
	Inputs []string
	// Findings are the diagnostics about the inputs, sorted.
	Findings diag.List
	// Failures are the diagnostics that made the run fail as a tool
	// (exit 2): a broken organisation rule, an internal error.
	Failures diag.List
	// Suppressed are the findings an inline "# bwpolicy:ignore" comment
	// silenced: not counted, not in the text output, and in SARIF as
	// results with an inSource suppression.
	Suppressed []Suppressed
	// Sources holds file contents by name, for snippets.
	Sources map[string][]byte
	// Rules describes every rule ID a diagnostic may carry; IDs without
	// an entry get a generic description.
	Rules []Rule
	// WorkDir is the directory relative file names are relative to (an
	// absolute path; SARIF records it as %SRCROOT%). "" leaves it out.
	WorkDir string
	// WarningsFail is true when warnings fail the run (check --fail-on
	// warning): JUnit then reports them as failures too.
	WarningsFail bool
}

// Suppressed is a finding silenced by an inline comment.
type Suppressed struct {
	diag.Diagnostic
	// Justification is the comment's reason ("" when it gave none).
	Justification string
	// At is where the comment is.
	At diag.Pos
}

// Rule is the description of one rule ID, for SARIF and docs.
type Rule struct {
	ID string
	// Name is a short PascalCase name (SARIF reportingDescriptor.name).
	Name string
	// Short is one sentence: what the rule finds.
	Short string
	// Help says why it matters and how to fix it (plain text).
	Help string
	// HelpURI points at more documentation, "" when none.
	HelpURI string
	// Level is the severity the rule usually reports with.
	Level diag.Severity
	// Security is true for the rules that protect the sandbox (SARIF
	// tag "security" and a security-severity for GitHub).
	Security bool
}

// Formats lists the output formats, the default first.
func Formats() []string { return []string{"text", "json", "sarif", "github", "junit", "gitlab"} }

// Write writes r in format to w.
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case "text":
		return Text(w, r)
	case "json":
		return JSON(w, r)
	case "sarif":
		return SARIF(w, r)
	case "github":
		return GitHub(w, r)
	case "junit":
		return JUnit(w, r)
	case "gitlab":
		return GitLab(w, r)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats(), ", "))
}

// Counts returns the number of errors and warnings among the findings.
func (r *Report) Counts() (errors, warnings int) {
	for _, d := range r.Findings {
		if d.Severity == diag.Error {
			errors++
		} else {
			warnings++
		}
	}
	return errors, warnings
}

// Summary is the one-line summary the text format ends with.
func (r *Report) Summary() string {
	e, w := r.Counts()
	if len(r.Inputs) == 0 && len(r.Failures) > 0 {
		return fmt.Sprintf("nothing was checked: the check itself failed (%s)", plural(len(r.Failures), "problem"))
	}
	s := fmt.Sprintf("%s checked: %s, %s", plural(len(r.Inputs), "file"), plural(e, "error"), plural(w, "warning"))
	if n := len(r.Suppressed); n > 0 {
		s += fmt.Sprintf(" (%d suppressed)", n)
	}
	if n := len(r.Failures); n > 0 {
		s += fmt.Sprintf("; the check itself failed (%s)", plural(n, "problem"))
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// rule returns the description of id: from r.Rules, else generic.
func (r *Report) rule(id string) Rule {
	for _, ru := range r.Rules {
		if ru.ID == id {
			return ru
		}
	}
	// "custom.limits/max-mem": the package's description, named.
	if pkg, name, ok := strings.Cut(id, "/"); ok {
		for _, ru := range r.Rules {
			if ru.ID == pkg {
				ru.ID, ru.Name = id, ruleName(id)
				ru.Short = strings.TrimSuffix(ru.Short, ".") + " (" + name + ")."
				return ru
			}
		}
	}
	return GenericRule(id)
}

// GenericRule describes a rule ID that has no description of its own.
func GenericRule(id string) Rule {
	if strings.HasPrefix(id, "custom.") {
		pkg := id
		if i := strings.IndexByte(pkg, '/'); i >= 0 {
			pkg = pkg[:i]
		}
		return Rule{ID: id, Name: ruleName(id), Level: diag.Error,
			Short: fmt.Sprintf("Organisation rule of package bwpolicy.%s.", pkg),
			Help:  fmt.Sprintf("A rule of your organisation (Rego package bwpolicy.%s, loaded with --policy). Its message says what to change; see the rule's source for why.", pkg)}
	}
	return Rule{ID: id, Name: ruleName(id), Level: diag.Error, Short: "bwpolicy rule " + id + "."}
}

// ruleName makes a SARIF-friendly name from an ID: "custom.limits/max-mem"
// → "CustomLimitsMaxMem".
func ruleName(id string) string {
	var b strings.Builder
	up := true
	for _, c := range id {
		switch {
		case c >= 'a' && c <= 'z':
			if up {
				c -= 'a' - 'A'
			}
			b.WriteRune(c)
			up = false
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
			b.WriteRune(c)
			up = false
		default:
			up = true
		}
	}
	return b.String()
}

// ruleIDs returns the IDs of the catalogue followed by every other ID
// the diagnostics use, sorted.
func (r *Report) ruleIDs() []string {
	seen := map[string]bool{}
	var out []string
	for _, ru := range r.Rules {
		if !seen[ru.ID] {
			seen[ru.ID] = true
			out = append(out, ru.ID)
		}
	}
	var extra []string
	for _, l := range []diag.List{r.Findings, r.Failures} {
		for _, d := range l {
			if d.Rule != "" && !seen[d.Rule] {
				seen[d.Rule] = true
				extra = append(extra, d.Rule)
			}
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// message is a diagnostic's text without position and rule: "path:
// summary" (formats that carry the position and rule elsewhere).
func message(d diag.Diagnostic) string {
	if d.Path != "" {
		return d.Path + ": " + d.Summary
	}
	return d.Summary
}
