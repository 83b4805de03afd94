package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"testing"

	"github.com/sebdah/goldie/v2"

	"github.com/bwpolicy/bwpolicy/internal/testtree"
)

// junitTimes matches the duration attributes, which differ between runs.
var junitTimes = regexp.MustCompile(` time="[0-9.]+"`)

// TestTestCommandJUnit: bwpolicy test --format junit writes one suite
// per test file with a case per test: passed, failed (with the
// expression it failed at), skipped (todo_test_*); exact output in
// testdata/test-junit.golden with the durations blanked
// (go test ./cmd/bwpolicy -run TestTestCommandJUnit -update).
func TestTestCommandJUnit(t *testing.T) {
	env := sandboxEnv(t)
	tests := "package limits_test\n\nimport data.bwpolicy.custom.limits\n\n" +
		"test_big_memory_denied if {\n\tcount(limits.deny) == 1 with input as {\"settings\": {\"memory_mb\": 8192}}\n}\n\n" +
		"test_wrong if {\n\tcount(limits.deny) == 1 with input as {\"settings\": {\"memory_mb\": 256}}\n}\n\n" +
		"todo_test_later if {\n\tfalse\n}\n"
	dir := testtree.Write(t, map[string]string{"policy/limits.rego": limitsRego, "policy/limits_test.rego": tests})
	r := run(t, dir, env, "test", "--format", "junit", "policy")
	wantCode(t, r, 1)
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	d := xml.NewDecoder(bytes.NewReader([]byte(r.stdout)))
	d.Strict = true
	if err := d.Decode(&doc); err != nil {
		t.Fatalf("junit: %v\n%s", err, r)
	}
	if doc.Tests != 3 || doc.Failures != 1 || doc.Skipped != 1 || len(doc.Suites) != 1 {
		t.Errorf("junit counts: %+v", doc)
	}
	goldie.New(t, goldie.WithFixtureDir("testdata")).Assert(t, "test-junit", []byte(junitTimes.ReplaceAllString(r.stdout, ` time="T"`)))

	// No test: an empty document, exit 2.
	none := testtree.Write(t, map[string]string{"policy/limits.rego": limitsRego})
	r = run(t, none, env, "test", "--format", "junit", "policy")
	wantCode(t, r, 2)
	wantContains(t, r, "stdout", `<testsuites name="bwpolicy test" tests="0" failures="0" errors="0" skipped="0"></testsuites>`)
}

// TestCheckCIFormats: check --format junit and --format gitlab on real
// settings files: exact output (testdata/check-*.golden), the JUnit
// parses, and the Code Quality report points at the file's lines.
func TestCheckCIFormats(t *testing.T) {
	env := sandboxEnv(t)
	dir := testtree.Write(t, map[string]string{
		"sandbox/bad.yaml":  "profile: workspace\nmemory_mb: -1\nbinds:\n  - src: /nonexistent-bwpolicy-ci\n",
		"sandbox/good.yaml": "profile: workspace\n",
	})
	g := goldie.New(t, goldie.WithFixtureDir("testdata"))
	for _, f := range []string{"junit", "gitlab"} {
		r := run(t, dir, env, "check", "--format", f, "sandbox")
		wantCode(t, r, 1)
		g.Assert(t, "check-"+f, []byte(r.stdout))
		switch f {
		case "junit":
			if err := xml.Unmarshal([]byte(r.stdout), new(struct{})); err != nil {
				t.Errorf("junit: %v", err)
			}
		case "gitlab":
			var issues []struct {
				Location struct {
					Path  string
					Lines struct{ Begin int }
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &issues); err != nil || len(issues) == 0 || issues[0].Location.Path != "sandbox/bad.yaml" {
				t.Errorf("gitlab: %v %+v", err, issues)
			}
		}
	}
}
