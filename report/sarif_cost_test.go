package report

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/bwpolicy/bwpolicy/diag"
)

// TestSARIFSnippetCostIsTheClip: a SARIF snippet copies the part of the
// line it keeps, not the line: 1000 findings on one 1 MB line allocate
// a bounded amount (before, each copied the line: 266 MiB of peak RSS
// for check --format sarif of a 0.9 MB settings file), and the snippet
// is the line clipped as diag.Clip clips it.
func TestSARIFSnippetCostIsTheClip(t *testing.T) {
	line := "hide: [" + strings.Repeat(`"xxxxxxxxxx",`, 80_000) + "]"
	r := &Report{Inputs: []string{"f.yaml"}, Sources: map[string][]byte{"f.yaml": []byte(line + "\n")}}
	for i := 0; i < 1000; i++ {
		r.Findings = append(r.Findings, diag.Diagnostic{Severity: diag.Error, Rule: "schema", Pos: diag.Pos{File: "f.yaml", Line: 1, Col: 8 + 13*i}, Summary: "x"})
	}
	var out strings.Builder
	if err := SARIF(&out, &Report{Inputs: r.Inputs, Sources: r.Sources, Findings: r.Findings[:1]}); err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(diag.Clip(line), `"`, `\"`); !strings.Contains(out.String(), want) {
		t.Fatalf("snippet is not the clipped line %q", want[:40])
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := SARIF(io.Discard, r); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("1000 findings on one 1 MB line allocated %d MiB", got>>20)
	}
}
