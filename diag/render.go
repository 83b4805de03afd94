package diag

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// snippetWidth is the most of a source line a snippet shows, in bytes of
// the source, around the column.
const snippetWidth = 160

// Render writes each diagnostic as "file:line:col: severity: message
// [RULE]" followed, when the source is known, by the offending line and a
// caret under the column, the way a compiler does, then the detail as
// "  help: detail", then each related position as "  file:line:col:
// note: message" with its own snippet. A long line is cut to
// a window around the column, and bytes that would disturb a terminal
// (control characters, invalid UTF-8) are escaped.
func Render(w io.Writer, l List, sources map[string][]byte) {
	for _, d := range l {
		fmt.Fprintln(w, d.String())
		renderSnippet(w, d.Pos, sources)
		if d.Detail != "" {
			fmt.Fprintf(w, "  help: %s\n", d.Detail)
		}
		for _, r := range d.Related {
			fmt.Fprintf(w, "  %s: note: %s\n", r.Pos, r.Message)
			renderSnippet(w, r.Pos, sources)
		}
	}
}

// renderSnippet writes the line at pos with a caret under its column,
// when the source is known.
func renderSnippet(w io.Writer, pos Pos, sources map[string][]byte) {
	src, ok := sources[pos.File]
	if !ok || pos.Line <= 0 {
		return
	}
	line, ok := nthLine(src, pos.Line)
	if !ok {
		return
	}
	text, pad := snippet(line, pos.Col)
	fmt.Fprintf(w, "  %4d | %s\n", pos.Line, text)
	if pos.Col > 0 {
		fmt.Fprintf(w, "       | %s^\n", pad)
	}
}

// nthLine returns line n (1-based) of src without its line break, a
// slice of src: finding a line deep in a large file costs one pass over
// it, and nothing is copied (a string conversion of the rest of the file
// per line made a diagnostic at line 20,000 of a 1 MiB file cost seconds
// and hundreds of MiB).
func nthLine(src []byte, n int) ([]byte, bool) {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return nil, false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return bytes.TrimRight(src, "\r"), true
}

// snippet returns the shown part of line, escaped, and the padding that
// puts a caret under column col (1-based, in bytes; 0: none). Only the
// window shown is converted to a string: a diagnostic per entry of one
// long line copies no more than the window each.
func snippet(line []byte, col int) (text, pad string) {
	start, end := 0, len(line)
	if len(line) > snippetWidth {
		start = max(0, min(col-1-snippetWidth/2, len(line)-snippetWidth))
		for start > 0 && !utf8.RuneStart(line[start]) {
			start--
		}
		end = start + snippetWidth
		for end < len(line) && !utf8.RuneStart(line[end]) {
			end++
		}
	}
	window := string(line[start:end])
	var t, p strings.Builder
	if start > 0 {
		t.WriteString("…")
		p.WriteByte(' ')
	}
	for i := 0; i < len(window); {
		r, size := utf8.DecodeRuneInString(window[i:])
		var shown string
		switch {
		case r == '\t':
			shown = "\t"
		case r == utf8.RuneError && size == 1:
			shown = fmt.Sprintf(`\x%02x`, window[i])
		case !unicode.IsPrint(r) && r != ' ':
			shown = fmt.Sprintf(`\u%04x`, r)
		default:
			shown = window[i : i+size]
		}
		t.WriteString(shown)
		if start+i < col-1 {
			if shown == "\t" {
				p.WriteByte('\t')
			} else {
				p.WriteString(strings.Repeat(" ", utf8.RuneCountInString(shown)))
			}
		}
		i += size
	}
	if end < len(line) {
		t.WriteString("…")
	}
	return t.String(), p.String()
}
