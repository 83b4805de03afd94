package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"

	"github.com/bwpolicy/bwpolicy/diag"
)

// JUnitSuite is one <testsuite> of a JUnit XML report.
type JUnitSuite struct {
	Name  string
	Cases []JUnitCase
}

// JUnitCase is one <testcase>: passed when Failure, Error and Skipped
// are all nil.
type JUnitCase struct {
	Name, Classname string
	// File and Line say where the case is (GitLab links the file).
	File string
	Line int
	// Seconds is the case's duration; 0 leaves the time attribute out.
	Seconds float64
	// Failure: the case failed; Error: it could not run; Skipped: it
	// did not run (or was silenced).
	Failure, Error, Skipped *JUnitMessage
	// Output is shown as the case's <system-out>.
	Output string
}

// JUnitMessage is a <failure>, <error> or <skipped> element.
type JUnitMessage struct {
	Message, Type, Text string
}

// The XML shapes, in the JUnit dialect GitLab and Jenkins read.
type (
	junitSuitesXML struct {
		XMLName  xml.Name        `xml:"testsuites"`
		Name     string          `xml:"name,attr"`
		Tests    int             `xml:"tests,attr"`
		Failures int             `xml:"failures,attr"`
		Errors   int             `xml:"errors,attr"`
		Skipped  int             `xml:"skipped,attr"`
		Suites   []junitSuiteXML `xml:"testsuite"`
	}
	junitSuiteXML struct {
		Name     string         `xml:"name,attr"`
		Tests    int            `xml:"tests,attr"`
		Failures int            `xml:"failures,attr"`
		Errors   int            `xml:"errors,attr"`
		Skipped  int            `xml:"skipped,attr"`
		Time     string         `xml:"time,attr,omitempty"`
		Cases    []junitCaseXML `xml:"testcase"`
	}
	junitCaseXML struct {
		Name      string           `xml:"name,attr"`
		Classname string           `xml:"classname,attr"`
		File      string           `xml:"file,attr,omitempty"`
		Line      int              `xml:"line,attr,omitempty"`
		Time      string           `xml:"time,attr,omitempty"`
		Failure   *junitMessageXML `xml:"failure"`
		Error     *junitMessageXML `xml:"error"`
		Skipped   *junitMessageXML `xml:"skipped"`
		Output    string           `xml:"system-out,omitempty"`
	}
	junitMessageXML struct {
		Message string `xml:"message,attr,omitempty"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// WriteJUnit writes suites as a JUnit XML document named name, with the
// counts of tests, failures, errors and skipped cases per suite and in
// all. Text that is not valid in XML (control bytes, invalid UTF-8) is
// replaced by U+FFFD, so hostile input cannot break the document.
func WriteJUnit(w io.Writer, name string, suites []JUnitSuite) error {
	doc := junitSuitesXML{Name: name, Suites: []junitSuiteXML{}}
	for _, s := range suites {
		sx := junitSuiteXML{Name: s.Name}
		var secs float64
		for _, c := range s.Cases {
			cx := junitCaseXML{Name: c.Name, Classname: c.Classname, File: c.File, Line: c.Line,
				Time: seconds(c.Seconds), Failure: messageXML(c.Failure), Error: messageXML(c.Error),
				Skipped: messageXML(c.Skipped), Output: c.Output}
			secs += c.Seconds
			sx.Tests++
			switch {
			case c.Error != nil:
				sx.Errors++
			case c.Failure != nil:
				sx.Failures++
			case c.Skipped != nil:
				sx.Skipped++
			}
			sx.Cases = append(sx.Cases, cx)
		}
		sx.Time = seconds(secs)
		doc.Tests += sx.Tests
		doc.Failures += sx.Failures
		doc.Errors += sx.Errors
		doc.Skipped += sx.Skipped
		doc.Suites = append(doc.Suites, sx)
	}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", xml.Header, b)
	return err
}

func messageXML(m *JUnitMessage) *junitMessageXML {
	if m == nil {
		return nil
	}
	return &junitMessageXML{Message: m.Message, Type: m.Type, Text: m.Text}
}

// seconds formats a duration attribute; "" (left out) for 0.
func seconds(s float64) string {
	if s == 0 {
		return ""
	}
	return strconv.FormatFloat(s, 'f', 6, 64)
}

// JUnit writes the report as JUnit XML (GitLab's test report, Jenkins'
// junit step): one suite per checked file, in order, then one per other
// file a diagnostic is about (a rule file); one case per finding, named
// "RULE line L: path" with the message as its failure, a passing case
// for a file without findings, a skipped case per suppressed finding,
// and the failures of the check itself as errors. A warning fails its
// case only when r.WarningsFail (check --fail-on warning) is set; else
// it passes with the message as its output.
func JUnit(w io.Writer, r *Report) error {
	byFile := map[string][]JUnitCase{}
	var order []string
	addFile := func(f string) {
		if _, ok := byFile[f]; !ok {
			byFile[f] = nil
			order = append(order, f)
		}
	}
	for _, in := range r.Inputs {
		addFile(in)
	}
	add := func(d diag.Diagnostic, c JUnitCase) {
		addFile(d.Pos.File)
		byFile[d.Pos.File] = append(byFile[d.Pos.File], c)
	}
	for _, d := range r.Findings {
		c := junitCase(d)
		m := &JUnitMessage{Message: message(d), Type: d.Rule, Text: junitText(d)}
		if d.Severity == diag.Error || r.WarningsFail {
			c.Failure = m
		} else {
			c.Output = m.Text
		}
		add(d, c)
	}
	for _, s := range r.Suppressed {
		c := junitCase(s.Diagnostic)
		c.Skipped = &JUnitMessage{Message: "suppressed by # bwpolicy:ignore: " + s.Justification, Type: s.Rule}
		add(s.Diagnostic, c)
	}
	for _, d := range r.Failures {
		c := junitCase(d)
		c.Error = &JUnitMessage{Message: message(d), Type: d.Rule, Text: junitText(d)}
		add(d, c)
	}
	suites := make([]JUnitSuite, 0, len(order))
	for _, f := range order {
		cases := byFile[f]
		if len(cases) == 0 {
			cases = []JUnitCase{{Name: "no findings", Classname: f, File: junitFile(f)}}
		}
		suites = append(suites, JUnitSuite{Name: f, Cases: cases})
	}
	return WriteJUnit(w, r.Tool.Name+" check", suites)
}

func junitCase(d diag.Diagnostic) JUnitCase {
	name := d.Rule
	if d.Pos.Line > 0 {
		name += " line " + strconv.Itoa(d.Pos.Line)
	}
	if d.Path != "" {
		name += ": " + d.Path
	}
	return JUnitCase{Name: name, Classname: d.Pos.File, File: junitFile(d.Pos.File), Line: d.Pos.Line}
}

// junitFile is the file attribute: "" for names that are not files.
func junitFile(f string) string {
	if _, ok := artifactLocation(f); !ok {
		return ""
	}
	return f
}

// junitText is a failure's body: the diagnostic as the text format
// prints it (position, severity, message, rule), its detail and its
// related positions.
func junitText(d diag.Diagnostic) string {
	s := d.String()
	if d.Detail != "" {
		s += "\n" + d.Detail
	}
	return s + relatedNotes(d)
}
