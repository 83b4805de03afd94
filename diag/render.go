package diag

import (
	"fmt"
	"io"
	"strings"
)

// Render writes each diagnostic as "file:line:col: severity: message
// [RULE]" followed, when the source is known, by the offending line and a
// caret under the column, the way a compiler does.
func Render(w io.Writer, l List, sources map[string][]byte) {
	for _, d := range l {
		fmt.Fprintln(w, d.String())
		src, ok := sources[d.Pos.File]
		if !ok || d.Pos.Line <= 0 {
			continue
		}
		lines := strings.Split(string(src), "\n")
		if d.Pos.Line > len(lines) {
			continue
		}
		line := strings.TrimRight(lines[d.Pos.Line-1], "\r")
		fmt.Fprintf(w, "  %4d | %s\n", d.Pos.Line, line)
		if d.Pos.Col > 0 {
			pad := make([]byte, 0, d.Pos.Col)
			for i := 0; i < d.Pos.Col-1 && i < len(line); i++ {
				if line[i] == '\t' {
					pad = append(pad, '\t')
				} else {
					pad = append(pad, ' ')
				}
			}
			fmt.Fprintf(w, "       | %s^\n", pad)
		}
	}
}
