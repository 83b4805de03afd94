package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/bwpolicy/bwpolicy/diag"
)

// ciSample is sample(true) with a suppressed finding and a message with
// bytes XML cannot carry (a NUL, an escape, invalid UTF-8, markup).
func ciSample() *Report {
	r := sample(true)
	r.Findings = append(r.Findings, diag.Diagnostic{Severity: diag.Error, Rule: "R3", Path: "hide[0]",
		Summary: "odd \x00\x1b[31m\xff <b>&amp;</b> ]]> bytes", Pos: diag.Pos{File: "sandbox/a.yaml", Line: 3, Col: 1}})
	r.Suppressed = []Suppressed{{Diagnostic: diag.Diagnostic{Severity: diag.Error, Rule: "R9", Path: "binds[1].src",
		Summary: "silenced", Pos: diag.Pos{File: "sandbox/a.yaml", Line: 5, Col: 10}},
		Justification: "known", At: diag.Pos{File: "sandbox/a.yaml", Line: 5}}}
	return r
}

// TestCIFormatsGolden: the exact junit and gitlab output of a report
// with findings, warnings, a failure, a suppression and hostile bytes
// (go test ./report -run TestCIFormatsGolden -update rewrites
// testdata/*.golden).
func TestCIFormatsGolden(t *testing.T) {
	g := goldie.New(t, goldie.WithFixtureDir("testdata"))
	for _, f := range []string{"junit", "gitlab"} {
		g.Assert(t, "ci-"+f, write(t, f, ciSample()))
	}
	warn := ciSample()
	warn.WarningsFail = true
	g.Assert(t, "ci-junit-fail-on-warning", write(t, "junit", warn))
	g.Assert(t, "ci-junit-empty", write(t, "junit", &Report{Tool: Tool{Name: "bwpolicy"}, Inputs: []string{"ok.yaml"}}))
}

