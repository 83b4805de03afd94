package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/diag"
)

// relatedSample is a report with one finding that has two related
// positions: one in a file the check read, one in bwpolicy's own schema.
func relatedSample() *Report {
	r := &Report{Tool: Tool{Name: "bwpolicy"}, Inputs: []string{"profiles/twice.cue"},
		Sources: map[string][]byte{"profiles/twice.cue": []byte("name: \"twice\"\ncwd_writable: true\ncwd_writable: false\n")}}
	r.Findings = diag.List{{Severity: diag.Error, Rule: "profile", Summary: "cwd_writable: conflicting values true and false",
		Pos: diag.Pos{File: "profiles/twice.cue", Line: 2, Col: 15},
		Related: []diag.Related{
			{Pos: diag.Pos{File: "profiles/twice.cue", Line: 3, Col: 15}, Message: "the other value"},
			{Pos: diag.Pos{File: "schema/sandbox.cue", Line: 16, Col: 16}, Message: "the value bwpolicy's shared definition #Profile sets"},
		}}}
	return r
}

// TestJSONRelated: --format json carries each related position with its
// file, line, column and message, in order, and validates against the
// schema; a finding without any has no "related" field.
func TestJSONRelated(t *testing.T) {
	out := write(t, "json", relatedSample())
	validateFindings(t, out)
	var env struct {
		Findings []struct {
			Related []RelatedPosition `json:"related"`
		}
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	want := []RelatedPosition{
		{File: "profiles/twice.cue", Line: 3, Column: 15, Message: "the other value"},
		{File: "schema/sandbox.cue", Line: 16, Column: 16, Message: "the value bwpolicy's shared definition #Profile sets"},
	}
	if len(env.Findings) != 1 || len(env.Findings[0].Related) != 2 || env.Findings[0].Related[0] != want[0] || env.Findings[0].Related[1] != want[1] {
		t.Errorf("related: %+v\n%s", env.Findings, out)
	}
	if plain := write(t, "json", sample(false)); strings.Contains(string(plain), `"related"`) {
		t.Errorf("findings without related positions have a related field:\n%s", plain)
	}
}

// TestGitHubRelated: --format github puts the related positions into
// the finding's own annotation, as note lines after the message (one
// workflow command, escaped newlines), not as annotations of their own.
func TestGitHubRelated(t *testing.T) {
	out := string(write(t, "github", relatedSample()))
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one command and the summary, got:\n%s", out)
	}
	want := "::error file=profiles/twice.cue,line=2,col=15,title=profile::cwd_writable: conflicting values true and false" +
		"%0Aprofiles/twice.cue:3:15: note: the other value" +
		"%0Aschema/sandbox.cue:16:16: note: the value bwpolicy's shared definition #Profile sets"
	if lines[0] != want {
		t.Errorf("github:\n got %s\nwant %s", lines[0], want)
	}
}

// TestJUnitRelated: a JUnit failure's body lists the related positions
// the way the text format does.
func TestJUnitRelated(t *testing.T) {
	out := string(write(t, "junit", relatedSample()))
	for _, want := range []string{"profiles/twice.cue:3:15: note: the other value", "schema/sandbox.cue:16:16: note: the value"} {
		if !strings.Contains(out, want) {
			t.Errorf("junit lacks %q:\n%s", want, out)
		}
	}
}
