package secrets

import "strings"

// Bounds of Scan: a text is examined up to MaxTextBytes, MaxLines lines
// and MaxLineBytes a line; beyond them Scan reports RuleUnexamined, and
// the caller hides what it could not examine. At most MaxFindings are
// returned.
const (
	MaxTextBytes = 1 << 20
	MaxLines     = 1 << 14
	MaxLineBytes = 64 << 10
	MaxFindings  = 32
)

// Find returns the first finding in v (a value or one line), if any.
func Find(v string) (Finding, bool) {
	var first Finding
	found := false
	findLine(v, func(f Finding) bool {
		first, found = f, true
		return false
	})
	return first, found
}

// Scan returns the first finding of each line of text that has one, with
// its line number, at most MaxFindings. A text beyond the bounds
// (MaxTextBytes, MaxLines, MaxLineBytes) ends with a RuleUnexamined
// finding at the line where examining stopped.
func Scan(text string) []Finding {
	var out []Finding
	stop := func(line int) []Finding {
		return append(out, Finding{Rule: RuleUnexamined, What: RuleUnexamined.String(), Line: line})
	}
	if len(text) > MaxTextBytes {
		return stop(1)
	}
	for n := 1; text != ""; n++ {
		if n > MaxLines {
			return stop(n)
		}
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if len(line) > MaxLineBytes {
			return stop(n)
		}
		if f, ok := Find(line); ok {
			f.Line = n
			if out = append(out, f); len(out) == MaxFindings {
				return out
			}
		}
	}
	return out
}

// findLine applies the line rules (a comment's text too: it is as
// readable) and then the value and word rules to one line.
func findLine(line string, emit func(Finding) bool) bool {
	t := strings.TrimLeft(line, " \t#")
	if len(t) < 3 {
		return true
	}
	if k, v, ok := strings.Cut(t, "="); ok && strings.EqualFold(strings.TrimSpace(k), "helper") {
		if p := helperStoreFile(v); p != "" { // git's [credential] helper = store --file FILE
			if !emit(Finding{Rule: RuleCredentialStore, What: RuleCredentialStore.String(), Path: p}) {
				return false
			}
		}
	}
	if passwordLine(t) && !emit(Finding{Rule: RulePasswordLine, What: RulePasswordLine.String()}) {
		return false
	}
	return findValue(t, 0, emit)
}

// passwordLine: t (trimmed) is "password VALUE" or "passwd VALUE" alone
// (a netrc split over lines), or a secret key followed by one quoted
// value (Gradle's `password 'x'`, `token "x"`).
func passwordLine(t string) bool {
	key, val, ok := strings.Cut(strings.TrimRight(t, " \t\r;"), " ")
	val = strings.TrimSpace(val)
	if !ok || val == "" || reference(val) || val[0] == '=' || val[0] == ':' {
		return false
	}
	if (key == "password" || key == "passwd") && !strings.ContainsAny(val, " \t") {
		return true
	}
	q := val[0]
	return len(val) > 2 && (q == '\'' || q == '"') && val[len(val)-1] == q && strings.IndexByte(val[1:len(val)-1], q) < 0 &&
		len(key) <= 24 && secretKey(key)
}