// junitDoc is the JUnit XML shape as a reader (GitLab, Jenkins) parses it.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			File      string `xml:"file,attr"`
			Line      int    `xml:"line,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			Output string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, out []byte) junitDoc {
	t.Helper()
	var doc junitDoc
	d := xml.NewDecoder(bytes.NewReader(out))
	d.Strict = true
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("JUnit output does not parse as XML: %v\n%s", err, out)
	}
	return doc
}

// TestJUnitParses: the JUnit output parses with encoding/xml (strict),
// its counts add up, every finding is a case of its file's suite with
// the rule as the failure type, warnings fail only with WarningsFail,
// suppressions are skipped, failures are errors, and hostile bytes
// arrive replaced, not as broken XML.
func TestJUnitParses(t *testing.T) {
	for _, warningsFail := range []bool{false, true} {
		r := ciSample()
		r.WarningsFail = warningsFail
		doc := parseJUnit(t, write(t, "junit", r))
		var tests, failures, errors, skipped int
		cases := map[string]int{}
		for _, s := range doc.Suites {
			if s.Tests != len(s.Cases) {
				t.Errorf("suite %s: tests=%d, %d cases", s.Name, s.Tests, len(s.Cases))
			}
			tests, failures, errors, skipped = tests+s.Tests, failures+s.Failures, errors+s.Errors, skipped+s.Skipped
			for _, c := range s.Cases {
				if c.Classname != s.Name {
					t.Errorf("case %q: classname %q in suite %q", c.Name, c.Classname, s.Name)
				}
				switch {
				case c.Failure != nil:
					cases["failure "+c.Failure.Type]++
					if strings.Contains(c.Failure.Message, "odd") && !strings.Contains(c.Failure.Message, "\uFFFD") {
						t.Errorf("hostile bytes not replaced: %q", c.Failure.Message)
					}
				case c.Error != nil:
					cases["error"]++
				case c.Skipped != nil:
					cases["skipped"]++
				default:
					cases["pass"]++
				}
			}
		}
		if tests != doc.Tests || failures != doc.Failures || errors != doc.Errors || skipped != doc.Skipped {
			t.Errorf("totals %d/%d/%d/%d, suites add up to %d/%d/%d/%d", doc.Tests, doc.Failures, doc.Errors, doc.Skipped, tests, failures, errors, skipped)
		}
		// 7 findings (5 errors, 2 warnings), 1 suppressed, 1 failure,
		// and e.yaml... has a finding; no input is clean here.
		want := map[string]int{"failure custom.limits": 1, "failure custom.limits/max-mem": 1, "failure R9": 1,
			"failure input": 1, "failure R3": 1, "skipped": 1, "error": 1}
		if warningsFail {
			want["failure R7"], want["failure S1"] = 1, 1
		} else {
			want["pass"] = 2
		}
		if len(cases) != len(want) {
			t.Errorf("warningsFail=%v: cases %v, want %v", warningsFail, cases, want)
		}
		for k, n := range want {
			if cases[k] != n {
				t.Errorf("warningsFail=%v: %d %q cases, want %d (all: %v)", warningsFail, cases[k], k, n, cases)
			}
		}
	}
	doc := parseJUnit(t, write(t, "junit", &Report{Tool: Tool{Name: "bwpolicy"}, Inputs: []string{"ok.yaml"}}))
	if doc.Tests != 1 || doc.Failures != 0 || len(doc.Suites) != 1 || doc.Suites[0].Name != "ok.yaml" {
		t.Errorf("a clean file is one passing case: %+v", doc)
	}
}

// TestGitLabCodeQuality: every entry has the fields GitLab requires
// (description, check_name, a unique fingerprint, a severity it knows, a
// relative path, lines.begin >= 1); suppressed findings are left out;
// security rules are critical, failures blockers.
func TestGitLabCodeQuality(t *testing.T) {
	r := ciSample()
	r.Findings = append(r.Findings, r.Findings[0], diag.Diagnostic{Severity: diag.Error, Rule: "R9", Summary: "abs",
		Pos: diag.Pos{File: "/work/repo/sub/f.yaml", Line: 1, Col: 1}})
	var issues []map[string]any
	if err := json.Unmarshal(write(t, "gitlab", r), &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != len(r.Findings)+len(r.Failures) {
		t.Fatalf("%d issues, want %d (findings and failures, not the suppressed)", len(issues), len(r.Findings)+len(r.Failures))
	}
	fps := map[string]bool{}
	sev := map[string]string{}
	for _, is := range issues {
		for _, k := range []string{"description", "check_name", "fingerprint", "severity"} {
			if s, _ := is[k].(string); s == "" {
				t.Errorf("issue %v: no %s", is, k)
			}
		}
		fp := is["fingerprint"].(string)
		if fps[fp] {
			t.Errorf("fingerprint %s twice", fp)
		}
		fps[fp] = true
		loc, _ := is["location"].(map[string]any)
		path, _ := loc["path"].(string)
		lines, _ := loc["lines"].(map[string]any)
		if begin, _ := lines["begin"].(float64); begin < 1 || path == "" || strings.HasPrefix(path, "./") {
			t.Errorf("issue %v: location %v", is["description"], loc)
		}
		if strings.HasPrefix(path, "/work/repo/") {
			t.Errorf("absolute path under the work dir not made relative: %s", path)
		}
		sev[is["check_name"].(string)] = is["severity"].(string)
		switch is["severity"] {
		case "info", "minor", "major", "critical", "blocker":
		default:
			t.Errorf("severity %v", is["severity"])
		}
	}
	if sev["R9"] != "critical" || sev["custom.limits"] != "major" || sev["R7"] != "minor" || sev["policy"] != "blocker" {
		t.Errorf("severities: %v", sev)
	}
	if empty := strings.TrimSpace(string(write(t, "gitlab", &Report{}))); empty != "[]" {
		t.Errorf("no findings: %s, want []", empty)
	}
}
