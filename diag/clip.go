package diag

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Bounds on what a diagnostic repeats of its input, so that a 1 MiB value
// yields a one-line message, not a megabyte on the terminal or in a CI log.
const (
	// MaxQuote is the most of a value a diagnostic quotes, in bytes.
	MaxQuote = 200
	// MaxMessage is the longest summary or detail kept, in bytes.
	MaxMessage = 1000
)

// prefix returns the longest prefix of s of at most n bytes that does not
// split a UTF-8 sequence.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Quote quotes s as Go does (non-printable bytes escaped), keeping at
// most MaxQuote bytes of it and saying how long it was when cut.
func Quote(s string) string {
	p := prefix(s, MaxQuote)
	if p == s {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(p), len(s))
}

// Clip cuts s to MaxMessage bytes, saying how much was left out.
func Clip(s string) string {
	p := prefix(s, MaxMessage)
	if p == s {
		return s
	}
	return fmt.Sprintf("%s… (%d more bytes)", p, len(s)-len(p))
}

// ClipBytes is Clip of string(b), converting no more of b than it keeps
// (a SARIF snippet per finding of a 1 MiB line copied the line each).
func ClipBytes(b []byte) string {
	if len(b) <= MaxMessage {
		return string(b)
	}
	p := prefix(string(b[:MaxMessage+utf8.UTFMax]), MaxMessage)
	return fmt.Sprintf("%s… (%d more bytes)", p, len(b)-len(p))
}

// Clip bounds the summary, detail and related messages of every
// diagnostic of l (see Clip); stages whose messages quote input (CUE,
// Rego) are bounded here.
func (l List) Clip() {
	for i := range l {
		l[i].Summary = Clip(l[i].Summary)
		l[i].Detail = Clip(l[i].Detail)
		for j := range l[i].Related {
			l[i].Related[j].Message = Clip(l[i].Related[j].Message)
		}
	}
}
