package diag

import (
	"bytes"
	"strings"
	"testing"
)

func TestQuoteAndClip(t *testing.T) {
	long := strings.Repeat("é", 1000) // 2 bytes a rune: cuts must not split one
	q := Quote(long)
	if len(q) > MaxQuote+40 || !strings.HasSuffix(q, "… (2000 bytes)") || strings.ContainsRune(q, '\uFFFD') {
		t.Fatalf("Quote: %q", q)
	}
	if Quote("a\x00b") != `"a\x00b"` {
		t.Fatalf("Quote escapes: %q", Quote("a\x00b"))
	}
	c := Clip(strings.Repeat("x", 5000))
	if len(c) > MaxMessage+40 || !strings.HasSuffix(c, "… (4000 more bytes)") {
		t.Fatalf("Clip: %q", c)
	}
	l := List{{Summary: strings.Repeat("y", 3000), Detail: "short"}}
	l.Clip()
	if len(l[0].Summary) > MaxMessage+40 || l[0].Detail != "short" {
		t.Fatalf("List.Clip: %v", l)
	}
}

// TestRenderEscapesAndWindows: a snippet escapes control bytes and
// invalid UTF-8 (a binary file must not reach the terminal raw), shows
// a window of a long line, and keeps the caret under the column.
func TestRenderEscapesAndWindows(t *testing.T) {
	src := []byte("cwd: /a\x1b[2J\xff\x07b\nk: " + strings.Repeat("z", 10000) + "X" + strings.Repeat("z", 10000) + "\n")
	l := List{
		{Severity: Error, Rule: "schema", Summary: "s", Pos: Pos{File: "f", Line: 1, Col: 12}},
		{Severity: Error, Rule: "schema", Summary: "s", Pos: Pos{File: "f", Line: 2, Col: 10004}},
	}
	var b bytes.Buffer
	Render(&b, l, map[string][]byte{"f": src})
	out := b.String()
	//lint:ignore SA1011 the set holds raw bytes on purpose: 0xff is one of the bytes looked for
	if strings.ContainsAny(out, "\x1b\x07\xff") {
		t.Fatalf("raw control bytes in the snippet: %q", out)
	}
	lines := strings.Split(out, "\n")
	if lines[1] != `     1 | cwd: /a\u001b[2J\xff\u0007b` {
		t.Fatalf("escaped line: %q", lines[1])
	}
	// The caret sits under the escaped \xff (column 12 of the source).
	if col := strings.Index(lines[2], "^"); lines[1][col:col+4] != `\xff` {
		t.Fatalf("caret at %d under %q", col, lines[1][col:])
	}
	if len(lines[4]) > 200 || !strings.Contains(lines[4], "X") {
		t.Fatalf("long line not windowed around the column: %d bytes", len(lines[4]))
	}
	if col := strings.Index(lines[5], "^"); []rune(lines[4])[col] != 'X' { // the pad is one space a rune
		t.Fatalf("caret not under X in the window: %q / %q", lines[4], lines[5])
	}
}
