package diag

import (
	"bytes"
	"testing"
)

func TestSortOrdersByPositionAndDropsDuplicates(t *testing.T) {
	l := List{
		{Rule: "R3", Summary: "b", Pos: Pos{File: "b.yaml", Line: 1, Col: 1}},
		{Rule: "R1", Summary: "a", Pos: Pos{File: "a.yaml", Line: 9, Col: 2}},
		{Rule: "R1", Summary: "a", Pos: Pos{File: "a.yaml", Line: 9, Col: 2}},
		{Rule: "R9", Summary: "c", Pos: Pos{File: "a.yaml", Line: 2, Col: 7}},
	}
	l.Sort()
	got := []string{}
	for _, d := range l {
		got = append(got, d.Pos.String())
	}
	want := []string{"a.yaml:2:7", "a.yaml:9:2", "b.yaml:1:1"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestRenderSnippetAndCaret(t *testing.T) {
	src := []byte("profile: workspace\n\tmemory_mb: -1\n")
	l := List{{Severity: Error, Rule: "schema", Path: "memory_mb", Summary: "minimum: got -1, want 0",
		Pos: Pos{File: "s.yaml", Line: 2, Col: 13}}}
	var b bytes.Buffer
	Render(&b, l, map[string][]byte{"s.yaml": src})
	want := "s.yaml:2:13: error: memory_mb: minimum: got -1, want 0 [schema]\n" +
		"     2 | \tmemory_mb: -1\n" +
		"       | \t           ^\n"
	if b.String() != want {
		t.Fatalf("got:\n%q\nwant:\n%q", b.String(), want)
	}
}

func TestSeverityAndFilters(t *testing.T) {
	l := List{{Severity: Warning, Summary: "w"}, {Severity: Error, Summary: "e"}}
	if !l.HasErrors() || len(l.Errors()) != 1 || len(l.Warnings()) != 1 {
		t.Fatal("filters wrong")
	}
	if Warning.String() != "warning" || Error.String() != "error" {
		t.Fatal("severity names")
	}
	if (Pos{File: "f"}).String() != "f" || (Pos{File: "f", Line: 3}).String() != "f:3" {
		t.Fatal("pos rendering")
	}
}

// TestRenderDetailAndRelated: the detail follows the snippet as a help
// line, each related position as a note with its own snippet.
func TestRenderDetailAndRelated(t *testing.T) {
	src := []byte("a: 1\na: 2\n")
	l := List{{Severity: Error, Rule: "cue", Summary: "conflicting values 2 and 1", Detail: "keep one",
		Pos:     Pos{File: "p.cue", Line: 2, Col: 4},
		Related: []Related{{Pos: Pos{File: "p.cue", Line: 1, Col: 4}, Message: "the other value"}, {Pos: Pos{File: "elsewhere.cue", Line: 7, Col: 1}, Message: "a third"}}}}
	var b bytes.Buffer
	Render(&b, l, map[string][]byte{"p.cue": src})
	want := "p.cue:2:4: error: conflicting values 2 and 1 [cue]\n" +
		"     2 | a: 2\n" +
		"       |    ^\n" +
		"  help: keep one\n" +
		"  p.cue:1:4: note: the other value\n" +
		"     1 | a: 1\n" +
		"       |    ^\n" +
		"  elsewhere.cue:7:1: note: a third\n"
	if b.String() != want {
		t.Fatalf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestSortKeepsDiagnosticsDifferingInRelated: two diagnostics that differ
// only in their related positions are both kept.
func TestSortKeepsDiagnosticsDifferingInRelated(t *testing.T) {
	d := Diagnostic{Rule: "cue", Summary: "x", Pos: Pos{File: "a", Line: 1}}
	e := d
	e.Related = []Related{{Pos: Pos{File: "b", Line: 2}}}
	l := List{d, e, e}
	l.Sort()
	if len(l) != 2 {
		t.Fatalf("%d diagnostics", len(l))
	}
}
