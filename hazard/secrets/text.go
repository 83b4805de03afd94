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
	for n := 1; text != ""; {
		if n > MaxLines {
			return stop(n)
		}
		line, rest, lines := logicalLine(text)
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
		n += lines
	}
	return out
}

// maxJoined bounds the lines logicalLine joins into one.
const maxJoined = 64

// logicalLine cuts the first logical line off text, as a shell reads
// it: lines ending in a backslash continue on the next (joined with a
// blank), and a command whose here-document (<<WORD) has a single line
// before WORD is read with that line as a here-string (<<< line), so
// that `docker login --password-stdin <<EOF` / PW / `EOF` is one
// command. It returns the line, the rest of text and how many lines it
// took (at most maxJoined, and the line at most MaxLineBytes+1 long).
func logicalLine(text string) (line, rest string, lines int) {
	line, rest, _ = strings.Cut(text, "\n")
	lines = 1
	if !strings.HasSuffix(line, "\\") && !strings.Contains(line, "<<") {
		return line, rest, lines
	}
	joined := line
	for lines < maxJoined && len(joined) <= MaxLineBytes && strings.HasSuffix(line, "\\") && rest != "" {
		line, rest, _ = strings.Cut(rest, "\n")
		joined = joined[:len(joined)-1] + " " + line
		lines++
	}
	if word := hereDocWord(joined); word != "" {
		body, after, _ := strings.Cut(rest, "\n")
		end, next, _ := strings.Cut(after, "\n")
		if strings.TrimSpace(end) == word && len(joined)+len(body) <= MaxLineBytes {
			return joined + " <<< " + body, next, lines + 2
		}
	}
	return joined, rest, lines
}

// hereDocWord returns the delimiter of a here-document the line opens
// (<<WORD, <<-WORD, <<'WORD', <<"WORD"), "" when it opens none.
func hereDocWord(line string) string {
	i := strings.Index(line, "<<")
	if i < 0 || strings.HasPrefix(line[i:], "<<<") {
		return ""
	}
	w := strings.TrimLeft(strings.TrimPrefix(line[i+2:], "-"), " \t")
	w = strings.Trim(strings.Fields(w + " ")[0], `"'`)
	if !isName(w) {
		return ""
	}
	return w
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
	if pgpassLine(t) && !emit(Finding{Rule: RulePgpass, What: RulePgpass.String()}) {
		return false
	}
	return findValue(t, 0, emit)
}

// pgpassLine: t is a line of libpq's password file:
// host:port:database:user:password, five fields without blanks, the
// port digits or '*', the password not empty (a ':' or '\' in a field
// is escaped with '\').
func pgpassLine(t string) bool {
	if strings.ContainsAny(t, " \t") || strings.Count(t, ":") < 4 {
		return false
	}
	f := strings.Split(strings.ReplaceAll(t, `\:`, "_"), ":")
	return len(f) == 5 && f[0] != "" && (f[1] == "*" || isDigits(f[1])) && f[3] != "" && f[4] != ""
}

// passwordLine: t (trimmed) is "password VALUE" or "passwd VALUE" alone
// (a netrc split over lines), or a secret key followed by one quoted
// value (Gradle's `password 'x'`, `token "x"`), also as one statement
// among others on the line (`credentials { username 'u'; password 'p' }`).
func passwordLine(t string) bool {
	if strings.ContainsAny(t, ";{") {
		for _, part := range strings.FieldsFunc(t, func(r rune) bool { return r == ';' || r == '{' || r == '}' }) {
			if p := strings.TrimSpace(part); p != t && passwordStatement(p) {
				return true
			}
		}
	}
	return passwordStatement(t)
}

// passwordStatement is passwordLine on one statement.
func passwordStatement(t string) bool {
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
