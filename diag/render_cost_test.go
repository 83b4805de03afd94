package diag

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestRenderCostIsTheWindow: rendering a diagnostic copies the window it
// shows, not the file: one at the last line of a 1 MiB file of short
// lines, and one per entry of a 1 MiB line, each allocate a bounded
// amount (before, each line skipped copied the rest of the file, and
// each diagnostic the whole line: a settings file refused at line
// 20,000 took 6 s and 600 MiB under check's text format).
func TestRenderCostIsTheWindow(t *testing.T) {
	short := []byte(strings.Repeat("k: 1\n", 200_000)) // 1 MB, 200,000 lines
	long := []byte("hide: [" + strings.Repeat(`"xxxxxxxxxx",`, 80_000) + "]\n")
	cases := []struct {
		name  string
		src   []byte
		diags List
		// maxAlloc bounds the bytes allocated rendering them all.
		maxAlloc uint64
	}{
		{"last_line_of_many", short, List{{Severity: Error, Rule: "yaml", Pos: Pos{File: "f", Line: 200_000, Col: 2}, Summary: "x"}}, 64 << 10},
		{"one_per_entry_of_a_long_line", long, perColumn(1000, 13), 4 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sources := map[string][]byte{"f": c.src}
			var out bytes.Buffer
			Render(&out, c.diags[:1], sources) // warm up
			if !strings.Contains(out.String(), "^") {
				t.Fatalf("no snippet rendered: %q", out.String())
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			Render(io.Discard, c.diags, sources)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > c.maxAlloc {
				t.Errorf("rendering %d diagnostics allocated %d bytes, want at most %d", len(c.diags), got, c.maxAlloc)
			}
		})
	}
}

// perColumn is n diagnostics on line 1 of file "f", every step bytes.
func perColumn(n, step int) List {
	var l List
	for i := 0; i < n; i++ {
		l = append(l, Diagnostic{Severity: Error, Rule: "schema", Pos: Pos{File: "f", Line: 1, Col: 8 + i*step}, Summary: "x"})
	}
	return l
}
